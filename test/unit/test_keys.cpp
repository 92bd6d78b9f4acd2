// Text and uuid keys: the dictionary builder against a std::sort oracle, find(), the index built
// over keys' ranks, its image round trip, and damaged dictionaries refused by Check::full.
#include "error.hpp"
#include "index.hpp"
#include "keys.hpp"
#include "oracle.hpp"
#include "rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace grail;

namespace {

bool
byte_less(const std::string &a, const std::string &b) {
	int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
	return c != 0 ? c < 0 : a.size() < b.size();
}

// Keys that stress byte order: empty, prefixes of one another, bytes >= 0x80 and NUL, lengths
// from 0 to a few hundred with long shared prefixes (sorted over several 8-byte chunks).
std::string
random_key(Rng &rng, const std::vector<std::string> &earlier) {
	switch (rng.below(8)) {
	case 0:
		return "";
	case 1: // a prefix of an earlier key
		if (!earlier.empty()) {
			const std::string &k = earlier[rng.below(earlier.size())];
			return k.substr(0, rng.below(k.size() + 1));
		}
		return "p";
	case 2: // an earlier key extended by a byte, maybe 0x00 or 0xff
		if (!earlier.empty())
			return earlier[rng.below(earlier.size())] + char(rng.below(2) ? 0 : 0xff);
		return "e";
	case 3: { // a long shared prefix
		std::string k(8 * (1 + rng.below(30)), 'x');
		k += std::to_string(rng.below(1000));
		return k;
	}
	default: {
		std::string k(rng.below(41), '\0');
		for (char &c : k)
			c = char(rng.below(4) == 0 ? rng.below(256) : 'a' + rng.below(4));
		return k;
	}
	}
}

std::string
random_uuid(Rng &rng) {
	std::string k(kUuidBytes, '\0');
	uint64_t hi = rng.below(4) == 0 ? 0x0123456789abcdefull : rng.next(), lo = rng.next(); // some share 8 bytes
	std::memcpy(&k[0], &hi, 8);
	std::memcpy(&k[8], &lo, 8);
	return k;
}

// The edges of a random graph over string keys, added to a builder as the glue adds rows.
struct KeyedEdges {
	std::vector<std::pair<std::string, std::string>> rows;
	EdgeList ids;                    // provisional, then ranks after finish()
	std::vector<std::string> sorted; // the distinct keys, oracle order
};

KeyedEdges
add_rows(KeyDictionaryBuilder &builder, std::vector<std::pair<std::string, std::string>> rows) {
	KeyedEdges k;
	k.rows = std::move(rows);
	for (const auto &row : k.rows) {
		int64_t a = builder.add(row.first.data(), row.first.size());
		int64_t b = builder.add(row.second.data(), row.second.size());
		EXPECT_GE(a, 0);
		EXPECT_GE(b, 0);
		k.ids.append(a, b);
		k.sorted.push_back(row.first);
		k.sorted.push_back(row.second);
	}
	std::sort(k.sorted.begin(), k.sorted.end(), byte_less);
	k.sorted.erase(std::unique(k.sorted.begin(), k.sorted.end()), k.sorted.end());
	return k;
}

std::vector<std::pair<std::string, std::string>>
random_rows(Rng &rng, size_t count, KeyKind kind) {
	std::vector<std::string> pool;
	size_t pool_size = 1 + count / 3; // so that keys repeat
	while (pool.size() < pool_size)
		pool.push_back(kind == KeyKind::uuid ? random_uuid(rng) : random_key(rng, pool));
	std::vector<std::pair<std::string, std::string>> rows;
	for (size_t i = 0; i < count; i++)
		rows.emplace_back(pool[rng.below(pool.size())], pool[rng.below(pool.size())]);
	return rows;
}

int64_t
rank_of(const std::vector<std::string> &sorted, const std::string &key) {
	auto it = std::lower_bound(sorted.begin(), sorted.end(), key, byte_less);
	return it != sorted.end() && *it == key ? it - sorted.begin() : -1;
}

// find(), checked against find_two() with the key in either place of the pair (beside "", which
// a dictionary may or may not hold).
int64_t
find(const KeyDictionary &keys, const std::string &key) {
	int64_t vertex = keys.find(key.data(), key.size());
	int64_t empty = keys.find("", 0);
	int64_t pair[2];
	keys.find_two(key, "", pair);
	EXPECT_EQ(pair[0], vertex);
	EXPECT_EQ(pair[1], empty);
	keys.find_two("", key, pair);
	EXPECT_EQ(pair[0], empty);
	EXPECT_EQ(pair[1], vertex);
	return vertex;
}

// finish() numbers the keys in byte order, rewrites the edges into ranks, and find() finds each
// key at its rank and nothing else.
void
expect_dictionary(const KeyDictionary &keys, const KeyedEdges &k, KeyKind kind) {
	ASSERT_EQ(keys.kind(), kind);
	ASSERT_EQ(keys.size(), k.sorted.size());
	for (size_t v = 0; v < k.sorted.size(); v++) {
		ASSERT_EQ(keys.key(v), k.sorted[v]) << "vertex " << v;
		ASSERT_EQ(find(keys, k.sorted[v]), int64_t(v));
		for (const std::string &absent :
		     {k.sorted[v] + 'q', k.sorted[v] + '\0', k.sorted[v].substr(0, k.sorted[v].size() / 2)})
			ASSERT_EQ(find(keys, absent), rank_of(k.sorted, absent)) << "absent key of " << absent.size() << " bytes";
	}
	for (size_t e = 0; e < k.rows.size(); e++) {
		ASSERT_EQ(k.ids.source[e], rank_of(k.sorted, k.rows[e].first));
		ASSERT_EQ(k.ids.target[e], rank_of(k.sorted, k.rows[e].second));
	}
	EXPECT_EQ(keys.first_inconsistency(k.sorted.size()), "");
}

} // namespace

