// GPU BFS against the CPU bfs(): the rows must be identical, order and parents included. Labelled
// `gpu` in CTest; on a machine without a usable GPU every test reports skipped.
#include "bfs.hpp"
#include "device.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "gpu_test.hpp"
#include "gpu.hpp"
#include "oracle.hpp"
#include "rng.hpp"
#include "shapes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace grail;

namespace {

using GpuBfs = GpuTest;

// Compares whole vectors first (one message, not millions) and then says where they differ.
void
expect_same(const Csr &graph, vid_t source, uint32_t max_depth, const std::string &what) {
	BfsResult cpu = bfs(graph, source, max_depth);
	BfsResult gpu = bfs_gpu(graph, source, max_depth);
	std::string where = what + ", source " + std::to_string(source) + ", max_depth " + std::to_string(max_depth);
	ASSERT_EQ(cpu.vertex.size(), gpu.vertex.size()) << where;
	for (size_t k = 0; k < cpu.vertex.size(); k++) {
		if (cpu.vertex[k] != gpu.vertex[k] || cpu.depth[k] != gpu.depth[k] || cpu.parent[k] != gpu.parent[k]) {
			FAIL() << where << ": row " << k << " cpu (" << cpu.vertex[k] << ", " << cpu.depth[k] << ", "
			       << cpu.parent[k] << ") gpu (" << gpu.vertex[k] << ", " << gpu.depth[k] << ", " << gpu.parent[k]
			       << ")";
		}
	}
}

EdgeList
path(uint64_t n) {
	EdgeList e;
	e.reserve(n);
	for (uint64_t v = 0; v + 1 < n; v++)
		e.append(int64_t(v), int64_t(v + 1));
	return e;
}

// A path through n vertices whose ids are shuffled, so that consecutive vertices of the chain are
// far apart in memory and in the visited bitmap.
EdgeList
shuffled_path(uint64_t n, uint64_t seed) {
	std::vector<int64_t> order(n);
	for (uint64_t v = 0; v < n; v++)
		order[v] = int64_t(v);
	Rng rng(seed);
	for (uint64_t v = n - 1; v > 0; v--)
		std::swap(order[v], order[rng.below(v + 1)]);
	EdgeList e;
	for (uint64_t v = 0; v + 1 < n; v++)
		e.append(order[v], order[v + 1]);
	return e;
}

GpuBfsTimings
timings_of(const Csr &graph, vid_t source, uint32_t max_depth = UINT32_MAX) {
	GpuBfsTimings t;
	bfs_gpu(graph, source, max_depth, &t);
	return t;
}

bool
has_step(const GpuBfsTimings &t, const std::string &kind) {
	for (const GpuBfsStep &step : t.steps)
		if (kind == step.kind)
			return true;
	return false;
}

using shapes::Pairs;

// A chain of `length` vertices from `first` (ids first, first + 1, ...), after `from`.
void
add_chain(Pairs &edges, vid_t from, vid_t first, vid_t length) {
	edges.push_back({from, first});
	for (vid_t k = 0; k + 1 < length; k++)
		edges.push_back({first + k, first + k + 1});
}

// The vertex of a path that no edge enters.
vid_t
head_of(const Csr &path) {
	std::vector<bool> entered(path.vertex_count());
	for (vid_t w : path.targets)
		entered[w] = true;
	for (vid_t v = 0; v < entered.size(); v++)
		if (!entered[v])
			return v;
	return kNoVertex;
}

} // namespace

TEST_F(GpuBfs, SmallRandomGraphs) {
	for (uint64_t seed = 0; seed < 100; seed++) {
		Graph g = Graph::from_edges(grail_test::random_graph(seed).edges);
		for (uint32_t max_depth : {0u, 1u, 2u, UINT32_MAX})
			for (vid_t s = 0; s < g.vertex_count(); s += 7)
				expect_same(g.out, s, max_depth, "random graph " + std::to_string(seed));
	}
}

