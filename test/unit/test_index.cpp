#include "error.hpp"
#include "generate.hpp"
#include "index.hpp"
#include "oracle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>

using namespace grail;

namespace {

EdgeList
copy(const EdgeList &e) {
	return e;
}

void
expect_corrupt(const std::vector<uint8_t> &bytes, const std::string &what) {
	try {
		Index::deserialize(bytes.data(), bytes.size());
		ADD_FAILURE() << what << ": accepted";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::corrupt_index) << what << ": " << e.what();
	}
}

// An edge between two ids far from the others, so that the ids are too sparse for a direct table
// and the index has a hash table, as every image before format 8 did.
constexpr int64_t kFarId = int64_t(1) << 40;

Index
small_index(bool hashed = false) {
	grail_test::TestGraph t = grail_test::random_graph(3, 40);
	for (int k = 0; k < 10; k++) // make sure there are a few components and DAG edges
		t.edges.append(k, k + 1);
	t.edges.append(10, 0);
	t.edges.append(10, 11);
	if (hashed)
		t.edges.append(kFarId, kFarId + 1);
	BuildOptions options;
	options.labels = 3;
	return Index::build(t.edges, options);
}

// A text-keyed index of count edges "vertex (7k mod a)" -> "vertex (13k mod b)", fixed seeds.
static Index
text_keyed_index(int count, int a, int b) {
	KeyDictionaryBuilder builder(KeyKind::text, 0x5eed);
	EdgeList ids;
	for (int k = 0; k < count; k++) {
		std::string from = "vertex " + std::to_string(k * 7 % a), to = "vertex " + std::to_string(k * 13 % b);
		ids.append(builder.add(from.data(), from.size()), builder.add(to.data(), to.size()));
	}
	KeyDictionary keys = builder.finish(ids);
	return Index::build(std::move(ids), BuildOptions{}, nullptr, std::move(keys));
}

} // namespace

TEST(Index, RoundTripAnswersIdentically) {
	for (uint64_t seed = 0; seed < 200; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, 60);
		grail_test::Oracle oracle(t.edges);
		BuildOptions options;
		options.labels = 1 + unsigned(seed % 5);
		BuildStats stats;
		Index built = Index::build(copy(t.edges), options, &stats);
		EXPECT_EQ(stats.input_edges, t.edges.size());
		EXPECT_EQ(stats.vertices, oracle.vertices().size());
		EXPECT_EQ(stats.components, built.components().count());
		EXPECT_EQ(stats.dag_edges, built.dag().edge_count());
		std::vector<uint8_t> bytes = built.serialize();
		Index loaded = Index::deserialize(bytes.data(), bytes.size());
		EXPECT_EQ(loaded.serialize(), bytes);
		EXPECT_EQ(loaded.graph().ids, built.graph().ids);
		EXPECT_EQ(loaded.labels().data(), built.labels().data());
		ReachabilityQuery q(loaded);
		for (int64_t a : t.query_ids) {
			EXPECT_EQ(loaded.find(a), built.graph().find(a));
			EXPECT_EQ(loaded.component_id(a), oracle.component(a));
			for (int64_t b : t.query_ids)
				ASSERT_EQ(q.reachable(a, b), oracle.reachable(a, b)) << "seed " << seed;
		}
	}
}

TEST(Index, EmptyGraphRoundTrip) {
	Index index = Index::build(EdgeList{}, BuildOptions{});
	EXPECT_EQ(index.graph().vertex_count(), 0u);
	EXPECT_EQ(index.components().count(), 0u);
	EXPECT_EQ(index.find(0), -1);
	std::vector<uint8_t> bytes = index.serialize();
	Index loaded = Index::deserialize(bytes.data(), bytes.size());
	EXPECT_EQ(loaded.graph().vertex_count(), 0u);
	ReachabilityQuery q(loaded);
	EXPECT_FALSE(q.reachable(1, 2));
	EXPECT_TRUE(q.reachable(1, 1));
}

TEST(Index, EveryTruncationIsRejected) {
	std::vector<uint8_t> bytes = small_index().serialize();
	for (size_t len = 0; len < bytes.size(); len++)
		expect_corrupt(std::vector<uint8_t>(bytes.begin(), bytes.begin() + len), "truncated to " + std::to_string(len));
	std::vector<uint8_t> longer = bytes;
	longer.push_back(0);
	expect_corrupt(longer, "one byte appended");
}

TEST(Index, EveryFlippedByteIsRejected) {
	std::vector<uint8_t> bytes = small_index().serialize();
	for (size_t pos = 0; pos < bytes.size(); pos++)
		for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
			std::vector<uint8_t> bad = bytes;
			bad[pos] ^= mask;
			expect_corrupt(bad, "byte " + std::to_string(pos) + " ^ " + std::to_string(mask));
		}
}

// An attached index reads its arrays where the image lies, and refuses writes to them.
TEST(Index, AttachBorrowsTheImage) {
	Index built = small_index();
	std::vector<uint8_t> bytes = built.serialize();
	std::shared_ptr<uint8_t> image = Index::image_buffer(bytes.size());
	std::memcpy(image.get(), bytes.data(), bytes.size());
	Index index = Index::attach(image, bytes.size(), Index::Check::full);
	const uint8_t *begin = image.get(), *end = begin + bytes.size();
	for (const void *p : {static_cast<const void *>(index.graph().ids.data()),
	                      static_cast<const void *>(index.graph().out.targets.data()),
	                      static_cast<const void *>(index.dag().offsets.data()),
	                      static_cast<const void *>(index.labels().data().data()),
	                      static_cast<const void *>(index.bloom().data().data())}) {
		EXPECT_GE(static_cast<const uint8_t *>(p), begin);
		EXPECT_LT(static_cast<const uint8_t *>(p), end);
		EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
	}
	Array<int64_t> borrowed = Array<int64_t>::borrow(index.graph().ids.data(), index.graph().ids.size(), image);
	EXPECT_THROW(borrowed[0] = 1, std::logic_error);
	EXPECT_THROW(borrowed.push_back(1), std::logic_error);
	// Checking the header alone, the payload is not read: a damaged byte goes unseen (so only
	// images that were checked once are attached that way); the checksum refuses it.
	std::shared_ptr<uint8_t> damaged = Index::image_buffer(bytes.size());
	std::memcpy(damaged.get(), bytes.data(), bytes.size());
	damaged.get()[bytes.size() - 1] ^= 1;
	EXPECT_NO_THROW(Index::attach(damaged, bytes.size(), Index::Check::header));
	EXPECT_THROW(Index::attach(damaged, bytes.size(), Index::Check::checksum), Error);
	// The image outlives the caller's reference: the index keeps it.
	image.reset();
	ReachabilityQuery a(built), b(index);
	for (int64_t s = -2; s < 12; s++)
		for (int64_t t = -2; t < 12; t++)
			ASSERT_EQ(a.reachable(s, t), b.reachable(s, t)) << s << "->" << t;
}

