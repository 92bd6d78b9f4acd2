#include <malloc.h>
#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer's runtime (sanitizer/allocator_interface.h, which gcc does not install).
extern "C" size_t __sanitizer_get_current_allocated_bytes(void);
#endif

#include "huge_pages.hpp"

#include "service/kept_memory.hpp"

namespace grail::pg {

static size_t kept_total = 0; // a backend is one thread: its queries keep and free graphs

KeptBytes::~KeptBytes() {
	kept_total -= bytes_;
}

void
KeptBytes::add(size_t bytes) noexcept {
	bytes_ += bytes;
	kept_total += bytes;
}

size_t
kept_bytes_total() noexcept {
	return kept_total;
}

/*
 * malloc's bytes in use: in its arenas (every thread's, as mallinfo2 sums them) and in the blocks
 * it maps on its own (large allocations). Built with AddressSanitizer, whose allocator replaces
 * malloc's (mallinfo2 would see nothing), its own count. And the arrays the engine maps itself to
 * have huge pages (a reversed CSR).
 */
static size_t
heap_in_use() noexcept {
#if defined(__SANITIZE_ADDRESS__)
	size_t allocated = __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 info = mallinfo2();
	size_t allocated = info.uordblks + info.hblkhd;
#endif
	return allocated + huge_page_bytes_mapped.load(std::memory_order_relaxed);
}

HeapGrowth::HeapGrowth() noexcept : start_(heap_in_use()) {
}

size_t
HeapGrowth::bytes() const noexcept {
	size_t now = heap_in_use();
	return now > start_ ? now - start_ : 0;
}

} // namespace grail::pg
