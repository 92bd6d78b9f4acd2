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
	char text[256];
	snprintf(text, sizeof text, "%s (compute %d.%d, %.1f GiB)", prop.name, prop.major, prop.minor,
	         double(prop.totalGlobalMem) / (1024.0 * 1024 * 1024));
	return {true, text};
}

} // namespace grail
