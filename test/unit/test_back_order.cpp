// The backward DFS order of the lookup records (grail_labels.hpp, LookupRecord): the order is the
// depth-first search it says it is (against a recursive reference), each of its tests agrees with
// the brute-force closure on many random graphs, the queries that read it answer as the closure,
// and images: formats 7 and 8 keep it and the full check refuses a damaged one; a format 6 image (no
// order) still attaches, answers the same without it and gets it when written again.
#include "generate.hpp"
#include "grail_labels.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

using namespace grail;

namespace {

EdgeList
copy(const EdgeList &e) {
	return e;
}

// A deep DAG of permuted ids: vertex i to `degree` random vertices of i+1 .. i+window, with a
// few short cycles, self-loops and duplicate edges when noise.
EdgeList
deep_dag(uint64_t seed, size_t n, size_t window, unsigned degree, bool noise) {
	Rng rng(seed);
	std::vector<int64_t> perm(n);
	for (size_t i = 0; i < n; i++)
		perm[i] = seed % 2 ? int64_t(i) * 104729 - 5000000 : int64_t(i);
	for (size_t i = n; i > 1; i--)
		std::swap(perm[i - 1], perm[rng.below(i)]);
	EdgeList edges;
	for (size_t i = 0; i + 1 < n; i++)
		for (unsigned k = 0; k < degree; k++)
			edges.append(perm[i], perm[std::min(n - 1, i + 1 + rng.below(window))]);
	if (noise)
		for (size_t k = 0; k < n / 25; k++) {
			size_t i = rng.below(n);
			edges.append(perm[i], perm[i > 2 ? i - 1 - rng.below(2) : 0]);
			edges.append(perm[i], perm[i]);
			edges.append(perm[i], perm[std::min(n - 1, i + 1)]);
		}
	return edges;
}

grail_test::TestGraph
graph_of(uint64_t seed) {
	grail_test::TestGraph t;
	switch (seed % 4) {
	case 0:
		t.edges = deep_dag(seed, 80 + seed % 150, 2 + seed % 9, 1 + unsigned(seed % 3), seed % 8 == 0);
		t.shape = "deep DAG";
		break;
	case 1: // a chain: every pair in order reaches
		for (int64_t i = 0; i + 1 < int64_t(60 + seed % 40); i++)
			t.edges.append(i * 3 - 90, i * 3 - 87);
		t.shape = "chain";
		break;
	default:
		return grail_test::random_graph(seed, seed % 3 == 0 ? 150 : 50);
	}
	grail_test::Oracle all(t.edges);
	t.query_ids = all.vertices();
	t.query_ids.push_back(std::numeric_limits<int64_t>::min());
	t.query_ids.push_back(std::numeric_limits<int64_t>::max());
	return t;
}

// The order as its definition says, recursively: a DFS over the predecessors, sinks in ascending
// order as roots, predecessors in ascending order; post ranks, the first rank of each subtree and
// the smallest post rank among each vertex's ancestors.
void
reference_order(const Csr &dag, std::vector<uint32_t> &post, std::vector<uint32_t> &first, std::vector<uint32_t> &lo) {
	size_t n = dag.vertex_count();
	std::vector<std::vector<vid_t>> preds(n);
	for (vid_t u = 0; u < n; u++)
		for (const vid_t *v = dag.begin(u); v != dag.end(u); v++)
			preds[*v].push_back(u); // u ascending: each list ascends
	post.assign(n, UINT32_MAX);
	first.assign(n, 0);
	lo.assign(n, UINT32_MAX);
	std::vector<bool> seen(n, false);
	uint32_t rank = 0;
	std::function<void(vid_t)> visit = [&](vid_t v) {
		seen[v] = true;
		first[v] = rank;
		uint32_t smallest = UINT32_MAX;
		for (vid_t p : preds[v]) {
			if (!seen[p])
				visit(p);
			smallest = std::min(smallest, lo[p]);
		}
		post[v] = rank++;
		lo[v] = std::min(smallest, post[v]);
	};
	for (vid_t v = 0; v < n; v++)
		if (dag.begin(v) == dag.end(v) && !seen[v])
			visit(v);
}

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

constexpr uint32_t kLookupTag = 20, kSections = 20;

// A format 7 or 8 image laid out as format 6 was: the lookup records (the last section) cut to their
// first 24 bytes, reserved ones 0, the table, payload and version to match.
std::vector<uint8_t>
as_version_6(const std::vector<uint8_t> &bytes) {
	size_t at = section_offset(bytes, kLookupTag);
	uint64_t len;
	std::memcpy(&len, bytes.data() + 64 + 24 * (kLookupTag - 1) + 16, 8);
	EXPECT_EQ(len % 32, 0u);
	std::vector<uint8_t> out(bytes.begin(), bytes.begin() + at);
	for (uint64_t r = 0; r < len / 32; r++) {
		out.insert(out.end(), bytes.begin() + at + 32 * r, bytes.begin() + at + 32 * r + 20);
		out.insert(out.end(), 4, 0);
	}
	out.resize((out.size() + 63) / 64 * 64, 0);
	uint64_t v6_len = len / 32 * 24, payload = out.size() - 64;
	uint32_t version = 6;
	std::memcpy(out.data() + 64 + 24 * (kLookupTag - 1) + 16, &v6_len, 8);
	std::memcpy(out.data() + 8, &version, 4);
	std::memcpy(out.data() + 16, &payload, 8);
	reseal(out);
	return out;
}

} // namespace

