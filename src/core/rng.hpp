// The engine's pseudo-random numbers: the same seed gives the same sequence on every machine (no
// std:: distributions, whose output varies), for the randomized GRAIL traversals and for the test
// and benchmark generators alike.
#pragma once
#include "cpp_only.hpp"

#include <cstdint>

namespace grail {

// splitmix64: tiny, fast, and identical everywhere.
class Rng {
public:
	explicit Rng(uint64_t seed) : state_(seed) {
	}
	uint64_t
	next() noexcept {
		uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		return z ^ (z >> 31);
	}
	// Uniform in [0, bound), bound > 0 (Lemire's multiply-shift; bias below 2^-32 for our sizes).
	uint64_t
	below(uint64_t bound) noexcept {
		return uint64_t((__uint128_t(next()) * bound) >> 64);
	}

private:
	uint64_t state_;
};

} // namespace grail
