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

#include <algorithm>
#include <climits>
#include <cstring>
#include <tuple>
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

// Integer ids spread over int64 (a hash table), or dense (a direct id table).
enum class Ids { sparse, dense };

std::string
random_vertex(Rng &rng, KeyKind kind, size_t n, Ids ids = Ids::sparse) {
	uint64_t i = rng.below(n);
	if (kind == KeyKind::integer && ids == Ids::dense) // now and then one far away: a hash table
		return int_key(rng.below(20 * n) == 0 ? int64_t(1) << 40 : int64_t(i) - 5);
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

// The rows as a build reads them: the edges, and for text and uuid keys their finished dictionary
// (the edges then hold its vertex numbers).
struct ReadRows {
	EdgeList edges;
	KeyDictionary keys;
};

ReadRows
read_rows(const Rows &r, KeyKind kind, uint64_t key_seed) {
	ReadRows read;
	std::unique_ptr<KeyDictionaryBuilder> keys;
	if (kind != KeyKind::integer)
		keys = std::make_unique<KeyDictionaryBuilder>(kind, key_seed);
	for (const auto &row : r.rows) {
		if (keys)
			read.edges.append(keys->add(row.first.data(), row.first.size()),
			                  keys->add(row.second.data(), row.second.size()));
		else
			read.edges.append(int_of(row.first), int_of(row.second));
	}
	if (keys)
		read.keys = keys->finish(read.edges);
	return read;
}

Index
build_rows(const Rows &r, KeyKind kind, unsigned labels, uint64_t id_seed, uint64_t key_seed) {
	ReadRows read = read_rows(r, kind, key_seed);
	BuildOptions options;
	options.labels = labels;
	options.id_hash_seed = id_seed;
	return Index::build(std::move(read.edges), options, nullptr, std::move(read.keys));
}

// A delta's changes in one order, to compare deltas found in different orders.
struct Changes {
	std::vector<std::string> added, removed;
	std::vector<std::tuple<std::string, std::string, uint64_t>> edges;
	bool
	operator==(const Changes &o) const {
		return added == o.added && removed == o.removed && edges == o.edges;
	}
};

Changes
sorted_changes(const BuildDelta &d) {
	Changes c{d.added_vertices, d.removed_vertices, {}};
	for (const BuildDelta::EdgeRows &e : d.edges)
		c.edges.emplace_back(e.source, e.target, e.rows);
	std::sort(c.added.begin(), c.added.end());
	std::sort(c.removed.begin(), c.removed.end());
	std::sort(c.edges.begin(), c.edges.end());
	return c;
}

Rows
random_rows(Rng &rng, KeyKind kind, size_t n, size_t m, Ids ids = Ids::sparse) {
	Rows r;
	for (size_t i = 0; i < m; i++) {
		std::string a = random_vertex(rng, kind, n, ids);
		std::string b = rng.below(10) == 0 ? a : random_vertex(rng, kind, n, ids);
		r.rows.push_back({a, b});
		if (rng.below(8) == 0)
			r.rows.push_back({a, b}); // a duplicate row
	}
	return r;
}

// Some rows deleted (maybe all of a vertex's), some added (new vertices, self-loops, duplicates).
Rows
changed_rows(Rng &rng, const Rows &base, KeyKind kind, size_t n, Ids ids = Ids::sparse) {
	Rows r;
	size_t drop = rng.below(4);
	for (const auto &row : base.rows)
		if (drop == 0 || rng.below(20) != 0)
			r.rows.push_back(row);
	size_t adds = rng.below(12);
	for (size_t i = 0; i < adds; i++) {
		std::string a = random_vertex(rng, kind, n + 10, ids);
		std::string b = rng.below(6) == 0 ? a : random_vertex(rng, kind, n + 10, ids);
		r.rows.push_back({a, b});
	}
	if (rng.below(10) == 0 && !r.rows.empty())
		r.rows.push_back(r.rows[rng.below(r.rows.size())]);
	return r;
}

void
check_round(Rng &rng, KeyKind kind, Ids ids = Ids::sparse) {
	size_t n = 2 + rng.below(40), m = rng.below(120);
	unsigned labels = 1 + unsigned(rng.below(6));
	Rows base_rows = random_rows(rng, kind, n, m, ids);
	Index base = build_rows(base_rows, kind, labels, rng.next() | 1, rng.next() | 1);
	Rows fresh_rows = rng.below(10) == 0 ? base_rows : changed_rows(rng, base_rows, kind, n, ids);
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

	// The delta found from the rows as a merge reads them, without their build: the same changes,
	// and the same image made from it.
	ReadRows rows = read_rows(fresh_rows, kind, rng.next() | 1);
	std::optional<BuildDelta> from_rows = diff_rows(base, rows.edges, rows.keys, SIZE_MAX);
	ASSERT_TRUE(from_rows);
	EXPECT_TRUE(sorted_changes(*from_rows) == sorted_changes(*delta)) << "kind " << int(kind) << " n " << n;
	EXPECT_EQ(from_rows->changes(), delta->changes());
	from_rows->labels = labels;
	from_rows->id_hash_seed = rng.next() | 1;
	from_rows->key_seed = rng.next() | 1;
	std::vector<uint8_t> made_from_rows = apply_delta(base, *from_rows, 0);
	Index expected_from_rows = build_rows(fresh_rows, kind, labels, from_rows->id_hash_seed, from_rows->key_seed);
	EXPECT_EQ(expected_from_rows.serialize(), made_from_rows) << "kind " << int(kind) << " n " << n << " m " << m;
	// Its limit: exactly its changes pass, one fewer refuses.
	EXPECT_TRUE(diff_rows(base, rows.edges, rows.keys, from_rows->changes()));
	if (from_rows->changes() > 0) {
		EXPECT_FALSE(diff_rows(base, rows.edges, rows.keys, from_rows->changes() - 1));
	}
}

} // namespace

