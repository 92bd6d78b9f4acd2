// Definition of advance(): include from the .cu file that instantiates it with its operation.
#pragma once
#include "frontier.cuh"

namespace grail::cuda {

namespace detail {

template <class Op>
__device__ __forceinline__ void
visit_edges(CsrView g, vid_t u, eid_t out_pos, vid_t *out, const Op &op, eid_t first, eid_t stride) {
	eid_t begin = g.offsets[u], end = g.offsets[u + 1];
	for (eid_t e = begin + first; e < end; e += stride) {
		vid_t w = g.targets[e];
		bool keep = op(u, w);
		if (out)
			out[out_pos + (e - begin)] = keep ? w : kInvalid;
	}
}

template <class Op>
__global__ void
advance_thread(CsrView g, const vid_t *frontier, const vid_t *bin, vid_t count, const eid_t *edge_offsets, vid_t *out,
               Op op) {
	size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (k >= count)
		return;
	vid_t i = bin[k];
	visit_edges(g, frontier[i], edge_offsets[i], out, op, 0, 1);
}

template <class Op>
__global__ void
advance_warp(CsrView g, const vid_t *frontier, const vid_t *bin, vid_t count, const eid_t *edge_offsets, vid_t *out,
             Op op) {
	size_t k = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
	if (k >= count)
		return;
	vid_t i = bin[k];
	visit_edges(g, frontier[i], edge_offsets[i], out, op, threadIdx.x % 32, 32);
}

template <class Op>
__global__ void
advance_block(CsrView g, const vid_t *frontier, const vid_t *bin, vid_t count, const eid_t *edge_offsets, vid_t *out,
              Op op) {
	// Grid-stride over the large vertices: there are few, and a grid sized to them may be tiny.
	for (size_t k = blockIdx.x; k < count; k += gridDim.x) {
		vid_t i = bin[k];
		visit_edges(g, frontier[i], edge_offsets[i], out, op, threadIdx.x, blockDim.x);
	}
}

} // namespace detail

template <class Op>
void
advance(CsrView graph, const vid_t *frontier, const DegreeBins &bins, vid_t *out, const Op &op, FrontierWorkspace &ws,
        cudaStream_t stream) {
	const eid_t *offsets = ws.edge_offsets.data();
	if (bins.small > 0) {
		unsigned blocks = unsigned((size_t(bins.small) + kBlockThreads - 1) / kBlockThreads);
		detail::advance_thread<<<blocks, kBlockThreads, 0, stream>>>(graph, frontier, ws.small.data(), bins.small,
		                                                             offsets, out, op);
		CUDA_CHECK_LAUNCH();
	}
	if (bins.medium > 0) {
		unsigned blocks = unsigned((size_t(bins.medium) * 32 + kBlockThreads - 1) / kBlockThreads);
		detail::advance_warp<<<blocks, kBlockThreads, 0, stream>>>(graph, frontier, ws.medium.data(), bins.medium,
		                                                           offsets, out, op);
		CUDA_CHECK_LAUNCH();
	}
	if (bins.large > 0) {
		unsigned blocks = bins.large < 65536 ? bins.large : 65536;
		detail::advance_block<<<blocks, kBlockThreads, 0, stream>>>(graph, frontier, ws.large.data(), bins.large,
		                                                            offsets, out, op);
		CUDA_CHECK_LAUNCH();
	}
}

} // namespace grail::cuda
