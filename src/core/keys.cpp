// Text and uuid keys: collecting them as a build reads the rows, numbering them in byte order,
// and finding a key's vertex (see keys.hpp).
#include "keys.hpp"
#include "error.hpp"
#include "huge_pages.hpp"

// Header-only xxHash: a query hashes each key it looks up, and short keys take a few nanoseconds
// inlined.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <new>

namespace grail {

namespace keys_detail {

void *
allocate_large(size_t bytes) {
	if (bytes < kHugePage) {
		void *p = std::malloc(bytes ? bytes : 1);
		if (p == nullptr)
			throw std::bad_alloc();
		return p;
	}
	size_t rounded = (bytes + kHugePage - 1) & ~(kHugePage - 1);
	void *p = std::aligned_alloc(kHugePage, rounded);
	if (p == nullptr)
		throw std::bad_alloc();
	advise_huge_pages(p, rounded); // advice only: without huge pages, 4 kB pages as before
	return p;
}

void
free_large(void *p, size_t) noexcept {
	std::free(p);
}

// The same advice for a vector's storage, allocated and not yet touched: its whole 2 MB pages.
template <typename T>
void
advise_large(const std::vector<T> &v) noexcept {
	advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

} // namespace keys_detail

namespace {

using Slot = KeyDictionary::Slot;

// Whether a == b for n bytes, with one or two overlapping loads per side for the short keys most
// graphs have, instead of a call.
inline bool
equal_bytes(const uint8_t *a, const uint8_t *b, size_t n) noexcept {
	auto load8 = [](const uint8_t *p) {
		uint64_t x;
		std::memcpy(&x, p, 8);
		return x;
	};
	auto load4 = [](const uint8_t *p) {
		uint32_t x;
		std::memcpy(&x, p, 4);
		return x;
	};
	if (n >= 8) {
		if (n <= 16)
			return ((load8(a) ^ load8(b)) | (load8(a + n - 8) ^ load8(b + n - 8))) == 0;
		if (n <= 32)
			return ((load8(a) ^ load8(b)) | (load8(a + 8) ^ load8(b + 8)) | (load8(a + n - 16) ^ load8(b + n - 16)) |
			        (load8(a + n - 8) ^ load8(b + n - 8))) == 0;
		return std::memcmp(a, b, n) == 0;
	}
	if (n >= 4)
		return ((load4(a) ^ load4(b)) | (load4(a + n - 4) ^ load4(b + n - 4))) == 0;
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

bool
same_bytes(std::string_view key, const void *bytes, size_t length) noexcept {
	return key.size() == length &&
	       equal_bytes(reinterpret_cast<const uint8_t *>(key.data()), static_cast<const uint8_t *>(bytes), length);
}

// Bits of a power-of-two table with at least two slots per key, so that probes stay short.
unsigned
table_bits(size_t keys) noexcept {
	unsigned bits = 1;
	while ((size_t(1) << bits) < 2 * keys)
		bits++;
	return bits;
}

// Where a key with this hash lands in a table of 64 - shift bits: the first empty slot from its own.
size_t
first_empty(const Slot *table, size_t capacity, uint64_t hash, unsigned shift) noexcept {
	size_t mask = capacity - 1;
	size_t slot = size_t(hash >> shift);
	while (table[slot].vertex != KeyDictionary::kEmpty)
		slot = (slot + 1) & mask;
	return slot;
}

} // namespace

uint64_t
fresh_seed(const void *salt) noexcept {
	uint64_t parts[2] = {uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()),
	                     uint64_t(reinterpret_cast<uintptr_t>(salt))};
	return XXH64(parts, sizeof parts, 0x6b6579736b657973ull);
}

KeyDictionary::KeyDictionary(KeyKind kind, uint64_t seed, unsigned hash_shift, Array<uint64_t> offsets,
                             Array<uint8_t> bytes, Array<Slot> hash)
    : kind_(kind), seed_(seed), hash_shift_(hash_shift), offsets_(std::move(offsets)), bytes_(std::move(bytes)),
      hash_(std::move(hash)) {
}

size_t
KeyDictionary::next_candidate(size_t slot, uint32_t tag) const noexcept {
	size_t mask = hash_.size() - 1;
	const Slot *table = hash_.data();
	while (table[slot].vertex != kEmpty && table[slot].tag != tag)
		slot = (slot + 1) & mask;
	return slot;
}

bool
KeyDictionary::holds(const Slot &slot, const void *bytes, size_t length) const noexcept {
	uint64_t key_length = slot.key & kLongKey;
	if (key_length == kLongKey)
		key_length = offsets_[slot.vertex + 1] - offsets_[slot.vertex];
	return key_length == length && (length == 0 || std::memcmp(bytes_.data() + (slot.key >> 24), bytes, length) == 0);
}

int64_t
KeyDictionary::probe(size_t candidate, uint64_t hash, const void *bytes, size_t length) const noexcept {
	size_t mask = hash_.size() - 1;
	for (;;) {
		const Slot &s = hash_[candidate];
		if (s.vertex == kEmpty)
			return -1;
		if (holds(s, bytes, length))
			return s.vertex;
		candidate = next_candidate((candidate + 1) & mask, uint32_t(hash));
	}
}

int64_t
KeyDictionary::find(const void *bytes, size_t length) const noexcept {
	if (hash_.empty())
		return -1;
	uint64_t h = XXH64(bytes, length, seed_);
	return probe(next_candidate(size_t(h >> hash_shift_), uint32_t(h)), h, bytes, length);
}

void
KeyDictionary::find_two(std::string_view a, std::string_view b, int64_t vertices[2]) const noexcept {
	if (hash_.empty()) {
		vertices[0] = vertices[1] = -1;
		return;
	}
	const std::string_view keys[2] = {a, b};
	uint64_t hash[2];
	size_t candidate[2];
	for (int i = 0; i < 2; i++) {
		hash[i] = XXH64(keys[i].data(), keys[i].size(), seed_);
		candidate[i] = size_t(hash[i] >> hash_shift_);
		__builtin_prefetch(&hash_[candidate[i]]);
	}
	for (int i = 0; i < 2; i++) {
		candidate[i] = next_candidate(candidate[i], uint32_t(hash[i]));
		if (hash_[candidate[i]].vertex != kEmpty)
			__builtin_prefetch(bytes_.data() + (hash_[candidate[i]].key >> 24));
	}
	for (int i = 0; i < 2; i++)
		vertices[i] = probe(candidate[i], hash[i], keys[i].data(), keys[i].size());
}

KeyDictionary::Slot
KeyDictionary::slot_of(size_t vertex, uint64_t hash) const noexcept {
	uint64_t length = std::min<uint64_t>(offsets_[vertex + 1] - offsets_[vertex], kLongKey);
	return Slot{uint32_t(vertex), uint32_t(hash), offsets_[vertex] << 24 | length};
}

void
KeyDictionary::build_hash() {
	size_t n = size();
	hash_.clear();
	hash_shift_ = 0;
	if (n == 0)
		return;
	unsigned bits = table_bits(n);
	hash_shift_ = 64 - bits;
	std::vector<Slot> slots;
	slots.reserve(size_t(1) << bits);
	keys_detail::advise_large(slots);
	slots.assign(size_t(1) << bits, Slot{kEmpty, 0, 0});
	Slot *table = slots.data();
	// In groups: the hashes of a group's keys, their home slots prefetched, then the inserts, so that
	// the slots' cache misses overlap.
	constexpr size_t kGroup = 64;
	uint64_t hashes[kGroup];
	for (size_t begin = 0; begin < n; begin += kGroup) {
		size_t count = std::min(kGroup, n - begin);
		for (size_t i = 0; i < count; i++) {
			std::string_view k = key(begin + i);
			hashes[i] = XXH64(k.data(), k.size(), seed_);
			__builtin_prefetch(table + (hashes[i] >> hash_shift_), 1);
		}
		for (size_t i = 0; i < count; i++)
			table[first_empty(table, slots.size(), hashes[i], hash_shift_)] = slot_of(begin + i, hashes[i]);
	}
	hash_ = std::move(slots);
}

std::string
KeyDictionary::first_inconsistency(size_t vertices) const {
	if (kind_ != KeyKind::integer && kind_ != KeyKind::text && kind_ != KeyKind::uuid)
		return "key kind " + std::to_string(uint32_t(kind_)) + " is unknown";
	if (kind_ == KeyKind::integer) {
		if (!offsets_.empty() || !bytes_.empty() || !hash_.empty() || seed_ != 0 || hash_shift_ != 0)
			return "a graph with integer keys has a key dictionary";
		return "";
	}
	if (offsets_.size() != vertices + 1)
		return "key dictionary has " + std::to_string(size()) + " keys for " + std::to_string(vertices) + " vertices";
	if (offsets_[0] != 0 || offsets_[vertices] != bytes_.size())
		return "key offsets do not span the key bytes";
	if (bytes_.size() >= kMaxKeyBytes)
		return "key bytes are more than 2^40";
	for (size_t v = 0; v < vertices; v++) {
		if (v % 4096 == 0)
			poll_cancel();
		if (offsets_[v + 1] < offsets_[v] || offsets_[v + 1] > bytes_.size())
			return "key offsets decrease or leave the key bytes at vertex " + std::to_string(v);
		if (kind_ == KeyKind::uuid && offsets_[v + 1] - offsets_[v] != kUuidBytes)
			return "uuid key of vertex " + std::to_string(v) + " has " + std::to_string(offsets_[v + 1] - offsets_[v]) +
			       " bytes";
	}
	std::string unordered = first_unordered_key();
	return unordered.empty() ? first_hash_inconsistency() : unordered;
}

std::string
KeyDictionary::first_unordered_key() const {
	for (size_t v = 1; v < size(); v++) {
		if (v % 4096 == 0)
			poll_cancel();
		if (key(v - 1) >= key(v)) // string_view compares bytes as unsigned char, shorter first: memcmp order
			return "keys are not in strictly ascending byte order at vertex " + std::to_string(v);
	}
	return "";
}

// The table finds every key at its vertex and holds nothing else: with exactly size() slots used
// and each vertex found in its own slot, no slot is left over for a stray or duplicate entry.
std::string
KeyDictionary::first_hash_inconsistency() const {
	size_t n = size(), capacity = hash_.size();
	if (n == 0)
		return capacity == 0 && hash_shift_ == 0 ? "" : "key hash table of an empty dictionary is not empty";
	if (capacity < 2 * n || (capacity & (capacity - 1)) != 0 || hash_shift_ < 1 || hash_shift_ > 63 ||
	    (size_t(1) << (64 - hash_shift_)) != capacity)
		return "key hash table has " + std::to_string(capacity) + " slots and shift " + std::to_string(hash_shift_) +
		       " for " + std::to_string(n) + " keys";
	size_t used = 0;
	for (size_t s = 0; s < capacity; s++) {
		if (s % 4096 == 0)
			poll_cancel();
		const Slot &slot = hash_[s];
		if (slot.vertex == kEmpty) {
			if (slot.tag != 0 || slot.key != 0) // nothing else: an image has one form
				return "key hash table has an empty slot that is not zero";
			continue;
		}
		if (slot.vertex >= n)
			return "key hash table names vertex " + std::to_string(slot.vertex) + " of " + std::to_string(n);
		std::string_view k = key(slot.vertex);
		Slot expected = slot_of(slot.vertex, XXH64(k.data(), k.size(), seed_));
		if (slot.tag != expected.tag || slot.key != expected.key)
			return "key hash table has a wrong slot for the key of vertex " + std::to_string(slot.vertex);
		used++;
	}
	if (used != n)
		return "key hash table holds " + std::to_string(used) + " keys, expected " + std::to_string(n);
	for (size_t v = 0; v < n; v++) {
		if (v % 4096 == 0)
			poll_cancel();
		std::string_view k = key(v);
		if (find(k.data(), k.size()) != int64_t(v))
			return "key hash table does not find the key of vertex " + std::to_string(v);
	}
	return "";
}

KeyDictionaryBuilder::KeyDictionaryBuilder(KeyKind kind, uint64_t seed)
    : kind_(kind), seed_(seed != 0 ? seed : fresh_seed(this)), table_(size_t(1) << 10, kNoRecord), shift_(64 - 10) {
	if (kind != KeyKind::text && kind != KeyKind::uuid)
		throw Error(ErrorKind::internal, "a key dictionary is for text or uuid keys");
}

std::string_view
KeyDictionaryBuilder::record_key(uint64_t record) const noexcept {
	uint32_t length;
	std::memcpy(&length, arena_.data() + record + 4, 4);
	return std::string_view(reinterpret_cast<const char *>(arena_.data()) + record + kRecordHeader, length);
}

int64_t
KeyDictionaryBuilder::add(const void *bytes, size_t length) noexcept {
	return add_hashed(bytes, length, XXH64(bytes, length, seed_));
}

bool
KeyDictionaryBuilder::add(const KeyRef *keys, size_t count, int64_t *ids) noexcept {
	constexpr size_t kBatch = 256;
	uint64_t hashes[kBatch];
	for (size_t begin = 0; begin < count; begin += kBatch) {
		size_t n = std::min(kBatch, count - begin);
		const KeyRef *k = keys + begin;
		// Hashes, each key's home slot prefetched; then the record of the first slot from there whose tag
		// matches (its start, and its end for a short key), still without waiting on it; then
		// the lookups, with what they read mostly in cache. A key added earlier in the batch, or a grown
		// table, only makes a prefetch useless: the lookups themselves are add()'s.
		for (size_t i = 0; i < n; i++) {
			hashes[i] = XXH64(k[i].bytes, k[i].length, seed_);
			__builtin_prefetch(table_.data() + (hashes[i] >> shift_));
		}
		size_t mask = table_.size() - 1;
		for (size_t i = 0; i < n; i++) {
			uint64_t tag = hashes[i] & 0xffff;
			for (size_t slot = size_t(hashes[i] >> shift_);; slot = (slot + 1) & mask) {
				uint64_t s = table_[slot];
				if (s == kNoRecord)
					break;
				if ((s & 0xffff) == tag) {
					const uint8_t *record = arena_.data() + (s >> 16);
					__builtin_prefetch(record);
					// The end of a record of this key's length that fits in two lines (it may lie beyond a
					// shorter record: a prefetch does not fault, and the address stays within the arena).
					if (k[i].length <= 56 && (s >> 16) + kRecordHeader + k[i].length <= arena_.size())
						__builtin_prefetch(record + kRecordHeader + k[i].length - (k[i].length > 0));
					break;
				}
			}
		}
		for (size_t i = 0; i < n; i++) {
			int64_t id = add_hashed(k[i].bytes, k[i].length, hashes[i]);
			if (id < 0) {
				std::fill(ids + begin + i, ids + count, int64_t(-1));
				return false;
			}
			ids[begin + i] = id;
		}
	}
	return true;
}

int64_t
KeyDictionaryBuilder::add_hashed(const void *bytes, size_t length, uint64_t h) noexcept {
	uint64_t tag = h & 0xffff;
	size_t mask = table_.size() - 1;
	size_t slot = size_t(h >> shift_);
	for (;; slot = (slot + 1) & mask) {
		uint64_t s = table_[slot];
		if (s == kNoRecord)
			break;
		if ((s & 0xffff) == tag && same_bytes(record_key(s >> 16), bytes, length)) {
			uint32_t id;
			std::memcpy(&id, arena_.data() + (s >> 16), 4);
			return id;
		}
	}
	size_t id = size();
	// Vertex numbers are below 2^32 - 1 (KeyDictionary::kEmpty); a table past half full is grown first.
	if (id >= KeyDictionary::kEmpty - 1 || length > UINT32_MAX)
		return -1;
	if (2 * (id + 1) > table_.size()) {
		if (!grow())
			return -1;
		slot = empty_slot(h);
	}
	uint64_t record = arena_.size();
	try {
		records_.push_back(record);
		arena_.resize(record + kRecordHeader + length);
	} catch (const std::bad_alloc &) {
		records_.resize(id);
		return -1;
	}
	uint32_t header[2] = {uint32_t(id), uint32_t(length)};
	std::memcpy(arena_.data() + record, header, kRecordHeader);
	if (length)
		std::memcpy(arena_.data() + record + kRecordHeader, bytes, length);
	table_[slot] = record << 16 | tag;
	return int64_t(id);
}

size_t
KeyDictionaryBuilder::empty_slot(uint64_t hash) const noexcept {
	size_t mask = table_.size() - 1;
	size_t slot = size_t(hash >> shift_);
	while (table_[slot] != kNoRecord)
		slot = (slot + 1) & mask;
	return slot;
}

// Doubles the table, rehashing the keys from their records (in order, so the reads are sequential).
bool
KeyDictionaryBuilder::grow() noexcept {
	keys_detail::LargeVector<uint64_t> bigger;
	try {
		bigger.assign(table_.size() * 2, kNoRecord);
	} catch (const std::bad_alloc &) {
		return false;
	}
	table_.swap(bigger);
	shift_--;
	for (uint64_t record : records_) {
		std::string_view key = record_key(record);
		uint64_t h = XXH64(key.data(), key.size(), seed_);
		table_[empty_slot(h)] = record << 16 | (h & 0xffff);
	}
	return true;
}

namespace {

// A key's place in the sort at one depth: its next 8 bytes, big-endian and zero-padded, and how
// many of them it has (a key that ends within them sorts before any key they are a prefix of).
struct SortEntry {
	uint64_t chunk;
	uint32_t length;
	uint32_t id;
};

bool
operator<(const SortEntry &a, const SortEntry &b) noexcept {
	return a.chunk != b.chunk ? a.chunk < b.chunk : a.length < b.length;
}

// LSD radix sort by (chunk, length): one counting pass per byte, skipping the bytes that all
// entries share (an ASCII key's high bits, a common prefix).
void
radix_sort(SortEntry *a, SortEntry *tmp, size_t n) {
	auto digit = [](const SortEntry &e, unsigned pass) -> unsigned {
		return pass == 0 ? e.length : unsigned(e.chunk >> (8 * (pass - 1))) & 0xff;
	};
	size_t count[9][256] = {};
	for (size_t i = 0; i < n; i++)
		for (unsigned pass = 0; pass < 9; pass++)
			count[pass][digit(a[i], pass)]++;
	SortEntry *from = a, *to = tmp;
	for (unsigned pass = 0; pass < 9; pass++) {
		size_t *c = count[pass];
		if (c[digit(from[0], pass)] == n)
			continue;
		size_t sum = 0;
		for (unsigned d = 0; d < 256; d++) {
			size_t k = c[d];
			c[d] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			to[c[digit(from[i], pass)]++] = from[i];
		std::swap(from, to);
	}
	if (from != a)
		std::copy(from, from + n, a);
}

} // namespace

// MSD by 8-byte chunks: entries are sorted by their next chunk, then each run that shares a full
// chunk is sorted by the following one; a stack instead of recursion, since keys may share a
// prefix of any length.
uint32_t *
KeyDictionaryBuilder::sorted_ids(void *scratch) const {
	size_t m = size();
	keys_detail::LargeVector<SortEntry> entries(m);
	SortEntry *tmp = static_cast<SortEntry *>(scratch);
	for (size_t id = 0; id < m; id++)
		entries[id].id = uint32_t(id);
	struct Range {
		size_t begin, end, depth;
	};
	std::vector<Range> todo;
	if (m > 1)
		todo.push_back({0, m, 0});
	while (!todo.empty()) {
		poll_cancel();
		Range r = todo.back();
		todo.pop_back();
		for (size_t i = r.begin; i < r.end; i++) {
			// Below the first level the entries' records are at random: prefetched a few ahead.
			if (i + 32 < r.end)
				__builtin_prefetch(records_.data() + entries[i + 32].id);
			if (i + 16 < r.end)
				__builtin_prefetch(arena_.data() + records_[entries[i + 16].id] + kRecordHeader + r.depth);
			SortEntry &e = entries[i];
			std::string_view key = record_key(records_[e.id]);
			e.length = uint32_t(std::min<size_t>(key.size() - r.depth, 8));
			uint8_t word[8] = {};
			std::memcpy(word, key.data() + r.depth, e.length);
			uint64_t chunk;
			std::memcpy(&chunk, word, 8);
			e.chunk = __builtin_bswap64(chunk);
		}
		if (r.end - r.begin >= 4096)
			radix_sort(entries.data() + r.begin, tmp, r.end - r.begin);
		else
			std::sort(entries.begin() + ptrdiff_t(r.begin), entries.begin() + ptrdiff_t(r.end));
		for (size_t i = r.begin; i < r.end;) {
			size_t j = i + 1;
			while (j < r.end && entries[j].chunk == entries[i].chunk && entries[j].length == entries[i].length)
				j++;
			if (j - i > 1 && entries[i].length == 8)
				todo.push_back({i, j, r.depth + 8});
			i = j;
		}
	}
	uint32_t *order = static_cast<uint32_t *>(scratch);
	for (size_t i = 0; i < m; i++)
		order[i] = entries[i].id;
	return order;
}

KeyDictionary
KeyDictionaryBuilder::finish(EdgeList &edges) {
	size_t m = size();
	if (key_bytes() >= KeyDictionary::kMaxKeyBytes)
		throw Error(ErrorKind::limit_exceeded, "the keys of the graph have more than 2^40 bytes in all");
	// Scratch memory for the sort's second buffer, then the order and the ranks (16 bytes a key):
	// the hash table's, which a spent builder no longer needs and which has at least two 8-byte
	// slots a key; not fresh memory, whose first touch is a page fault.
	keys_detail::LargeVector<uint64_t> more;
	void *scratch = table_.data();
	if (table_.size() < 2 * m) {
		more.resize(2 * m);
		scratch = more.data();
	}
	uint32_t *order = sorted_ids(scratch);
	uint32_t *rank = order + m;
	for (size_t i = 0; i < m; i++)
		rank[order[i]] = uint32_t(i);
	for (std::vector<int64_t> *ids : {&edges.source, &edges.target})
		for (size_t e = 0; e < ids->size(); e++) {
			if (e % 4096 == 0)
				poll_cancel();
			int64_t &id = (*ids)[e];
			if (id < 0 || uint64_t(id) >= m)
				throw Error(ErrorKind::internal,
				            "edge endpoint " + std::to_string(id) + " is not a key's provisional id");
			id = rank[size_t(id)];
		}
	KeyDictionary keys;
	keys.kind_ = kind_;
	keys.seed_ = seed_;
	std::vector<uint64_t> offsets;
	std::vector<uint8_t> bytes;
	offsets.reserve(m + 1);
	bytes.reserve(key_bytes());
	keys_detail::advise_large(offsets);
	keys_detail::advise_large(bytes);
	offsets.resize(m + 1);
	bytes.resize(key_bytes());
	// Records in key order, that is at random: each prefetched a few keys ahead, its offset further.
	constexpr size_t kAhead = 16;
	for (size_t i = 0; i < m; i++) {
		if (i % 4096 == 0)
			poll_cancel();
		if (i + 2 * kAhead < m)
			__builtin_prefetch(records_.data() + order[i + 2 * kAhead]);
		if (i + kAhead < m)
			__builtin_prefetch(arena_.data() + records_[order[i + kAhead]]);
		std::string_view key = record_key(records_[order[i]]);
		if (!key.empty())
			std::memcpy(bytes.data() + offsets[i], key.data(), key.size());
		offsets[i + 1] = offsets[i] + key.size();
	}
	// The builder is spent: its memory goes before the hash table is allocated.
	arena_ = {};
	records_ = {};
	table_ = {};
	keys.offsets_ = std::move(offsets);
	keys.bytes_ = std::move(bytes);
	keys.build_hash();
	return keys;
}

} // namespace grail
