#include "frontier_push.cuh"

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>

namespace grail::cuda {

namespace {

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

} // namespace grail::cuda
