#include "frontier_push.cuh"

#include <cooperative_groups.h>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>

namespace grail::cuda {

namespace {

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
			uint32_t in_degree = uint32_t(in.offsets[v + 1] - in.offsets[v]);
			remaining[v] = in_degree;
			source = in_degree == 0;
		}
		if (source)
			append(order, tail, vid_t(v));
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
				if (ready)
					append(order, tail, w);
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

// The length of queue[i]'s row, and 0 past the queue (the scan's last item gives the total).
struct RowLength {
	CsrView graph;
	const vid_t *queue;
	vid_t count;
	__host__ __device__ eid_t
	operator()(vid_t i) const {
		return i < count ? graph.offsets[queue[i] + 1] - graph.offsets[queue[i]] : 0;
	}
};

} // namespace

Frontier::Frontier(size_t vertices)
    : queue_{DeviceBuffer<vid_t>(vertices), DeviceBuffer<vid_t>(vertices)}, counters_(1), host_counters_(1) {
}

size_t
Frontier::bytes_for(size_t vertices) {
	return 2 * vertices * sizeof(vid_t) + sizeof(LevelCounters);
}

void
Frontier::clear_counters(cudaStream_t stream) {
	CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, sizeof(LevelCounters), stream));
}

LevelCounters
Frontier::read_counters(cudaStream_t stream) {
	CUDA_CHECK(cudaMemcpyAsync(host_counters_.data(), counters_.data(), sizeof(LevelCounters), cudaMemcpyDeviceToHost,
	                           stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	return host_counters_[0];
}

void
Frontier::lay_rows_end_to_end(CsrView graph, cudaStream_t stream) {
	if (row_starts_.size() < size_t(size_) + 1)
		row_starts_.resize(size_t(size_) + 1);
	auto lengths =
	    thrust::make_transform_iterator(thrust::counting_iterator<vid_t>(0), RowLength{graph, current(), size_});
	cub_call(temp_, [&](void *t, size_t &bytes) {
		return cub::DeviceScan::ExclusiveSum(t, bytes, lengths, row_starts_.data(), int64_t(size_) + 1, stream);
	});
}

void
Frontier::advance(const LevelCounters &c) noexcept {
	cur_ ^= 1;
	size_ = c.count;
	edges_ = c.edges;
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
