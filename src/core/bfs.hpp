// Breadth-first search over a CSR graph.
#pragma once
#include "cpp_only.hpp"
#include "graph.hpp"

#include <limits>

namespace grail {

constexpr vid_t kNoVertex = std::numeric_limits<vid_t>::max();

struct BfsResult {
	// Reached vertices ordered by (depth, vertex index), the source first; parent[i] is the
	// smallest vertex at depth[i] - 1 with an edge to vertex[i], kNoVertex for the source.
	// Both choices are deterministic, so every implementation (CPU or GPU) gives equal rows.
	std::vector<vid_t> vertex;
	std::vector<uint32_t> depth;
	std::vector<vid_t> parent;
};

// Vertices at depth <= max_depth from source. Polls for cancellation.
BfsResult bfs(const Csr &graph, vid_t source, uint32_t max_depth = std::numeric_limits<uint32_t>::max());

} // namespace grail