TEST(Keys, TextRanksMatchByteOrder) {
	for (uint64_t seed = 0; seed < 50; seed++) {
		Rng rng(seed);
		KeyDictionaryBuilder builder(KeyKind::text);
		KeyedEdges k = add_rows(builder, random_rows(rng, 1 + rng.below(300), KeyKind::text));
		EXPECT_EQ(builder.size(), k.sorted.size());
		KeyDictionary keys = builder.finish(k.ids);
		expect_dictionary(keys, k, KeyKind::text);
	}
}

// The glue gives the builder a seed from a strong random source: the dictionary keeps that one.
TEST(Keys, GivenSeedIsKept) {
	Rng rng(7);
	KeyDictionaryBuilder builder(KeyKind::text, 0x5eed5eed5eed5eedull);
	KeyedEdges k = add_rows(builder, random_rows(rng, 200, KeyKind::text));
	KeyDictionary keys = builder.finish(k.ids);
	EXPECT_EQ(keys.seed(), 0x5eed5eed5eed5eedull);
	expect_dictionary(keys, k, KeyKind::text);
}

// Large enough for the radix passes, table growth and several levels of 8-byte chunks.
TEST(Keys, ManyKeysRanksMatchByteOrder) {
	Rng rng(99);
	KeyDictionaryBuilder builder(KeyKind::text);
	KeyedEdges k = add_rows(builder, random_rows(rng, 60000, KeyKind::text));
	ASSERT_GT(k.sorted.size(), 5000u);
	KeyDictionary keys = builder.finish(k.ids);
	expect_dictionary(keys, k, KeyKind::text);
}

TEST(Keys, UuidRanksMatchByteOrder) {
	Rng rng(5);
	KeyDictionaryBuilder builder(KeyKind::uuid);
	KeyedEdges k = add_rows(builder, random_rows(rng, 20000, KeyKind::uuid));
	KeyDictionary keys = builder.finish(k.ids);
	expect_dictionary(keys, k, KeyKind::uuid);
	EXPECT_EQ(find(keys, "0123456789abcdef"), -1);
}