// Format version 1, as 0.1.0 and 0.2.0 stored it: a 32-byte header, then sections {u32 tag,
// u32 reserved, u64 bytes} padded to 8, and no hash table.
std::vector<uint8_t>
serialize_v1(const Index &index) {
	std::vector<uint8_t> out(32, 0);
	auto section = [&](uint32_t tag, const void *data, uint64_t bytes) {
		size_t pos = out.size();
		out.resize(pos + 16 + (bytes + 7) / 8 * 8, 0);
		std::memcpy(out.data() + pos, &tag, 4);
		std::memcpy(out.data() + pos + 8, &bytes, 8);
		if (bytes)
			std::memcpy(out.data() + pos + 16, data, bytes);
	};
	const Graph &g = index.graph();
	uint32_t label_meta[2] = {index.labels().label_count(), 0}, bloom_meta[2] = {kBloomBits, 0};
	section(1, g.ids.data(), g.ids.size() * 8);
	section(2, g.out.offsets.data(), g.out.offsets.size() * 8);
	section(3, g.out.targets.data(), g.out.targets.size() * 4);
	section(4, index.components().of_vertex.data(), index.components().of_vertex.size() * 4);
	section(5, index.components().smallest_vertex.data(), index.components().smallest_vertex.size() * 4);
	section(6, index.dag().offsets.data(), index.dag().offsets.size() * 8);
	section(7, index.dag().targets.data(), index.dag().targets.size() * 4);
	section(8, label_meta, 8);
	section(9, index.labels().data().data(), index.labels().data().size() * 4);
	section(10, bloom_meta, 8);
	section(11, index.bloom().data().data(), index.bloom().data().size() * 64);
	uint32_t version = 1, sections = 11;
	uint64_t payload = out.size() - 32, sum = Index::checksum(out.data() + 32, payload);
	std::memcpy(out.data(), "PGGRAIL", 8);
	std::memcpy(out.data() + 8, &version, 4);
	std::memcpy(out.data() + 12, &sections, 4);
	std::memcpy(out.data() + 16, &payload, 8);
	std::memcpy(out.data() + 24, &sum, 8);
	return out;
}

// Indexes stored by 0.1.0 and 0.2.0 keep answering: read by copying, their hash table rebuilt.
TEST(Index, Version1ImagesStillLoad) {
	for (uint64_t seed = 1; seed <= 20; seed++) {
		EdgeList edges = grail_test::random_graph(seed, 40).edges;
		Index built = Index::build(copy(edges), BuildOptions{});
		std::vector<uint8_t> v1 = serialize_v1(built);
		Index old = Index::deserialize(v1.data(), v1.size());
		EXPECT_FALSE(old.graph().ids.borrowed());
		ReachabilityQuery a(built), b(old);
		for (int64_t s = -1; s <= 41; s++)
			for (int64_t t = -1; t <= 41; t++)
				ASSERT_EQ(a.reachable(s, t), b.reachable(s, t)) << seed << ": " << s << "->" << t;
		// Rewritten in the current format: the same graph, labels and hash table, and still no
		// count of the rows each edge came from (format 1 had none).
		EXPECT_FALSE(old.graph().rows_known);
		std::vector<uint8_t> rewritten = old.serialize();
		Index again = Index::deserialize(rewritten.data(), rewritten.size());
		EXPECT_FALSE(again.graph().rows_known);
		EXPECT_EQ(again.serialize(), rewritten);
		EXPECT_EQ(again.graph().out.targets, built.graph().out.targets);
		EXPECT_EQ(again.labels().data(), built.labels().data());
	}
}

namespace {

// Offset of a section's bytes in a serialized index (format versions 2 and 3: a 64-byte header,
// then a table of {u32 tag, u32 reserved, u64 offset, u64 bytes}).
size_t
section_offset(const std::vector<uint8_t> &bytes, uint32_t tag) {
	uint32_t count;
	std::memcpy(&count, bytes.data() + 12, 4);
	for (uint32_t k = 0; k < count; k++) {
		uint32_t t;
		uint64_t offset;
		std::memcpy(&t, bytes.data() + 64 + 24 * k, 4);
		std::memcpy(&offset, bytes.data() + 64 + 24 * k + 8, 8);
		if (t == tag)
			return offset;
	}
	ADD_FAILURE() << "no section " << tag;
	return 0;
}

void
reseal(std::vector<uint8_t> &bytes) {
	uint64_t sum = Index::checksum(bytes.data() + 64, bytes.size() - 64);
	std::memcpy(bytes.data() + 24, &sum, 8);
}

// The kind in an image's id table header: 1 a seeded hash table, 2 a direct table.
uint32_t
id_table_kind(const std::vector<uint8_t> &image) {
	uint32_t kind;
	std::memcpy(&kind, image.data() + section_offset(image, 12) + 4, 4);
	return kind;
}

// An image of the current format laid out as formats 4 and 5 were: the first 18 sections (no
// lookup labels), the table and offsets to match, the version given.
std::vector<uint8_t>
without_lookup(const std::vector<uint8_t> &bytes, uint32_t version) {
	const uint32_t count = 18;
	auto align = [](size_t n) { return (n + 63) / 64 * 64; };
	size_t pos = align(64 + 24 * count);
	std::vector<uint8_t> out(pos, 0);
	std::memcpy(out.data(), bytes.data(), 64);
	for (uint32_t k = 0; k < count; k++) {
		uint64_t offset, len;
		std::memcpy(&offset, bytes.data() + 64 + 24 * k + 8, 8);
		std::memcpy(&len, bytes.data() + 64 + 24 * k + 16, 8);
		uint8_t *entry = out.data() + 64 + 24 * k;
		std::memcpy(entry, bytes.data() + 64 + 24 * k, 24);
		uint64_t at = out.size();
		std::memcpy(entry + 8, &at, 8);
		out.insert(out.end(), bytes.begin() + offset, bytes.begin() + offset + len);
		out.resize(align(out.size()), 0);
	}
	uint64_t payload = out.size() - 64;
	std::memcpy(out.data() + 8, &version, 4);
	std::memcpy(out.data() + 12, &count, 4);
	std::memcpy(out.data() + 16, &payload, 8);
	reseal(out);
	return out;
}

} // namespace

