// GPU chordless-cycle counts and enumeration against the CPU search (count_chordless_cycles() and
// ChordlessCycleEnumerator, themselves checked against a brute-force oracle in
// test_chordless.cpp) and the paper's Table 1. Labelled `gpu` in CTest; on a machine without a
// usable GPU every test reports skipped.
#include "chordless.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "gpu.hpp"
#include "gpu_test.hpp"
#include "graph.hpp"
#include "shapes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace grail;

namespace {

using GpuChordless = GpuTest;
using namespace shapes;

// A budget far below what any graph here needs: the GPU raises it to its minimum, one depth-first
// search, so that the stack's chunking and its one-path-at-a-time mode are both exercised.
constexpr size_t kTinyBudget = 1;
// Enough for the graphs here to run in large chunks, small enough that the larger ones also
// fill the stack and, when enumerating, the cycle buffer many times.
constexpr size_t kSmallBudget = size_t(4) << 20;

void
expect_same(const Csr &g, uint32_t max_length, const std::string &what, size_t budget = 0) {
	std::vector<uint64_t> cpu = count_chordless_cycles(g, max_length);
	std::vector<uint64_t> gpu = count_chordless_cycles_gpu(g, max_length, budget);
	EXPECT_EQ(gpu, cpu) << what << ", max_length " << max_length << ", budget " << budget;
}

using Cycle = std::vector<vid_t>;

// Every cycle of a batch-wise enumeration, sorted, after checking that the batches kept their
// bounds (one cycle past max_vertices at most).
template <typename Enumerator>
std::vector<Cycle>
drain(Enumerator &cycles, size_t max_cycles, size_t max_vertices, size_t longest) {
	std::vector<Cycle> all;
	CycleBatch batch;
	while (cycles.next(batch, max_cycles, max_vertices)) {
		EXPECT_LE(batch.size(), max_cycles);
		EXPECT_LT(batch.vertices.size(), max_vertices + longest);
		for (size_t i = 0; i < batch.size(); i++)
			all.emplace_back(batch.begin(i), batch.end(i));
	}
	EXPECT_EQ(batch.size(), 0u);
	std::sort(all.begin(), all.end());
	return all;
}

// The GPU enumeration equals the CPU one as a set, and reports no cycle twice.
void
expect_same_cycles(const Csr &g, const std::string &what, uint32_t min_length = 3, uint32_t max_length = kNoLengthLimit,
                   size_t budget = kSmallBudget, size_t max_cycles = 4096, size_t max_vertices = size_t(1) << 20) {
	ChordlessCycleEnumerator cpu(g, min_length, max_length);
	GpuChordlessCycleEnumerator gpu(g, min_length, max_length, budget);
	const size_t longest = std::max<size_t>(g.vertex_count(), 1);
	std::vector<Cycle> expected = drain(cpu, size_t(1) << 16, size_t(1) << 22, longest);
	std::vector<Cycle> got = drain(gpu, max_cycles, max_vertices, longest);
	EXPECT_TRUE(std::adjacent_find(got.begin(), got.end()) == got.end()) << what << ": a cycle reported twice";
	EXPECT_EQ(got.size(), expected.size()) << what << ", lengths " << min_length << ".." << max_length;
	EXPECT_TRUE(got == expected) << what << ", lengths " << min_length << ".." << max_length << ", budget " << budget;
}

Csr
cycle(vid_t n) {
	Pairs edges;
	for (vid_t i = 0; i < n; i++)
		edges.push_back({(i + 1) % n, i});
	return csr_of(n, edges);
}

Csr
petersen() {
	Pairs edges;
	for (vid_t i = 0; i < 5; i++) {
		edges.push_back({i, (i + 1) % 5});
		edges.push_back({i, i + 5});
		edges.push_back({i + 5, (i + 2) % 5 + 5});
	}
	return csr_of(10, edges);
}

} // namespace

