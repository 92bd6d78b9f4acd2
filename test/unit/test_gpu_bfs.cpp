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

#include <gtest/gtest.h>

#include <string>

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
