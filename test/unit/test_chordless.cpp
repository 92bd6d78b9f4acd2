#include "chordless.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "graph.hpp"
#include "shapes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

using namespace grail;

namespace {

using Cycle = std::vector<vid_t>;
using namespace shapes;

std::vector<Cycle>
enumerate(const Csr &g, uint32_t min_length = 3, uint32_t max_length = kNoLengthLimit, size_t batch_size = 1000) {
	ChordlessCycleEnumerator cycles(g, min_length, max_length);
	std::vector<Cycle> all;
	CycleBatch batch;
	while (cycles.next(batch, batch_size)) {
		EXPECT_LE(batch.size(), batch_size);
		for (size_t i = 0; i < batch.size(); i++)
			all.emplace_back(batch.begin(i), batch.end(i));
	}
	EXPECT_EQ(batch.size(), 0u);
	return all;
}

std::vector<uint64_t>
lengths_of(const std::vector<Cycle> &cycles) {
	std::vector<uint64_t> counts;
	for (const Cycle &c : cycles) {
		if (c.size() >= counts.size())
			counts.resize(c.size() + 1, 0);
		counts[c.size()]++;
	}
	return counts;
}

// Every induced cycle by brute force over vertex subsets: a subset induces a cycle iff it has at
// least 3 vertices, each with exactly two neighbours inside it, and is connected. Written out in
// the canonical orientation (smallest vertex, then its smaller neighbour).
std::set<Cycle>
oracle_cycles(size_t n, const std::vector<std::vector<bool>> &adjacent) {
	std::set<Cycle> found;
	for (uint32_t subset = 0; subset < (1u << n); subset++) {
		std::vector<vid_t> members;
		for (vid_t v = 0; v < n; v++)
			if (subset >> v & 1)
				members.push_back(v);
		if (members.size() < 3)
			continue;
		bool degrees_two = true;
		for (vid_t v : members) {
			int inside = 0;
			for (vid_t w : members)
				inside += adjacent[v][w];
			degrees_two = degrees_two && inside == 2;
		}
		if (!degrees_two)
			continue;
		// Walk from the smallest vertex towards its smaller neighbour; a 2-regular subset is one
		// cycle iff the walk returns after visiting all of it.
		Cycle walk{members[0]};
		vid_t previous = members[0], current = members[0];
		for (vid_t w : members)
			if (adjacent[members[0]][w]) {
				current = w;
				break;
			}
		while (current != members[0]) {
			walk.push_back(current);
			vid_t following = current;
			for (vid_t w : members)
				if (adjacent[current][w] && w != previous) {
					following = w;
					break;
				}
			previous = current;
			current = following;
		}
		if (walk.size() == members.size())
			found.insert(walk);
	}
	return found;
}

// Random small graph, given as messy directed input (random directions, both directions,
// self-loops, duplicates) and as the simple undirected adjacency matrix it stands for.
struct MessyGraph {
	size_t n;
	Csr directed;
	std::vector<std::vector<bool>> adjacent;
};

MessyGraph
random_messy_graph(uint64_t seed) {
	Rng rng(seed);
	MessyGraph g;
	g.n = 3 + rng.below(10); // 3..12 vertices
	uint64_t density = 10 + rng.below(80);
	Pairs edges = messy_edges(rng, g.n, density);
	g.adjacent.assign(g.n, std::vector<bool>(g.n, false));
	for (auto [a, b] : edges)
		if (a != b)
			g.adjacent[a][b] = g.adjacent[b][a] = true;
	g.directed = csr_of(g.n, edges);
	return g;
}

uint64_t
choose2(uint64_t n) {
	return n * (n - 1) / 2;
}

} // namespace

TEST(Chordless, UndirectedSimpleView) {
	Csr g = csr_of(4, {{0, 1}, {1, 0}, {1, 1}, {2, 1}, {2, 1}, {3, 0}});
	Csr u = undirected_simple(g);
	EXPECT_EQ(u.offsets, (std::vector<eid_t>{0, 2, 4, 5, 6}));
	EXPECT_EQ(u.targets, (std::vector<vid_t>{1, 3, 0, 2, 1, 0}));
}

TEST(Chordless, CycleGraphsHaveOneCycleInCanonicalOrder) {
	for (vid_t n : {3u, 4u, 5u, 17u, 100u}) {
		Pairs edges;
		for (vid_t i = 0; i < n; i++)
			edges.push_back({(i + 1) % n, i}); // against the canonical direction
		std::vector<Cycle> cycles = enumerate(csr_of(n, edges));
		ASSERT_EQ(cycles.size(), 1u) << "C_" << n;
		Cycle expected(n);
		for (vid_t i = 0; i < n; i++)
			expected[i] = i;
		EXPECT_EQ(cycles[0], expected);
	}
}