// A key of 2^24 bytes or more keeps its length in the offsets only, not in its hash slot.
TEST(Keys, LongKeys) {
	const std::string big(KeyDictionary::kLongKey + 10, 'b');
	const std::vector<std::string> rows = {"a", big, big + "c", "c", big.substr(0, 100)};
	KeyDictionaryBuilder builder(KeyKind::text);
	EdgeList edges;
	for (size_t i = 0; i + 1 < rows.size(); i++)
		edges.append(builder.add(rows[i].data(), rows[i].size()), builder.add(rows[i + 1].data(), rows[i + 1].size()));
	KeyDictionary keys = builder.finish(edges);
	ASSERT_EQ(keys.size(), 5u);
	EXPECT_EQ(keys.first_inconsistency(5), "");
	EXPECT_EQ(find(keys, big), 2);
	EXPECT_EQ(find(keys, big + "c"), 3);
	EXPECT_EQ(find(keys, big.substr(0, 100)), 1);
	EXPECT_EQ(find(keys, big + "d"), -1);
	EXPECT_EQ(find(keys, big.substr(1)), -1);
}

namespace {

// Keys for the batched add: the empty key, keys that differ in one byte (first, middle, last, the
// byte 0x00 or 0xff), prefixes of one another, keys longer than 64 bytes, and package-like names.
std::vector<std::string>
batch_keys(Rng &rng, size_t count) {
	std::vector<std::string> keys = {"", std::string(1, '\0'), std::string(2, '\0'), "a", "b"};
	const std::string base = "pkg-12345-abcdef";
	for (size_t i = 0; i < base.size(); i++)
		for (char c : {'\0', 'x', char(0xff)}) {
			std::string k = base;
			k[i] = c;
			keys.push_back(k);
		}
	for (size_t length : {63, 64, 65, 100, 300, 5000}) {
		std::string k(length, 'L');
		keys.push_back(k);
		k.back() = 'M';
		keys.push_back(k);
		k[0] = 'M';
		keys.push_back(k);
	}
	while (keys.size() < count) {
		if (rng.below(2))
			keys.push_back("pkg-" + std::to_string(rng.below(1000000)) + "-" + std::to_string(rng.below(1000)));
		else
			keys.push_back(random_key(rng, keys));
	}
	return keys;
}

} // namespace

// add() of a batch gives each key the id one add() per key gives, in batches of any size (the
// builder works in groups of 256): duplicates within a batch and across batches, keys that differ
// in one byte, the empty key, long keys, and the table growing within a batch. The dictionaries
// finish() makes are the same.
TEST(Keys, BatchedAddMatchesOneByOne) {
	for (uint64_t seed = 0; seed < 20; seed++) {
		Rng rng(seed + 500);
		std::vector<std::string> pool = batch_keys(rng, 50 + rng.below(seed < 10 ? 400 : 3000));
		std::vector<std::string> stream;
		size_t count = 1 + rng.below(4000);
		for (size_t i = 0; i < count; i++) // runs of one key, and keys of the last few again
			stream.push_back(rng.below(8) == 0 && !stream.empty()
			                     ? stream[stream.size() - 1 - rng.below(std::min<size_t>(stream.size(), 4))]
			                     : pool[rng.below(pool.size())]);
		if (stream.size() % 2)
			stream.push_back("");
		KeyDictionaryBuilder one(KeyKind::text), batched(KeyKind::text);
		std::vector<int64_t> expected;
		for (const std::string &k : stream)
			expected.push_back(one.add(k.data(), k.size()));
		std::vector<KeyDictionaryBuilder::KeyRef> refs;
		for (const std::string &k : stream)
			refs.push_back({k.data(), k.size()});
		std::vector<int64_t> ids(stream.size(), -2);
		for (size_t begin = 0; begin < refs.size();) {
			size_t n = std::min<size_t>(refs.size() - begin, rng.below(3) == 0 ? rng.below(4) : rng.below(1200));
			ASSERT_TRUE(batched.add(refs.data() + begin, n, ids.data() + begin));
			begin += n;
		}
		ASSERT_EQ(ids, expected) << "seed " << seed;
		ASSERT_EQ(batched.size(), one.size());
		ASSERT_EQ(batched.key_bytes(), one.key_bytes());
		EdgeList a, b;
		for (size_t i = 0; i < stream.size(); i += 2) {
			a.append(expected[i], expected[i + 1]);
			b.append(ids[i], ids[i + 1]);
		}
		KeyDictionary ka = one.finish(a), kb = batched.finish(b);
		ASSERT_EQ(ka.size(), kb.size());
		for (size_t v = 0; v < ka.size(); v++)
			ASSERT_EQ(ka.key(v), kb.key(v));
		EXPECT_EQ(a.source, b.source);
		EXPECT_EQ(a.target, b.target);
		EXPECT_EQ(kb.first_inconsistency(kb.size()), "");
	}
}