// A version 2 image as 0.4.0 wrote it (serialize() at commit 6794632, before key dictionaries) of
// the graph below with 2 labels: it still attaches in place, as integer keys, and answers.
const char *const kVersion2Image = "5047475241494c00020000000d000000000900000000000079707126369ba4fb"
                                   "0000000000000000000000000000000000000000000000000000000000000000"
                                   "0100000000000000800100000000000048000000000000000200000000000000"
                                   "0002000000000000500000000000000003000000000000008002000000000000"
                                   "20000000000000000400000000000000c0020000000000002400000000000000"
                                   "050000000000000000030000000000001c000000000000000600000000000000"
                                   "4003000000000000400000000000000007000000000000008003000000000000"
                                   "10000000000000000800000000000000c0030000000000000800000000000000"
                                   "09000000000000000004000000000000c4000000000000000a00000000000000"
                                   "000500000000000008000000000000000b000000000000004005000000000000"
                                   "c0010000000000000c0000000000000000070000000000000800000000000000"
                                   "0d00000000000000400700000000000000020000000000000000000000000000"
                                   "0000000000000080fdffffffffffffff05000000000000000700000000000000"
                                   "09000000000000000c0000000000000014000000000000001e00000000000000"
                                   "ffffffffffffff7f000000000000000000000000000000000000000000000000"
                                   "0000000000000000000000000000000000000000000000000000000000000000"
                                   "0000000000000000000000000000000001000000000000000300000000000000"
                                   "0300000000000000040000000000000006000000000000000700000000000000"
                                   "0700000000000000080000000000000000000000000000000000000000000000"
                                   "0000000000000000000000000000000000000000000000000000000000000000"
                                   "0200000001000000040000000500000004000000070000000200000000000000"
                                   "0000000000000000000000000000000000000000000000000000000000000000"
                                   "0600000003000000030000000200000004000000040000000100000005000000"
                                   "0000000000000000000000000000000000000000000000000000000000000000"
                                   "0800000006000000030000000100000004000000070000000000000000000000"
                                   "0000000000000000000000000000000000000000000000000000000000000000"
                                   "0000000000000000010000000000000002000000000000000200000000000000"
                                   "0300000000000000040000000000000004000000000000000400000000000000"
                                   "0600000003000000040000000500000000000000000000000000000000000000"
                                   "0000000000000000000000000000000000000000000000000000000000000000"
                                   "0200000000000000000000000000000000000000000000000000000000000000"
                                   "0000000000000000000000000000000000000000000000000000000000000000"
                                   "0600000005000000000000000500000006000000050000000600000003000000"
                                   "0000000000000000000000000300000000000000030000000400000004000000"
                                   "0000000004000000040000000400000004000000020000000000000001000000"
                                   "0000000002000000000000000200000001000000000000000200000000000000"
                                   "0100000000000000010000000000000000000000030000000000000000000000"
                                   "0000000000000000050000000500000001000000050000000500000005000000"
                                   "0500000000000000000000000000000000000000000000000000000000000000"
                                   "0000000000000000000000000000000000000000000000000000000000000000"
                                   "0001000000000000000000000000000000000000000000000000000000000000"
                                   "0000000000000000000000000000000000000000000000000000000000000000"
                                   "0000800000000000000000000000000000000000000020000000000000000000"
                                   "0000000000000000000000000000000000000000000020000000000000000000"
                                   "0100000000000010000000000000000000000040000000000000000400000000"
                                   "0000000000000000000000000000000000000000000000000000000400000000"
                                   "0000000000000000000000000000000100000000000000000000000000000000"
                                   "0000000000000000000000000000000100000000000000000000000000000000"
                                   "0100000000000010000000000000000000000040000000000000000000000000"
                                   "0000000000000010000000000000000000000000000000000000000400000000"
                                   "0100000000000000000000000000000000000040000000000000000000000000"
                                   "0000000000000010000000000000000000000040000000000000000400000000"
                                   "0100000000000000000000000000000000000000000000000000000000000000"
                                   "0100000000000010000000000000000000000040000000000000000400000000"
                                   "0000800000000000000000000000000000000000000000000000000000000000"
                                   "0000800000000000000000000000000000000000000020000000000000000000"
                                   "3b00000000000000000000000000000000000000000000000000000000000000"
                                   "0000000000000000000000000000000000000000000000000000000000000000"
                                   "0000000000000000ffffffff000000000000000000000000ffffffff00000000"
                                   "050000000000000002000000030000000000000000000000ffffffff00000000"
                                   "fdffffffffffffff01000000030000000000000000000000ffffffff00000000"
                                   "0000000000000000ffffffff000000000000000000000000ffffffff00000000"
                                   "0000000000000000ffffffff000000000000000000000000ffffffff00000000"
                                   "0700000000000000030000000200000014000000000000000600000001000000"
                                   "0000000000000000ffffffff000000000c000000000000000500000004000000"
                                   "0000000000000000ffffffff000000000000000000000000ffffffff00000000"
                                   "0000000000000080000000000600000009000000000000000400000004000000"
                                   "1e0000000000000007000000050000000000000000000000ffffffff00000000"
                                   "0000000000000000ffffffff000000000000000000000000ffffffff00000000"
                                   "0000000000000000ffffffff000000000000000000000000ffffffff00000000"
                                   "0000000000000000ffffffff000000000000000000000000ffffffff00000000"
                                   "0000000000000000ffffffff000000000000000000000000ffffffff00000000"
                                   "ffffffffffffff7f08000000000000000000000000000000ffffffff00000000"
                                   "0000000000000000ffffffff000000000000000000000000ffffffff00000000";

