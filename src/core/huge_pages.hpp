// Advice to the kernel to back large arrays with 2 MB pages where it can (Linux transparent huge
// pages; elsewhere nothing). An array read at random, a vertex at a time (a graph's offsets and
// lists, a hash table), misses the TLB on most reads with 4 kB pages once it is larger than the
// TLB covers (a few MB); with 2 MB pages one entry covers 512 times as much. A build that touches
// each page once also takes one fault per 2 MB instead of per 4 kB.
#pragma once
#include "cpp_only.hpp"

#include "array.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
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

#ifdef __linux__
// Address space of bytes (a multiple of the page size) at a 2 MB boundary, reserved and not yet
// usable (PROT_NONE), for a caller to map over with MAP_FIXED; MAP_FAILED if none is had. The
// reservation is bytes + 2 MB long, and what lies outside the aligned part is given back.
inline void *
reserve_huge_page_aligned(size_t bytes) noexcept {
	void *room = mmap(nullptr, bytes + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (room == MAP_FAILED)
		return MAP_FAILED;
	const uintptr_t begin = uintptr_t(room), start = (begin + kHugePage - 1) & ~uintptr_t(kHugePage - 1);
	if (start > begin)
		munmap(room, start - begin);
	if (begin + kHugePage > start)
		munmap(reinterpret_cast<void *>(start + bytes), begin + kHugePage - start);
	return reinterpret_cast<void *>(start);
}
#endif

// Bytes that huge_page_array() has mapped and not yet freed: memory outside malloc, which a count
// of a heap's growth adds.
inline std::atomic<size_t> huge_page_bytes_mapped{0};

template <typename T> struct HugePageArray {
	Array<T> array;
	T *data;
};

// count zero Ts where each 2 MB of them can be one huge page, and the pointer to write them
// through (the array borrows the memory, so its own writes are refused). Memory from malloc
// cannot promise that: it reuses pages already touched, which keep their 4 kB pages whatever
// advice comes after. Arrays under 2 MB, and systems without the advice, get an ordinary array.
// Throws std::bad_alloc when the memory cannot be had.
template <typename T>
HugePageArray<T>
huge_page_array(size_t count) {
	const size_t bytes = count * sizeof(T);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (bytes >= kHugePage) {
		const size_t page = size_t(sysconf(_SC_PAGESIZE)), mapped = (bytes + page - 1) / page * page;
		void *start = reserve_huge_page_aligned(mapped);
		if (start == MAP_FAILED ||
		    mmap(start, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
			if (start != MAP_FAILED)
				munmap(start, mapped);
			throw std::bad_alloc();
		}
		madvise(start, mapped, MADV_HUGEPAGE);
		huge_page_bytes_mapped += mapped;
		std::shared_ptr<void> keep(start, [mapped](void *p) {
			munmap(p, mapped);
			huge_page_bytes_mapped -= mapped;
		});
		T *data = static_cast<T *>(start);
		return {Array<T>::borrow(data, count, std::move(keep)), data};
	}
#endif
	HugePageArray<T> a{Array<T>(count), nullptr};
	a.data = a.array.data();
	return a;
}

} // namespace grail
