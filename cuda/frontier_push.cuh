// Device helpers of the frontier steps and the definition of Frontier::push(): include from the
// .cu files that run steps (and instantiate push() with their operation).
#pragma once
#include "frontier.cuh"
#include "primitives.cuh"

#include <cooperative_groups.h>

#include <algorithm>

namespace grail::cuda {

__device__ __forceinline__ eid_t
degree(CsrView g, vid_t v) {
	return g.offsets[v + 1] - g.offsets[v];
}

// Adds each warp's sums to the counters, one atomic per warp; every lane of the warp calls it.
__device__ __forceinline__ void
add_counts(LevelCounters *counters, unsigned long long edges, uint32_t count) {
	for (int shift = 16; shift > 0; shift >>= 1) {
		edges += __shfl_down_sync(kFullMask, edges, shift);
		count += __shfl_down_sync(kFullMask, count, shift);
	}
	if (threadIdx.x % 32 == 0) {
		if (edges)
			atomicAdd(&counters->edges, edges);
		if (count)
			atomicAdd(&counters->count, count);
	}
}

namespace frontier_detail {

template <class Op>
__device__ __forceinline__ void
visit(CsrView g, const Op &op, vid_t u, vid_t w, vid_t *next, LevelCounters *counters, unsigned long long &edges) {
	if (!op(u, w))
		return;
	edges += degree(g, w);
	next[warp_reserve(cooperative_groups::coalesced_threads(), &counters->count)] = w;
}

template <class Op>
__global__ void
__launch_bounds__(kBlockThreads)
    push_kernel(CsrView g, const vid_t *queue, vid_t count, vid_t *next, LevelCounters *counters, Op op) {
	__shared__ int owner;
	__shared__ vid_t shared_u;
	__shared__ eid_t shared_begin, shared_end;
	const unsigned lane = threadIdx.x % 32;
	unsigned long long edges = 0;
	// Every thread of a block makes the same number of passes: the block steps below need them all.
	for (size_t base = size_t(blockIdx.x) * blockDim.x; base < count; base += size_t(gridDim.x) * blockDim.x) {
		size_t i = base + threadIdx.x;
		vid_t u = 0;
		eid_t begin = 0, end = 0;
		if (i < count) {
			u = queue[i];
			begin = g.offsets[u];
			end = g.offsets[u + 1];
		}
		// Rows of a block's width or more: the whole block, one row at a time. The third barrier
		// comes after every thread has read owner, so that the next reset cannot overtake a read.
		for (;;) {
			if (threadIdx.x == 0)
				owner = -1;
			__syncthreads();
			if (end - begin >= blockDim.x)
				atomicMax(&owner, int(threadIdx.x));
			__syncthreads();
			int chosen = owner;
			if (int(threadIdx.x) == chosen) {
				shared_u = u;
				shared_begin = begin;
				shared_end = end;
				begin = end;
			}
			__syncthreads();
			if (chosen < 0)
				break;
			for (eid_t e = shared_begin + threadIdx.x; e < shared_end; e += blockDim.x)
				visit(g, op, shared_u, g.targets[e], next, counters, edges);
		}
		// Rows of a warp's width or more: the whole warp.
		for (;;) {
			unsigned want = __ballot_sync(kFullMask, end - begin >= 32);
			if (!want)
				break;
			int leader = __ffs(want) - 1;
			vid_t row = __shfl_sync(kFullMask, u, leader);
			eid_t b = __shfl_sync(kFullMask, begin, leader), e_end = __shfl_sync(kFullMask, end, leader);
			if (int(lane) == leader)
				begin = end;
			for (eid_t e = b + lane; e < e_end; e += 32)
				visit(g, op, row, g.targets[e], next, counters, edges);
		}
		for (eid_t e = begin; e < end; e++)
			visit(g, op, u, g.targets[e], next, counters, edges);
	}
	add_counts(counters, edges, 0);
}

// The rows laid end to end (row_starts, Frontier::lay_rows_end_to_end) and cut into chunks of
// 32 x kWalkSteps edges, a warp each, wherever rows begin and end (Gunrock's load-balanced
// advance): lane j takes edges j, j + 32, ... of its warp's chunk, finding the first one's row by
// a binary search and the next ones' by stepping along.
template <class Op>
__global__ void
__launch_bounds__(kBlockThreads)
    push_balanced_kernel(CsrView g, const vid_t *queue, vid_t count, const eid_t *row_starts, vid_t *next,
                         LevelCounters *counters, Op op) {
	const eid_t total = row_starts[count], chunk = 32ull * kWalkSteps;
	unsigned long long edges = 0;
	for (eid_t first = eid_t(grid_warp()) * chunk; first < total; first += eid_t(grid_warps()) * chunk) {
		eid_t e = first + lane_id();
		if (e >= total)
			continue;
		vid_t row = row_of(row_starts, 0, count, e);
		for (unsigned step = 0; step < kWalkSteps && e < total; step++, e += 32) {
			while (row_starts[row + 1] <= e)
				row++;
			vid_t u = queue[row];
			visit(g, op, u, g.targets[g.offsets[u] + (e - row_starts[row])], next, counters, edges);
		}
	}
	add_counts(counters, edges, 0);
}

} // namespace frontier_detail

// Past this many out-edges per block of the gathering kernel, a push cuts the rows into equal
// chunks instead. R-MAT 24-16, H100: a second level of 80 vertices with 598,817 out-edges (a hub
// among them) went to one block and took 4.2 ms.
constexpr eid_t kBalancedEdgesPerBlock = eid_t(1) << 14;

template <class Op>
LevelCounters
Frontier::push(CsrView graph, const Op &op, cudaStream_t stream) {
	// A grid of the resident blocks strides over the frontier; looked up once per operation.
	static const unsigned most =
	    resident_blocks(reinterpret_cast<const void *>(frontier_detail::push_kernel<Op>), kBlockThreads);
	static const unsigned most_balanced =
	    resident_blocks(reinterpret_cast<const void *>(frontier_detail::push_balanced_kernel<Op>), kBlockThreads);
	clear_counters(stream);
	const unsigned blocks = std::min(blocks_for(size_), most);
	if (edges_ / blocks > kBalancedEdgesPerBlock) {
		lay_rows_end_to_end(graph, stream);
		const size_t chunks = (edges_ + 32 * kWalkSteps - 1) / (32 * kWalkSteps);
		frontier_detail::push_balanced_kernel<Op>
		    <<<std::min(blocks_for(chunks * 32), most_balanced), kBlockThreads, 0, stream>>>(
		        graph, current(), size_, row_starts_.data(), next(), counters(), op);
	} else {
		frontier_detail::push_kernel<Op>
		    <<<blocks, kBlockThreads, 0, stream>>>(graph, current(), size_, next(), counters(), op);
	}
	CUDA_CHECK_LAUNCH();
	LevelCounters c = read_counters(stream);
	advance(c);
	return c;
}

} // namespace grail::cuda