TEST(Index, Version2ImagesStillAttach) {
	EdgeList e;
	const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
	for (auto [s, t] :
	     {std::pair<int64_t, int64_t>{5, -3}, {-3, 5}, {5, 9}, {9, 12}, {12, 9}, {20, 5}, {hi, lo}, {12, 30}, {7, 7}})
		e.append(s, t);
	std::string hex = kVersion2Image;
	ASSERT_EQ(hex.size(), 2u * 2368);
	std::shared_ptr<uint8_t> image = Index::image_buffer(hex.size() / 2);
	for (size_t i = 0; i < hex.size() / 2; i++)
		image.get()[i] = uint8_t(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
	uint32_t version;
	std::memcpy(&version, image.get() + 8, 4);
	ASSERT_EQ(version, 2u);
	Index old = Index::attach(image, hex.size() / 2, Index::Check::full);
	EXPECT_TRUE(old.graph().ids.borrowed());
	EXPECT_EQ(old.keys().kind(), KeyKind::integer);
	grail_test::Oracle oracle(e);
	ReachabilityQuery q(old);
	const int64_t ids[] = {lo, -3, 1, 5, 7, 9, 12, 20, 30, hi};
	for (int64_t a : ids) {
		EXPECT_EQ(old.component_id(a), oracle.component(a)) << a;
		for (int64_t b : ids)
			EXPECT_EQ(q.reachable(a, b), oracle.reachable(a, b)) << a << "->" << b;
	}
	BuildOptions options;
	options.labels = 2;
	EXPECT_FALSE(old.graph().rows_known) << "format 2 did not count the rows of an edge";
	std::vector<uint8_t> rewritten = old.serialize(), built = Index::build(e, options).serialize();
	// The same sections, from the end of the section table (20 entries from byte 64, aligned to
	// 576) on, but the repeated edges, empty for the build (no edge has two rows here), one
	// "unknown" entry (a 64-byte aligned section) for the rewritten image; and the lookup labels,
	// which a format 2 image lacks: none in the rewritten image (and its header names no support).
	// The same sections, but the id hash header and table: the rewritten image keeps the table it
	// was given, placed by the unseeded hash of format 2, where a build seeds its own.
	size_t built_lookup = section_offset(built, 19), rewritten_lookup = section_offset(rewritten, 19);
	ASSERT_EQ(rewritten_lookup, built_lookup + 64);
	ASSERT_EQ(rewritten.size(), rewritten_lookup + 256) << "a lookup header, no lookup labels";
	EXPECT_TRUE(old.lookup().empty());
	size_t hash_header = section_offset(built, 12), key_header = section_offset(built, 14);
	EXPECT_TRUE(std::equal(rewritten.begin() + 576, rewritten.begin() + hash_header, built.begin() + 576))
	    << "rewritten in the current format, the same image";
	EXPECT_TRUE(std::equal(rewritten.begin() + key_header, rewritten.begin() + rewritten_lookup - 64,
	                       built.begin() + key_header))
	    << "rewritten in the current format, the same image";
	EXPECT_TRUE(std::all_of(rewritten.begin() + rewritten_lookup, rewritten.end(), [](uint8_t b) { return b == 0xff; }))
	    << "no supports";
	std::vector<uint8_t> v2(image.get(), image.get() + hex.size() / 2);
	EXPECT_TRUE(std::equal(rewritten.begin() + section_offset(rewritten, 13), rewritten.begin() + key_header,
	                       v2.begin() + section_offset(v2, 13)))
	    << "the format 2 hash table, as it was";
	Index again = Index::deserialize(rewritten.data(), rewritten.size());
	EXPECT_EQ(again.serialize(), rewritten);
	EXPECT_EQ(again.find(hi), old.find(hi));
}

// Integer ids t * 0x9e3779b97f4a7c15^-1 (mod 2^64) all had slot 0 under the unseeded Fibonacci
// hash of formats 2 to 4, so that a build or a load took quadratic time. Under the seeded hash a
// lookup walks a few slots whatever the ids.
TEST(Index, CraftedIdsDoNotCollide) {
	const uint64_t inverse = 0xf1de83e19937733dull; // of 0x9e3779b97f4a7c15, mod 2^64
	ASSERT_EQ(inverse * 0x9e3779b97f4a7c15ull, 1u);
	EdgeList e;
	const int64_t n = 40000;
	for (int64_t t = 0; t + 1 < n; t++)
		e.append(int64_t(uint64_t(t) * inverse), int64_t(uint64_t(t + 1) * inverse));
	Index index = Index::build(copy(e), BuildOptions{});
	ASSERT_EQ(index.graph().vertex_count(), size_t(n));
	EXPECT_LT(index.longest_probe(), 64u);
	for (int64_t t = 0; t < n; t += 997)
		EXPECT_GE(index.find(int64_t(uint64_t(t) * inverse)), 0);
	// Each build draws its own seed (a host gives a random one): the image keeps it, so that a
	// load finds the ids where the build put them.
	BuildOptions seeded;
	seeded.id_hash_seed = 0x0123456789abcdefull;
	Index a = Index::build(copy(e), seeded), b = Index::build(copy(e), BuildOptions{});
	EXPECT_NE(a.serialize(), b.serialize());
	std::vector<uint8_t> bytes = a.serialize();
	Index loaded = Index::deserialize(bytes.data(), bytes.size());
	EXPECT_EQ(loaded.serialize(), bytes);
	EXPECT_LT(loaded.longest_probe(), 64u);
	ReachabilityQuery q(loaded);
	EXPECT_TRUE(q.reachable(int64_t(3 * inverse), int64_t(30000 * inverse)));
	EXPECT_FALSE(q.reachable(int64_t(30000 * inverse), int64_t(3 * inverse)));
}

// Ids that span at most four numbers a vertex (serial keys with gaps, negative ones, at either end
// of int64) are found through a direct table, and sparser ones through the hash: every number
// around them finds its vertex or none, and reachability answers as over the same graph with its
// ids spread far apart.
TEST(Index, DenseIdsResolveThroughADirectTable) {
	const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
	struct Shape {
		int64_t first;
		uint64_t step;    // between consecutive ids; 0: the two ends of int64
		bool random_gaps; // gaps of 1..step instead
		size_t n;
		bool direct;
	};
	const Shape shapes[] = {
	    {0, 1, false, 2000, true},           // contiguous
	    {-1000, 3, true, 700, true},         // gaps, from negative to positive
	    {lo, 4, false, 500, true},           // from INT64_MIN, the sparsest a direct table takes: span 4n - 3
	    {hi - 3 * 699, 3, false, 700, true}, // up to INT64_MAX
	    {7, 5, false, 600, false},           // past it: span 5n - 4
	    {lo, 0, false, 2, false},            // INT64_MIN and INT64_MAX: a span of 2^64
	};
	for (const Shape &shape : shapes) {
		grail::Rng rng(uint64_t(shape.first) ^ shape.n);
		std::vector<int64_t> ids = {shape.first};
		while (ids.size() < shape.n)
			ids.push_back(shape.step == 0 ? hi
			                              : int64_t(uint64_t(ids.back()) +
			                                        (shape.random_gaps ? 1 + rng.below(shape.step) : shape.step)));
		EdgeList e, spread;
		auto far = [&](int64_t id) { return int64_t((uint64_t(id) - uint64_t(ids[0])) * 1000003); };
		for (size_t k = 0; k + 1 < ids.size(); k++) {
			size_t to = k + 1 + rng.below(std::min<uint64_t>(5, ids.size() - k - 1));
			e.append(ids[k], ids[to]);
			spread.append(far(ids[k]), far(ids[to]));
			if (k % 97 == 0 && k > 3) { // a few cycles
				e.append(ids[k], ids[k - 3]);
				spread.append(far(ids[k]), far(ids[k - 3]));
			}
		}
		Index index = Index::build(copy(e), BuildOptions{}), reference = Index::build(copy(spread), BuildOptions{});
		std::vector<uint8_t> image = index.serialize();
		ASSERT_EQ(id_table_kind(image), shape.direct ? 2u : 1u) << shape.first << " step " << shape.step;
		ASSERT_EQ(id_table_kind(reference.serialize()), 1u);
		Index loaded = Index::deserialize(image.data(), image.size());
		EXPECT_EQ(loaded.serialize(), image);
		std::vector<int64_t> probes = {lo, lo + 1, hi, hi - 1, -1, 0, 1};
		for (size_t k = 0; k < ids.size(); k++)
			for (int64_t d : {-1, 0, 1})
				probes.push_back(int64_t(uint64_t(ids[k]) + uint64_t(d)));
		for (int64_t id : probes) {
			auto at = std::lower_bound(ids.begin(), ids.end(), id);
			int64_t want = at != ids.end() && *at == id ? int64_t(at - ids.begin()) : -1;
			ASSERT_EQ(index.find(id), want) << id;
			ASSERT_EQ(loaded.find(id), want) << id;
		}
		ReachabilityQuery a(loaded), b(reference);
		for (size_t k = 0; k < 3000; k++) {
			int64_t s = ids[rng.below(ids.size())], t = ids[rng.below(ids.size())];
			ASSERT_EQ(a.reachable(s, t), b.reachable(far(s), far(t))) << s << "->" << t;
		}
		// The batch path prefetches through the same table.
		std::vector<int64_t> from, to;
		for (size_t k = 0; k < 500; k++) {
			from.push_back(probes[rng.below(probes.size())]);
			to.push_back(probes[rng.below(probes.size())]);
		}
		std::unique_ptr<bool[]> many(new bool[from.size()]);
		a.reachable_many(from.data(), to.data(), from.size(), many.get());
		for (size_t k = 0; k < from.size(); k++)
			ASSERT_EQ(many[k], a.reachable(from[k], to[k])) << from[k] << "->" << to[k];
	}
}

// A format 4 image (0.5.0, 0.6.0) placed its ids by the unseeded hash: it still attaches in place
// and finds them, and is rewritten with the table it had.
TEST(Index, Version4ImagesStillAttach) {
	Index built = small_index(true);
	std::vector<uint8_t> v4 = without_lookup(built.serialize(), 4);
	// The hash header of format 4: {shift u32, 0 u32}, in the same 64-byte section.
	uint32_t shift;
	size_t meta = section_offset(v4, 12), table = section_offset(v4, 13);
	std::memcpy(&shift, v4.data() + meta, 4);
	std::memset(v4.data() + meta, 0, 64);
	std::memcpy(v4.data() + meta, &shift, 4);
	uint64_t eight = 8;
	std::memcpy(v4.data() + 64 + 24 * 11 + 16, &eight, 8);
	// The table as format 4 placed it: {id i64, vertex u32, component u32} by the Fibonacci hash.
	size_t capacity = size_t(1) << (64 - shift);
	std::memset(v4.data() + table, 0, 16 * capacity);
	for (size_t k = 0; k < capacity; k++)
		std::memset(v4.data() + table + 16 * k + 8, 0xff, 4);
	for (size_t v = 0; v < built.graph().vertex_count(); v++) {
		int64_t id = built.graph().ids[v];
		size_t slot = size_t((uint64_t(id) * 0x9e3779b97f4a7c15ull) >> shift);
		uint32_t vertex;
		for (;; slot = (slot + 1) & (capacity - 1)) {
			std::memcpy(&vertex, v4.data() + table + 16 * slot + 8, 4);
			if (vertex == UINT32_MAX)
				break;
		}
		uint32_t component = built.components().of_vertex[v], vertex_id = uint32_t(v);
		std::memcpy(v4.data() + table + 16 * slot, &id, 8);
		std::memcpy(v4.data() + table + 16 * slot + 8, &vertex_id, 4);
		std::memcpy(v4.data() + table + 16 * slot + 12, &component, 4);
	}
	reseal(v4);
	Index old = Index::deserialize(v4.data(), v4.size());
	ReachabilityQuery a(built), b(old);
	for (int64_t s = -1; s <= 42; s++) {
		EXPECT_EQ(old.find(s), built.find(s)) << s;
		for (int64_t t = -1; t <= 42; t++)
			ASSERT_EQ(a.reachable(s, t), b.reachable(s, t)) << s << "->" << t;
	}
	std::vector<uint8_t> rewritten = old.serialize();
	Index again = Index::deserialize(rewritten.data(), rewritten.size());
	EXPECT_EQ(again.serialize(), rewritten);
	EXPECT_TRUE(std::equal(v4.begin() + table, v4.begin() + table + 16 * capacity,
	                       rewritten.begin() + section_offset(rewritten, 13)));
}

// A format 5 image (0.7.0 before the lookup labels) attaches and answers without them, as the
// build with them does; written again, it has none, and that image attaches in full too.
TEST(Index, Version5ImagesAnswerWithoutLookupLabels) {
	EdgeList e = generate_random_dag(3000, 3, 17);
	e.append(2999, 0); // a cycle, and self-loops and duplicates
	e.append(5, 5);
	e.append(1, 2);
	e.append(1, 2);
	e.append(kFarId, kFarId + 1);
	Index built = Index::build(copy(e), BuildOptions{});
	ASSERT_FALSE(built.lookup().empty());
	std::vector<uint8_t> v5 = without_lookup(built.serialize(), 5);
	Index old = Index::deserialize(v5.data(), v5.size());
	EXPECT_TRUE(old.lookup().empty());
	ReachabilityQuery a(built), b(old);
	size_t by_lookup = 0;
	for (int64_t s = 0; s < 3000; s += 7)
		for (int64_t t = 0; t < 3000; t += 11) {
			ASSERT_EQ(a.reachable(s, t), b.reachable(s, t)) << s << "->" << t;
			by_lookup += a.last_decision() == ReachabilityQuery::Decided::supports ||
			             a.last_decision() == ReachabilityQuery::Decided::back_level;
			EXPECT_NE(b.last_decision(), ReachabilityQuery::Decided::supports);
			EXPECT_NE(b.last_decision(), ReachabilityQuery::Decided::back_level);
		}
	EXPECT_GT(by_lookup, 0u);
	std::vector<uint8_t> rewritten = old.serialize();
	Index again = Index::deserialize(rewritten.data(), rewritten.size());
	EXPECT_TRUE(again.lookup().empty());
	EXPECT_EQ(again.serialize(), rewritten);
	// Format 6 with the lookup labels damaged (checksum resealed): refused by the full check.
	std::vector<uint8_t> bad = built.serialize();
	size_t records = section_offset(bad, 20);
	bad[records + 16] ^= 1; // back level of component 0
	reseal(bad);
	EXPECT_THROW(Index::deserialize(bad.data(), bad.size()), Error);
	bad = built.serialize();
	bad[records] ^= 0x80; // a support bit
	reseal(bad);
	EXPECT_THROW(Index::deserialize(bad.data(), bad.size()), Error);
}

TEST(Index, WrongVersionIsRejected) {
	std::vector<uint8_t> bytes = small_index().serialize();
	uint32_t version = Index::kFormatVersion + 1;
	std::memcpy(bytes.data() + 8, &version, 4);
	try {
		Index::deserialize(bytes.data(), bytes.size());
		FAIL() << "accepted";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::corrupt_index);
		EXPECT_NE(std::string(e.what()).find("version"), std::string::npos) << e.what();
	}
}

