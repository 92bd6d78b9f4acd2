// GpuGraph, the CSR uploaded once and searched many times (the GPU service's resident images):
// every search equals the CPU bfs() over the graph or its reverse, rows in order with parents,
// whatever searches came before on the same copy, and the in-edges appear in device_bytes() once a
// search built them. Labelled `gpu` in CTest; without a usable GPU every test reports skipped.
#include "bfs.hpp"
#include "generate.hpp"
#include "gpu.hpp"
#include "gpu_test.hpp"
#include "oracle.hpp"
#include "rng.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace grail;

namespace {

using GpuGraphTest = GpuTest;

void
expect_rows(const BfsResult &want, const BfsResult &got, const std::string &where) {
	ASSERT_EQ(want.vertex.size(), got.vertex.size()) << where;
	EXPECT_EQ(want.vertex, got.vertex) << where;
	EXPECT_EQ(want.depth, got.depth) << where;
	EXPECT_EQ(want.parent, got.parent) << where;
}

// Searches from several sources in both directions, interleaved, on one resident copy.
void
check_graph(const Graph &g, const std::string &what) {
	Csr in = g.out.reversed();
	GpuGraph device(g.out);
	size_t out_bytes = device.device_bytes();
	EXPECT_GT(out_bytes, 0u) << what;
	EXPECT_FALSE(device.has_in_edges()) << what;
	size_t n = g.vertex_count();
	for (int round = 0; round < 2; round++)
		for (vid_t s : {vid_t(0), vid_t(n / 3), vid_t(n - 1)})
			for (bool reverse : {false, true})
				for (uint32_t max_depth : {0u, 2u, UINT32_MAX}) {
					std::string where = what + ", source " + std::to_string(s) + (reverse ? " in" : " out") +
					                    ", max_depth " + std::to_string(max_depth);
					expect_rows(bfs(reverse ? in : g.out, s, max_depth), device.bfs(s, max_depth, reverse), where);
				}
	EXPECT_TRUE(device.has_in_edges()) << what;
	EXPECT_EQ(device.device_bytes(), 2 * out_bytes) << what;
	EXPECT_THROW(device.bfs(vid_t(n), 1, false), Error);
}

} // namespace

TEST_F(GpuGraphTest, RandomGraphsBothDirections) {
	for (uint64_t seed = 0; seed < 60; seed++) {
		Graph g = Graph::from_edges(grail_test::random_graph(seed).edges);
		if (g.vertex_count() == 0)
			continue;
		check_graph(g, "random graph " + std::to_string(seed));
	}
}

TEST_F(GpuGraphTest, RmatPullsOverTheResidentInEdges) {
	for (unsigned scale : {12u, 18u}) {
		Graph g = Graph::from_edges(generate_rmat(scale, 16, 3));
		check_graph(g, "rmat " + std::to_string(scale));
		// A forward search that pulls builds the in-edges once, and a reverse search then uses them.
		GpuGraph device(g.out);
		expect_rows(bfs(g.out, 0), device.bfs(0, UINT32_MAX, false), "rmat forward");
		Csr in = g.out.reversed();
		expect_rows(bfs(in, 0), device.bfs(0, UINT32_MAX, true), "rmat reverse");
	}
}

TEST_F(GpuGraphTest, PathsAndStars) {
	EdgeList path, star;
	for (int64_t v = 0; v < 200000; v++)
		path.append(v, v + 1);
	for (int64_t v = 1; v < 100000; v++)
		star.append(0, v);
	check_graph(Graph::from_edges(path), "path");
	check_graph(Graph::from_edges(star), "star");
}