// The order of every build is the recursive reference's, field for field; its tests agree with
// the closure on every pair of components; queries (which read it before the GRAIL records) agree
// with the closure on every pair of ids, unknown and extreme ones included.
TEST(BackOrder, IsTheReversedDfsAndSound) {
	size_t proved = 0, ruled_out = 0, decided_by_it = 0;
	for (uint64_t seed = 0; seed < 240; seed++) {
		grail_test::TestGraph t = graph_of(seed);
		std::string what = "seed " + std::to_string(seed) + " (" + t.shape + ")";
		BuildOptions options;
		options.seed = seed;
		options.supports = unsigned(seed % 3 == 0 ? 0 : seed % 3 == 1 ? 2 : kMaxSupports);
		options.labels = 1 + unsigned(seed % 3);
		Index index = Index::build(copy(t.edges), options);
		const Csr &dag = index.dag();
		const LookupLabels &lookup = index.lookup();
		ASSERT_TRUE(lookup.has_order()) << what;
		ASSERT_EQ(lookup.records().size(), dag.vertex_count()) << what;
		std::vector<uint32_t> post, first, lo;
		reference_order(dag, post, first, lo);
		for (vid_t c = 0; c < dag.vertex_count(); c++) {
			const LookupRecord &r = lookup.record(c);
			ASSERT_EQ(r.back_post, post[c]) << what << " component " << c;
			ASSERT_EQ(r.back_first, first[c]) << what << " component " << c;
			ASSERT_EQ(r.back_lo, lo[c]) << what << " component " << c;
			ASSERT_LE(r.back_lo, r.back_first) << what;
			ASSERT_LE(r.back_first, r.back_post) << what;
		}

		grail_test::Oracle oracle(t.edges);
		const Components &comp = index.components();
		const auto &ids = index.graph().ids;
		std::vector<int64_t> id_of_component(dag.vertex_count());
		for (size_t v = 0; v < ids.size(); v++)
			id_of_component[comp.of_vertex[v]] = ids[v];
		for (vid_t a = 0; a < dag.vertex_count(); a++)
			for (vid_t b = 0; b < dag.vertex_count(); b++) {
				if (a == b)
					continue;
				bool reaches = oracle.reachable(id_of_component[a], id_of_component[b]);
				const LookupRecord &la = lookup.record(a), &lb = lookup.record(b);
				if (LookupLabels::order_proves(la, lb)) {
					proved++;
					ASSERT_TRUE(reaches) << what << ": components " << a << " -> " << b;
				}
				if (LookupLabels::order_rules_out(la, lb)) {
					ruled_out++;
					ASSERT_FALSE(reaches) << what << ": components " << a << " -> " << b;
				}
			}
		ReachabilityQuery q(index);
		for (int64_t a : t.query_ids)
			for (int64_t b : t.query_ids) {
				ASSERT_EQ(q.reachable(a, b), oracle.reachable(a, b)) << what << " " << a << " -> " << b;
				decided_by_it += q.last_decision() == ReachabilityQuery::Decided::back_order;
			}
		// The array form decides in the same order.
		std::vector<int64_t> from, to;
		for (int64_t a : t.query_ids)
			for (int64_t b : t.query_ids) {
				from.push_back(a);
				to.push_back(b);
			}
		std::unique_ptr<bool[]> answers(new bool[from.size()]);
		q.reachable_many(from.data(), to.data(), from.size(), answers.get());
		for (size_t k = 0; k < from.size(); k++)
			ASSERT_EQ(answers[k], oracle.reachable(from[k], to[k])) << what << " " << from[k] << " -> " << to[k];
	}
	EXPECT_GT(proved, 20000u);
	EXPECT_GT(ruled_out, 20000u);
	EXPECT_GT(decided_by_it, 1000u);
}

