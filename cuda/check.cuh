// CUDA error checking: every runtime call goes through CUDA_CHECK, which turns a failure into a
// grail::Error naming the call and where it was made, so the host (PostgreSQL glue, CLI) reports
// it like any engine error and RAII frees the device memory on the way out.
#pragma once
#include "cpp_only.hpp"
#include "error.hpp"
#include "host_util.hpp"

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

// Throws Error(invalid_input) naming `what` when no CUDA device is usable.
inline void
require_device(const char *what) {
	int devices = 0;
	if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
		cudaGetLastError();
		throw Error(ErrorKind::invalid_input, std::string("no usable CUDA device for ") + what);
	}
}

struct DeviceMemory {
	size_t free_bytes; // free before the caller allocates
	size_t need;       // the caller's arrays plus a margin
};

// Checks that arrays of array_bytes fit in free device memory, with a margin for CUB's temporary
// storage and allocation granularity; otherwise throws Error(limit_exceeded): "SUBJECT needs
// about ... of GPU memory for PURPOSE, ... are free", with hint.
inline DeviceMemory
require_device_memory(size_t array_bytes, const char *subject, const char *purpose, const char *hint) {
	size_t free_bytes = 0, total_bytes = 0;
	check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", __FILE__, __LINE__);
	size_t need = array_bytes + (64 << 20) + free_bytes / 50;
	if (need > free_bytes)
		throw Error(ErrorKind::limit_exceeded,
		            std::string(subject) + " needs about " + cuda_host::mib(need) + " of GPU memory for " + purpose +
		                ", " + cuda_host::mib(free_bytes) + " are free",
		            hint);
	return {free_bytes, need};
}

// Device memory taken since free_before was free (by this process or others).
inline size_t
device_bytes_since(size_t free_before) {
	size_t free_now = 0, total_bytes = 0;
	check(cudaMemGetInfo(&free_now, &total_bytes), "cudaMemGetInfo", __FILE__, __LINE__);
	return free_before > free_now ? free_before - free_now : 0;
}

} // namespace grail::cuda

#define CUDA_CHECK(call) ::grail::cuda::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch configuration errors surface here, execution errors at the next
// synchronising call.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