TEST_F(GpuChordless, RandomGraphsMatchTheCpu) {
	for (uint64_t seed = 0; seed < 100; seed++) {
		Csr g = random_messy_csr(seed);
		std::string what = "random graph " + std::to_string(seed);
		expect_same(g, kNoLengthLimit, what, kSmallBudget);
		expect_same(g, 3 + uint32_t(seed % 6), what, kSmallBudget);
		// At the minimum budget the search expands one path per kernel launch (and host round
		// trip): on the sparse graphs, with up to millions of paths, that takes seconds each.
		if (seed % 5 == 0 && seed % 3 != 0)
			expect_same(g, kNoLengthLimit, what, kTinyBudget);
	}
}

// Table 1 of papers/gpu-chordless-cycles.txt.
TEST_F(GpuChordless, PaperGrids) {
	EXPECT_EQ(total(count_chordless_cycles_gpu(grid(4, 10))), 1823u);
	EXPECT_EQ(total(count_chordless_cycles_gpu(grid(5, 6))), 749u);
	EXPECT_EQ(total(count_chordless_cycles_gpu(grid(6, 6))), 3436u);
	EXPECT_EQ(total(count_chordless_cycles_gpu(grid(5, 10))), 52620u);
	EXPECT_EQ(total(count_chordless_cycles_gpu(grid(6, 10))), 800139u);
	EXPECT_EQ(total(count_chordless_cycles_gpu(grid(7, 10))), 8136453u);
	expect_same(grid(6, 10), kNoLengthLimit, "grid 6x10");
}

TEST_F(GpuChordless, CompleteBipartiteGraphs) {
	std::vector<uint64_t> k88 = count_chordless_cycles_gpu(complete_bipartite(8, 8));
	ASSERT_EQ(k88.size(), 5u);
	EXPECT_EQ(k88[4], 784u);
	EXPECT_EQ(total(k88), 784u);
	std::vector<uint64_t> k5050 = count_chordless_cycles_gpu(complete_bipartite(50, 50));
	ASSERT_EQ(k5050.size(), 5u);
	EXPECT_EQ(k5050[4], 1500625u);
	EXPECT_EQ(total(k5050), 1500625u);
}

TEST_F(GpuChordless, SmallShapes) {
	std::vector<uint64_t> p = count_chordless_cycles_gpu(petersen());
	ASSERT_EQ(p.size(), 7u);
	EXPECT_EQ(p[5], 12u);
	EXPECT_EQ(p[6], 10u);
	EXPECT_EQ(total(p), 22u);
	for (vid_t k : {4u, 5u, 10u, 100u}) {
		std::vector<uint64_t> w = count_chordless_cycles_gpu(wheel(k));
		ASSERT_EQ(w.size(), k + 1) << "wheel " << k;
		EXPECT_EQ(w[3], k);
		EXPECT_EQ(w[k], 1u);
		EXPECT_EQ(total(w), k + 1);
	}
	for (vid_t n : {3u, 4u, 5u, 17u, 100u, 1000u}) {
		std::vector<uint64_t> c = count_chordless_cycles_gpu(cycle(n));
		ASSERT_EQ(c.size(), n + 1) << "C_" << n;
		EXPECT_EQ(c[n], 1u);
		EXPECT_EQ(total(c), 1u);
		if (n > 3) {
			EXPECT_TRUE(count_chordless_cycles_gpu(cycle(n), n - 1).empty()) << "C_" << n;
		}
	}
	std::vector<uint64_t> k20 = count_chordless_cycles_gpu(complete(20));
	ASSERT_EQ(k20.size(), 4u);
	EXPECT_EQ(k20[3], 1140u);
	EXPECT_TRUE(count_chordless_cycles_gpu(Csr{}).empty());
	EXPECT_TRUE(count_chordless_cycles_gpu(csr_of(6, {{0, 1}, {0, 2}, {2, 3}, {2, 4}, {4, 5}, {5, 5}})).empty());
}

TEST_F(GpuChordless, LengthLimits) {
	for (uint32_t max_length : {3u, 4u, 5u, 8u, 12u, 20u}) {
		expect_same(grid(5, 6), max_length, "grid 5x6");
		expect_same(petersen(), max_length, "petersen");
		expect_same(wheel(10), max_length, "wheel 10");
		expect_same(complete_bipartite(8, 8), max_length, "K_8,8");
	}
}

