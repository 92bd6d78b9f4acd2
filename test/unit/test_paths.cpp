#include "bfs.hpp"
#include "error.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "generate.hpp"
#include "paths.hpp"
#include "pruning.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

using namespace grail;

namespace {

// Distances by brute force over the raw edge rows (self-loops left out, as the graph leaves them).
struct Distances {
	explicit Distances(const EdgeList &edges) {
		for (size_t i = 0; i < edges.size(); i++) {
			vertices.insert(edges.source[i]);
			vertices.insert(edges.target[i]);
			if (edges.source[i] != edges.target[i])
				edge.insert({edges.source[i], edges.target[i]});
		}
		for (int64_t s : vertices) {
			std::map<int64_t, uint32_t> &d = dist[s];
			d[s] = 0;
			for (bool changed = true; changed;) {
				changed = false;
				for (auto [u, v] : edge)
					if (d.count(u) && (!d.count(v) || d[v] > d[u] + 1)) {
						d[v] = d[u] + 1;
						changed = true;
					}
			}
		}
	}
	// -1 when b is not reachable.
	int64_t
	between(int64_t a, int64_t b) const {
		auto &d = dist.at(a);
		auto it = d.find(b);
		return it == d.end() ? -1 : int64_t(it->second);
	}
	// The least number of edges of a cycle through v, -1 when none.
	int64_t
	cycle(int64_t v) const {
		int64_t best = -1;
		for (auto [u, w] : edge)
			if (w == v) {
				int64_t d = between(v, u);
				if (d >= 0 && (best < 0 || d + 1 < best))
					best = d + 1;
			}
		return best;
	}
	std::set<int64_t> vertices;
	std::set<std::pair<int64_t, int64_t>> edge;
	std::map<int64_t, std::map<int64_t, uint32_t>> dist;
};

// The bfs() parent chain of target from source (source first), empty when not reached.
std::vector<vid_t>
parent_chain(const BfsResult &r, vid_t target) {
	std::map<vid_t, vid_t> parent;
	for (size_t k = 0; k < r.vertex.size(); k++)
		parent[r.vertex[k]] = r.parent[k];
	if (!parent.count(target))
		return {};
	std::vector<vid_t> path;
	for (vid_t v = target; v != kNoVertex; v = parent.at(v))
		path.push_back(v);
	return {path.rbegin(), path.rend()};
}

void
expect_real(const Graph &g, const Distances &oracle, const std::vector<vid_t> &path) {
	for (size_t k = 1; k < path.size(); k++)
		EXPECT_TRUE(oracle.edge.count({g.ids[path[k - 1]], g.ids[path[k]]}))
		    << g.ids[path[k - 1]] << "->" << g.ids[path[k]] << " is no edge";
}

} // namespace

TEST(Paths, RandomGraphsShortestAndBfsParents) {
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, 30);
		Distances oracle(t.edges);
		Index index = Index::build(t.edges, BuildOptions{});
		const Graph &g = index.graph();
		PathFinder finder(index);
		for (vid_t a = 0; a < g.vertex_count(); a++) {
			BfsResult r = bfs(g.out, a);
			for (vid_t b = 0; b < g.vertex_count(); b++) {
				std::vector<vid_t> path = finder.shortest_path(a, b);
				int64_t d = oracle.between(g.ids[a], g.ids[b]);
				ASSERT_EQ(path.empty(), d < 0) << t.shape << " seed " << seed << " " << a << "->" << b;
				if (d < 0)
					continue;
				ASSERT_EQ(int64_t(path.size()) - 1, d) << t.shape << " seed " << seed;
				EXPECT_EQ(path.front(), a);
				EXPECT_EQ(path.back(), b);
				expect_real(g, oracle, path);
				EXPECT_EQ(path, parent_chain(r, b)) << t.shape << " seed " << seed << " " << a << "->" << b;
				EXPECT_EQ(path, shortest_path(g.out, a, b));
			}
		}
	}
}

