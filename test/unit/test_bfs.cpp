#include "bfs.hpp"
#include "error.hpp"
#include "oracle.hpp"

#include <gtest/gtest.h>

using namespace grail;

// Along edge direction (the CSR), against it (the reversed CSR) and ignoring it (the CSR and its
// reverse together): the oracle's BFS over the edge rows, the rows swapped, and the rows in both
// directions; every row's vertex, depth and parent, in order.
TEST(Bfs, RandomGraphsMatchOracleInEveryDirection) {
	enum class Direction { out, in, both };
	for (uint64_t seed = 0; seed < 500; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed);
		EdgeList swapped, both;
		for (size_t e = 0; e < t.edges.size(); e++) {
			swapped.append(t.edges.target[e], t.edges.source[e]);
			both.append(t.edges.source[e], t.edges.target[e]);
			both.append(t.edges.target[e], t.edges.source[e]);
		}
		grail_test::Oracle out_oracle(t.edges), in_oracle(swapped), both_oracle(both);
		Graph g = Graph::from_edges(t.edges);
		Csr in = g.out.reversed();
		for (Direction direction : {Direction::out, Direction::in, Direction::both}) {
			const grail_test::Oracle &oracle = direction == Direction::out  ? out_oracle
			                                   : direction == Direction::in ? in_oracle
			                                                                : both_oracle;
			for (uint32_t max_depth : {0u, 1u, 2u, UINT32_MAX}) {
				for (vid_t s = 0; s < g.vertex_count(); s += 1 + vid_t(seed % 3)) {
					BfsResult r = direction == Direction::out  ? bfs(g.out, s, max_depth)
					              : direction == Direction::in ? bfs(in, s, max_depth)
					                                           : bfs(g.out, in, s, max_depth);
					auto expected = oracle.bfs(g.ids[s], max_depth);
					ASSERT_EQ(r.vertex.size(), expected.size())
					    << "seed " << seed << " source " << s << " direction " << int(direction);
					ASSERT_EQ(r.depth.size(), expected.size());
					ASSERT_EQ(r.parent.size(), expected.size());
					for (size_t k = 0; k < expected.size(); k++) {
						EXPECT_EQ(g.ids[r.vertex[k]], expected[k].vertex);
						EXPECT_EQ(r.depth[k], expected[k].depth);
						if (k == 0)
							EXPECT_EQ(r.parent[k], kNoVertex);
						else
							EXPECT_EQ(g.ids[r.parent[k]], expected[k].parent);
					}
				}
			}
		}
	}
}

TEST(Bfs, BothNeedsEqualVertexCounts) {
	Csr a = Csr::from_pairs(2, {0}, {1}, true), b = Csr::from_pairs(3, {0}, {2}, true);
	EXPECT_THROW(bfs(a, b, 0), Error);
	EXPECT_THROW(bfs(a, a.reversed(), 2), Error);
	EXPECT_EQ(bfs(a, a.reversed(), 1).vertex.size(), 2u);
}

TEST(Bfs, BadSourceIsAnError) {
	Csr g = Csr::from_pairs(2, {0}, {1}, true);
	EXPECT_THROW(bfs(g, 2), Error);
	EXPECT_THROW(bfs(Csr{}, 0), Error);
}

TEST(Bfs, LongPath) {
	const vid_t n = 10'000'000;
	std::vector<vid_t> s(n - 1), t(n - 1);
	for (vid_t v = 0; v + 1 < n; v++) {
		s[v] = v;
		t[v] = v + 1;
	}
	Csr g = Csr::from_pairs(n, s, t, true);
	BfsResult r = bfs(g, 0);
	ASSERT_EQ(r.vertex.size(), n);
	EXPECT_EQ(r.vertex.back(), n - 1);
	EXPECT_EQ(r.depth.back(), n - 1);
	EXPECT_EQ(r.parent.back(), n - 2);
	BfsResult limited = bfs(g, 5, 1000);
	ASSERT_EQ(limited.vertex.size(), 1001u);
	EXPECT_EQ(limited.vertex.back(), 1005u);
	EXPECT_EQ(bfs(g, n - 1).vertex.size(), 1u);
}

// A star with 10^6 leaves, each also linked to the next one: depth 1 for all, parent the hub.
TEST(Bfs, LargeStar) {
	const vid_t leaves = 1'000'000;
	std::vector<vid_t> s, t;
	for (vid_t v = 1; v <= leaves; v++) {
		s.push_back(0);
		t.push_back(leaves + 1 - v);
		if (v < leaves) {
			s.push_back(v);
			t.push_back(v + 1);
		}
	}
	Csr g = Csr::from_pairs(leaves + 1, s, t, true);
	BfsResult r = bfs(g, 0);
	ASSERT_EQ(r.vertex.size(), leaves + 1u);
	for (vid_t k = 1; k <= leaves; k++) {
		ASSERT_EQ(r.vertex[k], k);
		ASSERT_EQ(r.depth[k], 1u);
		ASSERT_EQ(r.parent[k], 0u);
	}
	BfsResult from_leaf = bfs(g, 1);
	EXPECT_EQ(from_leaf.vertex.size(), leaves);
	EXPECT_EQ(from_leaf.depth.back(), leaves - 1);
	EXPECT_EQ(bfs(g, 0, 0).vertex.size(), 1u);
}
