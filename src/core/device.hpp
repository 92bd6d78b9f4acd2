// Which GPU, if any, this build and this machine offer.
#pragma once
#include "cpp_only.hpp"

#include <string>

namespace grail {

struct GpuProbe {
	bool usable = false;
	std::string description; // the device's name and memory, or why there is none
};

// Asks the CUDA runtime, so it initialises CUDA in the calling process: call it lazily, in the
// process that will use the GPU, never before a fork.
GpuProbe probe_gpu();

} // namespace grail