TEST(Index, ComponentIds) {
	EdgeList e;
	e.append(5, -3);
	e.append(-3, 5);
	e.append(5, 9);
	e.append(std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min());
	Index index = Index::build(e, BuildOptions{});
	EXPECT_EQ(index.component_id(5), -3);
	EXPECT_EQ(index.component_id(-3), -3);
	EXPECT_EQ(index.component_id(9), 9);
	EXPECT_EQ(index.component_id(42), 42);
	EXPECT_EQ(index.component_id(std::numeric_limits<int64_t>::max()), std::numeric_limits<int64_t>::max());
	EXPECT_EQ(index.find(std::numeric_limits<int64_t>::min()), 0);
	ReachabilityQuery q(index);
	EXPECT_TRUE(q.reachable(-3, 9));
	EXPECT_FALSE(q.reachable(9, 5));
	EXPECT_TRUE(q.reachable(std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()));
}

// 10^7 vertices on a path with ids in reverse topological order: SCC, labels and queries all
// run without recursion, and the far endpoint is found by the filters, not a long search.
TEST(Index, LongPath) {
	const int64_t n = 10'000'000;
	EdgeList e;
	e.reserve(size_t(n - 1));
	for (int64_t v = 0; v + 1 < n; v++)
		e.append(-v, -v - 1);
	BuildStats stats;
	Index index = Index::build(std::move(e), BuildOptions{}, &stats);
	EXPECT_EQ(stats.vertices, uint64_t(n));
	EXPECT_EQ(stats.components, uint64_t(n));
	EXPECT_EQ(stats.dag_edges, uint64_t(n - 1));
	ReachabilityQuery q(index);
	EXPECT_TRUE(q.reachable(0, -(n - 1)));
	EXPECT_FALSE(q.reachable(-(n - 1), 0));
	EXPECT_TRUE(q.reachable(-5, -(n - 7)));
	EXPECT_FALSE(q.reachable(-6, -5));
	EXPECT_EQ(index.component_id(-17), -17);
	BfsResult r = bfs(index.graph().out, vid_t(index.find(0)));
	ASSERT_EQ(r.vertex.size(), size_t(n));
	EXPECT_EQ(r.depth.back(), uint32_t(n - 1));
	EXPECT_EQ(index.graph().ids[r.vertex.back()], -(n - 1));
}

