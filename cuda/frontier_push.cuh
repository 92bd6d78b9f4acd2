// Device helpers of the frontier steps and the definition of Frontier::push(): include from the
// .cu files that run steps (and instantiate push() with their operation).
#pragma once
#include "frontier.cuh"
#include "primitives.cuh"

#include <cooperative_groups.h>

#include <algorithm>

namespace grail::cuda {

// A slot in queue for each calling thread, the slots in one run from *tail: one atomic per group
// of threads that arrive together, not one per thread.
__device__ __forceinline__ void
append(vid_t *queue, uint32_t *tail, vid_t v) {
	namespace cg = cooperative_groups;
	cg::coalesced_group group = cg::coalesced_threads();
	uint32_t base = 0;
	if (group.thread_rank() == 0)
		base = atomicAdd(tail, group.size());
	queue[group.shfl(base, 0) + group.thread_rank()] = v;
}

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
	append(next, &counters->count, w);
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

} // namespace frontier_detail

template <class Op>
LevelCounters
Frontier::push(CsrView graph, const Op &op, cudaStream_t stream) {
	// A grid of the resident blocks strides over the frontier; looked up once per operation.
	static const unsigned most =
	    resident_blocks(reinterpret_cast<const void *>(frontier_detail::push_kernel<Op>), kBlockThreads);
	clear_counters(stream);
	frontier_detail::push_kernel<Op><<<std::min(blocks_for(size_), most), kBlockThreads, 0, stream>>>(
	    graph, current(), size_, next(), counters(), op);
	CUDA_CHECK_LAUNCH();
	LevelCounters c = read_counters(stream);
	advance(c);
	return c;
}

} // namespace grail::cuda
