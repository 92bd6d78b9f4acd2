#include "device.hpp"

#include <cuda_runtime.h>

#include <cstdio>

namespace grail {

GpuProbe
probe_gpu() {
	int count = 0;
	cudaError_t status = cudaGetDeviceCount(&count);
	if (status != cudaSuccess)
		return {false, std::string("no usable CUDA device: ") + cudaGetErrorString(status)};
	if (count == 0)
		return {false, "no CUDA device is present"};
	cudaDeviceProp prop;
	status = cudaGetDeviceProperties(&prop, 0);
	if (status != cudaSuccess)
		return {false, std::string("cannot query CUDA device 0: ") + cudaGetErrorString(status)};
	char memory[32];
	snprintf(memory, sizeof memory, "%.1f GiB", double(prop.totalGlobalMem) / (1024.0 * 1024 * 1024));
	return {true, std::string(prop.name) + " (compute " + std::to_string(prop.major) + "." +
	                  std::to_string(prop.minor) + ", " + memory + ")"};
}

} // namespace grail
