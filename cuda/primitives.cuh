// Device helpers that the kernel files share: warp-aggregated atomics, the edge-parallel walk over
// a CSR, a gather, the device clock and reads that bypass L1. Only .cu files include this.
#pragma once
#include "device_csr.cuh"

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

// Reserves a slot in a list for each lane with keep set, one atomic per warp; every lane of the
// warp must call it. Returns the lane's slot (meaningless where keep is false).
template <class Count>
__device__ __forceinline__ Count
warp_append(Count *counter, bool keep) {
	unsigned ballot = __ballot_sync(kFullMask, keep);
	Count base = 0;
	if (lane_id() == 0 && ballot)
		base = atomicAdd(counter, Count(__popc(ballot)));
	base = __shfl_sync(kFullMask, base, 0);
	return base + Count(__popc(ballot & lanes_below()));
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
		unsigned long long total = __popc(mask);
		for (unsigned o = 16; o > 0; o >>= 1)
			total += __shfl_xor_sync(kFullMask, total, o);
		unsigned long long base = 0;
		if (lane_id() == 0 && total > 0)
			base = atomicAdd(count, total);
		base = __shfl_sync(kFullMask, base, 0);
		if (total == 0)
			continue;
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

// Reserves a slot for each thread of the block with keep set, one atomic per block; every thread
// of the block calls it (it synchronises the block). scratch: shared memory, warps + 1 words.
template <class Count>
__device__ __forceinline__ Count
block_append(Count *count, bool keep, Count *scratch) {
	const unsigned ballot = __ballot_sync(kFullMask, keep);
	const unsigned warp = threadIdx.x / 32, warps = blockDim.x / 32;
	if (lane_id() == 0)
		scratch[warp] = __popc(ballot);
	__syncthreads();
	if (threadIdx.x == 0) {
		Count total = 0;
		for (unsigned w = 0; w < warps; w++) {
			Count c = scratch[w];
			scratch[w] = total;
			total += c;
		}
		scratch[warps] = total > 0 ? atomicAdd(count, total) : 0;
	}
	__syncthreads();
	const Count slot = scratch[warps] + scratch[warp] + __popc(ballot & lanes_below());
	__syncthreads();
	return slot;
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