// One batch of many distinct keys grows the table several times within the batch (past 2 MB, where
// its memory comes from the large-buffer allocator); then the same keys again, in another order,
// all found.
TEST(Keys, BatchGrowsTheTable) {
	Rng rng(31);
	std::vector<std::string> keys;
	for (size_t i = 0; i < 300000; i++)
		keys.push_back("pkg-" + std::to_string(i) + "-" + std::to_string(rng.below(1000)));
	keys.push_back(""); // and the empty key, last
	std::vector<KeyDictionaryBuilder::KeyRef> refs;
	for (const std::string &k : keys)
		refs.push_back({k.data(), k.size()});
	KeyDictionaryBuilder builder(KeyKind::text);
	std::vector<int64_t> ids(refs.size());
	ASSERT_TRUE(builder.add(refs.data(), refs.size(), ids.data()));
	for (size_t i = 0; i < ids.size(); i++)
		ASSERT_EQ(ids[i], int64_t(i));
	std::vector<size_t> order(refs.size());
	for (size_t i = 0; i < order.size(); i++)
		order[i] = i;
	for (size_t i = order.size() - 1; i > 0; i--)
		std::swap(order[i], order[rng.below(i + 1)]);
	std::vector<KeyDictionaryBuilder::KeyRef> again;
	for (size_t i : order)
		again.push_back(refs[i]);
	ASSERT_TRUE(builder.add(again.data(), again.size(), ids.data()));
	for (size_t i = 0; i < order.size(); i++)
		ASSERT_EQ(ids[i], int64_t(order[i]));
	EXPECT_EQ(builder.size(), keys.size());
	ASSERT_TRUE(builder.add(refs.data(), 0, ids.data())); // an empty batch adds nothing
	EXPECT_EQ(builder.size(), keys.size());
}

// The batched add against the std::sort oracle, uuid keys too.
TEST(Keys, BatchedRowsRanksMatchByteOrder) {
	for (KeyKind kind : {KeyKind::text, KeyKind::uuid}) {
		Rng rng(kind == KeyKind::text ? 77 : 78);
		std::vector<std::pair<std::string, std::string>> rows = random_rows(rng, 30000, kind);
		KeyDictionaryBuilder builder(kind);
		std::vector<KeyDictionaryBuilder::KeyRef> refs;
		for (const auto &row : rows) {
			refs.push_back({row.first.data(), row.first.size()});
			refs.push_back({row.second.data(), row.second.size()});
		}
		std::vector<int64_t> ids(refs.size());
		for (size_t begin = 0; begin < refs.size(); begin += 256)
			ASSERT_TRUE(
			    builder.add(refs.data() + begin, std::min<size_t>(256, refs.size() - begin), ids.data() + begin));
		KeyedEdges k;
		k.rows = rows;
		for (size_t i = 0; i < rows.size(); i++) {
			k.ids.append(ids[2 * i], ids[2 * i + 1]);
			k.sorted.push_back(rows[i].first);
			k.sorted.push_back(rows[i].second);
		}
		std::sort(k.sorted.begin(), k.sorted.end(), byte_less);
		k.sorted.erase(std::unique(k.sorted.begin(), k.sorted.end()), k.sorted.end());
		KeyDictionary keys = builder.finish(k.ids);
		expect_dictionary(keys, k, kind);
	}
}

TEST(Keys, EmptyAndIntegerDictionaries) {
	KeyDictionary integer;
	EXPECT_EQ(integer.kind(), KeyKind::integer);
	EXPECT_EQ(integer.size(), 0u);
	EXPECT_EQ(integer.find("a", 1), -1);
	EXPECT_EQ(integer.first_inconsistency(7), "");
	EdgeList none;
	KeyDictionary empty = KeyDictionaryBuilder(KeyKind::text).finish(none);
	EXPECT_EQ(empty.kind(), KeyKind::text);
	EXPECT_EQ(empty.size(), 0u);
	EXPECT_EQ(empty.find("", 0), -1);
	EXPECT_THROW(KeyDictionaryBuilder{KeyKind::integer}, Error);
}

