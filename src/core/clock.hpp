// The clock of every timing in the engine, its benchmarks, the CLI and the glue: milliseconds on
// the monotonic clock, as a double (sub-microsecond resolution is kept).
#pragma once
#include "cpp_only.hpp"

#include <chrono>

namespace grail {

// Milliseconds since a fixed, arbitrary origin: only differences of two values mean anything.
inline double
now_ms() noexcept {
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Milliseconds since start, a value of now_ms().
inline double
ms_since(double start) noexcept {
	return now_ms() - start;
}

} // namespace grail
