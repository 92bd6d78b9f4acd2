// XXH64 (Yann Collet's xxHash, 64-bit): the index image's checksum and the key dictionary's hash.
// Inline, since a query hashes each key it looks up: short keys take a few nanoseconds.
#pragma once
#include "cpp_only.hpp"

#include <algorithm>
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

inline uint64_t
lanes64(const uint64_t v[4]) noexcept {
	uint64_t h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18);
	return merge64(merge64(merge64(merge64(h, v[0]), v[1]), v[2]), v[3]);
}

// The hash h of len bytes so far finished with their last bytes [p, end), fewer than 32.
inline uint64_t
finish64(uint64_t h, uint64_t len, const uint8_t *p, const uint8_t *end) noexcept {
	h += len;
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

} // namespace xxh64_detail

// Four independent lanes of 8-byte words for long inputs: several GB/s.
inline uint64_t
xxh64(const void *data, size_t len, uint64_t seed) noexcept {
	using namespace xxh64_detail;
	const uint8_t *p = static_cast<const uint8_t *>(data);
	const uint8_t *end = p + len;
	uint64_t h;
	if (len >= 32) {
		uint64_t v[4] = {seed + P1 + P2, seed + P2, seed, seed - P1};
		for (; end - p >= 32; p += 32) {
			v[0] = round64(v[0], load64(p));
			v[1] = round64(v[1], load64(p + 8));
			v[2] = round64(v[2], load64(p + 16));
			v[3] = round64(v[3], load64(p + 24));
		}
		h = lanes64(v);
	} else {
		h = seed + P5;
	}
	return finish64(h, len, p, end);
}

// XXH64 of bytes that come in pieces (an index image's sections, never joined into one buffer):
// digest() is xxh64() of their concatenation.
class Xxh64Stream {
public:
	explicit Xxh64Stream(uint64_t seed) noexcept
	    : seed_(seed), v_{seed + xxh64_detail::P1 + xxh64_detail::P2, seed + xxh64_detail::P2, seed,
	                      seed - xxh64_detail::P1} {
	}
	void
	update(const void *data, size_t len) noexcept {
		const uint8_t *p = static_cast<const uint8_t *>(data);
		total_ += len;
		if (buffered_ > 0) {
			size_t take = std::min(len, sizeof buffer_ - buffered_);
			std::memcpy(buffer_ + buffered_, p, take);
			buffered_ += take;
			p += take;
			len -= take;
			if (buffered_ < sizeof buffer_)
				return;
			stripe(buffer_);
			buffered_ = 0;
		}
		for (; len >= 32; p += 32, len -= 32)
			stripe(p);
		std::memcpy(buffer_, p, len);
		buffered_ = len;
	}
	uint64_t
	digest() const noexcept {
		using namespace xxh64_detail;
		uint64_t h = total_ >= 32 ? lanes64(v_) : seed_ + P5;
		return finish64(h, total_, buffer_, buffer_ + buffered_);
	}

private:
	void
	stripe(const uint8_t *p) noexcept {
		using namespace xxh64_detail;
		v_[0] = round64(v_[0], load64(p));
		v_[1] = round64(v_[1], load64(p + 8));
		v_[2] = round64(v_[2], load64(p + 16));
		v_[3] = round64(v_[3], load64(p + 24));
	}
	uint64_t seed_;
	uint64_t v_[4];
	uint64_t total_ = 0;
	uint8_t buffer_[32];
	size_t buffered_ = 0;
};

} // namespace grail