TEST(Keys, EstimateCountsKeys) {
	EXPECT_EQ(estimate_build_bytes(1, 0, 0), 80u); // what the glue divides its limit by
	EXPECT_EQ(estimate_build_bytes(10, 0, 0, 2, 30), 800u + 60 + 200);
}

namespace {

// An index over text keys with cycles: "m" <-> "zeta" <-> "b" is one component, whose smallest
// vertex is "b"'s; "" and "a" lead into it, "\xff" and "zz" hang off it.
Index
small_keyed_index(KeyDictionary *copy = nullptr) {
	KeyDictionaryBuilder builder(KeyKind::text);
	const std::pair<std::string, std::string> rows[] = {{"zeta", "m"}, {"m", "b"},   {"b", "zeta"},
	                                                    {"", "a"},     {"a", "m"},   {"zeta", "\xff"},
	                                                    {"b", "zz"},   {"zz", "zz"}, {"\xff", "ab"}};
	EdgeList edges;
	for (const auto &row : rows)
		edges.append(builder.add(row.first.data(), row.first.size()),
		             builder.add(row.second.data(), row.second.size()));
	KeyDictionary keys = builder.finish(edges);
	if (copy)
		*copy = keys;
	BuildOptions options;
	options.labels = 2;
	return Index::build(std::move(edges), options, nullptr, std::move(keys));
}

int64_t
vertex(const Index &index, const std::string &key) {
	return find(index.keys(), key);
}

} // namespace

TEST(Keys, IndexNumbersVerticesByKeyRank) {
	Index index = small_keyed_index();
	const KeyDictionary &keys = index.keys();
	const std::vector<std::string> expected = {"", "a", "ab", "b", "m", "zeta", "zz", "\xff"};
	ASSERT_EQ(keys.size(), expected.size());
	ASSERT_EQ(index.graph().vertex_count(), expected.size());
	for (size_t v = 0; v < expected.size(); v++) {
		EXPECT_EQ(keys.key(v), expected[v]);
		EXPECT_EQ(index.graph().ids[v], int64_t(v));
	}
	// The component's id is its smallest vertex, which is the smallest key: "b".
	for (const char *member : {"m", "zeta", "b"})
		EXPECT_EQ(keys.key(size_t(index.component_id(vertex(index, member)))), "b") << member;
	EXPECT_EQ(index.component_id(vertex(index, "zz")), vertex(index, "zz"));
	ReachabilityQuery q(index);
	EXPECT_TRUE(q.reachable(vertex(index, ""), vertex(index, "ab")));
	EXPECT_FALSE(q.reachable(vertex(index, "zz"), vertex(index, "b")));
	EXPECT_FALSE(q.reachable(vertex(index, "ab"), vertex(index, "\xff")));
}

// Reachability over keys equals the oracle's over the same graph with ranks for ids.
TEST(Keys, IndexAnswersLikeTheOracle) {
	for (uint64_t seed = 0; seed < 40; seed++) {
		Rng rng(seed + 1000);
		KeyDictionaryBuilder builder(seed % 2 ? KeyKind::uuid : KeyKind::text);
		KeyedEdges k = add_rows(builder, random_rows(rng, 1 + rng.below(80), seed % 2 ? KeyKind::uuid : KeyKind::text));
		KeyDictionary keys = builder.finish(k.ids);
		grail_test::Oracle oracle(k.ids);
		Index index = Index::build(k.ids, BuildOptions{}, nullptr, std::move(keys));
		ReachabilityQuery q(index);
		for (int64_t a = 0; a < int64_t(k.sorted.size()); a++) {
			ASSERT_EQ(index.component_id(a), oracle.component(a));
			for (int64_t b = 0; b < int64_t(k.sorted.size()); b++)
				ASSERT_EQ(q.reachable(a, b), oracle.reachable(a, b)) << seed << ": " << a << "->" << b;
		}
	}
}

TEST(Keys, BuildRefusesEdgesOutsideTheDictionary) {
	KeyDictionary keys;
	Index index = small_keyed_index(&keys);
	EdgeList edges;
	edges.append(0, int64_t(keys.size()));
	try {
		Index::build(std::move(edges), BuildOptions{}, nullptr, keys);
		ADD_FAILURE() << "accepted";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::internal);
	}
}

