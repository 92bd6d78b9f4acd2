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

void
PathFinder::Balls::start(size_t count) {
	if (!slots) {
		slots.reset(new DepthSlot[std::max<size_t>(count, 1)]());
		slot_count = std::max<size_t>(count, 1);
		epoch = 0;
	}
	if (++epoch == 0) {
		std::fill(slots.get(), slots.get() + count, DepthSlot{});
		epoch = 1;
	}
}

PathFinder::PathFinder(const Index &index, std::function<const Csr &()> in_edges)
    : index_(index), in_edges_(std::move(in_edges)) {
}

size_t
PathFinder::scratch_bytes() const noexcept {
	const Balls &b = balls_;
	return b.slot_count * sizeof(DepthSlot) +
	       (b.forward.capacity() + b.backward.capacity() + b.next.capacity() + b.layers.capacity()) * sizeof(vid_t) +
	       (b.layer_start.capacity() + b.layer_work.capacity()) * sizeof(size_t);
}

void
PathFinder::release_scratch() noexcept {
	balls_ = Balls();
}

const Csr &
PathFinder::in_edges() {
	if (in_edges_)
		return in_edges_();
	if (!own_in_edges_)
		own_in_edges_ = std::make_unique<const Csr>(index_.graph().out.reversed());
	return *own_in_edges_;
}

template <class KeepForward, class KeepBackward>
std::vector<vid_t>
PathFinder::bidirectional(vid_t a, vid_t b, KeepForward &&keep_forward, KeepBackward &&keep_backward) {
	const Csr &out = index_.graph().out;
	const Csr &in = in_edges();
	const size_t n = out.vertex_count();
	balls_.start(n);
	Depths fd(balls_.slots.get(), 0, balls_.epoch), bd(balls_.slots.get(), 1, balls_.epoch);
	std::vector<vid_t> &forward = balls_.forward, &backward = balls_.backward, &next = balls_.next;
	// The backward side's levels, kept for the second pass: level j's vertices at layers[start[j]]
	// onwards, and the in-edges their expansion scans (level 0: b).
	std::vector<vid_t> &layers = balls_.layers;
	std::vector<size_t> &layer_start = balls_.layer_start, &layer_work = balls_.layer_work;
	fd.mark(a, 0);
	bd.mark(b, 0);
	forward.assign(1, a);
	backward.assign(1, b);
	uint32_t df = 0, db = 0; // the depth of each side's frontier: each ball is complete to it
	size_t steps = 0;
	layers.assign(1, b);
	layer_start.assign(1, 0);
	// One level of one side: its frontier's neighbours over `edges`, marked in `mine` at `depth`;
	// true when one is in the other ball, or is the other side's end (`end`: b for the forward
	// side, a for the backward one; with a == b, a cycle, the end is v in its other role, which its
	// mark as this side's start hides, so it is met by its index). The new frontier holds those
	// that side expands, and the meeting vertices (which it would expand: they reach b, or a
	// reaches them), the other end left out; sorted, for the locality of the next level's reads
	// alone (the tie rule is applied at the end, from the depths); `work` becomes the edges its
	// expansion will scan.
	size_t forward_work = out.end(a) - out.begin(a), backward_work = in.end(b) - in.begin(b);
	layer_work.assign(1, backward_work);
	auto expand = [&](const Csr &edges, std::vector<vid_t> &frontier, size_t &work, Depths &mine, const Depths &theirs,
	                  uint32_t depth, vid_t end, auto &&keep) {
		bool met = false;
		next.clear();
		work = 0;
		for (vid_t u : frontier)
			for (const vid_t *w = edges.begin(u); w != edges.end(u); w++) {
				if ((++steps & 0xFFFF) == 0)
					poll_cancel();
				if (*w == end) {
					met = true;
					continue;
				}
				if (!mine.mark(*w, depth))
					continue;
				if (theirs.marked(*w) || keep(*w)) {
					met = met || theirs.marked(*w);
					next.push_back(*w);
					work += edges.end(*w) - edges.begin(*w);
				}
			}
		std::sort(next.begin(), next.end());
		frontier.swap(next);
		return met;
	};
	for (;;) {
		// A side with nothing left to expand: no vertex it could still reach meets the other ball
		// (its rule drops only vertices off every path from a to b), so a does not reach b.
		if (forward.empty() || backward.empty())
			return {};
		if (forward_work <= backward_work) {
			counts_.search_edges += forward_work;
			if (expand(out, forward, forward_work, fd, bd, ++df, b, keep_forward))
				break;
		} else {
			counts_.search_edges += backward_work;
			bool met = expand(in, backward, backward_work, bd, fd, ++db, a, keep_backward);
			layer_start.push_back(layers.size());
			layers.insert(layers.end(), backward.begin(), backward.end());
			layer_work.push_back(backward_work);
			if (met)
				break;
		}
	}
	// No meeting before this level, one at it: the distance is df + db, and the vertices of S at the
	// forward depth df are the forward frontier's at backward depth db (a alone at depth 0).
	const uint32_t distance = df + db;
	std::vector<vid_t> &level = forward;
	if (df == 0)
		level.assign(1, a);
	else
		level.erase(std::remove_if(level.begin(), level.end(),
		                           [&](vid_t u) { return !bd.marked(u) || bd.depth(u) != distance - df; }),
		            level.end());
	// The rest of S, depth by depth, over the backward ball (S at depth `distance` is b alone): S at
	// depth k + 1 is the vertices at backward depth j = distance - k - 1 with an in-neighbour in S at
	// depth k (such a vertex w has d(a, w) <= k + 1 and d(w, b) = j, so d(a, w) = k + 1 exactly).
	// Found from whichever side scans fewer edges: the out-edges of S at depth k (to vertices at
	// backward depth j), or the in-edges of the backward ball's level j (the side's kept frontier:
	// S's vertices there reach b and are reached from a, so no rule left them out), each until one
	// from S at depth k. At k = df, S's vertices are the forward level df's with an edge to level j:
	// a forward depth of df marks only them. Past df, the marks at depth k are this pass's.
	for (uint32_t k = df; k + 1 < distance; k++) {
		const uint32_t j = distance - k - 1;
		size_t out_work = 0;
		for (vid_t u : level)
			out_work += out.end(u) - out.begin(u);
		counts_.out_pass_edges += out_work;
		next.clear();
		if (out_work <= layer_work[j]) {
			counts_.out_levels++;
			counts_.pass_edges += out_work;
			for (vid_t u : level)
				for (const vid_t *w = out.begin(u); w != out.end(u); w++) {
					if ((++steps & 0xFFFF) == 0)
						poll_cancel();
					if (*w != b && bd.marked(*w) && bd.depth(*w) == j && fd.mark(*w, k + 1))
						next.push_back(*w);
				}
		} else {
			counts_.in_levels++;
			const size_t end = j + 1 < layer_start.size() ? layer_start[j + 1] : layers.size();
			for (size_t i = layer_start[j]; i < end; i++) {
				vid_t w = layers[i];
				if (bd.depth(w) != j || fd.marked(w))
					continue;
				for (const vid_t *u = in.begin(w); u != in.end(w); u++) {
					counts_.pass_edges++;
					if ((++steps & 0xFFFF) == 0)
						poll_cancel();
					if (fd.marked(*u) && fd.depth(*u) == k) {
						fd.mark(w, k + 1);
						next.push_back(w);
						break;
					}
				}
			}
		}
		level.swap(next);
	}
	// Backwards from b: each vertex's smallest in-neighbour at the depth above (in-edges ascend).
	std::vector<vid_t> path(distance + 1);
	path[distance] = b;
	for (uint32_t k = distance; k > 0; k--) {
		vid_t v = path[k];
		const vid_t *u = in.begin(v);
		while (u != in.end(v) && !(fd.marked(*u) && fd.depth(*u) == k - 1))
			u++;
		if (u == in.end(v))
			throw Error(ErrorKind::internal, "a vertex on a shortest path has no predecessor on one");
		path[k - 1] = *u;
	}
	return path;
}

