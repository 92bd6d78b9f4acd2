#include <malloc.h>

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
 * it maps on its own (large allocations).
 */
static size_t
heap_in_use() noexcept {
	struct mallinfo2 info = mallinfo2();
	return info.uordblks + info.hblkhd;
}

HeapGrowth::HeapGrowth() noexcept : start_(heap_in_use()) {
}

size_t
HeapGrowth::bytes() const noexcept {
	size_t now = heap_in_use();
	return now > start_ ? now - start_ : 0;
}

} // namespace grail::pg
