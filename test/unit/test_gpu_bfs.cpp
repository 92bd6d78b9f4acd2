// GPU BFS against the CPU bfs(): the rows must be identical, order and parents included. Labelled
// `gpu` in CTest; on a machine without a usable GPU every test reports skipped.
#include "bfs.hpp"
#include "device.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "gpu_test.hpp"
#include "gpu.hpp"
#include "oracle.hpp"

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
	// Both directions: from a leaf, the centre is at depth 1 and every other leaf at depth 2.
	EdgeList e;
	for (int64_t leaf = 1; leaf <= 1'000'000; leaf++) {
		e.append(0, leaf);
		e.append(leaf, 0);
	}
	Graph g = Graph::from_edges(e);
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