std::vector<vid_t>
PathFinder::shortest_path(vid_t a, vid_t b) {
	const Csr &out = index_.graph().out;
	counts_ = Counts{};
	check_vertex(out, a);
	check_vertex(out, b);
	if (a == b)
		return {a};
	const Array<uint32_t> &component = index_.components().of_vertex;
	const uint32_t ca = component[a], cb = component[b];
	// What each side expands: components are numbered topologically (an edge never goes to a
	// smaller number), and the labels' necessary conditions rule out most of the rest.
	const BloomLabels &bloom = index_.bloom();
	const GrailLabels &labels = index_.labels();
	const unsigned d = labels.label_count();
	const BloomRecord &ba = bloom.record(ca), &bb = bloom.record(cb);
	const uint32_t *ra = labels.record(ca), *rb = labels.record(cb);
	// The pair's own labels rule out most unreachable pairs. The rest go straight to the
	// bidirectional search, which ends empty-handed when a does not reach b: a reachability search
	// first (the index's DFS) would cost a reachable pair, the usual one, as much again.
	if (ca > cb || (ca != cb && pruning::step(ba, ra, bb, rb, d) == pruning::Step::prune))
		return {};
	// The labels' test costs a vertex two cache misses (its Bloom and GRAIL records), which pay only
	// where they prune: a side whose first kSample tests pruned fewer than one in kRatio expands
	// without them from then on (the topological bound, free, stays). Pruning only narrows the
	// balls; a vertex it would have left out reaches no shortest path's vertex, so the answer is the
	// same either way.
	constexpr uint32_t kSample = 256, kRatio = 16;
	struct Tests {
		uint32_t made = 0, pruned = 0;
		bool
		worth() const noexcept {
			return made < kSample || pruned * kRatio >= made;
		}
	} forward_tests, backward_tests;
	auto reaches_b = [&](vid_t w) {
		uint32_t c = component[w];
		if (c == cb)
			return true;
		if (c > cb)
			return false;
		if (!forward_tests.worth())
			return true;
		forward_tests.made++;
		bool keep = pruning::step(bloom.record(c), labels.record(c), bb, rb, d) != pruning::Step::prune;
		forward_tests.pruned += !keep;
		return keep;
	};
	auto reached_from_a = [&](vid_t w) {
		uint32_t c = component[w];
		if (c == ca)
			return true;
		if (c < ca)
			return false;
		if (!backward_tests.worth())
			return true;
		backward_tests.made++;
		bool keep = pruning::step(ba, ra, bloom.record(c), labels.record(c), d) != pruning::Step::prune;
		backward_tests.pruned += !keep;
		return keep;
	};
	return bidirectional(a, b, reaches_b, reached_from_a);
}

std::vector<vid_t>
PathFinder::shortest_cycle(vid_t v) {
	const Csr &graph = index_.graph().out;
	counts_ = Counts{};
	check_vertex(graph, v);
	const Array<uint32_t> &component = index_.components().of_vertex;
	const uint32_t cv = component[v];
	// No successor in its component: alone there, so on no cycle (the graph has no self-loops).
	// Otherwise its component is strongly connected with two vertices or more: a cycle exists, and
	// never leaves the component.
	if (std::none_of(graph.begin(v), graph.end(v), [&](vid_t w) { return component[w] == cv; }))
		return {};
	auto inside = [&](vid_t w) { return component[w] == cv; };
	return bidirectional(v, v, inside, inside);
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