TEST(Keys, ImageRoundTrip) {
	Rng rng(8);
	KeyDictionaryBuilder builder(KeyKind::text);
	KeyedEdges k = add_rows(builder, random_rows(rng, 3000, KeyKind::text));
	KeyDictionary dictionary = builder.finish(k.ids);
	Index built = Index::build(k.ids, BuildOptions{}, nullptr, std::move(dictionary));
	std::vector<uint8_t> bytes = built.serialize();
	for (Index::Check check : {Index::Check::full, Index::Check::header}) {
		std::shared_ptr<uint8_t> image = Index::image_buffer(bytes.size());
		std::memcpy(image.get(), bytes.data(), bytes.size());
		Index index = Index::attach(image, bytes.size(), check);
		const KeyDictionary &keys = index.keys();
		EXPECT_EQ(keys.kind(), KeyKind::text);
		EXPECT_TRUE(keys.offsets().borrowed() && keys.bytes().borrowed() && keys.hash().borrowed());
		for (const void *p :
		     {static_cast<const void *>(keys.offsets().data()), static_cast<const void *>(keys.hash().data())})
			EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
		ASSERT_EQ(keys.size(), k.sorted.size());
		for (size_t v = 0; v < keys.size(); v++) {
			ASSERT_EQ(keys.key(v), k.sorted[v]);
			ASSERT_EQ(find(keys, k.sorted[v]), int64_t(v));
			ASSERT_EQ(index.graph().ids[v], int64_t(v));
		}
		EXPECT_EQ(find(keys, k.sorted.back() + "!"), -1);
		EXPECT_EQ(index.serialize(), bytes);
	}
}

namespace {

size_t
section_offset(const std::vector<uint8_t> &bytes, uint32_t tag) {
	uint64_t offset;
	std::memcpy(&offset, bytes.data() + 64 + 24 * (tag - 1) + 8, 8);
	return size_t(offset);
}

void
reseal(std::vector<uint8_t> &bytes) {
	uint64_t sum = Index::checksum(bytes.data() + 64, bytes.size() - 64);
	std::memcpy(bytes.data() + 24, &sum, 8);
}

template <typename T>
void
poke(std::vector<uint8_t> &bytes, uint32_t tag, size_t byte, T value) {
	std::memcpy(bytes.data() + section_offset(bytes, tag) + byte, &value, sizeof value);
	reseal(bytes);
}

void
expect_corrupt(const std::vector<uint8_t> &bytes, const std::string &message) {
	try {
		Index::deserialize(bytes.data(), bytes.size());
		ADD_FAILURE() << message << ": accepted";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::corrupt_index) << e.what();
		EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
	}
}

// The dictionary's sections (version 3): meta {kind u32, hash shift u32, seed u64}, offsets,
// bytes, hash table of {vertex u32, tag u32, key u64}.
constexpr uint32_t kIds = 1, kKeyMeta = 14, kKeyOffsets = 15, kKeyBytes = 16, kKeyHash = 17;

} // namespace

