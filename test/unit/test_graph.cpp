#include "error.hpp"
#include "generate.hpp"
#include "graph.hpp"
#include "huge_pages.hpp"
#include "oracle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

using namespace grail;

namespace {

std::vector<vid_t>
neighbours(const Csr &csr, vid_t v) {
	return std::vector<vid_t>(csr.begin(v), csr.end(v));
}

} // namespace

TEST(EdgeList, AppendKeepsPairsAligned) {
	EdgeList e;
	EXPECT_EQ(e.size(), 0u);
	EXPECT_TRUE(e.append(1, 2));
	EXPECT_TRUE(e.append(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
	ASSERT_EQ(e.size(), 2u);
	EXPECT_EQ(e.source[1], std::numeric_limits<int64_t>::min());
	EXPECT_EQ(e.target[1], std::numeric_limits<int64_t>::max());
}

TEST(Csr, FromPairsSortsDeduplicatesAndDropsSelfLoops) {
	std::vector<vid_t> s{2, 0, 0, 0, 2, 1, 0}, t{1, 3, 1, 3, 2, 1, 0};
	Csr kept = Csr::from_pairs(4, s, t, false);
	ASSERT_EQ(kept.vertex_count(), 4u);
	EXPECT_EQ(neighbours(kept, 0), (std::vector<vid_t>{0, 1, 3}));
	EXPECT_EQ(neighbours(kept, 1), (std::vector<vid_t>{1}));
	EXPECT_EQ(neighbours(kept, 2), (std::vector<vid_t>{1, 2}));
	EXPECT_TRUE(neighbours(kept, 3).empty());
	EXPECT_EQ(kept.edge_count(), 6u);

	Csr dropped = Csr::from_pairs(4, s, t, true);
	EXPECT_EQ(neighbours(dropped, 0), (std::vector<vid_t>{1, 3}));
	EXPECT_TRUE(neighbours(dropped, 1).empty());
	EXPECT_EQ(neighbours(dropped, 2), (std::vector<vid_t>{1}));
	EXPECT_EQ(dropped.edge_count(), 3u);
	EXPECT_EQ(dropped.offsets.back(), 3u);
}

TEST(Csr, FromPairsLongListsMatchSet) {
	Rng rng(7);
	size_t n = 50;
	std::vector<vid_t> s, t;
	std::set<std::pair<vid_t, vid_t>> expected;
	for (int e = 0; e < 5000; e++) {
		vid_t a = vid_t(rng.below(n)), b = vid_t(rng.below(n));
		s.push_back(a);
		t.push_back(b);
		if (a != b)
			expected.insert({a, b});
	}
	Csr csr = Csr::from_pairs(n, s, t, true);
	std::set<std::pair<vid_t, vid_t>> got;
	for (vid_t v = 0; v < n; v++) {
		auto list = neighbours(csr, v);
		EXPECT_TRUE(std::is_sorted(list.begin(), list.end()));
		for (vid_t w : list)
			got.insert({v, w});
	}
	EXPECT_EQ(got, expected);
	EXPECT_EQ(csr.edge_count(), expected.size());
}

TEST(Csr, Reversed) {
	Csr csr = Csr::from_pairs(4, {0, 0, 1, 3, 2}, {1, 2, 2, 0, 1}, true);
	Csr r = csr.reversed();
	ASSERT_EQ(r.vertex_count(), 4u);
	EXPECT_EQ(neighbours(r, 0), (std::vector<vid_t>{3}));
	EXPECT_EQ(neighbours(r, 1), (std::vector<vid_t>{0, 2}));
	EXPECT_EQ(neighbours(r, 2), (std::vector<vid_t>{0, 1}));
	EXPECT_TRUE(neighbours(r, 3).empty());
	EXPECT_EQ(Csr{}.reversed().vertex_count(), 0u);
}

// A reverse past 2 MB lies in memory of its own (huge_page_array), which must hold the same lists
// and be given back with the last copy of the CSR.
TEST(Csr, LargeReversedEqualsSmallOnesAndIsFreed) {
	const Graph g = Graph::from_edges(generate_random_dag(1 << 20, 3.0, 7));
	const Csr &csr = g.out;
	const size_t n = csr.vertex_count();
	ASSERT_GT(csr.edge_count() * sizeof(vid_t), kHugePage);
	const size_t mapped_before = huge_page_bytes_mapped.load();
	{
		const Csr r = csr.reversed();
		EXPECT_GE(huge_page_bytes_mapped.load(), mapped_before + csr.edge_count() * sizeof(vid_t));
		ASSERT_EQ(r.vertex_count(), n);
		ASSERT_EQ(r.edge_count(), csr.edge_count());
		// Every edge once, each list ascending: the reverse of the reverse is the graph.
		const Csr rr = r.reversed();
		for (vid_t v = 0; v < n; v++) {
			ASSERT_TRUE(std::is_sorted(r.begin(v), r.end(v)));
			ASSERT_EQ(neighbours(rr, v), neighbours(csr, v)) << v;
		}
	}
	EXPECT_EQ(huge_page_bytes_mapped.load(), mapped_before);
}

TEST(Csr, HugePageArrayIsZeroedAndWrittenThroughItsPointer) {
	for (size_t count : {size_t(0), size_t(1000), (kHugePage / sizeof(uint32_t)) * 3 + 5}) {
		HugePageArray<uint32_t> a = huge_page_array<uint32_t>(count);
		const Array<uint32_t> &read = a.array;
		ASSERT_EQ(read.size(), count);
		for (size_t i = 0; i < count; i++)
			ASSERT_EQ(read[i], 0u) << i;
		for (size_t i = 0; i < count; i++)
			a.data[i] = uint32_t(i * 2654435761u);
		for (size_t i = 0; i < count; i++)
			ASSERT_EQ(read[i], uint32_t(i * 2654435761u)) << i;
	}
}

TEST(Graph, EmptyEdgeList) {
	Graph g = Graph::from_edges(EdgeList{});
	EXPECT_EQ(g.vertex_count(), 0u);
	EXPECT_EQ(g.out.vertex_count(), 0u);
	EXPECT_EQ(g.find(0), -1);
}

TEST(Graph, ExtremeIdsAndSelfLoops) {
	const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
	EdgeList e;
	e.append(hi, lo);
	e.append(lo, -1);
	e.append(-1, hi);
	e.append(5, 5);
	e.append(hi, lo);
	Graph g = Graph::from_edges(e);
	EXPECT_EQ(g.ids, (std::vector<int64_t>{lo, -1, 5, hi}));
	EXPECT_EQ(g.find(lo), 0);
	EXPECT_EQ(g.find(hi), 3);
	EXPECT_EQ(g.find(5), 2);
	EXPECT_EQ(g.find(0), -1);
	EXPECT_EQ(g.find(lo + 1), -1);
	EXPECT_EQ(neighbours(g.out, 0), (std::vector<vid_t>{1}));
	EXPECT_EQ(neighbours(g.out, 1), (std::vector<vid_t>{3}));
	EXPECT_TRUE(neighbours(g.out, 2).empty()); // the self-loop is dropped, the vertex stays
	EXPECT_EQ(neighbours(g.out, 3), (std::vector<vid_t>{0}));
}

// Both radix paths (packed id+position words, and wide id ranges) against std::sort.
TEST(Graph, FromEdgesMatchesSortReference) {
	for (int style = 0; style < 3; style++) {
		Rng rng(100 + style);
		EdgeList e;
		for (int k = 0; k < 20000; k++) {
			int64_t a, b;
			if (style == 0) { // small dense ids
				a = int64_t(rng.below(3000));
				b = int64_t(rng.below(3000));
			} else if (style == 1) { // full 64-bit range: the (key, position) pair path
				a = int64_t(rng.next());
				b = k % 3 == 0 ? a : int64_t(rng.next());
			} else { // negative, clustered
				a = -int64_t(rng.below(1u << 20)) * 977;
				b = int64_t(rng.below(1u << 20)) - (1 << 19);
			}
			e.append(a, b);
		}
		Graph g = Graph::from_edges(e);
		std::vector<int64_t> ids = e.source;
		ids.insert(ids.end(), e.target.begin(), e.target.end());
		std::sort(ids.begin(), ids.end());
		ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
		ASSERT_EQ(g.ids, ids) << "style " << style;
		std::set<std::pair<int64_t, int64_t>> expected, got;
		for (size_t k = 0; k < e.size(); k++)
			if (e.source[k] != e.target[k])
				expected.insert({e.source[k], e.target[k]});
		for (vid_t v = 0; v < g.vertex_count(); v++)
			for (const vid_t *w = g.out.begin(v); w != g.out.end(v); w++)
				got.insert({g.ids[v], g.ids[*w]});
		EXPECT_EQ(got, expected) << "style " << style;
		for (size_t k = 0; k < 1000; k++) {
			int64_t id = ids[rng.below(ids.size())];
			EXPECT_EQ(g.ids[size_t(g.find(id))], id);
		}
	}
}

TEST(Graph, RandomGraphsMatchOracleVertices) {
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed);
		grail_test::Oracle oracle(t.edges);
		Graph g = Graph::from_edges(t.edges);
		ASSERT_EQ(g.ids, oracle.vertices()) << "seed " << seed;
		for (int64_t id : t.query_ids) {
			int64_t v = g.find(id);
			bool known = std::binary_search(oracle.vertices().begin(), oracle.vertices().end(), id);
			EXPECT_EQ(v >= 0, known);
			if (v >= 0) {
				EXPECT_EQ(g.ids[size_t(v)], id);
			}
		}
	}
}

