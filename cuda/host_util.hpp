// Small host-side helpers of the CUDA engine's entry points.
#pragma once

#include <cstddef>
#include <string>

namespace grail::cuda_host {

// Bytes as MiB, rounded up, for memory messages.
inline std::string
mib(size_t bytes) {
	return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

} // namespace grail::cuda_host