// One SCC: a big cycle with chords. Every pair is reachable, decided by the component test.
TEST(Index, GiantScc) {
	const int64_t n = 1'000'000;
	EdgeList e;
	for (int64_t v = 0; v < n; v++) {
		e.append(v * 2, ((v + 1) % n) * 2);
		if (v % 5 == 0)
			e.append(v * 2, ((v * 7919) % n) * 2);
	}
	Index index = Index::build(std::move(e), BuildOptions{});
	EXPECT_EQ(index.components().count(), 1u);
	EXPECT_EQ(index.component_id(2 * (n - 1)), 0);
	ReachabilityQuery q(index);
	EXPECT_TRUE(q.reachable(2 * (n - 1), 2));
	EXPECT_FALSE(q.reachable(2, 3));
	std::vector<uint8_t> bytes = index.serialize();
	Index loaded = Index::deserialize(bytes.data(), bytes.size());
	EXPECT_EQ(loaded.component_id(1234), 0);
}

// A star with 10^6 leaves: leaves reach nothing, the hub reaches every leaf.
TEST(Index, LargeStar) {
	const int64_t leaves = 1'000'000;
	EdgeList e;
	for (int64_t v = 1; v <= leaves; v++)
		e.append(0, v);
	Index index = Index::build(std::move(e), BuildOptions{});
	EXPECT_EQ(index.components().count(), size_t(leaves + 1));
	ReachabilityQuery q(index);
	for (int64_t v = 1; v <= leaves; v += 997) {
		EXPECT_TRUE(q.reachable(0, v));
		EXPECT_FALSE(q.reachable(v, 0));
		EXPECT_FALSE(q.reachable(v, v % leaves + 1));
	}
	BfsResult r = bfs(index.graph().out, vid_t(index.find(0)));
	EXPECT_EQ(r.vertex.size(), size_t(leaves + 1));
	EXPECT_EQ(r.depth.back(), 1u);
}

TEST(Index, CancelHookStopsWork) {
	set_cancel_hook([] { return true; });
	EdgeList e;
	for (int64_t v = 0; v < 300000; v++)
		e.append(v, v + 1);
	try {
		Index::build(std::move(e), BuildOptions{});
		ADD_FAILURE() << "not cancelled";
	} catch (const Error &err) {
		EXPECT_EQ(err.kind(), ErrorKind::cancelled);
		EXPECT_EQ(std::string(err.what()).rfind("canceling", 0), 0u);
	}
	set_cancel_hook(nullptr);
	poll_cancel();
}

// Damage behind a valid checksum (a bug, or a forged index) is caught by the structural checks.
TEST(Index, StructuralChecksBehindAValidChecksum) {
	Index index = small_index();
	std::vector<uint8_t> good = index.serialize();
	ASSERT_EQ(Index::checksum(good.data() + 64, good.size() - 64), [&] {
		uint64_t sum;
		std::memcpy(&sum, good.data() + 24, 8);
		return sum;
	}());
	struct Case {
		uint32_t tag;
		size_t element_size, element;
		uint64_t value;
		const char *message;
	};
	size_t n = index.graph().vertex_count(), c = index.components().count();
	ASSERT_GT(index.dag().edge_count(), 0u);
	const Case cases[] = {
	    {1, 8, 1, uint64_t(index.graph().ids[0]), "not strictly ascending"}, // ids
	    {2, 8, n, 0, "offsets"},
	    {2, 8, 1, 1u << 30, "offsets"},     // past the end, then back: must not be read // graph offsets
	    {3, 4, 0, n, "out of range"},       // graph targets
	    {4, 4, 0, c, "has component"},      // vertex components
	    {5, 4, 0, n - 1, "smallest"},       // smallest vertices
	    {7, 4, 0, 0, "DAG"},                // DAG targets
	    {8, 4, 0, 17, "label header"},      // label count
	    {9, 4, 0, c, "tree interval"},      // post0 of component 0
	    {9, 4, 2, 1000000, "inconsistent"}, // level of component 0
	    {10, 4, 0, 512, "Bloom header"},    // Bloom bits
	};
	auto expect_refused = [](const std::vector<uint8_t> &image, const Case &k) {
		std::vector<uint8_t> bad = image;
		std::memcpy(bad.data() + section_offset(bad, k.tag) + k.element * k.element_size, &k.value, k.element_size);
		reseal(bad);
		try {
			Index::deserialize(bad.data(), bad.size());
			ADD_FAILURE() << "section " << k.tag << " element " << k.element << " accepted";
		} catch (const Error &e) {
			EXPECT_EQ(e.kind(), ErrorKind::corrupt_index);
			EXPECT_NE(std::string(e.what()).find(k.message), std::string::npos) << k.tag << ": " << e.what();
		}
	};
	for (const Case &k : cases)
		expect_refused(good, k);
	// The direct id table: {shift u32, kind u32, first id u64}, then {vertex, component} a number.
	ASSERT_EQ(id_table_kind(good), 2u);
	uint64_t first = uint64_t(index.graph().ids[0]);
	uint32_t empty_slot = 0;
	while (index.find(int64_t(first + empty_slot)) >= 0)
		empty_slot++;
	ASSERT_LT(empty_slot, uint64_t(index.graph().ids[n - 1]) - first) << "the ids have no gap";
	const Case direct[] = {
	    {12, 4, 0, 40, "id hash header"},                  // a shift
	    {12, 4, 1, 3, "id hash header"},                   // an unknown kind
	    {12, 8, 1, first + 1, "direct id table"},          // the first id
	    {13, 4, 0, n, "direct id table"},                  // the vertex of the first id's slot
	    {13, 4, 1, c, "direct id table"},                  // its component
	    {13, 4, 2 * empty_slot, 0, "direct id table"},     // a vertex in the slot of an id that is none
	    {13, 4, 2 * empty_slot + 1, 1, "direct id table"}, // a component there
	};
	for (const Case &k : direct)
		expect_refused(good, k);
	// A direct table in an image that says it is of format 7, which had none: refused.
	std::vector<uint8_t> as_seven = good;
	uint32_t seven = 7;
	std::memcpy(as_seven.data() + 8, &seven, 4);
	reseal(as_seven);
	expect_corrupt(as_seven, "a direct id table in a format 7 image");
	// The hash table, where the ids are sparse.
	Index hashed = small_index(true);
	std::vector<uint8_t> hashed_image = hashed.serialize();
	ASSERT_EQ(id_table_kind(hashed_image), 1u);
	const Case hash[] = {
	    {12, 4, 0, 40, "id hash table"},                            // hash shift
	    {13, 4, 2, hashed.graph().vertex_count(), "id hash table"}, // vertex of hash slot 0 ({id, vertex, component})
	    {12, 4, 1, 2, "id hash header"},                            // the hash table read as a direct one
	};
	for (const Case &k : hash)
		expect_refused(hashed_image, k);
	// Bloom labels: an empty out() at the source of a DAG edge, or an empty in() at its target,
	// breaks the subset order along that edge (every filter holds at least its own bit).
	vid_t source = 0;
	while (index.dag().begin(source) == index.dag().end(source))
		source++;
	vid_t target = *index.dag().begin(source);
	for (size_t byte : {size_t(source) * 64, size_t(target) * 64 + 32}) {
		std::vector<uint8_t> bad = good;
		std::memset(bad.data() + section_offset(bad, 11) + byte, 0, 32);
		reseal(bad);
		try {
			Index::deserialize(bad.data(), bad.size());
			ADD_FAILURE() << "Bloom damage at byte " << byte << " accepted";
		} catch (const Error &e) {
			EXPECT_NE(std::string(e.what()).find("Bloom labels of DAG edge"), std::string::npos) << e.what();
		}
	}
}

