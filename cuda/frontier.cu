#include "frontier.cuh"

#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cooperative_groups.h>

#include <cstdint>

namespace grail::cuda {

namespace {

// degree[i] for i < count, degree[count] = 0 so that the exclusive sum ends with the total;
// position[i] = i is what the binning partitions.
__global__ void
frontier_degrees(CsrView g, const vid_t *frontier, vid_t count, eid_t *degree, vid_t *position) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count) {
		vid_t u = frontier[i];
		degree[i] = g.offsets[u + 1] - g.offsets[u];
		position[i] = vid_t(i);
	} else if (i == count) {
		degree[i] = 0;
	}
}

// The bins are chosen by the degree of the position's vertex, read back from the prefix sums.
struct DegreeBelow {
	const eid_t *offsets;
	eid_t limit;
	__device__ bool
	operator()(vid_t i) const {
		return offsets[i + 1] - offsets[i] < limit;
	}
};

struct IsValid {
	__device__ bool
	operator()(vid_t v) const {
		return v != kInvalid;
	}
};

// Queue positions by one atomic per warp: a level's vertices enter order through one counter.
__device__ vid_t
warp_append(uint32_t *tail, bool take) {
	unsigned mask = __ballot_sync(__activemask(), take);
	if (!take)
		return kInvalid;
	unsigned lane = threadIdx.x % 32, leader = __ffs(mask) - 1;
	vid_t base = 0;
	if (lane == leader)
		base = atomicAdd(tail, unsigned(__popc(mask)));
	base = __shfl_sync(mask, base, leader);
	return base + __popc(mask & ((1u << lane) - 1));
}

// counters: [0] the queue's tail, [1] the number of levels; level_start: room for n + 1 entries.
__global__ void
kahn_levels(CsrView out, CsrView in, vid_t *order, uint32_t *level, uint32_t *remaining, uint32_t *level_start,
            uint32_t *counters) {
	namespace cg = cooperative_groups;
	cg::grid_group grid = cg::this_grid();
	const size_t thread = grid.thread_rank(), threads = grid.size();
	const size_t warp = thread / 32, warps = threads / 32;
	const unsigned lane = threadIdx.x % 32;
	uint32_t *tail = counters;
	for (size_t base = 0; base < out.vertices; base += threads) {
		size_t v = base + thread;
		bool source = false;
		if (v < out.vertices) {
			uint32_t degree = uint32_t(in.offsets[v + 1] - in.offsets[v]);
			remaining[v] = degree;
			source = degree == 0;
		}
		vid_t slot = warp_append(tail, source);
		if (source)
			order[slot] = vid_t(v);
	}
	grid.sync();
	uint32_t begin = 0, end = atomicAdd(tail, 0u), l = 0;
	if (thread == 0)
		level_start[0] = 0;
	// Every thread reads the tail (a level's end) before any appends to it: otherwise a late
	// reader would take part of the next level into this one, and the grid would fall out of step.
	grid.sync();
	while (begin < end) {
		for (size_t i = begin + warp; i < end; i += warps) {
			vid_t u = order[i];
			if (lane == 0)
				level[u] = l;
			for (eid_t e = out.offsets[u]; e < out.offsets[u + 1]; e += 32) {
				bool ready = false;
				vid_t w = kInvalid;
				if (e + lane < out.offsets[u + 1]) {
					w = out.targets[e + lane];
					ready = atomicSub(&remaining[w], 1u) == 1u;
				}
				vid_t slot = warp_append(tail, ready);
				if (ready)
					order[slot] = w;
			}
		}
		grid.sync();
		begin = end;
		end = atomicAdd(tail, 0u);
		l++;
		if (thread == 0)
			level_start[l] = begin;
		grid.sync();
	}
	if (thread == 0)
		counters[1] = l;
}

} // namespace

FrontierWorkspace::FrontierWorkspace(vid_t vertices)
    : edge_offsets(size_t(vertices) + 1), positions(vertices), small(vertices), medium(vertices), large(vertices),
      counters(2), host_counters(3) {
}