// Helpers split the ids, the grouping and the lists' sorting among threads: the graph must be the
// one a single thread makes (and the rows' oracle's), repeated edges and their counts included,
// whatever the number of threads and however the rows' duplicates and self-loops fall across the
// threads' ranges and the buckets.
TEST(Graph, HelpersMakeTheSameGraph) {
	for (int style = 0; style < 3; style++) {
		Rng rng(700 + style);
		EdgeList e;
		const size_t rows = 150000 + 7 * size_t(style); // past the split's floor, not a multiple of the ranges
		for (size_t k = 0; k < rows; k++) {
			int64_t a, b;
			if (style == 0) { // dense ids, many repeated edges and self-loops
				a = int64_t(rng.below(20000));
				b = rng.below(10) == 0 ? a : int64_t(rng.below(20000));
				if (rng.below(4) == 0 && k > 0) {
					a = e.source[rng.below(k)];
					b = e.target[rng.below(k)];
				}
			} else if (style == 1) { // the extreme ids: the sorted path, which ignores helpers
				a = rng.below(2) ? std::numeric_limits<int64_t>::min() + int64_t(rng.below(500))
				                 : std::numeric_limits<int64_t>::max() - int64_t(rng.below(500));
				b = int64_t(rng.next());
			} else { // negative dense ids, a few hub sources (long lists)
				a = rng.below(8) == 0 ? -int64_t(rng.below(4)) : -int64_t(rng.below(300000));
				b = -int64_t(rng.below(300000));
			}
			e.append(a, b);
		}
		const Graph one = Graph::from_edges(e);
		std::map<std::pair<int64_t, int64_t>, uint64_t> rows_of;
		for (size_t k = 0; k < e.size(); k++)
			if (e.source[k] != e.target[k])
				rows_of[{e.source[k], e.target[k]}]++;
		size_t edges = 0;
		for (vid_t v = 0; v < one.vertex_count(); v++)
			for (const vid_t *w = one.out.begin(v); w != one.out.end(v); w++, edges++)
				ASSERT_EQ(one.rows_of(v, *w), int64_t(rows_of.at({one.ids[v], one.ids[*w]}))) << "style " << style;
		ASSERT_EQ(edges, rows_of.size()) << "style " << style;
		for (unsigned helpers : {1u, 2u, 3u, 7u}) {
			const Graph many = Graph::from_edges(e, helpers);
			ASSERT_EQ(many.ids, one.ids) << "style " << style << ", helpers " << helpers;
			ASSERT_EQ(many.out.offsets, one.out.offsets) << "style " << style << ", helpers " << helpers;
			ASSERT_EQ(many.out.targets, one.out.targets) << "style " << style << ", helpers " << helpers;
			ASSERT_EQ(many.repeated, one.repeated) << "style " << style << ", helpers " << helpers;
		}
	}
}

