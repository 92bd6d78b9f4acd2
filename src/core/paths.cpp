// Shortest paths and cycles by a breadth-first search in bfs() order (paths.hpp).
#include "paths.hpp"
#include "error.hpp"
#include "pruning.hpp"

#include <algorithm>

namespace grail {

namespace {

void
check_vertex(const Csr &graph, vid_t v) {
	if (v >= graph.vertex_count())
		throw Error(ErrorKind::invalid_input, "path endpoint is not a vertex of the graph");
}

// Breadth-first from source, in bfs()'s order (levels ascending by vertex, a vertex's parent its
// first discoverer: the smallest at the level above), over the vertices keep(w) admits (source
// always), until an edge u->target is met. Returns that u, the first in that order (so the smallest
// at the least depth), or kNoVertex. scratch.parent holds the parents of the vertices seen.
template <class Keep>
vid_t
search(const Csr &graph, vid_t source, vid_t target, PathFinder::Scratch &scratch, Keep &&keep) {
	size_t n = graph.vertex_count();
	if (!scratch.parent)
		scratch.parent.reset(new vid_t[n]);
	scratch.seen.start(n);
	scratch.seen.visit(source);
	scratch.parent[source] = kNoVertex;
	scratch.level.assign(1, source);
	size_t steps = 0;
	while (!scratch.level.empty()) {
		scratch.next.clear();
		for (vid_t u : scratch.level) {
			for (const vid_t *w = graph.begin(u); w != graph.end(u); w++) {
				if ((++steps & 0xFFFF) == 0)
					poll_cancel();
				if (*w == target)
					return u;
				if (!scratch.seen.visit(*w))
					continue;
				scratch.parent[*w] = u;
				if (keep(*w))
					scratch.next.push_back(*w);
			}
		}
		std::sort(scratch.next.begin(), scratch.next.end());
		scratch.level.swap(scratch.next);
	}
	return kNoVertex;
}

// source ... last, target: the parent chain of last, then target.
std::vector<vid_t>
chain(const PathFinder::Scratch &scratch, vid_t last, vid_t target) {
	std::vector<vid_t> path{target};
	for (vid_t v = last; v != kNoVertex; v = scratch.parent[v])
		path.push_back(v);
	std::reverse(path.begin(), path.end());
	return path;
}

} // namespace

PathFinder::PathFinder(const Index &index) : index_(index), query_(index) {
}

std::vector<vid_t>
PathFinder::shortest_path(vid_t a, vid_t b) {
	const Csr &graph = index_.graph().out;
	check_vertex(graph, a);
	check_vertex(graph, b);
	if (a == b)
		return {a};
	const Array<uint32_t> &component = index_.components().of_vertex;
	const uint32_t cb = component[b];
	if (!query_.reachable_components(component[a], cb))
		return {};
	// Only vertices whose component may reach b's are expanded: components are numbered
	// topologically, and the labels' necessary conditions rule out most of the others.
	const BloomLabels &bloom = index_.bloom();
	const GrailLabels &labels = index_.labels();
	const BloomRecord &bt = bloom.record(cb);
	const uint32_t *rt = labels.record(cb);
	const unsigned d = labels.label_count();
	auto keep = [&](vid_t w) {
		uint32_t c = component[w];
		if (c == cb)
			return true;
		if (c > cb)
			return false;
		return pruning::step(bloom.record(c), labels.record(c), bt, rt, d) != pruning::Step::prune;
	};
	vid_t last = search(graph, a, b, scratch_, keep);
	if (last == kNoVertex)
		throw Error(ErrorKind::internal, "the index says a vertex reaches another that no path reaches");
	return chain(scratch_, last, b);
}

std::vector<vid_t>
PathFinder::shortest_cycle(vid_t v) {
	const Csr &graph = index_.graph().out;
	check_vertex(graph, v);
	const Array<uint32_t> &component = index_.components().of_vertex;
	const uint32_t cv = component[v];
	// No successor in its component: alone there, so on no cycle (the graph has no self-loops).
	if (std::none_of(graph.begin(v), graph.end(v), [&](vid_t w) { return component[w] == cv; }))
		return {};
	vid_t last = search(graph, v, v, scratch_, [&](vid_t w) { return component[w] == cv; });
	if (last == kNoVertex)
		return {};
	return chain(scratch_, last, v);
}

std::vector<vid_t>
shortest_path(const Csr &graph, vid_t a, vid_t b) {
	check_vertex(graph, a);
	check_vertex(graph, b);
	if (a == b)
		return {a};
	PathFinder::Scratch scratch;
	vid_t last = search(graph, a, b, scratch, [](vid_t) { return true; });
	return last == kNoVertex ? std::vector<vid_t>{} : chain(scratch, last, b);
}

std::vector<vid_t>
shortest_cycle(const Csr &graph, vid_t v) {
	check_vertex(graph, v);
	PathFinder::Scratch scratch;
	vid_t last = search(graph, v, v, scratch, [](vid_t) { return true; });
	return last == kNoVertex ? std::vector<vid_t>{} : chain(scratch, last, v);
}

} // namespace grail