TEST(BuildDelta, MadeFromBaseEqualsFreshBuildIntegerKeys) {
	Rng rng(101);
	for (int i = 0; i < 400; i++)
		check_round(rng, KeyKind::integer);
}

// Dense integer ids (a direct id table), now and then one far away (a hash table): deltas between
// the two kinds of table, either way, and between direct tables of different spans.
TEST(BuildDelta, MadeFromBaseEqualsFreshBuildDenseIds) {
	Rng rng(404);
	for (int i = 0; i < 300; i++)
		check_round(rng, KeyKind::integer, Ids::dense);
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

// A merge diffs the rows against the last full build, however many merges came since: successive
// write sequences from one base, each delta found from the rows against it and made into the image
// of a fresh build of those rows.
TEST(BuildDelta, SuccessiveWritesFromOneBaseFromRows) {
	Rng rng(505);
	for (KeyKind kind : {KeyKind::integer, KeyKind::text, KeyKind::uuid})
		for (int round = 0; round < 40; round++) {
			size_t n = 2 + rng.below(30);
			unsigned labels = 1 + unsigned(rng.below(5));
			Rows rows = random_rows(rng, kind, n, rng.below(80));
			Index base = build_rows(rows, kind, labels, rng.next() | 1, rng.next() | 1);
			for (int step = 0; step < 6; step++) {
				rows = changed_rows(rng, rows, kind, n + size_t(step) * 3);
				ReadRows read = read_rows(rows, kind, rng.next() | 1);
				std::optional<BuildDelta> delta = diff_rows(base, read.edges, read.keys, SIZE_MAX);
				ASSERT_TRUE(delta);
				delta->labels = labels;
				delta->id_hash_seed = rng.next() | 1;
				delta->key_seed = rng.next() | 1;
				std::vector<uint8_t> bytes = delta->serialize();
				BuildDelta stored = BuildDelta::parse(bytes.data(), bytes.size());
				std::vector<uint8_t> made = apply_delta(base, stored, 0);
				Index expected = build_rows(rows, kind, labels, delta->id_hash_seed, delta->key_seed);
				ASSERT_EQ(expected.serialize(), made) << "kind " << int(kind) << " round " << round << " step " << step;
			}
		}
}

// Rows of another key kind than the base's give no delta (a full build), nor does the empty base
// refuse one: every row is then new.
TEST(BuildDelta, FromRowsKindsAndEmptyGraphs) {
	Rng rng(606);
	Rows ints = random_rows(rng, KeyKind::integer, 10, 30);
	Index int_base = build_rows(ints, KeyKind::integer, 2, 3, 5);
	Rows texts = random_rows(rng, KeyKind::text, 10, 30);
	ReadRows text_read = read_rows(texts, KeyKind::text, 9);
	EXPECT_FALSE(diff_rows(int_base, text_read.edges, text_read.keys, SIZE_MAX));
	Index text_base = build_rows(texts, KeyKind::text, 2, 3, 5);
	ReadRows int_read = read_rows(ints, KeyKind::integer, 9);
	EXPECT_FALSE(diff_rows(text_base, int_read.edges, int_read.keys, SIZE_MAX));
	// The same rows: an empty delta.
	std::optional<BuildDelta> none = diff_rows(int_base, int_read.edges, int_read.keys, 0);
	ASSERT_TRUE(none);
	EXPECT_EQ(none->changes(), 0u);
	// From the empty graph, and to it.
	Index empty = build_rows(Rows{}, KeyKind::integer, 2, 3, 5);
	std::optional<BuildDelta> all = diff_rows(empty, int_read.edges, int_read.keys, SIZE_MAX);
	ASSERT_TRUE(all);
	all->labels = 2;
	all->id_hash_seed = 11;
	EXPECT_EQ(apply_delta(empty, *all, 0), build_rows(ints, KeyKind::integer, 2, 11, 1).serialize());
	ReadRows nothing = read_rows(Rows{}, KeyKind::integer, 9);
	std::optional<BuildDelta> gone = diff_rows(int_base, nothing.edges, nothing.keys, SIZE_MAX);
	ASSERT_TRUE(gone);
	gone->labels = 2;
	gone->id_hash_seed = 13;
	EXPECT_EQ(apply_delta(int_base, *gone, 0), build_rows(Rows{}, KeyKind::integer, 2, 13, 1).serialize());
}

// A delta that a merge stored before format 8 (made by commit 3e7379a's build_delta.cpp: the base
// a chain 0 -> 2 -> ... -> 998, one row 1003 -> 4 added, seeds 12345 and 678) records the format 7
// image it made: made again now, it is that image byte for byte (its recorded size and checksum
// hold), of format 7, and answers; one that says it is of format 8 refuses (the bytes differ).
TEST(BuildDelta, DeltasStoredBeforeFormat8AreMadeAsFormat7) {
	const char *stored = "50474752444c5400010000000000000002000000000000003930000000000000a602000000000000"
	                     "c086010000000000c873bcffa8b68934010000000000000008000000eb03000000000000000000"
	                     "0000000000010000000000000008000000eb030000000000000800000004000000000000000100"
	                     "000000000000d007499ee77b3b38";
	std::vector<uint8_t> bytes;
	for (size_t i = 0; stored[i] != '\0'; i += 2)
		bytes.push_back(uint8_t(std::stoul(std::string(stored + i, 2), nullptr, 16)));
	EdgeList chain;
	for (int64_t i = 0; i < 1000; i += 2)
		chain.append(i, i + 2);
	Index base = Index::build(std::move(chain), BuildOptions{});
	BuildDelta delta = BuildDelta::parse(bytes.data(), bytes.size());
	EXPECT_EQ(delta.image_format, 7u);
	std::vector<uint8_t> image = apply_delta(base, delta, 0);
	uint32_t version;
	std::memcpy(&version, image.data() + 8, 4);
	EXPECT_EQ(version, 7u);
	Index made = Index::deserialize(image.data(), image.size());
	ReachabilityQuery q(made);
	EXPECT_TRUE(q.reachable(1003, 998));
	EXPECT_FALSE(q.reachable(2, 1003));
	// Written again, the delta keeps its format.
	std::vector<uint8_t> again = delta.serialize();
	EXPECT_EQ(BuildDelta::parse(again.data(), again.size()).image_format, 7u);
	BuildDelta as_eight = delta;
	as_eight.image_format = Index::kFormatVersion;
	EXPECT_THROW(apply_delta(base, as_eight, 0), Error);
	// A format 7 image of an index with a direct table, or an unknown format, is not written.
	EXPECT_THROW(made.serialize(6), Error);
	EXPECT_NO_THROW(made.serialize(7));
	EdgeList dense;
	dense.append(1, 2);
	EXPECT_THROW(Index::build(std::move(dense), BuildOptions{}).serialize(7), Error);
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
