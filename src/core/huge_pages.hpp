// Advice to the kernel to back large arrays with 2 MB pages where it can (Linux transparent huge
// pages; elsewhere nothing). An array read at random, a vertex at a time (a graph's offsets and
// lists, a hash table), misses the TLB on most reads with 4 kB pages once it is larger than the
// TLB covers (a few MB); with 2 MB pages one entry covers 512 times as much. A build that touches
// each page once also takes one fault per 2 MB instead of per 4 kB.
#pragma once
#include "cpp_only.hpp"

#include <cstddef>
#include <cstdint>
#ifdef __linux__
#include <sys/mman.h>
#endif

namespace grail {

constexpr size_t kHugePage = size_t(2) << 20;

// The whole 2 MB pages within [data, data + bytes): memory allocated and not yet touched (a page
// touched before the advice keeps its 4 kB pages).
inline void
advise_huge_pages(const void *data, size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	uintptr_t begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
	begin = (begin + kHugePage - 1) & ~uintptr_t(kHugePage - 1);
	end &= ~uintptr_t(kHugePage - 1);
	if (end > begin)
		madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
#else
	(void)data;
	(void)bytes;
#endif
}

} // namespace grail
