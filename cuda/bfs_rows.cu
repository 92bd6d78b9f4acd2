#include "bfs_rows.cuh"
#include "launch.cuh"
#include "primitives.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>

namespace grail::cuda::bfs {

namespace {

__global__ void
parents_from_in_edges(BfsArrays a) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= a.in.vertices)
		return;
	vid_t v = vid_t(index);
	uint32_t d = a.depth[v];
	if (d == 0 || d == kUnreached || a.parent[v] != kInvalid)
		return;
	for (eid_t e = a.in.offsets[v]; e < a.in.offsets[v + 1]; e++) {
		vid_t u = a.in.targets[e];
		if (a.depth[u] == d - 1) {
			a.parent[v] = u;
			return;
		}
	}
}

// Edge-parallel, so that a hub's row is spread over many warps and the one-edge rows of a path
// keep every lane busy (a warp per vertex left 31 lanes idle there). The plain read of a parent
// spares the atomic where a smaller one is already known: parents only decrease.
__global__ void
parents_from_out_edges(BfsArrays a) {
	for_each_edge(a.out, grid_warp(), grid_warps(), [&](vid_t u, vid_t w, bool valid, eid_t) {
		if (!valid)
			return;
		uint32_t d = a.depth[u];
		if (d != kUnreached && a.depth[w] == d + 1 && a.parent[w] > u)
			atomicMin(&a.parent[w], u);
	});
}

struct IsReached {
	const uint32_t *depth;
	__device__ bool
	operator()(vid_t v) const {
		return depth[v] != kUnreached;
	}
};

} // namespace

void
complete_parents(const BfsArrays &a, cudaStream_t stream) {
	vid_t n = a.out.vertices;
	if (n == 0)
		return;
	if (a.in.offsets) {
		parents_from_in_edges<<<blocks_for(n), kBlockThreads, 0, stream>>>(a);
	} else {
		static const unsigned most =
		    resident_blocks(reinterpret_cast<const void *>(parents_from_out_edges), kBlockThreads);
		size_t walkers = (a.out.edges + 32 * kWalkSteps - 1) / (32 * kWalkSteps);
		parents_from_out_edges<<<std::min(blocks_for(walkers * 32), most), kBlockThreads, 0, stream>>>(a);
	}
	CUDA_CHECK_LAUNCH();
}

Rows
order_rows(const BfsArrays &a, uint32_t levels, vid_t *buffer[4], TempStorage &temp, unsigned long long *count,
           cudaStream_t stream) {
	vid_t n = a.out.vertices;
	// The reached vertices, ascending; then a stable sort by depth keeps them ascending within a
	// depth: a sort of a few bits, not of 64-bit (depth, vertex) keys.
	thrust::counting_iterator<vid_t> all(0);
	cub_call(temp, [&](void *t, size_t &bytes) {
		return cub::DeviceSelect::If(t, bytes, all, buffer[0], count, int64_t(n), IsReached{a.depth}, stream);
	});
	unsigned long long reached = 0;
	CUDA_CHECK(cudaMemcpyAsync(&reached, count, sizeof reached, cudaMemcpyDeviceToHost, stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	vid_t rows = vid_t(reached);
	if (rows == 0)
		return {0, buffer[0], buffer[2], buffer[1]};
	gather<<<blocks_for(rows), kBlockThreads, 0, stream>>>(buffer[0], size_t(rows), a.depth, buffer[2]);
	CUDA_CHECK_LAUNCH();
	cub::DoubleBuffer<uint32_t> depth(buffer[2], buffer[3]);
	cub::DoubleBuffer<vid_t> vertex(buffer[0], buffer[1]);
	unsigned end_bit = bits_for(levels - 1);
	cub_call(temp, [&](void *t, size_t &bytes) {
		return cub::DeviceRadixSort::SortPairs(t, bytes, depth, vertex, int64_t(rows), 0, end_bit, stream);
	});
	vid_t *parent = vertex.Alternate();
	gather<<<blocks_for(rows), kBlockThreads, 0, stream>>>(vertex.Current(), size_t(rows), a.parent, parent);
	CUDA_CHECK_LAUNCH();
	return {rows, vertex.Current(), depth.Current(), parent};
}

} // namespace grail::cuda::bfs