TEST_F(GpuBfs, Rmat) {
	for (unsigned scale : {8u, 12u, 16u}) {
		for (uint64_t seed : {1u, 2u}) {
			Graph g = Graph::from_edges(generate_rmat(scale, 16, seed));
			std::string what = "rmat " + std::to_string(scale) + " seed " + std::to_string(seed);
			// Vertex 0 is the hub of an R-MAT graph; the others are ordinary or isolated vertices.
			for (vid_t s : {vid_t(0), vid_t(1), vid_t(g.vertex_count() / 3), vid_t(g.vertex_count() - 1)})
				for (uint32_t max_depth : {1u, 2u, 3u, UINT32_MAX})
					expect_same(g.out, s, max_depth, what);
		}
	}
}

TEST_F(GpuBfs, LargeRmatGoesBottomUp) {
	Graph g = Graph::from_edges(generate_rmat(20, 16, 7));
	GpuBfsTimings t;
	bfs_gpu(g.out, 0, UINT32_MAX, &t);
	EXPECT_GT(t.bottom_up_levels, 0u);
	expect_same(g.out, 0, UINT32_MAX, "rmat 20");
	expect_same(g.out, 0, 2, "rmat 20");
}

TEST_F(GpuBfs, Grids) {
	for (bool both : {false, true}) {
		Graph g = Graph::from_edges(generate_grid(300, 500, both));
		std::string what = std::string("grid 300x500") + (both ? " both ways" : "");
		for (vid_t s : {vid_t(0), vid_t(777), vid_t(g.vertex_count() - 1)})
			for (uint32_t max_depth : {5u, 400u, UINT32_MAX})
				expect_same(g.out, s, max_depth, what);
	}
}

TEST_F(GpuBfs, TenMillionVertexPath) {
	Graph g = Graph::from_edges(path(10'000'000));
	expect_same(g.out, 0, UINT32_MAX, "path");
	expect_same(g.out, 5'000'000, 1'000'000, "path");
}

