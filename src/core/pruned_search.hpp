// The label-pruned depth-first search, written once for the index's DAG (reachability.cpp) and for
// a changed graph over it (overlay.cpp): the two differ only in a component's successors and in
// the rule at each component (pruning.hpp).
#pragma once
#include "cpp_only.hpp"
#include "error.hpp"
#include "pruning.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace grail {

// Frees what calloc gave (the marks below), for std::unique_ptr.
struct FreeMemory {
	void
	operator()(void *p) const noexcept {
		std::free(p);
	}
};

// Visited marks by epoch, so that nothing is cleared between searches. Zeroed by calloc on the
// first search, whose large blocks are fresh pages that cost nothing until a search touches them:
// a backend's first query must not write one word per component first.
class VisitMarks {
public:
	// A new search over count vertices (the same count every time): none visited.
	void
	start(size_t count) {
		if (!marks_) {
			marks_.reset(static_cast<uint32_t *>(std::calloc(std::max<size_t>(count, 1), sizeof(uint32_t))));
			if (!marks_)
				throw std::bad_alloc();
			epoch_ = 0;
		}
		if (++epoch_ == 0) {
			std::fill(marks_.get(), marks_.get() + count, 0);
			epoch_ = 1;
		}
	}
	// Asks the cache for v's mark (after start()).
	void
	prefetch(uint32_t v) const noexcept {
		__builtin_prefetch(marks_.get() + v);
	}
	// Marks v visited; false when it was already.
	bool
	visit(uint32_t v) noexcept {
		if (marks_[v] == epoch_)
			return false;
		marks_[v] = epoch_;
		return true;
	}

private:
	std::unique_ptr<uint32_t[], FreeMemory> marks_;
	uint32_t epoch_ = 0;
};

// Visit marks for up to kMaxSearches searches at once, a bit each in one byte per component: the
// interleaved searches of one thread (ReachabilityQuery::search_range) share the bytes, a quarter of
// what one search's VisitMarks take. Each search lists the components it marked and takes its bits
// back before its next search (take_back()), most of them still in the cache. Zeroed by calloc on
// first use, as VisitMarks are.
class SearchMarks {
public:
	static constexpr unsigned kMaxSearches = 8;
	// Marks for count components (the same count every time); none set.
	void
	reserve(size_t count) {
		if (!marks_) {
			marks_.reset(static_cast<uint8_t *>(std::calloc(std::max<size_t>(count, 1), 1)));
			if (!marks_)
				throw std::bad_alloc();
			bytes_ = std::max<size_t>(count, 1);
		}
	}
	// The marks' bytes, 0 before reserve().
	size_t
	bytes() const noexcept {
		return bytes_;
	}
	// Asks the cache for v's byte (after reserve()).
	void
	prefetch(uint32_t v) const noexcept {
		__builtin_prefetch(marks_.get() + v);
	}
	// Marks v for search `search` (< kMaxSearches), listing it in marked; false when it was marked.
	// Listed first: where the list cannot grow (std::bad_alloc), v stays unmarked, so take_back()
	// still clears every bit the search set (a bit left set would hide v from the slot's later
	// searches, kept by the backend past the error: "no" where a path goes through v).
	bool
	visit(uint32_t v, unsigned search, std::vector<uint32_t> &marked) {
		uint8_t bit = uint8_t(1u << search);
		if (marks_[v] & bit)
			return false;
		marked.push_back(v);
		marks_[v] |= bit;
		return true;
	}
	// Clears search `search`'s bits of the components listed in marked, and the list.
	void
	take_back(unsigned search, std::vector<uint32_t> &marked) noexcept {
		uint8_t keep = uint8_t(~(1u << search));
		for (uint32_t v : marked)
			marks_[v] &= keep;
		marked.clear();
	}

private:
	std::unique_ptr<uint8_t[], FreeMemory> marks_;
	size_t bytes_ = 0;
};

// Whether `from` reaches `to` (from != to, and the rule at `from` said expand) over count vertices.
// for_each_successor(u, visit) calls visit(w) for u's successors until one returns true (the
// target found; a successor list may also end early, past everything that can lead to `to`);
// step(w) is the rule at w about `to` (pruning::Step). visited and stack: the caller's scratch,
// reused between searches. Polls for cancellation.
template <typename Successors, typename Rule>
bool
pruned_search(uint32_t from, uint32_t to, size_t count, VisitMarks &visited, std::vector<uint32_t> &stack,
              Successors &&for_each_successor, Rule &&step) {
	visited.start(count);
	visited.visit(from);
	stack.clear();
	stack.push_back(from);
	size_t steps = 0;
	while (!stack.empty()) {
		uint32_t u = stack.back();
		stack.pop_back();
		bool found = false;
		for_each_successor(u, [&](uint32_t w) {
			if ((++steps & 0xFFFF) == 0)
				poll_cancel();
			if (w == to)
				return found = true;
			if (!visited.visit(w))
				return false;
			pruning::Step s = step(w);
			if (s == pruning::Step::reached)
				return found = true;
			if (s == pruning::Step::expand)
				stack.push_back(w);
			return false;
		});
		if (found)
			return true;
	}
	return false;
}

} // namespace grail
