#include "failing_allocations.hpp"

#include <cstdlib>
#include <new>

namespace {

// Allocations of this thread left before the one that fails; negative: none fails.
thread_local long allocations_left = -1;
thread_local bool allocation_failed = false;

void *
allocate(std::size_t size) {
	if (allocations_left >= 0 && allocations_left-- == 0) {
		allocation_failed = true;
		throw std::bad_alloc();
	}
	if (void *p = std::malloc(size == 0 ? 1 : size))
		return p;
	throw std::bad_alloc();
}

} // namespace

namespace grail_test {

FailAllocation::FailAllocation(long after) noexcept {
	allocations_left = after;
	allocation_failed = false;
}

FailAllocation::~FailAllocation() {
	allocations_left = -1;
}

bool
FailAllocation::failed() noexcept {
	return allocation_failed;
}

} // namespace grail_test

// The aligned and nothrow forms keep the standard library's own definitions, which call these or
// allocate apart from them.
void *
operator new(std::size_t size) {
	return allocate(size);
}

void *
operator new[](std::size_t size) {
	return allocate(size);
}

void
operator delete(void *p) noexcept {
	std::free(p);
}

void
operator delete[](void *p) noexcept {
	std::free(p);
}

void
operator delete(void *p, std::size_t) noexcept {
	std::free(p);
}

void
operator delete[](void *p, std::size_t) noexcept {
	std::free(p);
}
