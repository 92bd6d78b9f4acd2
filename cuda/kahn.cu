// Kahn's algorithm by levels in one cooperative launch, with a grid barrier between levels and no
// host round trip: DAGs thousands of levels deep would otherwise spend more time in round trips
// than in work. Level l's nodes lie in order[] after level l - 1's; a warp takes up to 32 of them
// (fewer when the level is narrow) and spreads their out-edges over its lanes (each lane finds its
// node by a binary search over the warp's inclusive sums of out-degrees), so that a level of many
// low-degree nodes keeps every lane busy; a node with more out-edges than a warp should walk (a giant component, a hub)
// is set aside and walked by the whole grid behind one more barrier. An edge lowers its target's in-degree (one atomic
// per distinct target in the warp); the lane that brings it to zero appends the target to the next level.
#include "kahn.cuh"
#include "launch.cuh"
#include "primitives.cuh"

#include <cooperative_groups.h>

namespace grail::cuda {

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
// A node with more out-edges than this is walked by every warp of the grid rather than by one
// warp's lanes (which would keep the others waiting at the barrier).
constexpr uint32_t kBigNode = 4096;

// Per warp: the inclusive sums of its 32 nodes' out-degrees and where their edges start, so that
// a lane finds which node an edge position belongs to.
template <class Offset> struct WarpItems {
	uint32_t incl[kWarps][32];
	Offset start[kWarps][32];
};

// The item (lane) whose range holds position j: the first with incl > j.
__device__ __forceinline__ unsigned
owner_of(const uint32_t *incl, uint32_t j) {
	unsigned lo = 0, hi = 31;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (incl[mid] > j)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

__device__ __forceinline__ uint32_t
warp_inclusive_sum(uint32_t x) {
	for (unsigned o = 1; o < 32; o <<= 1) {
		uint32_t y = __shfl_up_sync(kFullMask, x, o);
		if (lane_id() >= o)
			x += y;
	}
	return x;
}

// Lowers the in-degree of the target of the edge at *target for each lane with valid set (the
// whole warp calling); a node brought to zero joins level `level` at next[*next_count ..).
__device__ __forceinline__ void
release_edge(const KahnBuffers &b, const vid_t *target, bool valid, uint32_t level, vid_t *next, uint32_t *next_count) {
	vid_t d = valid ? __ldg(target) : 0;
	if (warp_release(b.in_degree, d, valid)) {
		next[warp_reserve(cg::coalesced_threads(), next_count)] = d;
		b.level[d] = level;
	}
}

template <class Offset>
__global__ void
__launch_bounds__(kThreads) kahn_kernel(KahnDag<Offset> g, KahnBuffers b, uint32_t max_levels) {
	__shared__ WarpItems<Offset> items;
	cg::grid_group grid = cg::this_grid();
	KahnCounters *c = b.counters;
	const size_t warp = grid_warp(), warps = grid_warps();
	const unsigned w = threadIdx.x / 32;
	const uint64_t clock = now_ns();
	for (size_t first = warp * 32; first < g.vertices; first += warps * 32) {
		size_t v = first + lane_id();
		bool source = v < g.vertices && (!g.label || __ldg(g.label + v) == v) && fresh(b.in_degree + v) == 0;
		if (source) {
			b.order[warp_reserve(cg::coalesced_threads(), &c->count[0])] = vid_t(v);
			b.level[v] = 0;
		}
	}
	grid.sync();
	// Level l's nodes are order[begin .. begin + count[l % 3]); it appends level l + 1 behind them
	// and counts it in count[(l + 1) % 3]. The counters it clears were last read a level or two
	// ago, behind barriers since.
	uint32_t begin = 0;
	for (uint32_t l = 0;; l++) {
		const uint32_t count = fresh(&c->count[l % 3]);
		if (grid.thread_rank() == 0 && b.level_start)
			b.level_start[l] = begin;
		if (count == 0 || l >= max_levels) {
			if (grid.thread_rank() == 0) {
				c->levels = l;
				c->placed = begin;
				c->too_deep = count != 0;
				c->ns = now_ns() - clock;
			}
			return;
		}
		const vid_t *nodes = b.order + begin;
		vid_t *next = b.order + begin + count;
		uint32_t *next_count = &c->count[(l + 1) % 3];
		// Nodes per warp: as few as keep every warp busy, at most one per lane. A level narrower
		// than the grid's lanes goes a node or two to a warp, so that no warp walks many nodes'
		// edges in turn while others idle (dependent loads and atomics, level after level).
		uint32_t per_warp = 1;
		while (per_warp < 32 && size_t(per_warp) * warps < count)
			per_warp <<= 1;
		for (size_t first = warp * per_warp; first < count; first += warps * per_warp) {
			size_t i = first + lane_id();
			uint32_t degree = 0;
			Offset start = 0;
			if (lane_id() < per_warp && i < count) {
				vid_t u = fresh(nodes + i);
				start = g.offsets[u];
				Offset out = g.offsets[u + 1] - start;
				if (out > kBigNode)
					b.big[atomicAdd(&c->big[l % 3], 1u)] = u;
				else
					degree = uint32_t(out);
			}
			uint32_t incl = warp_inclusive_sum(degree);
			uint32_t total = __shfl_sync(kFullMask, incl, 31);
			items.incl[w][lane_id()] = incl;
			items.start[w][lane_id()] = start;
			__syncwarp();
			for (uint32_t base = 0; base < total; base += 32) {
				uint32_t j = base + lane_id();
				const vid_t *edge = g.targets;
				if (j < total) {
					unsigned k = owner_of(items.incl[w], j);
					edge += items.start[w][k] + (j - (k ? items.incl[w][k - 1] : 0));
				}
				release_edge(b, edge, j < total, l + 1, next, next_count);
			}
			__syncwarp();
		}
		if (grid.thread_rank() == 0) {
			c->count[(l + 2) % 3] = 0;
			c->big[(l + 1) % 3] = 0;
		}
		grid.sync();
		begin += count;
		const uint32_t bigs = fresh(&c->big[l % 3]);
		if (bigs == 0)
			continue;
		for (uint32_t k = 0; k < bigs; k++) {
			const vid_t u = fresh(b.big + k);
			const Offset row_begin = g.offsets[u], row_end = g.offsets[u + 1];
			for (Offset e = row_begin + Offset(warp) * 32; e < row_end; e += Offset(warps) * 32)
				release_edge(b, g.targets + e + lane_id(), e + lane_id() < row_end, l + 1, next, next_count);
		}
		grid.sync();
	}
}

// in_degree[v] = the length of v's row of the transpose.
__global__ void
row_lengths(CsrView g, uint32_t *length) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v < g.vertices)
		length[v] = uint32_t(g.offsets[v + 1] - g.offsets[v]);
}

} // namespace

