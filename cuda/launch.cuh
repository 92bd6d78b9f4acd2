// Launch arithmetic, bit counts and CUB's two-phase calls, written once for every kernel file.
#pragma once
#include "buffer.cuh"
#include "error.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace grail::cuda {

constexpr int kBlockThreads = 256;

// Blocks of `threads` threads that give each of items a thread; at least one, so that a launch
// over no items is still a valid launch (every kernel checks its bounds).
inline unsigned
blocks_for(size_t items, int threads = kBlockThreads) {
	return unsigned(std::max<size_t>(1, (items + size_t(threads) - 1) / size_t(threads)));
}

// As many blocks of kernel as are resident at once: the grid of a cooperative launch (a grid
// barrier needs every block running) or of a kernel that strides over its items.
inline unsigned
resident_blocks(const void *kernel, int threads) {
	int device = 0, sms = 0, per_sm = 0;
	CUDA_CHECK(cudaGetDevice(&device));
	CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
	CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
	if (per_sm < 1)
		throw Error(ErrorKind::internal, "a GPU kernel does not fit on a multiprocessor");
	return unsigned(sms * per_sm);
}

// Bits that hold every value up to largest, at least one: a radix sort's end bit over keys up to
// largest, or the doubling steps that cover a distance of largest.
inline unsigned
bits_for(uint64_t largest) {
	unsigned bits = 1;
	while (bits < 64 && (largest >> bits) != 0)
		bits++;
	return bits;
}

// A CUB device call asks for its temporary storage size first, then runs: call(temp, bytes) is
// made twice, once with temp null, once with the storage it asked for.
template <class Call>
void
cub_call(TempStorage &temp, Call call) {
	size_t bytes = 0;
	CUDA_CHECK(call(nullptr, bytes));
	CUDA_CHECK(call(temp.get(bytes), bytes));
}

} // namespace grail::cuda