// The path set stays within its budget: the minimum (one depth-first search) and a small one
// that forces many chunks give the CPU's counts.
TEST_F(GpuChordless, BoundedPathMemory) {
	for (size_t budget : {kTinyBudget, size_t(64) << 10, size_t(1) << 20}) {
		expect_same(grid(4, 10), kNoLengthLimit, "grid 4x10", budget);
		expect_same(grid(6, 6), kNoLengthLimit, "grid 6x6", budget);
		expect_same(complete_bipartite(8, 8), kNoLengthLimit, "K_8,8", budget);
		expect_same(wheel(100), kNoLengthLimit, "wheel 100", budget);
		expect_same(petersen(), 5, "petersen", budget);
	}
	expect_same(grid(5, 10), kNoLengthLimit, "grid 5x10", size_t(1) << 20);
}

TEST_F(GpuChordless, TooManyVerticesForTheBitmapIsACleanError) {
	Csr big = cycle(vid_t(kGpuChordlessMaxVertices + 1));
	try {
		count_chordless_cycles_gpu(big);
		FAIL() << "a graph above the bitmap limit was accepted";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::limit_exceeded);
		EXPECT_NE(std::string(e.what()).find(std::to_string(kGpuChordlessMaxVertices)), std::string::npos) << e.what();
	}
	// At the limit it works.
	std::vector<uint64_t> at_limit = count_chordless_cycles_gpu(cycle(vid_t(kGpuChordlessMaxVertices)));
	EXPECT_EQ(total(at_limit), 1u);
	EXPECT_THROW(count_chordless_cycles_gpu(grid(3, 3), 2), Error);
}

TEST_F(GpuChordless, EnumerationMatchesTheCpuOnRandomGraphs) {
	for (uint64_t seed = 0; seed < 100; seed++) {
		Csr g = random_messy_csr(seed);
		std::string what = "random graph " + std::to_string(seed);
		expect_same_cycles(g, what);
		uint32_t min_length = 3 + uint32_t(seed % 4);
		expect_same_cycles(g, what, min_length, min_length + uint32_t(seed / 4 % 4));
	}
}

// Table 1 of papers/gpu-chordless-cycles.txt, the grids that enumerate quickly on the CPU.
TEST_F(GpuChordless, EnumerationMatchesTheCpuOnPaperGrids) {
	expect_same_cycles(grid(4, 10), "grid 4x10");
	expect_same_cycles(grid(5, 6), "grid 5x6");
	expect_same_cycles(grid(6, 6), "grid 6x6");
	expect_same_cycles(grid(5, 10), "grid 5x10", 3, kNoLengthLimit, 0);
	expect_same_cycles(grid(6, 10), "grid 6x10", 3, kNoLengthLimit, 0, size_t(1) << 16);
	expect_same_cycles(grid(6, 10), "grid 6x10, lengths 10..14", 10, 14, size_t(8) << 20);
}

TEST_F(GpuChordless, EnumerationMatchesTheCpuOnShapes) {
	for (auto [m, n] : std::vector<std::pair<vid_t, vid_t>>{{2, 2}, {2, 5}, {3, 4}, {8, 8}})
		expect_same_cycles(complete_bipartite(m, n), "K_" + std::to_string(m) + "," + std::to_string(n));
	expect_same_cycles(complete_bipartite(50, 50), "K_50,50", 3, kNoLengthLimit, 0, size_t(1) << 16);
	for (vid_t k : {4u, 5u, 10u, 100u}) {
		expect_same_cycles(wheel(k), "wheel " + std::to_string(k));
		expect_same_cycles(wheel(k), "wheel " + std::to_string(k) + ", rim only", 4);
	}
	expect_same_cycles(petersen(), "petersen");
	expect_same_cycles(petersen(), "petersen, 6 only", 6, 6);
	for (vid_t n : {3u, 4u, 5u, 17u, 100u, 1000u})
		expect_same_cycles(cycle(n), "C_" + std::to_string(n));
	expect_same_cycles(complete(20), "K_20");
	expect_same_cycles(Csr{}, "empty graph");
	expect_same_cycles(csr_of(6, {{0, 1}, {0, 2}, {2, 3}, {2, 4}, {4, 5}, {5, 5}}), "tree");

	// The canonical form itself: from the smallest vertex towards its smaller neighbour.
	GpuChordlessCycleEnumerator c5(cycle(5));
	CycleBatch batch;
	ASSERT_TRUE(c5.next(batch, 10));
	ASSERT_EQ(batch.size(), 1u);
	EXPECT_EQ(Cycle(batch.begin(0), batch.end(0)), (Cycle{0, 1, 2, 3, 4}));
	EXPECT_FALSE(c5.next(batch, 10));
}

