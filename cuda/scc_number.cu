// The topological numbering of the components that scc_detect.cu found (label[v]: the smallest
// vertex of v's component, which names the component). One walk over the input's edges lists the
// edges between components, a pass over that list counts each component's in- and out-edges among
// them (duplicates counted and released alike), and a counting scatter groups them by source
// component, a CSR of the condensation with repeated edges. Kahn's levels over it come from the
// engine's one device Kahn (kahn.cu), the components named by their smallest vertex. The
// components are numbered by (level, smallest vertex), deterministic and topological. A
// condensation deeper than the level budget (a long chain of small components, where a level is a
// barrier for a handful of edges) is left to the host (number_components, scc.cpp).
#include "error.hpp"
#include "kahn.cuh"
#include "launch.cuh"
#include "primitives.cuh"
#include "probe.cuh"
#include "scc.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>

namespace grail::cuda::scc {

namespace {

// A device level costs one or two grid barriers, a few microseconds; the host's Kahn about a
// nanosecond per vertex or edge. Past this many levels the host is cheaper, so the device gives up.
constexpr size_t kMinDeviceLevels = 256;
constexpr size_t kItemsPerDeviceLevel = 1024;

// Steps of the walk that lists the edges between components: chunks of 256 edges rather than the
// detection's 1,024, so that smaller graphs get more warps (the walk is a chain of dependent loads
// per lane). H100, scc_bench, numbering ms with 32 / 16 / 8 / 4 steps: cycles 2M + 500K 1.63 /
// 1.11 / 0.92 / 0.81, cycles 200K + 50K 0.89 / 0.52 / 0.39 / 0.36, R-MAT 22-16 1.20 / 1.18 / 1.24 /
// 1.34, uniform 4M x 10 0.61 / 0.61 / 0.62 / 0.72.
constexpr unsigned kCrossSteps = 8;

// Lists the edges between components as (source component, target component).
__global__ void
cross_edges(CsrView g, const vid_t *label, uint2 *list, unsigned long long *count) {
	size_t thread = size_t(blockIdx.x) * blockDim.x + threadIdx.x, threads = size_t(gridDim.x) * blockDim.x;
	compact_edges<kCrossSteps>(
	    g, thread / 32, threads / 32,
	    [&](vid_t u, vid_t w, bool valid) { return valid && __ldg(label + u) != __ldg(label + w); },
	    [&](vid_t u, vid_t w) { return make_uint2(__ldg(label + u), __ldg(label + w)); }, list, count);
}

// Counts the listed edges per component, both ways, one atomic per distinct component in a warp.
// Counted here rather than during the walk, where a warp's 32 edges held one or two edges between
// components, each its own atomic, and the edges out of a giant component queued on one address;
// in the list they come 32 to a warp, and a chunk's edges stay in order, so one component's
// out-edges come in runs (cycles 2M + 500K, H100: the listing and grouping 1.54 -> 1.18 ms).
__global__ void
count_cross(const uint2 *list, const unsigned long long *count, uint32_t *out_count, uint32_t *in_degree) {
	size_t thread = size_t(blockIdx.x) * blockDim.x + threadIdx.x, threads = size_t(gridDim.x) * blockDim.x;
	const unsigned long long edges = *count;
	for (size_t first = thread & ~size_t(31); first < edges; first += threads) {
		size_t i = first + lane_id();
		bool valid = i < edges;
		uint2 e = valid ? list[i] : make_uint2(0, 0);
		warp_count(out_count, e.x, valid);
		warp_count(in_degree, e.y, valid);
	}
}

// targets[start[c] ..) receives the target components of c's out-edges, in any order;
// out_count ends all zero.
__global__ void
group_edges(const uint2 *list, const unsigned long long *count, const uint32_t *start, uint32_t *out_count,
            vid_t *targets) {
	size_t thread = size_t(blockIdx.x) * blockDim.x + threadIdx.x, threads = size_t(gridDim.x) * blockDim.x;
	const unsigned long long edges = *count;
	for (size_t first = thread & ~size_t(31); first < edges; first += threads) {
		size_t i = first + lane_id();
		bool valid = i < edges;
		uint2 e = valid ? list[i] : make_uint2(0, 0);
		unsigned peers = __match_any_sync(kFullMask, valid ? e.x : kNone);
		int leader = __ffs(peers) - 1;
		uint32_t group = uint32_t(__popc(peers)), left = 0;
		if (valid && lane_id() == unsigned(leader))
			left = atomicSub(&out_count[e.x], group);
		left = __shfl_sync(kFullMask, left, leader);
		if (valid)
			targets[start[e.x] + left - group + uint32_t(__popc(peers & lanes_below()))] = e.y;
	}
}

struct IsComponent {
	const vid_t *label;
	__device__ bool
	operator()(vid_t v) const {
		return __ldg(label + v) == v;
	}
};

__global__ void
set_numbers(const vid_t *ordered, uint32_t k, uint32_t *number) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < k)
		number[ordered[i]] = uint32_t(i);
}

__global__ void
vertex_numbers(const vid_t *label, vid_t n, const uint32_t *number, uint32_t *out) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v < n)
		out[v] = number[label[v]];
}

} // namespace