TEST(Paths, RandomGraphsShortestCycles) {
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, 30);
		Distances oracle(t.edges);
		Index index = Index::build(t.edges, BuildOptions{});
		const Graph &g = index.graph();
		PathFinder finder(index);
		for (vid_t v = 0; v < g.vertex_count(); v++) {
			std::vector<vid_t> cycle = finder.shortest_cycle(v);
			int64_t d = oracle.cycle(g.ids[v]);
			ASSERT_EQ(cycle.empty(), d < 0) << t.shape << " seed " << seed << " vertex " << v;
			EXPECT_EQ(cycle, shortest_cycle(g.out, v));
			if (d < 0)
				continue;
			ASSERT_EQ(int64_t(cycle.size()) - 1, d) << t.shape << " seed " << seed;
			EXPECT_EQ(cycle.front(), v);
			EXPECT_EQ(cycle.back(), v);
			expect_real(g, oracle, cycle);
			// v's predecessor: the smallest vertex at the least depth with an edge to v; the rest
			// its bfs() parent chain.
			BfsResult r = bfs(g.out, v);
			vid_t last = kNoVertex;
			for (size_t k = 0; k < r.vertex.size() && last == kNoVertex; k++)
				if (oracle.edge.count({g.ids[r.vertex[k]], g.ids[v]}))
					last = r.vertex[k];
			std::vector<vid_t> expected = parent_chain(r, last);
			expected.push_back(v);
			EXPECT_EQ(cycle, expected) << t.shape << " seed " << seed << " vertex " << v;
		}
	}
}

TEST(Paths, EdgeCases) {
	// 0->1->2->0, 3 alone with a self-loop, 4->4 only, 5->3.
	EdgeList edges;
	for (auto [a, b] : std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 2}, {2, 0}, {3, 3}, {4, 4}, {5, 3}})
		edges.append(a, b);
	Index index = Index::build(edges, BuildOptions{});
	PathFinder finder(index);
	EXPECT_EQ(finder.shortest_path(0, 0), std::vector<vid_t>{0});
	EXPECT_EQ(finder.shortest_path(0, 2), (std::vector<vid_t>{0, 1, 2}));
	EXPECT_EQ(finder.shortest_path(2, 1), (std::vector<vid_t>{2, 0, 1}));
	EXPECT_TRUE(finder.shortest_path(0, 3).empty());
	EXPECT_EQ(finder.shortest_path(5, 3), (std::vector<vid_t>{5, 3}));
	EXPECT_EQ(finder.shortest_cycle(1), (std::vector<vid_t>{1, 2, 0, 1}));
	EXPECT_TRUE(finder.shortest_cycle(3).empty()); // self-loops are not in the graph
	EXPECT_TRUE(finder.shortest_cycle(5).empty());
	EXPECT_THROW(finder.shortest_path(0, 6), Error);
	EXPECT_THROW(finder.shortest_cycle(6), Error);

	Index empty = Index::build(EdgeList{}, BuildOptions{});
	PathFinder none(empty);
	EXPECT_THROW(none.shortest_path(0, 0), Error);
}

TEST(Paths, LongChainAndTwoCycles) {
	// 0 -> 1 -> ... -> 999 -> 0, plus a shortcut 500 -> 0: the shortest cycle through 0 is 501 edges.
	EdgeList edges;
	for (int64_t v = 0; v < 1000; v++)
		edges.append(v, (v + 1) % 1000);
	edges.append(500, 0);
	Index index = Index::build(edges, BuildOptions{});
	PathFinder finder(index);
	EXPECT_EQ(finder.shortest_cycle(0).size(), 502u);
	EXPECT_EQ(finder.shortest_cycle(700).size(), 1001u); // 700 .. 999, 0 .. 700: the shortcut cannot help
}