size_t
FrontierWorkspace::bytes_for(size_t vertices) {
	return (vertices + 1) * sizeof(eid_t) + 4 * vertices * sizeof(vid_t);
}

DegreeBins
bin_frontier(CsrView graph, const vid_t *frontier, vid_t count, FrontierWorkspace &ws, cudaStream_t stream) {
	eid_t *offsets = ws.edge_offsets.data();
	frontier_degrees<<<blocks_for(size_t(count) + 1), kBlockThreads, 0, stream>>>(graph, frontier, count, offsets,
	                                                                              ws.positions.data());
	CUDA_CHECK_LAUNCH();
	cub_call(ws.temp, [&](void *temp, size_t &bytes) {
		return cub::DeviceScan::ExclusiveSum(temp, bytes, offsets, int64_t(count) + 1, stream);
	});
	DegreeBelow is_small{offsets, 32}, is_medium{offsets, kBlockThreads};
	// Three-way partition: small, then medium among the rest, the remainder large.
	cub_call(ws.temp, [&](void *temp, size_t &bytes) {
		return cub::DevicePartition::If(temp, bytes, ws.positions.data(), ws.small.data(), ws.medium.data(),
		                                ws.large.data(), ws.counters.data(), int64_t(count), is_small, is_medium,
		                                stream);
	});
	CUDA_CHECK(cudaMemcpyAsync(ws.host_counters.data(), ws.counters.data(), 2 * sizeof(eid_t), cudaMemcpyDeviceToHost,
	                           stream));
	CUDA_CHECK(
	    cudaMemcpyAsync(ws.host_counters.data() + 2, offsets + count, sizeof(eid_t), cudaMemcpyDeviceToHost, stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	DegreeBins bins;
	bins.small = vid_t(ws.host_counters[0]);
	bins.medium = vid_t(ws.host_counters[1]);
	bins.large = count - bins.small - bins.medium;
	bins.edges = ws.host_counters[2];
	return bins;
}

vid_t
compact(const vid_t *in, eid_t count, vid_t *out, FrontierWorkspace &ws, cudaStream_t stream) {
	if (count == 0)
		return 0;
	cub_call(ws.temp, [&](void *temp, size_t &bytes) {
		return cub::DeviceSelect::If(temp, bytes, in, out, ws.counters.data(), int64_t(count), IsValid{}, stream);
	});
	CUDA_CHECK(
	    cudaMemcpyAsync(ws.host_counters.data(), ws.counters.data(), sizeof(eid_t), cudaMemcpyDeviceToHost, stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	return vid_t(ws.host_counters[0]);
}

vid_t
topological_levels(CsrView out, CsrView in, vid_t *order, uint32_t *level, uint32_t *remaining,
                   std::vector<size_t> &level_start, cudaStream_t stream) {
	level_start.assign(1, 0);
	if (out.vertices == 0)
		return 0;
	DeviceBuffer<uint32_t> starts(size_t(out.vertices) + 1), counters(2);
	CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, counters.bytes(), stream));
	unsigned blocks = resident_blocks(reinterpret_cast<const void *>(kahn_levels), kBlockThreads);
	uint32_t *starts_data = starts.data(), *counters_data = counters.data();
	void *args[] = {&out, &in, &order, &level, &remaining, &starts_data, &counters_data};
	CUDA_CHECK(
	    cudaLaunchCooperativeKernel(reinterpret_cast<void *>(kahn_levels), blocks, kBlockThreads, args, 0, stream));
	uint32_t host_counters[2];
	CUDA_CHECK(cudaMemcpyAsync(host_counters, counters.data(), sizeof host_counters, cudaMemcpyDeviceToHost, stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	std::vector<uint32_t> starts_host(size_t(host_counters[1]) + 1);
	CUDA_CHECK(cudaMemcpyAsync(starts_host.data(), starts.data(), starts_host.size() * sizeof(uint32_t),
	                           cudaMemcpyDeviceToHost, stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	level_start.assign(starts_host.begin(), starts_host.end());
	return vid_t(host_counters[0]);
}

} // namespace grail::cuda