// XXH64 over pieces is XXH64 of their concatenation, whatever the cuts (the image's checksum is
// summed over its sections where they lie); both against the reference values of xxHash.
TEST(Index, StreamedChecksumIsTheWholeOne) {
	EXPECT_EQ(XXH64("", 0, 0), 0xEF46DB3751D8E999ull);
	EXPECT_EQ(XXH64("abc", 3, 0), 0x44BC2CF5AD770999ull);
	std::vector<uint8_t> bytes(300);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (uint8_t &b : bytes) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		b = uint8_t(x);
	}
	for (size_t len : {0, 1, 3, 31, 32, 33, 63, 64, 65, 100, 300})
		for (size_t cut = 0; cut <= len; cut += 1 + cut / 4)
			for (size_t cut2 = cut; cut2 <= len; cut2 += 7) {
				XXH64_state_t sum;
				XXH64_reset(&sum, len * 31);
				XXH64_update(&sum, bytes.data(), cut);
				XXH64_update(&sum, bytes.data() + cut, cut2 - cut);
				XXH64_update(&sum, bytes.data() + cut2, len - cut2);
				EXPECT_EQ(XXH64_digest(&sum), XXH64(bytes.data(), len, len * 31))
				    << len << " cut at " << cut << ", " << cut2;
			}
}

namespace {

// FNV-1a: a fingerprint of bytes that does not go through the hash under test.
uint64_t
fnv1a(const uint8_t *p, size_t n) {
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

} // namespace

// Hashes and images are persisted (an image's checksum, where its ids and keys sit in its hash
// tables): the values below were made by pg_grail's own XXH64 before it moved to the xxHash
// library, and every hash and image must stay bit for bit what it was (but for the format version
// in the header, 8 since the direct id tables: these ids are too sparse for one, and text keys
// have none).
TEST(Index, HashesAndImagesAreTheOnesAlreadyStored) {
	std::vector<uint8_t> bytes(300);
	uint64_t x = 0x2545f4914f6cdd1dull;
	for (uint8_t &b : bytes) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		b = uint8_t(x);
	}
	// Every length up to 300 (the four lanes, and the 8-, 4- and 1-byte tails) with a few seeds,
	// and the id hash of extreme ids.
	uint64_t hashes = 0xcbf29ce484222325ull;
	for (uint64_t seed : {uint64_t(0), uint64_t(1), uint64_t(0x5eed), ~uint64_t(0)})
		for (size_t len = 0; len <= bytes.size(); len++)
			hashes = (hashes ^ XXH64(bytes.data(), len, seed)) * 0x100000001b3ull;
	for (int64_t id : {std::numeric_limits<int64_t>::min(), int64_t(-1), int64_t(0), int64_t(1),
	                   std::numeric_limits<int64_t>::max()})
		hashes = (hashes ^ XXH64(&id, sizeof id, 0x1d5eed)) * 0x100000001b3ull;
	EXPECT_EQ(hashes, 0x151ea02397f31bfaull);

	// Integer keys (extreme ids, a self-loop, a duplicate, a cycle) and text keys, with fixed seeds.
	auto expect_image = [](const Index &index, uint64_t size, uint64_t checksum, uint64_t fingerprint,
	                       const char *what) {
		std::vector<uint8_t> image = index.serialize();
		uint64_t stored_checksum;
		std::memcpy(&stored_checksum, image.data() + 24, 8);
		EXPECT_EQ(image.size(), size) << what;
		EXPECT_EQ(stored_checksum, checksum) << what;
		EXPECT_EQ(fnv1a(image.data(), image.size()), fingerprint) << what;
		Index loaded = Index::deserialize(image.data(), image.size());
		EXPECT_EQ(loaded.serialize(), image) << what;
	};
	EdgeList edges;
	int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
	uint64_t y = 0x9e3779b97f4a7c15ull;
	for (int k = 0; k < 400; k++) {
		y = y * 6364136223846793005ull + 1442695040888963407ull;
		edges.append(int64_t(y >> 40) % 97, int64_t(y >> 20) % 97);
	}
	edges.append(lo, hi);
	edges.append(hi, lo);
	edges.append(hi, 5);
	edges.append(7, 7);
	edges.append(7, 8);
	edges.append(7, 8);
	BuildOptions options;
	options.labels = 3;
	options.id_hash_seed = 0x1d5eed;
	expect_image(Index::build(copy(edges), options), 10880, 0x32dbd1a6076fb22cull, 0x4c80ac5ea35d8f84ull,
	             "integer keys");

