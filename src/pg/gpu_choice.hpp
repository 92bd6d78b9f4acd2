// Which engine runs an algorithm, by the grail.device setting.
#pragma once

#include <cstdint>

namespace grail::pg {

// True if the GPU should run an algorithm over a graph of `edges` edges: never under
// grail.device = cpu; always under gpu (an error if no GPU is usable); under auto, when a GPU is
// usable and the graph has at least grail.gpu_min_edges edges. Probes the GPU (initialising
// CUDA in this backend) only when the answer depends on it.
bool use_gpu(uint64_t edges);

// Under auto, a GPU failure that the CPU can recover from (the graph does not fit in device
// memory) falls back to the CPU with a NOTICE; under gpu it is an error.
bool gpu_fallback_allowed();

} // namespace grail::pg
