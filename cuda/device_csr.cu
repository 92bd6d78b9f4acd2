#include "device_csr.cuh"
#include "launch.cuh"
#include "primitives.cuh"

#include <cub/device/device_radix_sort.cuh>

namespace grail::cuda {

namespace {

// The source of each edge, by binary search in the offsets: edge-parallel, so a vertex of huge
// degree does not serialise on one thread.
__global__ void
edge_sources(CsrView g, vid_t *sources) {
	eid_t e = eid_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (e >= g.edges)
		return;
	sources[e] = row_of(g.offsets, 0, g.vertices, e);
}

// offsets[v] = first position of a key >= v in the sorted keys.
__global__ void
row_starts(const vid_t *sorted_keys, eid_t edges, vid_t vertices, eid_t *offsets) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v > vertices)
		return;
	eid_t lo = 0, hi = edges;
	while (lo < hi) {
		eid_t mid = lo + (hi - lo) / 2;
		if (sorted_keys[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	offsets[v] = lo;
}

unsigned
key_bits(vid_t vertices) {
	unsigned bits = 1;
	while (bits < 32 && (uint64_t(1) << bits) < vertices)
		bits++;
	return bits;
}

} // namespace

DeviceCsr
DeviceCsr::upload(const Csr &graph, cudaStream_t stream) {
	DeviceCsr d;
	d.vertices_ = vid_t(graph.vertex_count());
	d.edges_ = graph.edge_count();
	d.offsets_.resize(graph.vertex_count() + 1);
	d.targets_.resize(graph.edge_count());
	if (graph.offsets.empty())
		CUDA_CHECK(cudaMemsetAsync(d.offsets_.data(), 0, sizeof(eid_t), stream));
	else
		CUDA_CHECK(cudaMemcpyAsync(d.offsets_.data(), graph.offsets.data(), d.offsets_.bytes(), cudaMemcpyHostToDevice,
		                           stream));
	if (d.edges_ > 0)
		CUDA_CHECK(cudaMemcpyAsync(d.targets_.data(), graph.targets.data(), d.targets_.bytes(), cudaMemcpyHostToDevice,
		                           stream));
	return d;
}

size_t
DeviceCsr::bytes_for(size_t vertices, size_t edges) {
	return (vertices + 1) * sizeof(eid_t) + edges * sizeof(vid_t);
}

size_t
DeviceCsr::transpose_peak_bytes(size_t vertices, size_t edges) {
	// The result plus TransposeScratch, and CUB's own temporary storage, about one key array.
	return bytes_for(vertices, edges) + 4 * edges * sizeof(vid_t);
}

void
DeviceCsr::allocate(vid_t vertices, eid_t edges) {
	vertices_ = vertices;
	edges_ = edges;
	offsets_.resize(size_t(vertices) + 1);
	targets_.resize(edges);
}

void
DeviceCsr::transpose_into(DeviceCsr &t, TransposeScratch &scratch, TempStorage &temp, cudaStream_t stream) const {
	t.allocate(vertices_, edges_);
	if (edges_ == 0) {
		CUDA_CHECK(cudaMemsetAsync(t.offsets_.data(), 0, t.offsets_.bytes(), stream));
		return;
	}
	// Sort the (target, source) pairs by target. The sort is stable and the sources come in
	// ascending order, so every row of the result is ascending too.
	scratch.reserve(edges_);
	CUDA_CHECK(
	    cudaMemcpyAsync(scratch.keys.data(), targets_.data(), targets_.bytes(), cudaMemcpyDeviceToDevice, stream));
	edge_sources<<<blocks_for(edges_), kBlockThreads, 0, stream>>>(view(), scratch.sources.data());
	CUDA_CHECK_LAUNCH();
	cub::DoubleBuffer<vid_t> k(scratch.keys.data(), scratch.keys_alt.data());
	cub::DoubleBuffer<vid_t> v(scratch.sources.data(), t.targets_.data());
	unsigned bits = key_bits(vertices_);
	cub_call(temp, [&](void *t, size_t &bytes) {
		return cub::DeviceRadixSort::SortPairs(t, bytes, k, v, edges_, 0, bits, stream);
	});
	if (v.Current() != t.targets_.data())
		CUDA_CHECK(
		    cudaMemcpyAsync(t.targets_.data(), v.Current(), t.targets_.bytes(), cudaMemcpyDeviceToDevice, stream));
	row_starts<<<blocks_for(size_t(vertices_) + 1), kBlockThreads, 0, stream>>>(k.Current(), edges_, vertices_,
	                                                                            t.offsets_.data());
	CUDA_CHECK_LAUNCH();
}

} // namespace grail::cuda