template <class Offset>
void
launch_kahn(const KahnDag<Offset> &dag, const KahnBuffers &buffers, uint32_t max_levels, cudaStream_t stream) {
	CUDA_CHECK(cudaMemsetAsync(buffers.counters, 0, sizeof(KahnCounters), stream));
	const void *kernel = reinterpret_cast<const void *>(kahn_kernel<Offset>);
	KahnDag<Offset> g = dag;
	KahnBuffers b = buffers;
	void *args[] = {&g, &b, &max_levels};
	CUDA_CHECK(cudaLaunchCooperativeKernel(kernel, resident_blocks(kernel, kThreads), kThreads, args, 0, stream));
}

template void launch_kahn<uint32_t>(const KahnDag<uint32_t> &, const KahnBuffers &, uint32_t, cudaStream_t);
template void launch_kahn<eid_t>(const KahnDag<eid_t> &, const KahnBuffers &, uint32_t, cudaStream_t);

vid_t
topological_levels(CsrView out, CsrView in, vid_t *order, uint32_t *level, uint32_t *in_degree,
                   std::vector<size_t> &level_start, cudaStream_t stream) {
	level_start.assign(1, 0);
	if (out.vertices == 0)
		return 0;
	DeviceBuffer<uint32_t> starts(size_t(out.vertices) + 1);
	DeviceBuffer<vid_t> big(out.vertices);
	DeviceBuffer<KahnCounters> counters(1);
	row_lengths<<<blocks_for(in.vertices), kBlockThreads, 0, stream>>>(in, in_degree);
	CUDA_CHECK_LAUNCH();
	launch_kahn(KahnDag<eid_t>{out.offsets, out.targets, out.vertices, nullptr},
	            KahnBuffers{in_degree, level, order, starts.data(), big.data(), counters.data()}, UINT32_MAX, stream);
	KahnCounters host_counters;
	CUDA_CHECK(cudaMemcpyAsync(&host_counters, counters.data(), sizeof host_counters, cudaMemcpyDeviceToHost, stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	std::vector<uint32_t> starts_host(size_t(host_counters.levels) + 1);
	CUDA_CHECK(cudaMemcpyAsync(starts_host.data(), starts.data(), starts_host.size() * sizeof(uint32_t),
	                           cudaMemcpyDeviceToHost, stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	level_start.assign(starts_host.begin(), starts_host.end());
	return vid_t(host_counters.placed);
}

} // namespace grail::cuda