	KeyDictionaryBuilder builder(KeyKind::text, 0x5eed);
	EdgeList ids;
	for (int k = 0; k < 300; k++) {
		std::string a = "vertex " + std::to_string(k * 7 % 101), b = "vertex " + std::to_string(k * 13 % 97);
		ids.append(builder.add(a.data(), a.size()), builder.add(b.data(), b.size()));
	}
	KeyDictionary keys = builder.finish(ids);
	expect_image(Index::build(std::move(ids), options, nullptr, std::move(keys)), 11200, 0x638ac5af6259e315ull,
	             0x05f6868a778d2a6eull, "text keys");
}

// A build's memory estimate counts its index's arrays at least as large as its image, in the
// shapes that make the image largest: a component a vertex, the id hash table at four slots a
// vertex (just past a power of two), the most labels, edges that several rows held; and the image
// twice where it is made whole.
TEST(Index, BuildEstimateCoversTheImage) {
	for (unsigned labels : {1u, 5u, kMaxLabels})
		for (size_t n : {size_t(1025), size_t(4097)}) {
			EdgeList edges;
			uint64_t x = n * 31 + labels;
			for (size_t k = 0; k < 3 * n; k++) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				int64_t a = int64_t((x >> 33) % n), b = int64_t((x >> 13) % n);
				if (a != b)
					edges.append(std::min(a, b), std::max(a, b)); // a DAG: every vertex its own component
			}
			for (size_t v = 0; v + 1 < n; v++) {
				edges.append(int64_t(v), int64_t(v + 1)); // every vertex an id
				if (v % 2 == 0)
					edges.append(int64_t(v), int64_t(v + 1)); // edges that several rows held
			}
			BuildOptions options;
			options.labels = labels;
			BuildStats stats;
			Index index = Index::build(copy(edges), options, &stats);
			ASSERT_EQ(stats.components, n);
			uint64_t image = index.image_pieces().size();
			uint64_t streamed =
			    estimate_build_bytes(stats.input_edges, stats.vertices, stats.edges, 0, 0, false, false, labels);
			uint64_t whole =
			    estimate_build_bytes(stats.input_edges, stats.vertices, stats.edges, 0, 0, false, true, labels);
			EXPECT_GE(streamed, 2 * image) << labels << " labels, " << n << " vertices"; // its stretches: all of it
			EXPECT_GE(whole, 2 * image) << labels << " labels, " << n << " vertices";
			EXPECT_LE(streamed, 3 * image)
			    << labels << " labels, " << n << " vertices: no longer conservative, wasteful";
		}
}

// What a writer copies of an image in pieces, any stretch of it (across sections and the zeros
// between them), is the image's bytes there, also after the pieces moved; and of the whole image
// as one piece (a merge's), found where it lies.
TEST(Index, ImagePiecesCopyTheImage) {
	auto check = [](const Index &index, const char *what) {
		std::vector<uint8_t> whole = index.serialize();
		ImagePieces made = index.image_pieces();
		ImagePieces pieces = std::move(made);
		ImagePieces one = ImagePieces::of(whole.data(), whole.size());
		ASSERT_EQ(one.size(), whole.size()) << what;
		ASSERT_EQ(pieces.size(), whole.size()) << what;
		// A section's bytes are found where the index holds them.
		uint64_t ids_at = 0; // the first entry of the section table: the ids' offset
		std::memcpy(&ids_at, whole.data() + 64 + 8, 8);
		if (!index.graph().ids.empty()) {
			EXPECT_EQ(pieces.find(ids_at, 8), reinterpret_cast<const uint8_t *>(index.graph().ids.data())) << what;
		}
		std::vector<uint8_t> copied(whole.size(), 0xAB);
		pieces.copy(0, whole.size(), copied.data());
		EXPECT_EQ(copied, whole) << what;
		uint64_t x = whole.size();
		for (int k = 0; k < 500; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			size_t offset = size_t(x >> 33) % (whole.size() + 1);
			size_t n = size_t(x >> 13) % (std::min<size_t>(whole.size() - offset, 4096) + 1);
			std::vector<uint8_t> part(n + 2, 0xCD);
			pieces.copy(offset, n, part.data() + 1);
			EXPECT_EQ(part.front(), 0xCD) << what;
			EXPECT_EQ(part.back(), 0xCD) << what << ": wrote past " << n << " bytes at " << offset;
			EXPECT_TRUE(std::equal(part.begin() + 1, part.end() - 1, whole.begin() + long(offset)))
			    << what << ": " << n << " bytes at " << offset;
			if (const uint8_t *found = pieces.find(offset, n)) {
				EXPECT_TRUE(std::equal(found, found + n, whole.begin() + long(offset)))
				    << what << ": " << n << " bytes found at " << offset;
			}
			if (n > 0) {
				EXPECT_EQ(one.find(offset, n), whole.data() + offset) << what << ": " << n << " bytes at " << offset;
			}
			std::fill(part.begin(), part.end(), 0xCD);
			one.copy(offset, n, part.data() + 1);
			EXPECT_EQ(part.front(), 0xCD) << what;
			EXPECT_EQ(part.back(), 0xCD) << what << ": one piece wrote past " << n << " bytes at " << offset;
			EXPECT_TRUE(std::equal(part.begin() + 1, part.end() - 1, whole.begin() + long(offset)))
			    << what << ": one piece, " << n << " bytes at " << offset;
		}
		Index loaded = Index::deserialize(whole.data(), whole.size());
		EXPECT_EQ(loaded.serialize(), whole) << what;
	};
	check(Index::build(EdgeList{}, BuildOptions{}), "empty graph");
	check(small_index(), "small graph");
	for (uint64_t seed = 0; seed < 20; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, 200);
		BuildOptions options;
		options.labels = 1 + unsigned(seed % 5);
		check(Index::build(copy(t.edges), options), "random graph");
	}
	// Text keys: the dictionary's sections too.
	check(text_keyed_index(300, 101, 97), "text keys");
}

// array_bytes() counts every array the image holds: the image is only its header, section table,
// section headers and padding more.
TEST(Index, ArrayBytesAreTheImagesArrays) {
	auto check = [](const Index &index, const std::string &what) {
		size_t image = index.serialize().size();
		EXPECT_LE(index.array_bytes(), image) << what;
		EXPECT_LE(image - index.array_bytes(), size_t(4096)) << what << ": " << image << " bytes of image";
	};
	check(Index::build(EdgeList{}, BuildOptions{}), "empty graph");
	check(Index::build(generate_random_dag(20000, 3.0, 5), BuildOptions{}), "random DAG");
	check(Index::build(generate_rmat(14, 4, 9), BuildOptions{}), "R-MAT with cycles and repeated edges");
	check(text_keyed_index(20000, 10007, 9973), "text keys");
}