TEST(Chordless, TreesAndEmptyGraphsHaveNone) {
	EXPECT_TRUE(enumerate(Csr{}).empty());
	EXPECT_TRUE(enumerate(csr_of(1, {})).empty());
	EXPECT_TRUE(enumerate(csr_of(6, {{0, 1}, {0, 2}, {2, 3}, {2, 4}, {4, 5}, {5, 5}})).empty());
	EXPECT_TRUE(count_chordless_cycles(csr_of(3, {{0, 1}, {1, 2}})).empty());
}

TEST(Chordless, WheelsHaveTheirTrianglesAndTheRim) {
	for (vid_t k : {4u, 5u, 10u, 100u}) {
		std::vector<uint64_t> counts = count_chordless_cycles(wheel(k));
		ASSERT_EQ(counts.size(), k + 1) << "rim " << k;
		EXPECT_EQ(counts[3], k);
		EXPECT_EQ(counts[k], 1u);
		EXPECT_EQ(total(counts), k + 1);
		EXPECT_EQ(lengths_of(enumerate(wheel(k))), counts);
	}
}

TEST(Chordless, CompleteBipartiteGraphs) {
	for (auto [m, n] : std::vector<std::pair<vid_t, vid_t>>{{2, 2}, {2, 5}, {3, 4}, {8, 8}}) {
		std::vector<Cycle> cycles = enumerate(complete_bipartite(m, n));
		EXPECT_EQ(cycles.size(), choose2(m) * choose2(n)) << "K_" << m << "," << n;
		for (const Cycle &c : cycles)
			EXPECT_EQ(c.size(), 4u);
	}
	EXPECT_EQ(enumerate(complete_bipartite(8, 8)).size(), 784u); // Table 1
}

TEST(Chordless, CompleteGraphsHaveOnlyTriangles) {
	for (vid_t n : {3u, 4u, 7u, 20u}) {
		std::vector<uint64_t> counts = count_chordless_cycles(complete(n));
		ASSERT_EQ(counts.size(), 4u) << "K_" << n;
		EXPECT_EQ(counts[3], uint64_t(n) * (n - 1) * (n - 2) / 6);
	}
}

TEST(Chordless, PetersenGraph) {
	Pairs edges;
	for (vid_t i = 0; i < 5; i++) {
		edges.push_back({i, (i + 1) % 5});         // outer 5-cycle
		edges.push_back({i, i + 5});               // spokes
		edges.push_back({i + 5, (i + 2) % 5 + 5}); // inner pentagram
	}
	std::vector<Cycle> cycles = enumerate(csr_of(10, edges));
	std::vector<uint64_t> counts = lengths_of(cycles);
	ASSERT_EQ(counts.size(), 7u);
	EXPECT_EQ(counts[5], 12u);
	EXPECT_EQ(counts[6], 10u);
	EXPECT_EQ(total(counts), 22u);
	EXPECT_EQ(count_chordless_cycles(csr_of(10, edges)), counts);
	EXPECT_EQ((std::set<Cycle>(cycles.begin(), cycles.end()).size()), 22u);
}

// Table 1 of papers/gpu-chordless-cycles.txt.
TEST(Chordless, PaperGridsEnumerated) {
	EXPECT_EQ(enumerate(grid(4, 10)).size(), 1823u);
	EXPECT_EQ(enumerate(grid(5, 6)).size(), 749u);
	EXPECT_EQ(enumerate(grid(6, 6)).size(), 3436u);
	EXPECT_EQ(enumerate(grid(5, 10)).size(), 52620u);
	EXPECT_EQ(enumerate(grid(6, 10)).size(), 800139u);
}

TEST(Chordless, PaperGridsCounted) {
	EXPECT_EQ(total(count_chordless_cycles(grid(5, 10))), 52620u);
	EXPECT_EQ(total(count_chordless_cycles(grid(6, 10))), 800139u);
	EXPECT_EQ(total(count_chordless_cycles(grid(7, 10))), 8136453u);
	EXPECT_EQ(total(count_chordless_cycles(complete_bipartite(50, 50))), 1500625u);
}

TEST(Chordless, RandomGraphsMatchTheBruteForceOracle) {
	size_t cycles_checked = 0;
	for (uint64_t seed = 0; seed < 2000; seed++) {
		MessyGraph g = random_messy_graph(seed);
		std::set<Cycle> expected = oracle_cycles(g.n, g.adjacent);
		cycles_checked += expected.size();
		std::vector<Cycle> got = enumerate(g.directed, 3, kNoLengthLimit, 1 + seed % 5);
		std::set<Cycle> got_set(got.begin(), got.end());
		ASSERT_EQ(got_set.size(), got.size()) << "seed " << seed << ": a cycle was reported twice";
		ASSERT_EQ(got_set, expected) << "seed " << seed << ", " << g.n << " vertices";
		EXPECT_EQ(count_chordless_cycles(g.directed), lengths_of(got)) << "seed " << seed;
	}
	EXPECT_GT(cycles_checked, 20000u); // the shapes are not trivially acyclic
}

