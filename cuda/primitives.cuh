// Device helpers that the kernel files share: warp- and block-aggregated atomics (the one way to
// reserve slots in a list), the edge-parallel walk over a CSR, a gather, the device clock and
// reads that bypass L1. Only .cu files include this.
#pragma once
#include "device_csr.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

#include <cstdint>

namespace grail::cuda {

constexpr unsigned kFullMask = 0xFFFFFFFFu;
constexpr uint32_t kNone = 0xFFFFFFFFu; // a key no valid lane uses in the warp-wide matches below

__device__ __forceinline__ unsigned
lane_id() {
	return threadIdx.x & 31u;
}

__device__ __forceinline__ unsigned
lanes_below() {
	return (1u << lane_id()) - 1u;
}

// This warp's index in the grid, and the grid's number of warps.
__device__ __forceinline__ size_t
grid_warp() {
	return (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
}

__device__ __forceinline__ size_t
grid_warps() {
	return size_t(gridDim.x) * blockDim.x / 32;
}

// The device's nanosecond clock, for the timings of benchmarks (read by one thread per phase).
__device__ __forceinline__ uint64_t
now_ns() {
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

// Reads that bypass L1, for data that other blocks wrote earlier in the same launch (behind a grid
// barrier): an L1 line kept from an earlier round would be stale.
template <class T>
__device__ __forceinline__ T
fresh(const T *p) {
	return __ldcg(p);
}

// Appending to a list that many threads fill at once (CUB's habit): the threads that append
// together agree on their offsets by a scan, and one of them adds their total to the list's
// counter, so that a group of threads costs one atomic on the counter rather than one each (one
// counter may take millions of items).
//
// warp_reserve serves the threads of one warp, in a group: cg::tiled_partition<32> (every lane
// of the warp calls) or cg::coalesced_threads() (the threads of a divergent branch that arrive
// together). Reserves `count` slots of the list counted by *counter for each thread of the group:
// one atomicAdd, none where the group reserves nothing. Returns the thread's first slot, as
// atomicAdd(counter, count) would.
template <class Group, class Count>
__device__ __forceinline__ Count
warp_reserve(const Group &group, Count *counter, Count count) {
	const Count before = cooperative_groups::exclusive_scan(group, count);
	// The last thread's before + count is the group's total.
	const unsigned last = group.size() - 1;
	Count base = 0;
	if (group.thread_rank() == last && before + count > 0)
		base = atomicAdd(counter, before + count);
	return group.shfl(base, last) + before;
}

// One slot for each thread of the group: the same with the threads' ranks for offsets (no scan).
template <class Group, class Count>
__device__ __forceinline__ Count
warp_reserve(const Group &group, Count *counter) {
	Count base = 0;
	if (group.thread_rank() == 0)
		base = atomicAdd(counter, Count(group.size()));
	return group.shfl(base, 0) + Count(group.thread_rank());
}

// counts[key] += 1 for every lane with valid set, one atomic per distinct key in the warp (the
// members of a giant component, or the edges into it, would otherwise queue on one address).
// Every lane of the warp must call it.
__device__ __forceinline__ void
warp_count(uint32_t *counts, uint32_t key, bool valid) {
	unsigned peers = __match_any_sync(kFullMask, valid ? key : kNone);
	if (valid && lane_id() == unsigned(__ffs(peers) - 1))
		atomicAdd(&counts[key], uint32_t(__popc(peers)));
}

// counts[key] -= 1 for every lane with valid set, aggregated as above. Returns, for the lowest
// valid lane of each key, whether this brought the count to zero (false for the other lanes).
__device__ __forceinline__ bool
warp_release(uint32_t *counts, uint32_t key, bool valid) {
	unsigned peers = __match_any_sync(kFullMask, valid ? key : kNone);
	if (!valid || lane_id() != unsigned(__ffs(peers) - 1))
		return false;
	uint32_t n = uint32_t(__popc(peers));
	return atomicSub(&counts[key], n) == n;
}

// Calls f(u, w, valid, e) for every edge e: u -> w of g, edge-parallel so that a hub's edges are spread
// over many lanes: each warp takes chunks of 32 x kWalkSteps consecutive edges, lane j the edges
// j, j + 32, ... of its chunk, finding their source by a binary search and then stepping along
// the offsets. Every lane of the warp calls f the same number of times (valid false past the
// end), so f may use warp-wide operations. warp and warps: this warp's index and how many walk.
constexpr unsigned kWalkSteps = 32;

// Largest u in [lo, hi) with offsets[u] <= e, given offsets[lo] <= e (rows may be empty, so the
// last such u).
__device__ __forceinline__ vid_t
row_of(const eid_t *offsets, vid_t lo, vid_t hi, eid_t e) {
	while (hi - lo > 1) {
		vid_t mid = lo + (hi - lo) / 2;
		if (offsets[mid] <= e)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

// The rows of the first and last edges of a chunk, found by two lanes over all rows (lo the
// first's, hi one past the last's).
struct ChunkRows {
	vid_t lo, hi;
};

__device__ __forceinline__ ChunkRows
chunk_rows(CsrView g, eid_t first, eid_t last) {
	vid_t bound = 0;
	if (lane_id() < 2)
		bound = row_of(g.offsets, 0, g.vertices, lane_id() == 0 ? first : last);
	return {__shfl_sync(kFullMask, bound, 0), vid_t(__shfl_sync(kFullMask, bound, 1) + 1)};
}

// Calls f(u, w, valid, e, step) for this lane's edges of the chunk [first, last]: e = first +
// lane + 32 x step for step < Steps, valid false past last (w then 0). u starts at the row of the
// lane's first edge and steps along the offsets.
template <unsigned Steps, class F>
__device__ __forceinline__ void
walk_chunk(CsrView g, eid_t first, eid_t last, vid_t u, F &&f) {
	eid_t e = first + lane_id();
	for (unsigned step = 0; step < Steps; step++, e += 32) {
		bool valid = e <= last;
		vid_t w = 0;
		if (valid) {
			while (g.offsets[u + 1] <= e)
				u++;
			w = g.targets[e];
		}
		f(u, w, valid, e, step);
	}
}

// The row of this lane's first edge in the chunk [first, last] (rows.lo past last).
__device__ __forceinline__ vid_t
lane_start_row(CsrView g, eid_t first, eid_t last, ChunkRows rows) {
	return first + lane_id() <= last ? row_of(g.offsets, rows.lo, rows.hi, first + lane_id()) : rows.lo;
}

template <class F>
__device__ __forceinline__ void
for_each_edge(CsrView g, size_t warp, size_t warps, F &&f) {
	const eid_t chunk = 32ull * kWalkSteps;
	for (eid_t first = eid_t(warp) * chunk; first < g.edges; first += eid_t(warps) * chunk) {
		const eid_t last = min(first + chunk, g.edges) - 1;
		walk_chunk<kWalkSteps>(g, first, last, lane_start_row(g, first, last, chunk_rows(g, first, last)),
		                       [&](vid_t u, vid_t w, bool valid, eid_t e, unsigned) { f(u, w, valid, e); });
	}
}

// Copies make(u, w) for every edge u -> w of g with keep(u, w, valid) to out, in any order, and
// adds their number to *count: one atomic per chunk of 32 x Steps edges (a warp's atomic per
// 32 edges on one counter would serialise millions of them). A first walk over the chunk evaluates
// keep (which may use warp-wide operations: every lane calls it each step) into a bit per step,
// a second writes; the second walk's loads hit the cache.
template <unsigned Steps = kWalkSteps, class Keep, class Make>
__device__ __forceinline__ void
compact_edges(CsrView g, size_t warp, size_t warps, Keep &&keep, Make &&make, uint2 *out, unsigned long long *count) {
	const eid_t chunk = 32ull * Steps;
	static_assert(Steps <= 32, "one bit per step");
	for (eid_t first = eid_t(warp) * chunk; first < g.edges; first += eid_t(warps) * chunk) {
		const eid_t last = min(first + chunk, g.edges) - 1;
		const vid_t start = lane_start_row(g, first, last, chunk_rows(g, first, last));
		uint32_t mask = 0;
		walk_chunk<Steps>(g, first, last, start, [&](vid_t u, vid_t w, bool valid, eid_t, unsigned step) {
			if (keep(u, w, valid) && valid)
				mask |= 1u << step;
		});
		if (!__any_sync(kFullMask, mask != 0))
			continue;
		// The warp's first slot: lane 0's, its offset being 0.
		const auto warp_group = cooperative_groups::tiled_partition<32>(cooperative_groups::this_thread_block());
		unsigned long long base = warp_group.shfl(warp_reserve(warp_group, count, (unsigned long long)__popc(mask)), 0);
		vid_t u = start;
		eid_t e = first + lane_id();
		for (unsigned step = 0; step < Steps; step++, e += 32) {
			const bool bit = (mask >> step) & 1u;
			const unsigned ballot = __ballot_sync(kFullMask, bit);
			if (bit) {
				while (g.offsets[u + 1] <= e)
					u++;
				out[base + __popc(ballot & lanes_below())] = make(u, g.targets[e]);
			}
			base += __popc(ballot);
		}
	}
}

// block_reserve: the same for every thread of a block (it synchronises the block), in Lists lists
// at once: counts[l] slots of the list counted by *counters[l] for each thread, one atomicAdd per
// list (none where the block reserves nothing), issued together. Sets slots[l] to the thread's
// first slot in list l. scratch: shared memory, Lists x warps Counts.
template <class Count, int Lists>
__device__ __forceinline__ void
block_reserve(Count *const (&counters)[Lists], const Count (&counts)[Lists], Count (&slots)[Lists], Count *scratch) {
	namespace cg = cooperative_groups;
	const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
	const unsigned warp = threadIdx.x / 32, warps = blockDim.x / 32;
	Count before[Lists];
#pragma unroll
	for (int l = 0; l < Lists; l++) {
		before[l] = cg::exclusive_scan(tile, counts[l]);
		if (tile.thread_rank() == 31)
			scratch[l * warps + warp] = before[l] + counts[l];
	}
	__syncthreads();
	if (warp == 0) {
		// Warp 0 scans the warps' totals; its last lane holds the block's.
		Count mine[Lists], prior[Lists], base[Lists];
#pragma unroll
		for (int l = 0; l < Lists; l++) {
			mine[l] = tile.thread_rank() < warps ? scratch[l * warps + tile.thread_rank()] : Count(0);
			prior[l] = cg::exclusive_scan(tile, mine[l]);
			base[l] = 0;
		}
#pragma unroll
		for (int l = 0; l < Lists; l++)
			if (tile.thread_rank() == 31 && prior[l] + mine[l] > 0)
				base[l] = atomicAdd(counters[l], prior[l] + mine[l]);
#pragma unroll
		for (int l = 0; l < Lists; l++) {
			const Count block_base = tile.shfl(base[l], 31); // every lane: a shuffle of the whole warp
			if (tile.thread_rank() < warps)
				scratch[l * warps + tile.thread_rank()] = block_base + prior[l];
		}
	}
	__syncthreads();
#pragma unroll
	for (int l = 0; l < Lists; l++)
		slots[l] = scratch[l * warps + warp] + before[l];
	__syncthreads(); // scratch is reused by the next call
}

// One list: returns the thread's first slot. scratch: warps Counts.
template <class Count>
__device__ __forceinline__ Count
block_reserve(Count *counter, Count count, Count *scratch) {
	Count *const counters[1] = {counter};
	const Count counts[1] = {count};
	Count slots[1];
	block_reserve(counters, counts, slots, scratch);
	return slots[0];
}

// to[i] = from[index[i]] for i < count, a thread each.
template <class T>
__global__ void
gather(const vid_t *index, size_t count, const T *from, T *to) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count)
		to[i] = from[index[i]];
}

} // namespace grail::cuda
