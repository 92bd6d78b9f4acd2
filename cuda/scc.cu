// GPU strongly connected components: the entry point. Detection (scc_detect.cu) gives every vertex
// its component's smallest vertex; numbering (scc_number.cu) orders the components topologically,
// on the device unless the condensation is too deep, then on the host. See scc.cuh.
#include "error.hpp"
#include "scc.cuh"

#include <optional>
#include <utility>

namespace grail {

using namespace cuda;

namespace cuda::scc {

SccDevice::SccDevice(const Csr &g, cudaStream_t stream)
    : graph(DeviceCsr::upload(g, stream)),
      signature(g.vertex_count()), worklist{DeviceBuffer<uint2>(g.edge_count()), DeviceBuffer<uint2>(g.edge_count())},
      has(2 * g.vertex_count()), label(g.vertex_count()), out_count(g.vertex_count() + 1),
      cross_start(g.vertex_count() + 1), in_degree(g.vertex_count()),
      level(g.vertex_count()), frontier{DeviceBuffer<vid_t>(g.vertex_count()), DeviceBuffer<vid_t>(g.vertex_count())},
      big(g.vertex_count()), progress(1), host_progress(1) {
	temp.get(numbering_temp_bytes(g.vertex_count()));
}

SccDevice::SccDevice(DeviceCsr &&g, cudaStream_t)
    : graph(std::move(g)), signature(graph.vertex_count()), worklist{DeviceBuffer<uint2>(graph.edge_count()),
                                                                     DeviceBuffer<uint2>(graph.edge_count())},
      has(2 * size_t(graph.vertex_count())), label(graph.vertex_count()), out_count(size_t(graph.vertex_count()) + 1),
      cross_start(size_t(graph.vertex_count()) + 1), in_degree(graph.vertex_count()),
      level(graph.vertex_count()), frontier{DeviceBuffer<vid_t>(graph.vertex_count()),
                                            DeviceBuffer<vid_t>(graph.vertex_count())},
      big(graph.vertex_count()), progress(1), host_progress(1) {
	temp.get(numbering_temp_bytes(graph.vertex_count()));
}

size_t
SccDevice::bytes_for(size_t n, size_t m) {
	// The CSR, two edge lists of (source, target), signatures, Trim's two flags, eight words per
	// vertex for the labels and the numbering.
	return DeviceCsr::bytes_for(n, m) + 2 * m * sizeof(uint2) + n * sizeof(uint2) + 2 * n + 8 * n * sizeof(uint32_t);
}

} // namespace cuda::scc

Components
strongly_connected_components_gpu(const Csr &graph, GpuSccTimings *timings) {
	const size_t n = graph.vertex_count(), m = graph.edge_count();
	require_device("GPU SCC");
	GpuSccTimings local;
	GpuSccTimings &t = timings ? *timings : local;
	t = GpuSccTimings{};
	if (n == 0)
		return Components{};
	require_device_memory(scc::SccDevice::bytes_for(n, m), "the graph", "SCC", "compute the components on the CPU");

	Stream stream;
	cudaStream_t s = stream.get();
	// Events only when timings are asked for: recording them adds no synchronisation.
	std::optional<Event> marks[5];
	auto mark = [&](int i) {
		if (timings) {
			marks[i].emplace();
			marks[i]->record(s);
		}
	};
	mark(0);
	scc::SccDevice d(graph, s);
	mark(1);
	scc::detect_components(d, s, t);
	mark(2);
	TimingProbe probe(timings != nullptr, 4, s);
	scc::DeviceNumbering numbering = scc::number_on_device(d, s, probe);
	t.levels = numbering.levels;
	t.kahn_ms = numbering.kahn_ms;
	Components result;
	if (numbering.done) {
		mark(3);
		result.of_vertex.resize(n);
		result.smallest_vertex.resize(numbering.components);
		CUDA_CHECK(cudaMemcpyAsync(result.of_vertex.data(), numbering.of_vertex, n * sizeof(uint32_t),
		                           cudaMemcpyDeviceToHost, s));
		CUDA_CHECK(cudaMemcpyAsync(result.smallest_vertex.data(), numbering.smallest_vertex,
		                           numbering.components * sizeof(vid_t), cudaMemcpyDeviceToHost, s));
		mark(4);
		stream.synchronize();
	} else {
		mark(3);
		std::vector<vid_t> label(n);
		CUDA_CHECK(cudaMemcpyAsync(label.data(), d.label.data(), n * sizeof(vid_t), cudaMemcpyDeviceToHost, s));
		stream.synchronize();
		result = number_components(graph, label);
		mark(4);
		stream.synchronize();
		t.host_numbering = true;
	}
	if (timings) {
		t.upload_ms = marks[1]->since(*marks[0]);
		t.detect_ms = marks[2]->since(*marks[1]);
		t.numbering_ms = marks[3]->since(*marks[2]);
		t.download_ms = marks[4]->since(*marks[3]);
		if (numbering.done) { // else mark 3 was never recorded
			t.cross_ms = probe.between(0, 1);
			t.sync_ms = probe.between(1, 3);
			t.order_ms = marks[3]->since(*marks[2]) - probe.between(0, 3);
		}
	}
	return result;
}

} // namespace grail
