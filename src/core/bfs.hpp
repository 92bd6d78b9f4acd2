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
// Against edge direction: pass the graph's reversed() CSR (parent is then the smallest vertex one
// level up that vertex[i] has an edge to).
BfsResult bfs(const Csr &graph, vid_t source, uint32_t max_depth = std::numeric_limits<uint32_t>::max());

// The same search where a vertex's neighbours are its lists in first and in second, both over the
// same vertices: with a graph and its reversed() CSR, a search that ignores edge direction (parent
// is then the smallest vertex one level up joined to vertex[i] by an edge either way).
BfsResult bfs(const Csr &first, const Csr &second, vid_t source,
              uint32_t max_depth = std::numeric_limits<uint32_t>::max());

} // namespace grail
