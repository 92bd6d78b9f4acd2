// Marks functions that the engine's C++ compiler and nvcc both compile, for the host and, under
// nvcc, the device too: rules that the CPU and GPU code must apply identically.
#pragma once

#ifdef __CUDACC__
#define GRAIL_HOST_DEVICE __host__ __device__
#else
#define GRAIL_HOST_DEVICE
#endif