// The empty graph and a graph of one component: no records, or one, and nothing to decide.
TEST(BackOrder, EmptyAndSingleComponent) {
	Index empty = Index::build(EdgeList{}, BuildOptions{});
	EXPECT_TRUE(empty.lookup().records().empty());
	std::vector<uint8_t> bytes = empty.serialize();
	Index back = Index::deserialize(bytes.data(), bytes.size());
	EXPECT_TRUE(ReachabilityQuery(back).reachable(5, 5));
	EXPECT_FALSE(ReachabilityQuery(back).reachable(5, 6));
	EdgeList cycle;
	cycle.append(1, 2);
	cycle.append(2, 1);
	cycle.append(2, 2);
	Index one = Index::build(copy(cycle), BuildOptions{});
	ASSERT_EQ(one.lookup().records().size(), 1u);
	EXPECT_EQ(one.lookup().record(0).back_post, 0u);
	EXPECT_EQ(one.lookup().record(0).back_lo, 0u);
	ReachabilityQuery q(one);
	EXPECT_TRUE(q.reachable(1, 2));
	EXPECT_TRUE(q.reachable(2, 1));
	EXPECT_FALSE(q.reachable(1, 3));
}

// Where the supports leave the pairs of a deep DAG, the order decides some of them before the
// GRAIL records are read, and fewer pairs are searched than without it (a build whose records
// carry no order: a format 6 image's).
TEST(BackOrder, DecidesPairsTheOthersLeave) {
	EdgeList e = deep_dag(7, 20000, 40, 2, false);
	BuildOptions options;
	options.supports = 4;
	Index index = Index::build(copy(e), options);
	std::vector<uint8_t> v6 = as_version_6(index.serialize());
	Index old = Index::deserialize(v6.data(), v6.size());
	ASSERT_FALSE(old.lookup().has_order());
	const auto &ids = index.graph().ids;
	const Csr &g = index.graph().out;
	Rng rng(3);
	std::vector<int64_t> a, b;
	for (int k = 0; k < 20000; k++) {
		a.push_back(ids[rng.below(ids.size())]);
		b.push_back(ids[rng.below(ids.size())]);
		vid_t v = vid_t(rng.below(ids.size()));
		a.push_back(ids[v]);
		for (uint64_t s = 1 + rng.below(16); s > 0 && g.begin(v) != g.end(v); s--)
			v = g.begin(v)[rng.below(uint64_t(g.end(v) - g.begin(v)))];
		b.push_back(ids[v]);
	}
	ReachabilityQuery with(index), without(old);
	std::unique_ptr<bool[]> x(new bool[a.size()]), y(new bool[a.size()]);
	size_t searched_with = with.reachable_many(a.data(), b.data(), a.size(), x.get());
	size_t searched_without = without.reachable_many(a.data(), b.data(), a.size(), y.get());
	size_t by_order = 0;
	for (size_t k = 0; k < a.size(); k++) {
		ASSERT_EQ(x[k], y[k]) << a[k] << " -> " << b[k];
		with.reachable(a[k], b[k]);
		by_order += with.last_decision() == ReachabilityQuery::Decided::back_order;
	}
	EXPECT_GT(by_order, 100u);
	EXPECT_LT(searched_with, searched_without);
}