TEST(Chordless, LengthFiltersMatchTheOracle) {
	for (uint64_t seed = 1000; seed < 1100; seed++) {
		MessyGraph g = random_messy_graph(seed);
		std::set<Cycle> all = oracle_cycles(g.n, g.adjacent);
		uint32_t min_length = 3 + uint32_t(seed % 4), max_length = min_length + uint32_t(seed / 4 % 4);
		std::set<Cycle> expected;
		for (const Cycle &c : all)
			if (c.size() >= min_length && c.size() <= max_length)
				expected.insert(c);
		std::vector<Cycle> got = enumerate(g.directed, min_length, max_length);
		EXPECT_EQ(std::set<Cycle>(got.begin(), got.end()), expected)
		    << "seed " << seed << " lengths " << min_length << ".." << max_length;
		std::vector<uint64_t> counts = count_chordless_cycles(g.directed, max_length);
		std::vector<uint64_t> expected_counts = lengths_of(std::vector<Cycle>(all.begin(), all.end()));
		if (expected_counts.size() > max_length + 1)
			expected_counts.resize(max_length + 1);
		while (!expected_counts.empty() && expected_counts.back() == 0)
			expected_counts.pop_back();
		EXPECT_EQ(counts, expected_counts) << "seed " << seed << " max_length " << max_length;
	}
}

TEST(Chordless, DirectionSelfLoopsAndDuplicatesChangeNothing) {
	for (uint64_t seed = 2000; seed < 2050; seed++) {
		MessyGraph g = random_messy_graph(seed);
		Pairs simple;
		for (vid_t a = 0; a < g.n; a++)
			for (vid_t b = a + 1; b < g.n; b++)
				if (g.adjacent[a][b])
					simple.push_back({a, b});
		EXPECT_EQ(enumerate(g.directed), enumerate(csr_of(g.n, simple))) << "seed " << seed;
	}
}

TEST(Chordless, BatchesAreBoundedAndResumable) {
	Csr g = grid(4, 10);
	std::vector<Cycle> whole = enumerate(g);
	ChordlessCycleEnumerator cycles(g);
	CycleBatch batch;
	std::vector<Cycle> pieces;
	while (cycles.next(batch, 1000, 50)) {
		// Stops after the cycle that reaches 50 vertices: at most 49 + the longest cycle (40).
		EXPECT_LT(batch.vertices.size(), 49u + 40u);
		for (size_t i = 0; i < batch.size(); i++)
			pieces.emplace_back(batch.begin(i), batch.end(i));
	}
	EXPECT_EQ(pieces, whole);
	EXPECT_FALSE(cycles.next(batch, 10));

	// Stopping early leaves nothing to clean up but the enumerator itself.
	ChordlessCycleEnumerator early(g);
	ASSERT_TRUE(early.next(batch, 3));
	EXPECT_EQ(batch.size(), 3u);
	EXPECT_THROW(early.next(batch, 0), Error);
}

TEST(Chordless, BadLengthsAreRejected) {
	Csr g = complete(4);
	EXPECT_THROW(ChordlessCycleEnumerator cycles(g, 2), Error);
	EXPECT_THROW(ChordlessCycleEnumerator cycles(g, 5, 4), Error);
	EXPECT_THROW(count_chordless_cycles(g, 2), Error);
}

// Progress: start vertices done never go back, stay within the vertex count, reach it at the end;
// batches of one cycle each give the same cycles as one batch (the glue's first batches).
TEST(Chordless, ProgressAdvancesToTheVertexCount) {
	for (uint64_t seed = 0; seed < 30; seed++) {
		MessyGraph m = random_messy_graph(seed);
		std::vector<Cycle> whole = enumerate(m.directed);
		ChordlessCycleEnumerator cycles(m.directed);
		uint64_t last = 0, total = 0, calls = 0;
		bool backwards = false;
		cycles.on_progress([&](uint64_t done, uint64_t n) {
			backwards = backwards || done < last || done > n;
			last = done;
			total = n;
			calls++;
		});
		CycleBatch batch;
		std::vector<Cycle> pieces;
		while (cycles.next(batch, 1)) {
			ASSERT_EQ(batch.size(), 1u);
			pieces.emplace_back(batch.begin(0), batch.end(0));
		}
		EXPECT_EQ(pieces, whole) << "seed " << seed;
		EXPECT_FALSE(backwards) << "seed " << seed;
		EXPECT_EQ(total, m.directed.vertex_count()) << "seed " << seed;
		EXPECT_EQ(last, total) << "seed " << seed;
		EXPECT_GT(calls, 0u);
	}
}
