// XXH64 (Yann Collet's xxHash, 64-bit): the index image's checksum and the key dictionary's hash.
// Inline, since a query hashes each key it looks up: short keys take a few nanoseconds.
#pragma once
#include "cpp_only.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace grail {

namespace xxh64_detail {

constexpr uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full, P3 = 0x165667B19E3779F9ull,
                   P4 = 0x85EBCA77C2B2AE63ull, P5 = 0x27D4EB2F165667C5ull;

inline uint64_t
rotl(uint64_t x, int r) noexcept {
	return (x << r) | (x >> (64 - r));
}

inline uint64_t
load64(const uint8_t *p) noexcept {
	uint64_t x;
	std::memcpy(&x, p, 8);
	return x;
}

inline uint64_t
round64(uint64_t acc, uint64_t input) noexcept {
	return rotl(acc + input * P2, 31) * P1;
}

inline uint64_t
merge64(uint64_t acc, uint64_t v) noexcept {
	return (acc ^ round64(0, v)) * P1 + P4;
}

} // namespace xxh64_detail

// Four independent lanes of 8-byte words for long inputs: several GB/s.
inline uint64_t
xxh64(const void *data, size_t len, uint64_t seed) noexcept {
	using namespace xxh64_detail;
	const uint8_t *p = static_cast<const uint8_t *>(data);
	const uint8_t *end = p + len;
	uint64_t h;
	if (len >= 32) {
		uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
		for (; end - p >= 32; p += 32) {
			v1 = round64(v1, load64(p));
			v2 = round64(v2, load64(p + 8));
			v3 = round64(v3, load64(p + 16));
			v4 = round64(v4, load64(p + 24));
		}
		h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
		h = merge64(merge64(merge64(merge64(h, v1), v2), v3), v4);
	} else {
		h = seed + P5;
	}
	h += uint64_t(len);
	for (; end - p >= 8; p += 8)
		h = rotl(h ^ round64(0, load64(p)), 27) * P1 + P4;
	if (end - p >= 4) {
		uint32_t w;
		std::memcpy(&w, p, 4);
		h = rotl(h ^ (uint64_t(w) * P1), 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl(h ^ (uint64_t(*p) * P5), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

} // namespace grail
