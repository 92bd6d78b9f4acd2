// Small host-side helpers of the CUDA engine's entry points.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace grail::cuda_host {

inline double
now_ms() {
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Bytes as MiB, rounded up, for memory messages.
inline std::string
mib(size_t bytes) {
	return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

} // namespace grail::cuda_host
