#include "scc.hpp"
#include "error.hpp"
#include "topo_order.hpp"

#include <algorithm>

namespace grail {

Components
strongly_connected_components(const Csr &graph) {
	size_t n = graph.vertex_count();
	constexpr uint32_t kUnvisited = UINT32_MAX;
	// index[v]: discovery order; low[v]: Tarjan's low-link.
	std::vector<uint32_t> index(n, kUnvisited), low(n, 0);
	std::vector<uint8_t> on_stack(n, 0);
	std::vector<vid_t> scc_stack;
	struct Frame {
		vid_t v;
		eid_t next; // next edge offset to examine
	};
	std::vector<Frame> call;
	std::vector<uint32_t> finished_order(n); // component in completion order (reverse topological)
	uint32_t counter = 0, completed = 0;
	std::vector<vid_t> smallest_rev;
	size_t steps = 0;

	for (size_t root = 0; root < n; root++) {
		if (index[root] != kUnvisited)
			continue;
		index[root] = low[root] = counter++;
		scc_stack.push_back(vid_t(root));
		on_stack[root] = 1;
		call.push_back({vid_t(root), graph.offsets[root]});
		while (!call.empty()) {
			if ((++steps & 0xFFFF) == 0)
				poll_cancel();
			Frame &f = call.back();
			vid_t v = f.v;
			if (f.next < graph.offsets[v + 1]) {
				vid_t w = graph.targets[f.next++];
				if (index[w] == kUnvisited) {
					index[w] = low[w] = counter++;
					scc_stack.push_back(w);
					on_stack[w] = 1;
					call.push_back({w, graph.offsets[w]});
				} else if (on_stack[w]) {
					low[v] = std::min(low[v], index[w]);
				}
				continue;
			}
			// v is finished: pop its component if it is a root, then fold low into the parent.
			if (low[v] == index[v]) {
				vid_t smallest = v;
				vid_t w;
				do {
					w = scc_stack.back();
					scc_stack.pop_back();
					on_stack[w] = 0;
					finished_order[w] = completed;
					smallest = std::min(smallest, w);
				} while (w != v);
				smallest_rev.push_back(smallest);
				completed++;
			}
			call.pop_back();
			if (!call.empty()) {
				vid_t parent = call.back().v;
				low[parent] = std::min(low[parent], low[v]);
			}
		}
	}
	// Tarjan completes sink components first; reversing gives a topological numbering.
	Components c;
	c.of_vertex = std::move(finished_order);
	for (uint32_t &comp : c.of_vertex)
		comp = completed - 1 - comp;
	c.smallest_vertex.assign(smallest_rev.rbegin(), smallest_rev.rend());
	return c;
}

Csr
condensation(const Csr &graph, const Components &components) {
	size_t n = graph.vertex_count();
	std::vector<vid_t> source, target;
	for (size_t v = 0; v < n; v++) {
		if (v % 4096 == 0)
			poll_cancel();
		uint32_t cv = components.of_vertex[v];
		for (const vid_t *w = graph.begin(vid_t(v)); w != graph.end(vid_t(v)); w++) {
			uint32_t cw = components.of_vertex[*w];
			if (cv != cw) {
				source.push_back(cv);
				target.push_back(cw);
			}
		}
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
