// Delta builds: the delta between two builds, written and read back, made into an index again
// from the base, against a fresh build of the changed rows (the same image, byte for byte, with
// the delta's seeds), on random graphs with self-loops, duplicate rows, vertices that come and go,
// extreme ids, text and uuid keys.
#include "build_delta.hpp"
#include "error.hpp"
#include "index.hpp"
#include "keys.hpp"
#include "rng.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

using namespace grail;

namespace {

struct Rows {
	std::vector<std::pair<std::string, std::string>> rows; // keys as bytes (integer: 8 bytes)
};

std::string
int_key(int64_t v) {
	std::string k(8, '\0');
	for (int i = 0; i < 8; i++)
		k[size_t(i)] = char((uint64_t(v) >> (8 * i)) & 0xff);
	return k;
}

int64_t
int_of(const std::string &k) {
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u |= uint64_t(uint8_t(k[size_t(i)])) << (8 * i);
	return int64_t(u);
}

std::string
random_vertex(Rng &rng, KeyKind kind, size_t n) {
	uint64_t i = rng.below(n);
	if (kind == KeyKind::integer) {
		if (i == 0)
			return int_key(INT64_MIN);
		if (i == 1)
			return int_key(INT64_MAX);
		return int_key(int64_t(i) * 7919 - 1000);
	}
	if (kind == KeyKind::uuid) {
		std::string k(16, '\0');
		k[15] = char(i & 0xff);
		k[0] = char((i >> 8) & 0xff);
		return k;
	}
	return i == 0 ? std::string() : "v" + std::to_string(i) + (i % 3 == 0 ? std::string(1, '\xff') : "");
}

Index
build_rows(const Rows &r, KeyKind kind, unsigned labels, uint64_t id_seed, uint64_t key_seed) {
	EdgeList edges;
	std::unique_ptr<KeyDictionaryBuilder> keys;
	if (kind != KeyKind::integer)
		keys = std::make_unique<KeyDictionaryBuilder>(kind, key_seed);
	for (const auto &row : r.rows) {
		if (keys)
			edges.append(keys->add(row.first.data(), row.first.size()),
			             keys->add(row.second.data(), row.second.size()));
		else
			edges.append(int_of(row.first), int_of(row.second));
	}
	BuildOptions options;
	options.labels = labels;
	options.id_hash_seed = id_seed;
	KeyDictionary dictionary = keys ? keys->finish(edges) : KeyDictionary();
	return Index::build(std::move(edges), options, nullptr, std::move(dictionary));
}

Rows
random_rows(Rng &rng, KeyKind kind, size_t n, size_t m) {
	Rows r;
	for (size_t i = 0; i < m; i++) {
		std::string a = random_vertex(rng, kind, n);
		std::string b = rng.below(10) == 0 ? a : random_vertex(rng, kind, n);
		r.rows.push_back({a, b});
		if (rng.below(8) == 0)
			r.rows.push_back({a, b}); // a duplicate row
	}
	return r;
}

// Some rows deleted (maybe all of a vertex's), some added (new vertices, self-loops, duplicates).
Rows
changed_rows(Rng &rng, const Rows &base, KeyKind kind, size_t n) {
	Rows r;
	size_t drop = rng.below(4);
	for (const auto &row : base.rows)
		if (drop == 0 || rng.below(20) != 0)
			r.rows.push_back(row);
	size_t adds = rng.below(12);
	for (size_t i = 0; i < adds; i++) {
		std::string a = random_vertex(rng, kind, n + 10);
		std::string b = rng.below(6) == 0 ? a : random_vertex(rng, kind, n + 10);
		r.rows.push_back({a, b});
	}
	if (rng.below(10) == 0 && !r.rows.empty())
		r.rows.push_back(r.rows[rng.below(r.rows.size())]);
	return r;
}

void
check_round(Rng &rng, KeyKind kind) {
	size_t n = 2 + rng.below(40), m = rng.below(120);
	unsigned labels = 1 + unsigned(rng.below(6));
	Rows base_rows = random_rows(rng, kind, n, m);
	Index base = build_rows(base_rows, kind, labels, rng.next() | 1, rng.next() | 1);
	Rows fresh_rows = rng.below(10) == 0 ? base_rows : changed_rows(rng, base_rows, kind, n);
	Index fresh = build_rows(fresh_rows, kind, labels, rng.next() | 1, rng.next() | 1);
	std::optional<BuildDelta> delta = diff_builds(base, fresh, SIZE_MAX);
	ASSERT_TRUE(delta);
	delta->labels = labels;
	delta->id_hash_seed = rng.next() | 1;
	delta->key_seed = rng.next() | 1;
	std::vector<uint8_t> bytes = delta->serialize();
	BuildDelta read = BuildDelta::parse(bytes.data(), bytes.size());
	std::vector<uint8_t> made = apply_delta(base, read, 0);
	// Made again from what was stored: the same image (a standby, a restart).
	BuildDelta again = BuildDelta::parse(bytes.data(), bytes.size());
	again.image_bytes = read.image_bytes;
	again.image_checksum = read.image_checksum;
	EXPECT_EQ(apply_delta(base, again, 0), made);
	// The same image as a fresh build of the changed rows with the delta's seeds.
	Index expected = build_rows(fresh_rows, kind, labels, delta->id_hash_seed, delta->key_seed);
	EXPECT_EQ(expected.serialize(), made) << "kind " << int(kind) << " n " << n << " m " << m;
	// A limit below the changes refuses.
	if (delta->changes() > 0) {
		EXPECT_FALSE(diff_builds(base, fresh, delta->changes() - 1));
	}
}

} // namespace

TEST(BuildDelta, MadeFromBaseEqualsFreshBuildIntegerKeys) {
	Rng rng(101);
	for (int i = 0; i < 400; i++)
		check_round(rng, KeyKind::integer);
}

TEST(BuildDelta, MadeFromBaseEqualsFreshBuildTextKeys) {
	Rng rng(202);
	for (int i = 0; i < 300; i++)
		check_round(rng, KeyKind::text);
}

TEST(BuildDelta, MadeFromBaseEqualsFreshBuildUuidKeys) {
	Rng rng(303);
	for (int i = 0; i < 200; i++)
		check_round(rng, KeyKind::uuid);
}

TEST(BuildDelta, DamagedBytesAreRefused) {
	Rng rng(404);
	Rows rows = random_rows(rng, KeyKind::integer, 20, 60);
	Index base = build_rows(rows, KeyKind::integer, 3, 5, 7);
	Rows changed = changed_rows(rng, rows, KeyKind::integer, 20);
	Index fresh = build_rows(changed, KeyKind::integer, 3, 5, 7);
	BuildDelta delta = *diff_builds(base, fresh, SIZE_MAX);
	delta.labels = 3;
	std::vector<uint8_t> image = apply_delta(base, delta, 0);
	std::vector<uint8_t> bytes = delta.serialize();
	for (size_t i = 0; i < bytes.size(); i++) {
		std::vector<uint8_t> damaged = bytes;
		damaged[i] ^= 0x10;
		EXPECT_THROW(BuildDelta::parse(damaged.data(), damaged.size()), Error);
	}
	for (size_t cut = 0; cut < bytes.size(); cut++)
		EXPECT_THROW(BuildDelta::parse(bytes.data(), cut), Error);
	// A recorded image that differs from what is made is refused.
	BuildDelta read = BuildDelta::parse(bytes.data(), bytes.size());
	read.image_checksum ^= 1;
	EXPECT_THROW(apply_delta(base, read, 0), Error);
	EXPECT_FALSE(image.empty());
}
