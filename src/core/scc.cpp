#include "scc.hpp"
#include "error.hpp"
#include "parallel.hpp"
#include "topo_order.hpp"

#include <algorithm>

namespace grail {

// Tarjan's algorithm, iterative, in one word pair per vertex: its discovery index and low-link
// while it is on the stack, then (kDone, its component's completion number), so that an edge's
// head costs one read (no separate on-stack flag, no second array of completion numbers), and a
// frame keeps its vertex's end of edges. The components and their numbering are exactly the
// classic formulation's.
Components
strongly_connected_components(const Csr &graph) {
	size_t n = graph.vertex_count();
	constexpr uint32_t kUnvisited = UINT32_MAX;
	constexpr uint32_t kDone = UINT32_MAX - 1; // indexes stay below it: n <= 2^32 - 2
	struct Node {
		uint32_t index; // discovery order; kUnvisited, or kDone once its component is complete
		uint32_t low;   // Tarjan's low-link; once done, its component in completion order
	};
	std::vector<Node> node(n, Node{kUnvisited, 0});
	std::vector<vid_t> scc_stack;
	struct Frame {
		vid_t v;
		eid_t next; // next edge offset to examine
		eid_t end;
	};
	std::vector<Frame> call;
	const eid_t *offsets = graph.offsets.data();
	const vid_t *targets = graph.targets.data();
	uint32_t counter = 0, completed = 0;
	std::vector<vid_t> smallest_rev;
	size_t steps = 0;
	// A vertex's first heads (and where their own edges are) asked of memory as it is entered, the
	// later ones a few edges ahead: on a graph numbered in no order of its edges every head is a
	// cache miss, and the search would otherwise wait for each in turn.
	constexpr eid_t kAhead = 8;
	auto enter = [&](vid_t v) {
		eid_t begin = offsets[v], end = offsets[v + 1];
		for (eid_t e = begin; e < end && e < begin + kAhead; e++) {
			__builtin_prefetch(&node[targets[e]]);
			__builtin_prefetch(&offsets[targets[e]]);
		}
		call.push_back({v, begin, end});
	};

	for (size_t root = 0; root < n; root++) {
		if (node[root].index != kUnvisited)
			continue;
		node[root] = Node{counter, counter};
		counter++;
		scc_stack.push_back(vid_t(root));
		enter(vid_t(root));
		while (!call.empty()) {
			if ((++steps & 0xFFFF) == 0)
				poll_cancel();
			Frame &f = call.back();
			if (f.next < f.end) {
				if (f.next + kAhead < f.end) {
					__builtin_prefetch(&node[targets[f.next + kAhead]]);
					__builtin_prefetch(&offsets[targets[f.next + kAhead]]);
				}
				vid_t w = targets[f.next++];
				Node &head = node[w];
				if (head.index == kUnvisited) {
					head = Node{counter, counter};
					counter++;
					scc_stack.push_back(w);
					enter(w);
				} else if (head.index != kDone) {
					Node &tail = node[f.v];
					tail.low = std::min(tail.low, head.index);
				}
				continue;
			}
			// v is finished: pop its component if it is a root, else fold its low-link into the
			// parent's (a root's is its own index, above the parent's low-link: nothing to fold).
			vid_t v = f.v;
			call.pop_back();
			Node &finished = node[v];
			if (finished.low == finished.index) {
				vid_t smallest = v;
				vid_t w;
				do {
					w = scc_stack.back();
					scc_stack.pop_back();
					node[w] = Node{kDone, completed};
					smallest = std::min(smallest, w);
				} while (w != v);
				smallest_rev.push_back(smallest);
				completed++;
			} else if (!call.empty()) {
				Node &parent = node[call.back().v];
				parent.low = std::min(parent.low, finished.low);
			}
		}
	}
	// Tarjan completes sink components first; reversing gives a topological numbering.
	Components c;
	c.of_vertex.resize(n);
	uint32_t *of_vertex = c.of_vertex.data();
	for (size_t v = 0; v < n; v++)
		of_vertex[v] = completed - 1 - node[v].low;
	c.smallest_vertex.assign(smallest_rev.rbegin(), smallest_rev.rend());
	return c;
}

// The condensation where every component is one vertex (a DAG's graph): the graph renumbered.
// Each component's list is made in component order from its vertex's list (a self-loop dropped),
// without the general case's pairs and their sort by source. Vertices come at random: where lists
// lie and the components of their targets are asked for a few components ahead. Components from
// elsewhere (a GPU's) are checked as the general case's pairs are. With helpers, each thread makes
// the lists of a range of components in a buffer of its own, then copies it after the ranges
// before it: the same DAG whatever the number of threads.
static Csr
condensation_of_singletons(const Csr &graph, const Components &components, unsigned helpers) {
	size_t n = graph.vertex_count();
	const uint32_t *of_vertex = components.of_vertex.data();
	const vid_t *vertex_of = components.smallest_vertex.data();
	const eid_t *offsets = graph.offsets.data();
	const vid_t *targets = graph.targets.data();
	for (size_t v = 0; v < n; v++)
		if (of_vertex[v] >= n || vertex_of[v] >= n) // read ahead below, before their use
			throw Error(ErrorKind::internal, "condensation: a component or its vertex out of range");
	if (graph.edge_count() < kFewestItemsToSplit)
		helpers = 0;
	Csr dag;
	dag.offsets.resize(n + 1);
	eid_t *out_offsets = dag.offsets.data();
	// Range k's lists, and its offsets counted from its own start.
	std::vector<std::vector<vid_t>> lists(size_t(helpers) + 1);
	for_ranges(n, helpers, [&](size_t k, size_t first, size_t last) {
		std::vector<vid_t> &out = lists[k];
		eid_t edges = 0;
		for (size_t c = first; c < last; c++)
			edges += offsets[vertex_of[c] + 1] - offsets[vertex_of[c]];
		out.resize(edges);
		constexpr size_t kListsAhead = 16, kTargetsAhead = 4;
		eid_t write = 0;
		for (size_t c = first; c < last; c++) {
			if (c % 4096 == 0)
				poll_cancel();
			if (c + kListsAhead < last)
				__builtin_prefetch(offsets + vertex_of[c + kListsAhead]);
			if (c + kListsAhead / 2 < last)
				__builtin_prefetch(targets + offsets[vertex_of[c + kListsAhead / 2]]);
			if (c + kTargetsAhead < last) {
				vid_t ahead = vertex_of[c + kTargetsAhead];
				for (eid_t e = offsets[ahead]; e < offsets[ahead + 1]; e++)
					__builtin_prefetch(of_vertex + targets[e]);
			}
			vid_t v = vertex_of[c];
			eid_t begin = write;
			for (eid_t e = offsets[v]; e < offsets[v + 1]; e++) {
				uint32_t cw = of_vertex[targets[e]];
				if (cw != c)
					out[write++] = cw;
			}
			std::sort(out.data() + begin, out.data() + write);
			write = eid_t(std::unique(out.data() + begin, out.data() + write) - out.data()); // none in a graph's lists
			out_offsets[c] = begin;
		}
		out.resize(write);
	});
	std::vector<eid_t> range_start(lists.size() + 1, 0);
	for (size_t k = 0; k < lists.size(); k++)
		range_start[k + 1] = range_start[k] + lists[k].size();
	dag.targets.resize(range_start.back());
	for_ranges(n, helpers, [&](size_t k, size_t first, size_t last) {
		std::copy(lists[k].begin(), lists[k].end(), dag.targets.data() + range_start[k]);
		std::vector<vid_t>().swap(lists[k]);
		for (size_t c = first; c < last; c++)
			out_offsets[c] += range_start[k];
	});
	out_offsets[n] = range_start.back();
	return dag;
}

Csr
condensation(const Csr &graph, const Components &components, unsigned helpers) {
	size_t n = graph.vertex_count();
	if (components.count() == n)
		return condensation_of_singletons(graph, components, helpers);
	const uint32_t *of_vertex = components.of_vertex.data();
	const eid_t *offsets = graph.offsets.data();
	const vid_t *targets = graph.targets.data();
	// Room for every edge at once (growing would copy the pairs over and over); a graph of few
	// components has few edges between them, so the room is given back before the CSR is made.
	std::vector<vid_t> source(graph.edge_count()), target(graph.edge_count());
	size_t k = 0;
	for (size_t v = 0; v < n; v++) {
		if (v % 4096 == 0)
			poll_cancel();
		uint32_t cv = of_vertex[v];
		for (eid_t e = offsets[v]; e < offsets[v + 1]; e++) {
			uint32_t cw = of_vertex[targets[e]];
			if (cv != cw) {
				source[k] = cv;
				target[k] = cw;
				k++;
			}
		}
	}
	source.resize(k);
	target.resize(k);
	if (k < graph.edge_count() / 2) {
		source.shrink_to_fit();
		target.shrink_to_fit();
	}
	return Csr::from_pairs(components.count(), source, target, true);
}

Components
number_components(const Csr &graph, const std::vector<vid_t> &label) {
	size_t n = graph.vertex_count();
	std::vector<uint32_t> index(n);
	std::vector<vid_t> smallest;
	for (size_t v = 0; v < n; v++)
		if (label[v] == v) {
			index[v] = uint32_t(smallest.size());
			smallest.push_back(vid_t(v));
		}
	size_t k = smallest.size();
	std::vector<uint32_t> comp(n);
	std::vector<eid_t> first(k + 1, 0);
	for (size_t v = 0; v < n; v++) {
		comp[v] = index[label[v]];
		first[comp[v] + 1]++;
	}
	for (size_t c = 0; c < k; c++)
		first[c + 1] += first[c];
	std::vector<vid_t> members(n);
	std::vector<eid_t> fill(first.begin(), first.end() - 1);
	for (size_t v = 0; v < n; v++)
		members[fill[comp[v]]++] = vid_t(v);
	std::vector<uint32_t> order = topological_order(k, [&](uint32_t c, auto &&visit) {
		for (eid_t i = first[c]; i < first[c + 1]; i++) {
			vid_t v = members[i];
			for (const vid_t *w = graph.begin(v); w != graph.end(v); w++)
				if (comp[*w] != c)
					visit(comp[*w]);
		}
	});
	if (order.size() != k)
		throw Error(ErrorKind::internal, "GPU SCC: the components found do not form a DAG");
	std::vector<uint32_t> number = positions(order);
	Components result;
	result.of_vertex.resize(n);
	for (size_t v = 0; v < n; v++)
		result.of_vertex[v] = number[comp[v]];
	result.smallest_vertex.resize(k);
	for (size_t c = 0; c < k; c++)
		result.smallest_vertex[number[c]] = smallest[c];
	return result;
}

} // namespace grail
