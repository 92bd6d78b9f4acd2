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

// Every form that frees with free(), the nothrow ones included: a sanitizer's runtime defines each
// form, and memory from its operator new must not reach this free() (alloc-dealloc-mismatch under
// ASan, e.g. std::stable_sort's buffer). The aligned forms keep their own pairs.
void *
operator new(std::size_t size) {
	return allocate(size);
}

void *
operator new[](std::size_t size) {
	return allocate(size);
}

void *
operator new(std::size_t size, const std::nothrow_t &) noexcept {
	try {
		return allocate(size);
	} catch (const std::bad_alloc &) {
		return nullptr;
	}
}

void *
operator new[](std::size_t size, const std::nothrow_t &) noexcept {
	try {
		return allocate(size);
	} catch (const std::bad_alloc &) {
		return nullptr;
	}
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

void
operator delete(void *p, const std::nothrow_t &) noexcept {
	std::free(p);
}

void
operator delete[](void *p, const std::nothrow_t &) noexcept {
	std::free(p);
}
