// Device helpers of the SCC kernels (scc_detect.cu, scc_number.cu): warp-aggregated atomics and an
// edge-parallel walk over a CSR. Only .cu files include this.
#pragma once
#include "device_csr.cuh"

#include <cstdint>

namespace grail::cuda::scc {

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

// Reads that bypass L1: these kernels read data that other blocks wrote earlier in the same
// launch (behind a grid barrier), and an L1 line kept from an earlier round would be stale.
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

// Calls f(u, w, valid) for every edge u -> w of g, edge-parallel so that a hub's edges are spread
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

template <class F>
__device__ __forceinline__ void
for_each_edge(CsrView g, size_t warp, size_t warps, F &&f) {
	const eid_t chunk = 32ull * kWalkSteps;
	for (eid_t first = eid_t(warp) * chunk; first < g.edges; first += eid_t(warps) * chunk) {
		// Two lanes find the rows of the chunk's first and last edges over all rows; the others
		// then search only between them.
		const eid_t last = min(first + chunk, g.edges) - 1;
		vid_t bound = 0;
		if (lane_id() < 2)
			bound = row_of(g.offsets, 0, g.vertices, lane_id() == 0 ? first : last);
		const vid_t lo = __shfl_sync(kFullMask, bound, 0), hi = __shfl_sync(kFullMask, bound, 1) + 1;
		eid_t e = first + lane_id();
		vid_t u = e <= last ? row_of(g.offsets, lo, hi, e) : lo;
		for (unsigned step = 0; step < kWalkSteps; step++, e += 32) {
			bool valid = e <= last;
			vid_t w = 0;
			if (valid) {
				while (g.offsets[u + 1] <= e)
					u++;
				w = g.targets[e];
			}
			f(u, w, valid);
		}
	}
}

} // namespace grail::cuda::scc
