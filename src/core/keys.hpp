// Text and uuid vertex keys. The engine works on dense integer ids; a graph keyed by text or uuid
// numbers its keys by their rank in byte order, so that vertex v's id is v and every "smallest
// vertex" (a component's id, a BFS parent, where a cycle starts) is the one with the smallest key.
// The dictionary of the keys is part of the index image, with its own hash table, so that a query
// finds a key's vertex where the image lies, without rebuilding anything on load.
#pragma once
#include "cpp_only.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "array.hpp"
#include "graph.hpp"

namespace grail {

// How a graph's vertices are keyed in SQL.
enum class KeyKind : uint32_t { integer = 0, text = 1, uuid = 2 };

constexpr size_t kUuidBytes = 16;

// A hash seed nobody can know in advance (the clock and an address), so that no one can fill a
// table with colliding keys; salt: any address of the caller's.
uint64_t fresh_seed(const void *salt) noexcept;

// The sorted dictionary of a graph's keys (text bytes, or uuid's 16 bytes). Vertex v's key is key(v), and its
// vertex id (Graph::ids[v]) is v itself; keys are in strictly ascending byte order (memcmp; a key before its
// extensions, "" first), so the smallest vertex of a component is the one with the smallest key. Empty for
// integer keys. Borrowed from an image like the other sections (Array<T>), or owned after a build.
class KeyDictionary {
public:
	// A slot of the open-addressing hash table: the vertex (kEmpty for none, the rest zero), the
	// low 32 bits of its key's hash, which rule out almost every other key before its bytes are
	// compared, and where those bytes are (offset << 24 | length, the length kLongKey from 2^24 - 1
	// bytes on: then read from the offsets), so that a lookup reads its slot and the key, not the
	// offsets in between.
	struct Slot {
		uint32_t vertex;
		uint32_t tag;
		uint64_t key;
	};
	static constexpr uint32_t kEmpty = UINT32_MAX;
	static constexpr uint64_t kLongKey = (uint64_t(1) << 24) - 1;
	static constexpr uint64_t kMaxKeyBytes = uint64_t(1) << 40; // of all keys: the slot's offset

	KeyDictionary() = default; // integer keys
	// The dictionary of the sections of an image (attach checks their sizes; check() the rest).
	KeyDictionary(KeyKind kind, uint64_t seed, unsigned hash_shift, Array<uint64_t> offsets, Array<uint8_t> bytes,
	              Array<Slot> hash);

	KeyKind
	kind() const noexcept {
		return kind_;
	}
	size_t
	size() const noexcept {
		return offsets_.empty() ? 0 : offsets_.size() - 1;
	}
	std::string_view
	key(size_t vertex) const noexcept {
		return std::string_view(reinterpret_cast<const char *>(bytes_.data()) + offsets_[vertex],
		                        size_t(offsets_[vertex + 1] - offsets_[vertex]));
	}
	// The vertex whose key is these bytes, or -1. Expected O(1) (an open-addressing hash table that is a
	// section of the image, not rebuilt on load), allocates nothing: this is the per-row path of a query.
	int64_t find(const void *bytes, size_t length) const noexcept;
	// find() of two keys at once (a reachable(a, b) call): both hash slots, then both keys' bytes are
	// fetched before either is compared, so that the two lookups' cache misses overlap.
	void find_two(std::string_view a, std::string_view b, int64_t vertices[2]) const noexcept;

	// What a damaged dictionary of a graph of `vertices` vertices breaks first ("" when nothing):
	// the kind, one key per vertex, offsets within the bytes, uuid lengths, strictly ascending keys,
	// and a hash table that finds every key and holds nothing else. Reads nothing out of bounds.
	std::string first_inconsistency(size_t vertices) const;

	// The image's sections: the hash seed and shift (meta), key v's bytes at
	// bytes()[offsets()[v], offsets()[v + 1]), the hash table (power-of-two capacity, at least twice
	// the keys). Integer keys: all empty.
	uint64_t
	seed() const noexcept {
		return seed_;
	}
	unsigned
	hash_shift() const noexcept {
		return hash_shift_;
	}
	const Array<uint64_t> &
	offsets() const noexcept {
		return offsets_;
	}
	const Array<uint8_t> &
	bytes() const noexcept {
		return bytes_;
	}
	const Array<Slot> &
	hash() const noexcept {
		return hash_;
	}

private:
	friend class KeyDictionaryBuilder;
	void build_hash();
	Slot slot_of(size_t vertex, uint64_t hash) const noexcept;
	// From slot on, the first slot that is empty or whose tag is tag: where a lookup compares bytes next.
	size_t next_candidate(size_t slot, uint32_t tag) const noexcept;
	// Whether the (non-empty) slot holds these key bytes.
	bool holds(const Slot &slot, const void *bytes, size_t length) const noexcept;
	// The vertex of the key whose hash is hash, probing from candidate (a next_candidate()), or -1.
	int64_t probe(size_t candidate, uint64_t hash, const void *bytes, size_t length) const noexcept;
	std::string first_unordered_key() const;
	std::string first_hash_inconsistency() const;

