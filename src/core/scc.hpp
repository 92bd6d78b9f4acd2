// Strongly connected components (iterative Tarjan) and the condensation DAG.
#pragma once
#include "cpp_only.hpp"
#include "graph.hpp"

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

// The DAG of components: one vertex per component, an edge a->b (deduplicated) for each graph
// edge between different components. Its adjacency lists are sorted.
Csr condensation(const Csr &graph, const Components &components);

} // namespace grail