TEST(Csr, FromPairsWithHelpersEqualsOneThread) {
	Rng rng(31);
	for (size_t n : {size_t(1), size_t(3000), size_t(1) << 21}) {
		std::vector<vid_t> s(200003), t(s.size());
		for (size_t k = 0; k < s.size(); k++) {
			s[k] = vid_t(rng.below(n));
			t[k] = rng.below(5) == 0 ? s[k] : vid_t(rng.below(n));
		}
		for (bool drop : {false, true}) {
			std::vector<RepeatedEdge> repeated_one;
			const Csr one = Csr::from_pairs(n, s, t, drop, &repeated_one);
			std::map<std::pair<vid_t, vid_t>, uint64_t> expected;
			for (size_t k = 0; k < s.size(); k++)
				if (!drop || s[k] != t[k])
					expected[{s[k], t[k]}]++;
			// Each pair once, and those of several rows counted at their place, in order of place.
			std::map<std::pair<vid_t, vid_t>, uint64_t> got;
			std::vector<RepeatedEdge> repeated_expected;
			for (vid_t v = 0; v < n; v++)
				for (const vid_t *w = one.begin(v); w != one.end(v); w++) {
					uint64_t rows = expected.count({v, *w}) ? expected.at({v, *w}) : 0;
					got[{v, *w}] = rows;
					if (rows > 1)
						repeated_expected.push_back(RepeatedEdge{eid_t(w - one.targets.data()), rows});
				}
			ASSERT_EQ(got, expected) << "n " << n;
			ASSERT_EQ(repeated_one, repeated_expected) << "n " << n;
			for (unsigned helpers : {1u, 2u, 5u}) {
				std::vector<RepeatedEdge> repeated;
				const Csr many = Csr::from_pairs(n, s, t, drop, &repeated, helpers);
				ASSERT_EQ(many.offsets, one.offsets) << "n " << n << ", helpers " << helpers;
				ASSERT_EQ(many.targets, one.targets) << "n " << n << ", helpers " << helpers;
				ASSERT_EQ(repeated, repeated_one) << "n " << n << ", helpers " << helpers;
			}
		}
	}
	// Out of range: refused on whichever thread finds it.
	std::vector<vid_t> s(100000, 0), t(100000, 1);
	t[99999] = 9;
	EXPECT_THROW(Csr::from_pairs(5, s, t, true, nullptr, 3), Error);
}