// Formats 7 and 8 keep the order; the full check recomputes it and refuses an image whose order fields
// were changed (checksum resealed), each of the three.
TEST(BackOrder, ImagesKeepItAndRefuseADamagedOne) {
	EdgeList e = deep_dag(11, 3000, 6, 2, true);
	Index built = Index::build(copy(e), BuildOptions{});
	std::vector<uint8_t> bytes = built.serialize();
	uint32_t version;
	std::memcpy(&version, bytes.data() + 8, 4);
	EXPECT_EQ(version, Index::kFormatVersion);
	Index back = Index::deserialize(bytes.data(), bytes.size());
	ASSERT_TRUE(back.lookup().has_order());
	EXPECT_EQ(std::memcmp(back.lookup().records().data(), built.lookup().records().data(),
	                      built.lookup().records().size() * sizeof(LookupRecord)),
	          0);
	EXPECT_EQ(back.serialize(), bytes);
	size_t records = section_offset(bytes, kLookupTag);
	for (size_t field : {20, 24, 28}) { // back_post, back_first, back_lo of component 5
		std::vector<uint8_t> bad = bytes;
		bad[records + 32 * 5 + field] ^= 1;
		reseal(bad);
		try {
			Index::deserialize(bad.data(), bad.size());
			ADD_FAILURE() << "a damaged order field " << field << " was accepted";
		} catch (const Error &error) {
			EXPECT_EQ(error.kind(), ErrorKind::corrupt_index);
			EXPECT_NE(std::string(error.what()).find("backward order"), std::string::npos) << error.what();
		}
	}
}

// A format 6 image attaches (by copying its 24-byte records), answers every pair as the current
// build does, decides nothing by the order, and written again is the current build's image byte
// for byte; one with a nonzero reserved field, or damaged supports, is refused.
TEST(BackOrder, Version6ImagesAnswerWithoutIt) {
	for (uint64_t seed : {3u, 8u, 13u}) {
		grail_test::TestGraph t = graph_of(seed);
		// Ids too sparse for a direct table (format 8), which a format 6 image cannot hold.
		t.edges.append(int64_t(1) << 40, (int64_t(1) << 40) + 1);
		Index built = Index::build(copy(t.edges), BuildOptions{});
		std::vector<uint8_t> current = built.serialize(), v6 = as_version_6(current);
		Index old = Index::deserialize(v6.data(), v6.size());
		EXPECT_FALSE(old.lookup().has_order());
		EXPECT_EQ(old.lookup().supports().size(), built.lookup().supports().size());
		grail_test::Oracle oracle(t.edges);
		ReachabilityQuery a(built), b(old);
		for (int64_t s : t.query_ids)
			for (int64_t d : t.query_ids) {
				ASSERT_EQ(b.reachable(s, d), oracle.reachable(s, d)) << seed << ": " << s << " -> " << d;
				EXPECT_NE(b.last_decision(), ReachabilityQuery::Decided::back_order);
				ASSERT_EQ(a.reachable(s, d), oracle.reachable(s, d));
			}
		EXPECT_EQ(old.serialize(), current) << "written again, a format 6 image gets the order";
		// Stored in pieces, the ordered records go with them (here after a move).
		ImagePieces made = old.image_pieces();
		ImagePieces pieces = std::move(made);
		std::vector<uint8_t> copied(pieces.size());
		pieces.copy(0, copied.size(), copied.data());
		EXPECT_EQ(copied, current);
		// Attached with the header check only (an image checked before): the same.
		std::shared_ptr<uint8_t> image = Index::image_buffer(v6.size());
		std::memcpy(image.get(), v6.data(), v6.size());
		Index light = Index::attach(image, v6.size(), Index::Check::checksum);
		EXPECT_FALSE(light.lookup().has_order());
		std::vector<uint8_t> bad = v6;
		size_t records = section_offset(bad, kLookupTag);
		if (!built.lookup().records().empty()) {
			bad[records + 20] = 1; // the reserved field of component 0
			reseal(bad);
			EXPECT_THROW(Index::deserialize(bad.data(), bad.size()), Error);
			bad = v6;
			bad[records + 16] ^= 1; // its back level
			reseal(bad);
			EXPECT_THROW(Index::deserialize(bad.data(), bad.size()), Error);
		}
	}
	static_assert(kSections == 20, "the lookup records are the last section");
}
