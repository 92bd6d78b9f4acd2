// Which engine runs an algorithm, by the grail.device setting.
#pragma once

#include "error.hpp"
#include "graph.hpp"

#include <cstdint>
#include <string>

#include "boundary/guard.hpp"

namespace grail::pg {

// True if the GPU should run a traversal of a graph: never under grail.device = cpu; always under
// gpu (an error if no GPU is usable); under auto, when a GPU is usable, the graph has at least
// grail.gpu_min_edges edges and an average out-degree of at least 2. (Level-synchronous GPU
// traversal pays one synchronisation per level: on long thin graphs, paths and chains, the CPU
// wins by far.) Probes the GPU (initialising CUDA in this backend) only when the answer depends on it.
bool use_gpu(uint64_t vertices, uint64_t edges);

// Under auto, a GPU failure that the CPU can recover from (the graph does not fit in device
// memory) falls back to the CPU with a NOTICE; under gpu it is an error.
bool gpu_fallback_allowed();

// gpu() where use_gpu() picks the GPU for graph, cpu() otherwise or after a recoverable GPU
// failure under auto; `what` names the algorithm in the NOTICE.
template <typename Gpu, typename Cpu>
auto
on_chosen_device(const char *what, const Csr &graph, Gpu &&gpu, Cpu &&cpu) -> decltype(cpu()) {
	if (use_gpu(graph.vertex_count(), graph.edge_count())) {
		try {
			return gpu();
		} catch (const Error &e) {
			if (e.kind() != ErrorKind::limit_exceeded || !gpu_fallback_allowed())
				throw;
			std::string reason = e.what();
			guard([&] { ereport(NOTICE, (errmsg("pg_grail: %s runs on the CPU: %s", what, reason.c_str()))); });
		}
	}
	return cpu();
}

} // namespace grail::pg
