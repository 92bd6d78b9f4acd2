// Strongly connected components (iterative Tarjan) and the condensation DAG.
#pragma once
#include "cpp_only.hpp"
#include "graph.hpp"

#include <vector>

namespace grail {

struct Components {
	// Component of each vertex. Components are numbered in a topological order of the
	// condensation: an edge from component a to component b != a implies a < b.
	Array<uint32_t> of_vertex;
	// Smallest dense vertex index in each component (so, with sorted ids, its smallest id).
	Array<vid_t> smallest_vertex;

	size_t
	count() const noexcept {
		return smallest_vertex.size();
	}
};

// No recursion: a path of 10^7 vertices needs no deep stack. Polls for cancellation.
Components strongly_connected_components(const Csr &graph);

// The components that labels name (label[v]: the smallest vertex of v's component, as the GPU's
// detection leaves them), numbered in a topological order of the condensation by Kahn's algorithm
// (topo_order.hpp), its queue seeded in ascending smallest vertex: the host's numbering where the
// device's level budget runs out. Throws Error(internal) when the components form no DAG.
Components number_components(const Csr &graph, const std::vector<vid_t> &label);

// The DAG of components: one vertex per component, an edge a->b (deduplicated) for each graph
// edge between different components. Its adjacency lists are sorted. helpers: threads that may
// work beside the caller's where every component is one vertex (the DAG is the same with any number).
Csr condensation(const Csr &graph, const Components &components, unsigned helpers = 0);

} // namespace grail
