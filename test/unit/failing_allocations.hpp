// Allocations that fail on demand, for code that must stay consistent when an allocation throws
// std::bad_alloc part way (a backend that runs out of memory reports the error and goes on with
// what the engine kept). failing_allocations.cpp replaces the global operator new of the test
// binary: unarmed, it allocates as the standard one does.
#pragma once

namespace grail_test {

// While one lives, the calling thread's allocation number `after` (0: the next one) throws
// std::bad_alloc, and the later ones succeed.
class FailAllocation {
public:
	explicit FailAllocation(long after) noexcept;
	~FailAllocation();
	FailAllocation(const FailAllocation &) = delete;
	FailAllocation &operator=(const FailAllocation &) = delete;
	// Whether the allocation failed (the code reached that many allocations).
	static bool failed() noexcept;
};

} // namespace grail_test
