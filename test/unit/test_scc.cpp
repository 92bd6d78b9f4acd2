#include "error.hpp"
#include "generate.hpp"
#include "graph.hpp"
#include "oracle.hpp"
#include "scc.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

using namespace grail;

namespace {

// Properties every valid result has: a topological numbering, and smallest vertices that are
// the minimum of their component.
void
check_structure(const Csr &g, const Components &c) {
	ASSERT_EQ(c.of_vertex.size(), g.vertex_count());
	std::vector<vid_t> smallest(c.count(), UINT32_MAX);
	for (vid_t v = 0; v < g.vertex_count(); v++) {
		ASSERT_LT(c.of_vertex[v], c.count());
		smallest[c.of_vertex[v]] = std::min(smallest[c.of_vertex[v]], v);
		for (const vid_t *w = g.begin(v); w != g.end(v); w++)
			ASSERT_LE(c.of_vertex[v], c.of_vertex[*w]) << "edge " << v << "->" << *w;
	}
	EXPECT_EQ(smallest, c.smallest_vertex);
}

} // namespace

TEST(Scc, RandomGraphsMatchMutualReachability) {
	for (uint64_t seed = 0; seed < 1000; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed);
		grail_test::Oracle oracle(t.edges);
		Graph g = Graph::from_edges(t.edges);
		Components c = strongly_connected_components(g.out);
		check_structure(g.out, c);
		std::set<int64_t> distinct;
		for (vid_t v = 0; v < g.vertex_count(); v++) {
			int64_t got = g.ids[c.smallest_vertex[c.of_vertex[v]]];
			ASSERT_EQ(got, oracle.component(g.ids[v])) << "seed " << seed << " " << t.shape << " id " << g.ids[v];
			distinct.insert(got);
		}
		EXPECT_EQ(distinct.size(), c.count());

		// The condensation: exactly the pairs of different components joined by an edge.
		Csr dag = condensation(g.out, c);
		ASSERT_EQ(dag.vertex_count(), c.count());
		std::set<std::pair<uint32_t, uint32_t>> expected, got;
		for (vid_t v = 0; v < g.vertex_count(); v++)
			for (const vid_t *w = g.out.begin(v); w != g.out.end(v); w++)
				if (c.of_vertex[v] != c.of_vertex[*w])
					expected.insert({c.of_vertex[v], c.of_vertex[*w]});
		for (vid_t a = 0; a < dag.vertex_count(); a++)
			for (const vid_t *b = dag.begin(a); b != dag.end(a); b++) {
				ASSERT_LT(a, *b);
				if (b != dag.begin(a)) {
					ASSERT_LT(b[-1], *b);
				}
				got.insert({a, *b});
			}
		EXPECT_EQ(got, expected) << "seed " << seed;
	}
}

TEST(Scc, Empty) {
	Components c = strongly_connected_components(Csr{});
	EXPECT_EQ(c.count(), 0u);
	EXPECT_EQ(condensation(Csr{}, c).vertex_count(), 0u);
}

// 10^7 vertices in a path: recursion would overflow the stack.
TEST(Scc, LongPathIsIterative) {
	const vid_t n = 10'000'000;
	std::vector<vid_t> s(n - 1), t(n - 1);
	for (vid_t v = 0; v + 1 < n; v++) {
		s[v] = n - 1 - v; // the path runs from high to low indexes
		t[v] = n - 2 - v;
	}
	Csr g = Csr::from_pairs(n, s, t, true);
	Components c = strongly_connected_components(g);
	ASSERT_EQ(c.count(), n);
	for (vid_t v = 0; v < n; v++)
		ASSERT_EQ(c.of_vertex[v], n - 1 - v);
	EXPECT_EQ(condensation(g, c).edge_count(), n - 1);
}

// One giant SCC: a cycle with chords, also long enough to need an explicit stack.
TEST(Scc, GiantCycleWithChords) {
	const vid_t n = 2'000'000;
	std::vector<vid_t> s, t;
	for (vid_t v = 0; v < n; v++) {
		s.push_back(v);
		t.push_back((v + 1) % n);
		if (v % 7 == 0) {
			s.push_back(v);
			t.push_back(vid_t((uint64_t(v) * 7919 + 13) % n));
		}
	}
	Csr g = Csr::from_pairs(n, s, t, true);
	Components c = strongly_connected_components(g);
	ASSERT_EQ(c.count(), 1u);
	EXPECT_EQ(c.smallest_vertex[0], 0u);
	EXPECT_EQ(condensation(g, c).edge_count(), 0u);
}

// The host numbering of labelled components (the GPU's fallback): Tarjan's partition, numbered
// topologically, each smallest vertex the component's minimum; labels that close a cycle between
// components are refused.
TEST(Scc, NumberComponentsFromLabels) {
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed);
		Graph g = Graph::from_edges(t.edges);
		Components tarjan = strongly_connected_components(g.out);
		std::vector<vid_t> label(g.vertex_count());
		for (vid_t v = 0; v < g.vertex_count(); v++)
			label[v] = tarjan.smallest_vertex[tarjan.of_vertex[v]];
		Components numbered = number_components(g.out, label);
		check_structure(g.out, numbered);
		ASSERT_EQ(numbered.count(), tarjan.count());
		for (vid_t v = 0; v < g.vertex_count(); v++)
			ASSERT_EQ(numbered.smallest_vertex[numbered.of_vertex[v]], label[v]) << "seed " << seed;
	}
	// 0 <-> 1 and 1 -> 2 -> 0: labels that leave 2 out of 0's component form no DAG.
	EdgeList e;
	e.append(0, 1);
	e.append(1, 0);
	e.append(1, 2);
	e.append(2, 0);
	Graph g = Graph::from_edges(e);
	EXPECT_THROW(number_components(g.out, {0, 0, 2}), Error);
}

// A DAG's condensation (every component one vertex) made by ranges of components on helpers must
// be the one a single thread makes, and the graph renumbered: each edge once, between the
// components of its ends.
TEST(Scc, CondensationOfSingletonsWithHelpers) {
	for (uint64_t seed : {1u, 2u}) {
		const Graph g = Graph::from_edges(generate_random_dag(seed == 1 ? 100000 : 30001, 4.0, seed));
		const Components c = strongly_connected_components(g.out);
		ASSERT_EQ(c.count(), g.vertex_count());
		const Csr one = condensation(g.out, c);
		std::set<std::pair<uint32_t, uint32_t>> expected, got;
		for (vid_t v = 0; v < g.vertex_count(); v++)
			for (const vid_t *w = g.out.begin(v); w != g.out.end(v); w++)
				expected.insert({c.of_vertex[v], c.of_vertex[*w]});
		for (uint32_t a = 0; a < one.vertex_count(); a++) {
			ASSERT_TRUE(std::is_sorted(one.begin(a), one.end(a)));
			for (const vid_t *b = one.begin(a); b != one.end(a); b++)
				got.insert({a, *b});
		}
		ASSERT_EQ(got, expected);
		ASSERT_EQ(one.edge_count(), expected.size());
		for (unsigned helpers : {1u, 2u, 7u}) {
			const Csr many = condensation(g.out, c, helpers);
			ASSERT_EQ(many.offsets, one.offsets) << "helpers " << helpers;
			ASSERT_EQ(many.targets, one.targets) << "helpers " << helpers;
		}
	}
}