TEST_F(GpuBfs, MillionLeafStar) {
	// Both directions: from a leaf, the centre is at depth 1 and every other leaf at depth 2. Too
	// sparse for in-edges ahead: the level of the centre builds them and pulls.
	EdgeList e;
	for (int64_t leaf = 1; leaf <= 1'000'000; leaf++) {
		e.append(0, leaf);
		e.append(leaf, 0);
	}
	Graph g = Graph::from_edges(e);
	GpuBfsTimings t;
	bfs_gpu(g.out, 123'456, UINT32_MAX, &t);
	EXPECT_GT(t.bottom_up_levels, 0u);
	for (uint32_t max_depth : {1u, UINT32_MAX}) {
		expect_same(g.out, 0, max_depth, "star");
		expect_same(g.out, 123'456, max_depth, "star");
	}
}

TEST_F(GpuBfs, BroadTreeSpillsTheNarrowQueue) {
	// 100 children of the root with 100 children each: the third level fits the narrow kernel's
	// edge budget but not its shared-memory queue.
	EdgeList e;
	for (int64_t a = 1; a <= 100; a++) {
		e.append(0, a);
		for (int64_t b = 0; b < 100; b++)
			e.append(a, 1000 + a * 100 + b);
	}
	Graph g = Graph::from_edges(e);
	expect_same(g.out, 0, UINT32_MAX, "tree");
}

TEST_F(GpuBfs, DisconnectedPieces) {
	EdgeList e;
	for (int piece = 0; piece < 4; piece++) {
		EdgeList r = generate_rmat(10, 4, uint64_t(piece));
		for (size_t k = 0; k < r.size(); k++)
			e.append(r.source[k] + piece * 5000, r.target[k] + piece * 5000);
	}
	Graph g = Graph::from_edges(e);
	for (vid_t s = 0; s < g.vertex_count(); s += vid_t(g.vertex_count() / 9))
		expect_same(g.out, s, UINT32_MAX, "pieces");
}

TEST_F(GpuBfs, EmptyAndTinyGraphs) {
	EXPECT_THROW(bfs_gpu(Csr{}, 0), Error);
	Csr one = Csr::from_pairs(1, {0}, {0}, true);
	expect_same(one, 0, UINT32_MAX, "one vertex");
	EXPECT_THROW(bfs_gpu(one, 1), Error);
}

TEST_F(GpuBfs, DeepChains) {
	// Shuffled ids, a depth limit inside the chain, and a start in the middle.
	Graph shuffled = Graph::from_edges(shuffled_path(300'000, 5));
	for (uint32_t max_depth : {0u, 1u, 123'457u, UINT32_MAX})
		for (vid_t s : {vid_t(0), vid_t(150'000)})
			expect_same(shuffled.out, s, max_depth, "shuffled path");

	// A chain with a short side branch every 1,000 vertices: the walk stops at each fork, the block
	// runs the level, and the walk resumes.
	EdgeList combs = path(200'000);
	for (int64_t v = 0; v < 200'000; v += 1000) {
		combs.append(v, 1'000'000 + v);
		combs.append(1'000'000 + v, 2'000'000 + v);
	}
	Graph comb = Graph::from_edges(combs);
	expect_same(comb.out, 0, UINT32_MAX, "comb");
	expect_same(comb.out, 0, 5'000, "comb");

	// A chain ending in a hub: the narrow walk hands a million-edge frontier to the wide steps,
	// and the leaves point back into the chain (bottom-up levels over a sparse graph).
	EdgeList broom = path(100'000);
	for (int64_t leaf = 0; leaf < 1'000'000; leaf++) {
		broom.append(99'999, 200'000 + leaf);
		broom.append(200'000 + leaf, leaf % 100'000);
		broom.append(200'000 + leaf, 200'000 + (leaf * 7919) % 1'000'000);
	}
	Graph b = Graph::from_edges(broom);
	GpuBfsTimings t;
	bfs_gpu(b.out, 0, UINT32_MAX, &t);
	EXPECT_EQ(t.levels, 100'001u);
	for (uint32_t max_depth : {99'999u, 100'000u, 100'001u, UINT32_MAX})
		expect_same(b.out, 0, max_depth, "broom");
	expect_same(b.out, 99'998, UINT32_MAX, "broom");
}

TEST_F(GpuBfs, GraphsWithoutEdges) {
	Csr none = Csr::from_pairs(100'000, {}, {}, true);
	for (vid_t s : {vid_t(0), vid_t(99'999)})
		for (uint32_t max_depth : {0u, UINT32_MAX})
			expect_same(none, s, max_depth, "no edges");
	// Only self-loops, which from_pairs drops: the source alone.
	Csr loops = Csr::from_pairs(3, {0, 1, 2}, {0, 1, 2}, true);
	expect_same(loops, 1, UINT32_MAX, "self-loops");
}

TEST_F(GpuBfs, BottomUpLevelsAtEveryDepthLimit) {
	// Dense enough that the in-edges are built ahead and the middle levels pull; every depth limit
	// cuts the traversal at a different step (push, pull, the switch back), and the rows must still
	// be the CPU's, parents included.
	Graph g = Graph::from_edges(generate_rmat(18, 16, 3));
	vid_t hub = 0;
	for (vid_t v = 0; v < g.vertex_count(); v++)
		if (g.out.offsets[v + 1] - g.out.offsets[v] > g.out.offsets[hub + 1] - g.out.offsets[hub])
			hub = v;
	GpuBfsTimings t;
	bfs_gpu(g.out, hub, UINT32_MAX, &t);
	ASSERT_GT(t.bottom_up_levels, 0u);
	ASSERT_GT(t.levels, t.bottom_up_levels + 1) << "no top-down level after the bottom-up ones";
	for (uint32_t max_depth = 0; max_depth <= t.levels; max_depth++)
		expect_same(g.out, hub, max_depth, "rmat 18");
	// From an ordinary vertex, whose first levels are narrow.
	expect_same(g.out, vid_t(g.vertex_count() / 2), UINT32_MAX, "rmat 18");
}

// Long thin graphs: after many narrow levels the BFS builds a chain index and crosses chains in
// flight (bfs_chains.cuh). Each test checks that it did, and compares the rows with the CPU's
// around the depths where the index is built and where flights land.

TEST_F(GpuBfs, ChainsOfAShuffledPath) {
	Graph g = Graph::from_edges(shuffled_path(1'000'000, 9));
	vid_t head = head_of(g.out);
	GpuBfsTimings t = timings_of(g.out, head);
	EXPECT_EQ(t.chain_vertices, 999'998u); // all but the head (the source) and the tail (no out-edge)
	EXPECT_TRUE(has_step(t, "chains"));
	for (uint32_t max_depth : {4095u, 4096u, 4097u, 500'000u, 999'998u, 999'999u, UINT32_MAX})
		for (vid_t s : {head, vid_t(0), vid_t(777'777)})
			expect_same(g.out, s, max_depth, "shuffled path");
}

TEST_F(GpuBfs, ChainsWithLongSideBranches) {
	// A spine of 100,000 with a side chain of 1,000 + 37 k vertices every 2,000th vertex k: many
	// flights at once, landing at different levels, some past the depth limits below.
	Pairs edges;
	const vid_t spine = 100'000;
	add_chain(edges, 0, 1, spine - 1);
	vid_t next = spine;
	for (vid_t k = 0; k < spine; k += 2'000) {
		vid_t length = 1'000 + 37 * (k / 2'000);
		add_chain(edges, k, next, length);
		next += length;
	}
	Csr g = shapes::csr_of(next, edges);
	GpuBfsTimings t = timings_of(g, 0);
	EXPECT_GT(t.chain_vertices, 0u);
	for (uint32_t max_depth : {5'000u, 50'123u, 99'999u, UINT32_MAX})
		expect_same(g, 0, max_depth, "spine with side chains");
	expect_same(g, 40'000, UINT32_MAX, "spine with side chains");
}

TEST_F(GpuBfs, ChainsRacingOtherRoutes) {
	// Two chains A and B from the source, with edges between them every few thousand vertices,
	// a few positions ahead, behind or level: a flight's end is reached sooner by the other route,
	// later, or at the same depth (then the smaller parent wins, from either chain: the id blocks
	// of A and B are swapped in the second graph).
	const vid_t length = 60'000;
	for (bool a_first : {true, false}) {
		vid_t a = a_first ? 1 : 1 + length, b = a_first ? 1 + length : 1;
		Pairs edges;
		add_chain(edges, 0, a, length);
		add_chain(edges, 0, b, length);
		Rng rng(a_first ? 11 : 12);
		for (vid_t i = 3'000; i + 10 < length; i += 1'000 + vid_t(rng.below(3'000))) {
			vid_t j = i + vid_t(rng.below(11)) - 5;
			if (rng.below(2))
				edges.push_back({b + i, a + j});
			else
				edges.push_back({a + i, b + j});
		}
		Csr g = shapes::csr_of(1 + 2 * size_t(length), edges);
		EXPECT_GT(timings_of(g, 0).chain_vertices, 0u);
		for (uint32_t max_depth : {4'500u, 30'000u, UINT32_MAX})
			expect_same(g, 0, max_depth, a_first ? "racing chains" : "racing chains, B first");
		expect_same(g, a + 2'000, UINT32_MAX, "racing chains from A");
	}
}

TEST_F(GpuBfs, ChainsWithCycles) {
	// A ring through the source: every other vertex is a chain vertex, and the chain's end is the
	// source itself.
	const vid_t ring = 200'000;
	Pairs edges;
	for (vid_t v = 0; v < ring; v++)
		edges.push_back({v, (v + 1) % ring});
	Csr g = shapes::csr_of(ring, edges);
	EXPECT_EQ(timings_of(g, 0).chain_vertices, ring - 1);
	for (uint32_t max_depth : {10'000u, UINT32_MAX})
		for (vid_t s : {vid_t(0), vid_t(123'456)})
			expect_same(g, s, max_depth, "ring");

	// A path into a ring (whose entry has two in-edges), a ring nothing reaches (its chain
	// vertices are never ranked), and cycles along the path: every 1,000th vertex points 50 back.
	edges.clear();
	add_chain(edges, 0, 1, 99'999);
	for (vid_t v = 1'000; v < 100'000; v += 1'000)
		edges.push_back({v, v - 50});
	edges.push_back({99'999, 100'000});
	for (vid_t v = 100'000; v < 150'000; v++)
		edges.push_back({v, v + 1 < 150'000 ? v + 1 : 100'000});
	for (vid_t v = 150'000; v < 200'000; v++)
		edges.push_back({v, v + 1 < 200'000 ? v + 1 : 150'000});
	g = shapes::csr_of(200'000, edges);
	EXPECT_GT(timings_of(g, 0).chain_vertices, 0u);
	for (uint32_t max_depth : {99'999u, 120'000u, UINT32_MAX})
		expect_same(g, 0, max_depth, "path into a ring");
	expect_same(g, 160'000, UINT32_MAX, "unreached ring");
}

TEST_F(GpuBfs, ChainsWithSelfLoops) {
	// Self-loops kept in the CSR: a vertex with one is no chain vertex (two in-edges), so the
	// chains stop there; a vertex whose only edges are a self-loop is a chain by itself, a cycle.
	Pairs edges;
	const vid_t length = 100'000;
	add_chain(edges, 0, 1, length - 1);
	for (vid_t v = 997; v < length; v += 997)
		edges.push_back({v, v});
	edges.push_back({length, length});
	Csr g = shapes::csr_of(length + 1, edges);
	EXPECT_GT(timings_of(g, 0).chain_vertices, 0u);
	for (uint32_t max_depth : {50'000u, UINT32_MAX})
		expect_same(g, 0, max_depth, "path with self-loops");
	expect_same(g, length, UINT32_MAX, "a self-loop alone");
}

TEST_F(GpuBfs, ChainsMeetWideLevels) {
	// From the source, a long chain A and a shorter chain B that ends in a hub of 200,000 leaves:
	// B lands while A is in flight, the hub's level is too wide for the narrow kernel, and A's
	// flight lands back on the graph (its vertex at that level joins the wide frontier). The
	// leaves lead to one vertex that starts a third chain, crossed in flight again; A ends in a
	// vertex that the leaves also reach.
	const vid_t a = 1, a_length = 30'000, b = a + a_length, b_length = 8'000, hub = b + b_length;
	const vid_t leaves = hub + 1, leaf_count = 200'000, gate = leaves + leaf_count, c = gate + 1;
	const vid_t c_length = 20'000, meet = c + c_length;
	Pairs edges;
	add_chain(edges, 0, a, a_length);
	edges.push_back({a + a_length - 1, meet});
	add_chain(edges, 0, b, b_length);
	edges.push_back({b + b_length - 1, hub});
	for (vid_t k = 0; k < leaf_count; k++) {
		edges.push_back({hub, leaves + k});
		edges.push_back({leaves + k, gate});
	}
	add_chain(edges, gate, c, c_length);
	edges.push_back({c + c_length - 1, meet});
	Csr g = shapes::csr_of(meet + 1, edges);
	GpuBfsTimings t = timings_of(g, 0);
	EXPECT_GT(t.chain_vertices, 0u);
	EXPECT_TRUE(has_step(t, "push") || has_step(t, "pull"));
	for (uint32_t max_depth : {8'000u, 8'001u, 8'002u, 20'000u, UINT32_MAX})
		expect_same(g, 0, max_depth, "chains and a hub");
}

// The chain index at the smallest size that builds one, so that compute-sanitizer's racecheck (which
// serialises the narrow kernel's barriers) gets through it: scripts/gpu-sanitize.sh --filter
// '*SmallEnoughForRacecheck'. A spine past the probe's levels, a side chain that takes off from a
// chain vertex in flight, a self-loop that cuts the spine's chain in two, a depth limit mid-flight.
TEST_F(GpuBfs, ChainsSmallEnoughForRacecheck) {
	Pairs edges;
	const vid_t spine = 6'000, side = 700;
	add_chain(edges, 0, 1, spine - 1);
	add_chain(edges, 4'500, spine, side);
	edges.push_back({5'000, 5'000});
	Csr g = shapes::csr_of(spine + side, edges);
	EXPECT_GT(timings_of(g, 0).chain_vertices, 0u);
	for (uint32_t max_depth : {4'800u, UINT32_MAX})
		expect_same(g, 0, max_depth, "small spine with a side chain");
}

TEST_F(GpuBfs, DeepGridsBuildNoChainIndex) {
	// Thousands of narrow levels, but no vertex with one in-edge and one out-edge (a grid's
	// interior has two of each): the count is made, the index is not built.
	Graph g = Graph::from_edges(generate_grid(6'000, 2, false));
	GpuBfsTimings t = timings_of(g.out, 0);
	EXPECT_EQ(t.chain_vertices, 0u);
	EXPECT_TRUE(has_step(t, "chains"));
	expect_same(g.out, 0, UINT32_MAX, "grid 6000x2");
}