// Damage behind a valid checksum, section by section: each is named, nothing is read out of bounds.
TEST(Keys, DamagedDictionaryIsRefused) {
	KeyDictionary keys;
	std::vector<uint8_t> good = small_keyed_index(&keys).serialize();
	ASSERT_NO_THROW(Index::deserialize(good.data(), good.size()));
	size_t n = keys.size();
	size_t used_slot = 0;
	while (keys.hash()[used_slot].vertex == KeyDictionary::kEmpty)
		used_slot++;
	size_t empty_slot = 0;
	while (keys.hash()[empty_slot].vertex != KeyDictionary::kEmpty)
		empty_slot++;
	struct Case {
		std::vector<uint8_t> bytes;
		const char *message;
	};
	std::vector<Case> cases;
	auto damaged = [&](auto change, const char *message) {
		std::vector<uint8_t> bad = good;
		change(bad);
		cases.push_back({std::move(bad), message});
	};
	damaged([](auto &b) { poke<uint32_t>(b, kKeyMeta, 0, 3); }, "key header is invalid");
	damaged([](auto &b) { poke<uint32_t>(b, kKeyMeta, 0, 0); }, "key offsets section has");
	damaged([](auto &b) { poke<uint32_t>(b, kKeyMeta, 0, 2); }, "uuid key of vertex");
	damaged([&](auto &b) { poke<uint32_t>(b, kKeyMeta, 4, keys.hash_shift() + 1); }, "key hash table has");
	damaged([&](auto &b) { poke<uint64_t>(b, kKeyMeta, 8, keys.seed() ^ 1); }, "wrong slot for the key");
	damaged([](auto &b) { poke<uint64_t>(b, kKeyOffsets, 0, 1); }, "do not span");
	damaged([](auto &b) { poke<uint64_t>(b, kKeyOffsets, 8, uint64_t(1) << 40); }, "leave the key bytes at vertex 0");
	damaged([](auto &b) { poke<uint64_t>(b, kKeyOffsets, 24, 0); }, "decrease or leave the key bytes at vertex 2");
	damaged([&](auto &b) { poke<uint64_t>(b, kKeyOffsets, 8 * n, 0); }, "do not span");
	// "ab", "b": turning the "b" into an "a" puts "a" after "ab".
	damaged([&](auto &b) { poke<char>(b, kKeyBytes, size_t(keys.offsets()[3]), 'a'); },
	        "strictly ascending byte order at vertex 3");
	damaged([&](auto &b) { poke<uint32_t>(b, kKeyHash, 16 * used_slot, uint32_t(n)); }, "key hash table names vertex");
	damaged([&](auto &b) { poke<uint32_t>(b, kKeyHash, 16 * used_slot, KeyDictionary::kEmpty); },
	        "empty slot that is not zero");
	damaged(
	    [&](auto &b) {
		    poke(b, kKeyHash, 16 * used_slot, KeyDictionary::Slot{KeyDictionary::kEmpty, 0, 0});
	    },
	    "holds 7 keys");
	damaged([&](auto &b) { poke<uint32_t>(b, kKeyHash, 16 * used_slot + 4, keys.hash()[used_slot].tag ^ 1); },
	        "wrong slot for the key");
	damaged([&](auto &b) { poke<uint64_t>(b, kKeyHash, 16 * used_slot + 8, keys.hash()[used_slot].key ^ (1u << 24)); },
	        "wrong slot for the key");
	// Moved to a slot that was empty: its probe now stops at the slot it left.
	damaged(
	    [&](auto &b) {
		    poke(b, kKeyHash, 16 * used_slot, KeyDictionary::Slot{KeyDictionary::kEmpty, 0, 0});
		    poke(b, kKeyHash, 16 * empty_slot, keys.hash()[used_slot]);
	    },
	    "does not find the key");
	damaged([&](auto &b) { poke<KeyDictionary::Slot>(b, kKeyHash, 16 * empty_slot, keys.hash()[used_slot]); },
	        "holds 9 keys");
	// Vertex ids must be 0..n-1 under text keys (id n - 1 raised: still ascending).
	damaged([&](auto &b) { poke<int64_t>(b, kIds, 8 * (n - 1), int64_t(n + 5)); }, "has id");
	for (const Case &c : cases)
		expect_corrupt(c.bytes, c.message);
}

// Every bit of the dictionary matters: any byte flipped in its sections, behind a valid checksum,
// is refused (empty hash slots must be {kEmpty, 0}, so not even they can hide a change).
TEST(Keys, EveryFlippedDictionaryByteIsRejected) {
	std::vector<uint8_t> good = small_keyed_index().serialize();
	for (uint32_t tag : {kKeyMeta, kKeyOffsets, kKeyBytes, kKeyHash}) {
		uint64_t length;
		std::memcpy(&length, good.data() + 64 + 24 * (tag - 1) + 16, 8);
		for (size_t byte = 0; byte < length; byte++)
			for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80)}) {
				std::vector<uint8_t> bad = good;
				bad[section_offset(bad, tag) + byte] ^= mask;
				reseal(bad);
				try {
					Index::deserialize(bad.data(), bad.size());
					ADD_FAILURE() << "section " << tag << " byte " << byte << " ^ " << int(mask) << " accepted";
				} catch (const Error &e) {
					EXPECT_EQ(e.kind(), ErrorKind::corrupt_index);
				}
			}
	}
}