// Bigger graphs, where the bidirectional search meets far from both ends: layered graphs with many
// paths of one length (the tie rule decides among them), with back edges making cycles; every
// answer equals the bfs() parent chain and the plain forward search's, with the reversed edges
// kept by the caller (as a loaded build keeps them) or made by the finder.
TEST(Paths, LayeredGraphsManyTies) {
	for (uint64_t seed = 0; seed < 40; seed++) {
		std::mt19937_64 rng(seed);
		size_t layers = 3 + rng() % 12, width = 2 + rng() % 40;
		size_t n = layers * width;
		EdgeList edges;
		for (size_t l = 0; l + 1 < layers; l++)
			for (size_t k = 0; k < width * 3; k++)
				edges.append(int64_t(l * width + rng() % width) * 7 - 1000,
				             int64_t((l + 1) * width + rng() % width) * 7 - 1000);
		for (size_t k = 0; k < (seed % 4) * width; k++) // back edges and shortcuts
			edges.append(int64_t(rng() % n) * 7 - 1000, int64_t(rng() % n) * 7 - 1000);
		Index index = Index::build(edges, BuildOptions{});
		const Graph &g = index.graph();
		Csr in = g.out.reversed();
		PathFinder kept(index, [&]() -> const Csr & { return in; });
		PathFinder own(index);
		for (int q = 0; q < 300; q++) {
			vid_t a = vid_t(rng() % g.vertex_count()), b = vid_t(rng() % g.vertex_count());
			std::vector<vid_t> expected = shortest_path(g.out, a, b);
			ASSERT_EQ(kept.shortest_path(a, b), expected) << "seed " << seed << " " << a << "->" << b;
			ASSERT_EQ(own.shortest_path(a, b), expected) << "seed " << seed << " " << a << "->" << b;
			if (!expected.empty()) {
				ASSERT_EQ(expected, parent_chain(bfs(g.out, a), b));
			}
			std::vector<vid_t> cycle = shortest_cycle(g.out, a);
			ASSERT_EQ(kept.shortest_cycle(a), cycle) << "seed " << seed << " cycle through " << a;
			ASSERT_EQ(own.shortest_cycle(a), cycle) << "seed " << seed << " cycle through " << a;
		}
	}
}

// Graphs large enough that a side makes hundreds of label tests: a deep local DAG, where the
// labels prune few vertices and a side stops testing, and random graphs with and without cycles,
// where they prune many. Every answer equals the plain forward search's (the bfs() parent chain).
TEST(Paths, LargeGraphsWithAndWithoutPruning) {
	for (uint64_t seed = 0; seed < 6; seed++) {
		std::mt19937_64 rng(seed);
		const int64_t n = 20000;
		EdgeList edges;
		if (seed % 3 == 0) { // local: i -> i + 1 .. i + 64
			for (int64_t i = 0; i + 64 < n; i++)
				for (int k = 0; k < 2; k++)
					edges.append(i, i + 1 + int64_t(rng() % 64));
		} else {
			for (int64_t k = 0; k < 2 * n; k++) {
				int64_t x = int64_t(rng() % n), y = int64_t(rng() % n);
				if (seed % 3 == 1 && x > y)
					std::swap(x, y); // a DAG
				edges.append(x, y);
			}
		}
		Index index = Index::build(edges, BuildOptions{});
		const Graph &g = index.graph();
		PathFinder finder(index);
		size_t found = 0;
		for (int q = 0; q < 150; q++) {
			vid_t a = vid_t(rng() % g.vertex_count()), b = vid_t(rng() % g.vertex_count());
			if (q % 2 == 0) { // a reachable pair: b one of a's descendants
				BfsResult r = bfs(g.out, a);
				b = r.vertex[rng() % r.vertex.size()];
			}
			std::vector<vid_t> expected = shortest_path(g.out, a, b);
			found += !expected.empty();
			ASSERT_EQ(finder.shortest_path(a, b), expected) << "seed " << seed << " " << a << "->" << b;
		}
		EXPECT_GT(found, 70u) << "seed " << seed;
	}
}