// Device memory stays within the budget: at the minimum (one depth-first search, a cycle buffer
// of one path's cycles) and at a small one, the cycles are downloaded many times and steps whose
// cycles overflow the buffer are redone, with the same set as the CPU.
TEST_F(GpuChordless, EnumerationInBoundedMemory) {
	for (size_t budget : {kTinyBudget, size_t(64) << 10}) {
		expect_same_cycles(grid(4, 10), "grid 4x10", 3, kNoLengthLimit, budget, 5, 40);
		expect_same_cycles(grid(6, 6), "grid 6x6", 3, kNoLengthLimit, budget);
		expect_same_cycles(complete_bipartite(8, 8), "K_8,8", 3, kNoLengthLimit, budget);
		expect_same_cycles(wheel(100), "wheel 100", 3, kNoLengthLimit, budget);
		expect_same_cycles(complete(20), "K_20", 3, kNoLengthLimit, budget);
	}
	GpuChordlessCycleEnumerator tiny(grid(5, 6), 3, kNoLengthLimit, kTinyBudget);
	EXPECT_EQ(drain(tiny, 100, size_t(1) << 20, 30).size(), 749u);
	EXPECT_GT(tiny.timings().downloads, 10u);
	expect_same_cycles(grid(5, 10), "grid 5x10", 3, kNoLengthLimit, size_t(1) << 20);
}

// Stopping early (SQL LIMIT) costs only what was asked for, and a new enumerator starts over.
TEST_F(GpuChordless, EnumerationStopsEarly) {
	Csr g = grid(8, 10); // 71.5 million cycles
	for (int run = 0; run < 2; run++) {
		GpuChordlessCycleEnumerator cycles(g, 12);
		CycleBatch batch;
		ASSERT_TRUE(cycles.next(batch, 3));
		ASSERT_EQ(batch.size(), 3u);
		for (size_t i = 0; i < 3; i++)
			EXPECT_GE(batch.end(i) - batch.begin(i), 12);
		EXPECT_LT(cycles.timings().search_ms, 1000.0);
	}
	EXPECT_THROW(GpuChordlessCycleEnumerator(g, 2), Error);
	EXPECT_THROW(GpuChordlessCycleEnumerator(g, 5, 4), Error);
}

TEST_F(GpuChordless, EnumerationRefusesTooManyVertices) {
	try {
		GpuChordlessCycleEnumerator big(cycle(vid_t(kGpuChordlessMaxVertices + 1)));
		FAIL() << "a graph above the bitmap limit was accepted";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::limit_exceeded);
	}
	expect_same_cycles(cycle(vid_t(kGpuChordlessMaxVertices)), "C_4096");
}

// The search keeps a path's bitmap in registers at 1, 2, 4 or 8 words (up to 256 vertices) and
// reads it from memory beyond: every width, and the sizes at its edges, against the CPU.
TEST_F(GpuChordless, EveryBitmapWidth) {
	for (vid_t n : {31u, 32u, 33u, 64u, 65u, 128u, 129u, 200u, 256u, 257u, 300u}) {
		std::string what = std::to_string(n) + " vertices";
		expect_same(wheel(n - 1), kNoLengthLimit, "wheel, " + what);
		expect_same_cycles(wheel(n - 1), "wheel, " + what);
		expect_same_cycles(cycle(n), "cycle, " + what, 3, kNoLengthLimit, kTinyBudget);
		Csr g = complete_bipartite(2, n - 2); // C(n - 2, 2) four-cycles
		expect_same(g, kNoLengthLimit, "K_2," + std::to_string(n - 2));
		expect_same_cycles(g, "K_2," + std::to_string(n - 2));
		expect_same_cycles(g, "K_2," + std::to_string(n - 2) + ", minimum budget", 3, kNoLengthLimit, kTinyBudget);
	}
}