size_t
numbering_temp_bytes(vid_t n) {
	size_t scan = 0, select = 0, sort = 0;
	CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan, static_cast<uint32_t *>(nullptr),
	                                         static_cast<uint32_t *>(nullptr), int64_t(n) + 1));
	thrust::counting_iterator<vid_t> all(0);
	CUDA_CHECK(cub::DeviceSelect::If(nullptr, select, all, static_cast<vid_t *>(nullptr),
	                                 static_cast<uint32_t *>(nullptr), int64_t(n), IsComponent{nullptr}));
	cub::DoubleBuffer<uint32_t> keys(nullptr, nullptr);
	cub::DoubleBuffer<vid_t> values(nullptr, nullptr);
	CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort, keys, values, int64_t(n), 0, 32));
	return std::max({scan, select, sort});
}

DeviceNumbering
number_on_device(SccDevice &d, cudaStream_t s, TimingProbe &probe) {
	const vid_t n = d.graph.vertex_count();
	const eid_t m = d.graph.edge_count();
	Progress *p = d.progress.data();
	const vid_t *label = d.label.data();
	probe.mark(0);
	CUDA_CHECK(cudaMemsetAsync(p, 0, sizeof(Progress), s));
	CUDA_CHECK(cudaMemsetAsync(d.out_count.data(), 0, d.out_count.bytes(), s));
	CUDA_CHECK(cudaMemsetAsync(d.in_degree.data(), 0, d.in_degree.bytes(), s));
	uint2 *list = d.worklist[0].data();
	vid_t *targets = reinterpret_cast<vid_t *>(d.worklist[1].data());
	if (m > 0) {
		// A warp per chunk of edges, up to 2^16 chunks at once; the walk strides past.
		size_t chunks = (m + 32 * kCrossSteps - 1) / (32 * kCrossSteps);
		cross_edges<<<blocks_for(std::min<size_t>(chunks, size_t(1) << 16) * 32), kBlockThreads, 0, s>>>(
		    d.graph.view(), label, list, &p->cross);
		CUDA_CHECK_LAUNCH();
		count_cross<<<blocks_for(std::min<size_t>(m, size_t(1) << 21)), kBlockThreads, 0, s>>>(
		    list, &p->cross, d.out_count.data(), d.in_degree.data());
		CUDA_CHECK_LAUNCH();
	}
	cub_call(d.temp, [&](void *temp, size_t &bytes) {
		return cub::DeviceScan::ExclusiveSum(temp, bytes, d.out_count.data(), d.cross_start.data(), int64_t(n) + 1, s);
	});
	if (m > 0) {
		group_edges<<<blocks_for(std::min<size_t>(m, size_t(1) << 21)), kBlockThreads, 0, s>>>(
		    list, &p->cross, d.cross_start.data(), d.out_count.data(), targets);
		CUDA_CHECK_LAUNCH();
	}
	probe.mark(1);

	// Kahn's order goes to frontier[1], free again once the levels are known.
	launch_kahn(KahnDag<uint32_t>{d.cross_start.data(), targets, n, label},
	            KahnBuffers{d.in_degree.data(), d.level.data(), d.frontier[1].data(), nullptr, d.big.data(), &p->kahn},
	            uint32_t(std::min<size_t>(kMinDeviceLevels + (size_t(n) + m) / kItemsPerDeviceLevel, UINT32_MAX)), s);
	probe.mark(2);
	// The components in ascending order (their smallest vertices), for the stable sort by level.
	vid_t *components = d.frontier[0].data();
	thrust::counting_iterator<vid_t> all(0);
	cub_call(d.temp, [&](void *temp, size_t &bytes) {
		return cub::DeviceSelect::If(temp, bytes, all, components, &p->selected, int64_t(n), IsComponent{label}, s);
	});
	CUDA_CHECK(cudaMemcpyAsync(d.host_progress.data(), p, sizeof(Progress), cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(cudaStreamSynchronize(s));
	const Progress &r = d.host_progress[0];
	DeviceNumbering result;
	result.levels = r.kahn.levels;
	result.kahn_ms = r.kahn.ns / 1e6;
	if (r.kahn.too_deep)
		return result;
	probe.mark(3);
	const uint32_t k = r.selected;
	if (r.kahn.placed != k)
		throw Error(ErrorKind::internal, "GPU SCC: the components found do not form a DAG");

	// Free since Kahn ended: the second frontier, the in-degrees (all zero), the big list, the
	// out-edge counts (zero since group_edges).
	cub::DoubleBuffer<uint32_t> keys(d.big.data(), d.in_degree.data());
	cub::DoubleBuffer<vid_t> values(components, d.frontier[1].data());
	gather<<<blocks_for(k), kBlockThreads, 0, s>>>(components, size_t(k), d.level.data(), keys.Current());
	CUDA_CHECK_LAUNCH();
	int bits = int(bits_for(r.kahn.levels - 1));
	cub_call(d.temp, [&](void *temp, size_t &bytes) {
		return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, int64_t(k), 0, bits, s);
	});
	uint32_t *number = d.out_count.data();
	set_numbers<<<blocks_for(k), kBlockThreads, 0, s>>>(values.Current(), k, number);
	CUDA_CHECK_LAUNCH();
	uint32_t *of_vertex = d.cross_start.data();
	vertex_numbers<<<blocks_for(n), kBlockThreads, 0, s>>>(label, n, number, of_vertex);
	CUDA_CHECK_LAUNCH();
	result.done = true;
	result.components = k;
	result.of_vertex = of_vertex;
	result.smallest_vertex = values.Current();
	return result;
}

} // namespace grail::cuda::scc
