// The GPU implementations of the engine's algorithms. Declared in every build, so that callers
// need no #ifdef: without CUDA they throw Error(invalid_input) saying so.
#pragma once
#include "cpp_only.hpp"
#include "bfs.hpp"

namespace grail {

// Where the time of one GPU run went, for benchmarks.
struct GpuBfsTimings {
	double upload_ms = 0;  // host -> device copy of the graph, allocations included
	double compute_ms = 0; // traversal, parents and ordering on the device, per-level syncs included
	double download_ms = 0;
	uint32_t levels = 0;
	uint32_t bottom_up_levels = 0;
};

// Same rows as bfs() (same order, depths and smallest parents). Throws Error(limit_exceeded)
// when the graph does not fit in free device memory, polls for cancellation between levels.
BfsResult bfs_gpu(const Csr &graph, vid_t source, uint32_t max_depth = std::numeric_limits<uint32_t>::max(),
                  GpuBfsTimings *timings = nullptr);

} // namespace grail
