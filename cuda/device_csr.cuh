// A CSR graph on the device: 64-bit edge offsets (edge counts past 2^32 work), 32-bit vertex ids,
// the same layout as grail::Csr so that the upload is two plain copies.
#pragma once
#include "buffer.cuh"
#include "graph.hpp"

namespace grail::cuda {

// What kernels take: raw pointers, passed by value.
struct CsrView {
	const eid_t *offsets;
	const vid_t *targets;
	vid_t vertices;
	eid_t edges;
};

// The sort buffers of DeviceCsr::transpose_into(), which a caller may allocate ahead of time
// (allocation is slow next to the transposition itself).
struct TransposeScratch {
	DeviceBuffer<vid_t> keys, keys_alt, sources;
	void
	reserve(size_t edges) {
		keys.resize(edges);
		keys_alt.resize(edges);
		sources.resize(edges);
	}
};

class DeviceCsr {
public:
	// Copies graph to the device; ordered on stream, the host vectors must outlive the copy.
	static DeviceCsr upload(const Csr &graph, cudaStream_t stream);
	// Room for a graph of this size, contents undefined.
	void allocate(vid_t vertices, eid_t edges);
	// Makes result the reverse graph (in-edges), built on the device: every row ascending, like
	// Csr::reversed(). Buffers of result and scratch already of the right size are reused.
	void transpose_into(DeviceCsr &result, TransposeScratch &scratch, TempStorage &temp, cudaStream_t stream) const;
	// Device bytes a graph of this size takes, and the peak transpose_into() adds while it runs.
	static size_t bytes_for(size_t vertices, size_t edges);
	static size_t transpose_peak_bytes(size_t vertices, size_t edges);

	CsrView
	view() const noexcept {
		return {offsets_.data(), targets_.data(), vertices_, edges_};
	}
	vid_t
	vertex_count() const noexcept {
		return vertices_;
	}
	eid_t
	edge_count() const noexcept {
		return edges_;
	}

private:
	DeviceBuffer<eid_t> offsets_;
	DeviceBuffer<vid_t> targets_;
	vid_t vertices_ = 0;
	eid_t edges_ = 0;
};

} // namespace grail::cuda
