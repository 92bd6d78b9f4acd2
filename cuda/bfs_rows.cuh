// The GPU BFS's rows once the depths are known: the smallest parent of every reached vertex and
// the rows ordered by (depth, vertex), as the CPU bfs() gives them.
#pragma once
#include "bfs_levels.cuh"
#include "buffer.cuh"

namespace grail::cuda::bfs {

// Parents of the reached vertices that a bottom-up level did not give one (parent[v] still
// kInvalid): from the in-edges when they exist (the first in-neighbour one level up, rows being
// ascending), else by one pass over the out-edges of the reached vertices keeping the smallest.
void complete_parents(const BfsArrays &a, cudaStream_t stream);

struct Rows {
	vid_t count;
	const vid_t *vertex;
	const uint32_t *depth;
	const vid_t *parent;
};

// The rows on the device, in four arrays of n words each that this call may overwrite; levels:
// the deepest depth reached plus one. Waits for the stream once, to learn how many rows there are.
Rows order_rows(const BfsArrays &a, uint32_t levels, vid_t *buffer[4], TempStorage &temp, unsigned long long *count,
                cudaStream_t stream);

} // namespace grail::cuda::bfs