// Graphs with hubs (R-MAT, with and without the pairs' random extra edges) and layered graphs with
// wide levels: the pass that finds a shortest path's vertices past the forward ball reads some
// levels from their out-edges and some from the backward levels' in-edges. Every path and cycle
// equals the plain forward search's (the bfs() parent chain), whichever way each level was read,
// and both ways are taken over the test.
TEST(Paths, SecondPassBothWaysKeepsTheTieRule) {
	uint32_t out_levels = 0, in_levels = 0;
	size_t pass_edges = 0, search_edges = 0;
	for (uint64_t seed = 0; seed < 12; seed++) {
		std::mt19937_64 rng(seed);
		EdgeList edges = seed % 2 == 0 ? generate_rmat(10 + unsigned(seed % 3), 4 + unsigned(seed % 5), seed)
		                               : generate_random_dag(3000, 2.5, seed);
		if (seed % 4 == 1) // a few hubs with long out-lists over the DAG
			for (int h = 0; h < 5; h++)
				for (int k = 0; k < 400; k++)
					edges.append(int64_t(rng() % 3000), int64_t(rng() % 3000));
		Index index = Index::build(edges, BuildOptions{});
		const Graph &g = index.graph();
		PathFinder finder(index);
		for (int q = 0; q < 200; q++) {
			vid_t a = vid_t(rng() % g.vertex_count()), b = vid_t(rng() % g.vertex_count());
			BfsResult r = bfs(g.out, a);
			if (q % 4 != 0)
				b = r.vertex[rng() % r.vertex.size()];
			std::vector<vid_t> expected = shortest_path(g.out, a, b);
			ASSERT_EQ(finder.shortest_path(a, b), expected) << "seed " << seed << " " << a << "->" << b;
			if (!expected.empty()) {
				ASSERT_EQ(expected, parent_chain(r, b)) << "seed " << seed;
			}
			const PathFinder::Counts &c = finder.last_counts();
			out_levels += c.out_levels;
			in_levels += c.in_levels;
			pass_edges += c.pass_edges;
			search_edges += c.search_edges;
			ASSERT_EQ(finder.shortest_cycle(a), shortest_cycle(g.out, a)) << "seed " << seed << " cycle through " << a;
			out_levels += finder.last_counts().out_levels;
			in_levels += finder.last_counts().in_levels;
		}
	}
	EXPECT_GT(out_levels, 0u);
	EXPECT_GT(in_levels, 0u);
	// The pass scans no more than the searches did (each level at most its backward level's edges).
	EXPECT_LE(pass_edges, search_edges);
}

// Unreachable pairs that the pair's own labels leave open (pruning::step says expand): path() has
// no reachability search first, so its bidirectional search must end empty-handed on them, as it
// does when a side has nothing left to expand. The test counts such pairs, so that it would fail if
// the graphs stopped giving any.
TEST(Paths, UnreachablePairsTheLabelsLeaveOpen) {
	size_t open = 0;
	for (uint64_t seed = 0; seed < 24; seed++) {
		std::mt19937_64 rng(seed);
		const int64_t n = 200 + int64_t(seed % 4) * 100;
		EdgeList edges;
		for (int64_t k = 0; k < n + n / 2; k++) {
			int64_t x = int64_t(rng() % n), y = int64_t(rng() % n);
			if (seed % 2 == 0 && x > y)
				std::swap(x, y); // a DAG
			edges.append(x, y);
		}
		// One GRAIL traversal: labels that leave more pairs open.
		BuildOptions options;
		options.labels = 1;
		Index index = Index::build(edges, options);
		const Graph &g = index.graph();
		const Array<uint32_t> &component = index.components().of_vertex;
		const unsigned d = index.labels().label_count();
		PathFinder finder(index);
		for (vid_t a = 0; a < g.vertex_count(); a++) {
			BfsResult r = bfs(g.out, a);
			std::vector<bool> reached(g.vertex_count());
			for (vid_t v : r.vertex)
				reached[v] = true;
			for (vid_t b = 0; b < g.vertex_count(); b++) {
				uint32_t ca = component[a], cb = component[b];
				std::vector<vid_t> path = finder.shortest_path(a, b);
				ASSERT_EQ(path.empty(), !reached[b]) << "seed " << seed << " " << a << "->" << b;
				if (!reached[b] && ca < cb &&
				    pruning::step(index.bloom().record(ca), index.labels().record(ca), index.bloom().record(cb),
				                  index.labels().record(cb), d) != pruning::Step::prune)
					open++;
				if (reached[b]) {
					ASSERT_EQ(path, parent_chain(r, b)) << "seed " << seed << " " << a << "->" << b;
				}
			}
		}
	}
	EXPECT_GT(open, 60u) << open;
}