	KeyKind kind_ = KeyKind::integer;
	uint64_t seed_ = 0;       // of the hash: chosen per build, so that no one can prepare keys that collide
	unsigned hash_shift_ = 0; // 64 - log2(capacity): a slot is the top bits of the hash
	Array<uint64_t> offsets_; // size() + 1 entries (none for integer keys)
	Array<uint8_t> bytes_;
	Array<Slot> hash_;
};

namespace keys_detail {
// Memory for the builder's large buffers (hash table, key records, sort entries): from 2 MB on, at a
// 2 MB boundary and advised to the kernel for huge pages where it has them (Linux), since a build
// touches each page of them at random, once: one fault per 2 MB instead of per 4 kB.
void *allocate_large(size_t bytes);
void free_large(void *p, size_t bytes) noexcept;

template <typename T> struct LargeAllocator {
	using value_type = T;
	LargeAllocator() = default;
	template <typename U> LargeAllocator(const LargeAllocator<U> &) noexcept {
	}
	T *
	allocate(size_t n) {
		return static_cast<T *>(allocate_large(n * sizeof(T)));
	}
	void
	deallocate(T *p, size_t n) noexcept {
		free_large(p, n * sizeof(T));
	}
	template <typename U>
	bool
	operator==(const LargeAllocator<U> &) const noexcept {
		return true;
	}
	template <typename U>
	bool
	operator!=(const LargeAllocator<U> &) const noexcept {
		return false;
	}
};
template <typename T> using LargeVector = std::vector<T, LargeAllocator<T>>;
} // namespace keys_detail

// Collects the keys of the rows as a build reads them.
class KeyDictionaryBuilder {
public:
	// kind: text or uuid. seed: of the key hash, which the glue draws from a strong random source;
	// 0 draws one from the clock (fresh_seed).
	explicit KeyDictionaryBuilder(KeyKind kind, uint64_t seed = 0);
	// A provisional id for the key (dense, in order of first appearance), or -1 when memory runs out:
	// never throws, since the glue calls it from inside a PostgreSQL heap scan. For uuid, length is 16.
	int64_t add(const void *bytes, size_t length) noexcept;
	// The keys of a batch of rows, added in order: ids[i] is what add(keys[i].bytes, keys[i].length) would
	// return, the same key given twice in a batch included. Faster than one add() per key: the batch's hash
	// slots and then its keys are prefetched before any is compared, so that their cache misses overlap.
	// False when memory runs out (the ids of the keys not added are then -1). Never throws.
	struct KeyRef {
		const void *bytes;
		size_t length;
	};
	bool add(const KeyRef *keys, size_t count, int64_t *ids) noexcept;
	// The dictionary in byte order; rewrites every id of edges (provisional ids from add()) into its key's rank,
	// which is the vertex number Index::build will give it. Every key added must appear in edges (the glue adds
	// a row's two keys only when both are non-null). It spends the builder.
	KeyDictionary finish(EdgeList &edges);

	// Distinct keys so far, and their bytes (for the build's memory estimate).
	size_t
	size() const noexcept {
		return records_.size();
	}
	uint64_t
	key_bytes() const noexcept {
		return arena_.size() - kRecordHeader * records_.size();
	}

private:
	// A key is stored once, as a record {id u32, length u32, bytes} in the arena, and its slot in
	// the table holds the record's offset and 16 more bits of its hash: a repeated key costs two
	// cache misses (its slot, its record), the id and the bytes being together.
	static constexpr size_t kRecordHeader = 8;
	static constexpr uint64_t kNoRecord = UINT64_MAX;
	std::string_view record_key(uint64_t record) const noexcept;
	int64_t add_hashed(const void *bytes, size_t length, uint64_t hash) noexcept;
	size_t empty_slot(uint64_t hash) const noexcept; // where a new key of this hash goes
	bool grow() noexcept;
	// The ids in key order, at scratch (16 bytes a key: the sort's second buffer, then the order).
	uint32_t *sorted_ids(void *scratch) const;

	KeyKind kind_;
	uint64_t seed_;
	keys_detail::LargeVector<uint8_t> arena_;
	keys_detail::LargeVector<uint64_t> records_; // the offset of key id's record, in order of first appearance
	keys_detail::LargeVector<uint64_t> table_;   // record offset << 16 | hash tag, or kNoRecord
	unsigned shift_;
};

} // namespace grail
