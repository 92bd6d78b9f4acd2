#include "frontier.cuh"

#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <cstdint>

namespace grail::cuda {

namespace {

unsigned
blocks_for(size_t items) {
	return unsigned((items + kBlockThreads - 1) / kBlockThreads);
}

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

__global__ void
pull_kernel(CsrView in, Bitmap visited, uint32_t *label, uint32_t level, vid_t *out) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= in.vertices)
		return;
	vid_t v = vid_t(index);
	vid_t found = kInvalid;
	if (!visited.test(v)) {
		for (eid_t e = in.offsets[v]; e < in.offsets[v + 1]; e++) {
			if (label[in.targets[e]] == level) {
				found = v;
				break;
			}
		}
		if (found != kInvalid) {
			// Only this thread writes v's label; the word of bits is shared with 31 others.
			label[v] = level + 1;
			atomicOr(&visited.words[v >> 5], 1u << (v & 31));
		}
	}
	out[v] = found;
}

__global__ void
pull_parents_kernel(CsrView in, const uint32_t *label, vid_t *parent) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= in.vertices)
		return;
	vid_t v = vid_t(index);
	uint32_t d = label[v];
	if (d == 0 || d == kInvalid)
		return;
	for (eid_t e = in.offsets[v]; e < in.offsets[v + 1]; e++) {
		vid_t u = in.targets[e];
		if (label[u] == d - 1) {
			parent[v] = u;
			return;
		}
	}
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
	size_t bytes = 0;
	CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, offsets, int64_t(count) + 1, stream));
	CUDA_CHECK(cub::DeviceScan::ExclusiveSum(ws.temp.get(bytes), bytes, offsets, int64_t(count) + 1, stream));
	DegreeBelow is_small{offsets, 32}, is_medium{offsets, kBlockThreads};
	// Three-way partition: small, then medium among the rest, the remainder large.
	CUDA_CHECK(cub::DevicePartition::If(nullptr, bytes, ws.positions.data(), ws.small.data(), ws.medium.data(),
	                                    ws.large.data(), ws.counters.data(), int64_t(count), is_small, is_medium,
	                                    stream));
	CUDA_CHECK(cub::DevicePartition::If(ws.temp.get(bytes), bytes, ws.positions.data(), ws.small.data(),
	                                    ws.medium.data(), ws.large.data(), ws.counters.data(), int64_t(count), is_small,
	                                    is_medium, stream));
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
	size_t bytes = 0;
	CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, in, out, ws.counters.data(), int64_t(count), IsValid{}, stream));
	CUDA_CHECK(cub::DeviceSelect::If(ws.temp.get(bytes), bytes, in, out, ws.counters.data(), int64_t(count), IsValid{},
	                                 stream));
	CUDA_CHECK(
	    cudaMemcpyAsync(ws.host_counters.data(), ws.counters.data(), sizeof(eid_t), cudaMemcpyDeviceToHost, stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	return vid_t(ws.host_counters[0]);
}

void
pull_step(CsrView in_graph, Bitmap visited, uint32_t *label, uint32_t level, vid_t *out, cudaStream_t stream) {
	if (in_graph.vertices == 0)
		return;
	pull_kernel<<<blocks_for(in_graph.vertices), kBlockThreads, 0, stream>>>(in_graph, visited, label, level, out);
	CUDA_CHECK_LAUNCH();
}

void
pull_parents(CsrView in_graph, const uint32_t *label, vid_t *parent, cudaStream_t stream) {
	if (in_graph.vertices == 0)
		return;
	pull_parents_kernel<<<blocks_for(in_graph.vertices), kBlockThreads, 0, stream>>>(in_graph, label, parent);
	CUDA_CHECK_LAUNCH();
}

} // namespace grail::cuda
