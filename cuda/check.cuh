// CUDA error checking: every runtime call goes through CUDA_CHECK, which turns a failure into a
// grail::Error naming the call and where it was made, so the host (PostgreSQL glue, CLI) reports
// it like any engine error and RAII frees the device memory on the way out.
#pragma once
#include "cpp_only.hpp"
#include "error.hpp"

#include <cuda_runtime.h>

#include <string>

namespace grail::cuda {

inline void
check(cudaError_t status, const char *call, const char *file, int line) {
	if (status == cudaSuccess)
		return;
	// Reset the runtime's last-error state, so that the next launch check does not report this
	// failure a second time.
	cudaGetLastError();
	std::string message = std::string("CUDA call ") + call + " failed: " + cudaGetErrorString(status) + " (" + file +
	                      ":" + std::to_string(line) + ")";
	// Running out of device memory is a limit the caller can act on (smaller graph, CPU); the
	// rest are bugs or a broken device.
	ErrorKind kind = status == cudaErrorMemoryAllocation ? ErrorKind::limit_exceeded : ErrorKind::internal;
	throw Error(kind, message);
}

} // namespace grail::cuda

#define CUDA_CHECK(call) ::grail::cuda::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch configuration errors surface here, execution errors at the next
// synchronising call.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
