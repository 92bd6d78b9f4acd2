// Tests of the deterministic graph generators (src/core/generate.cpp): sizes, id ranges, the
// structural promise of each generator (acyclic, skewed, grid-shaped) and determinism, including
// pinned fingerprints so that a change of the edge stream (which would silently change every
// benchmark and every test graph) is noticed.
#include "error.hpp"
#include "generate.hpp"
#include "topo_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>
#include <vector>

using namespace grail;

namespace {

// Kahn's algorithm (topo_order.hpp) over ids 0..n-1: the number of vertices removed in topological order; equals
// n exactly when the graph is acyclic. Self-loops count as cycles. Also gives the longest path
// length (in edges) when acyclic.
struct KahnResult {
	uint64_t removed;
	uint64_t longest_path;
};

KahnResult
kahn(uint64_t n, const EdgeList &edges) {
	std::vector<std::vector<uint32_t>> out(n);
	for (size_t i = 0; i < edges.size(); i++)
		out[uint64_t(edges.source[i])].push_back(uint32_t(edges.target[i]));
	std::vector<uint32_t> order = topological_order(n, [&](uint32_t v, auto &&visit) {
		for (uint32_t w : out[v])
			visit(w);
	});
	KahnResult r{order.size(), 0};
	std::vector<uint64_t> depth(n, 0);
	for (uint32_t v : order) {
		r.longest_path = std::max(r.longest_path, depth[v]);
		for (uint32_t w : out[v])
			depth[w] = std::max(depth[w], depth[v] + 1);
	}
	return r;
}

void
expect_ids_in_range(const EdgeList &edges, int64_t n) {
	ASSERT_EQ(edges.source.size(), edges.target.size());
	for (size_t i = 0; i < edges.size(); i++) {
		ASSERT_GE(edges.source[i], 0) << "edge " << i;
		ASSERT_LT(edges.source[i], n) << "edge " << i;
		ASSERT_GE(edges.target[i], 0) << "edge " << i;
		ASSERT_LT(edges.target[i], n) << "edge " << i;
	}
}

bool
same_edges(const EdgeList &x, const EdgeList &y) {
	return x.source == y.source && x.target == y.target;
}

// FNV-1a over the edge stream, in order.
uint64_t
fingerprint(const EdgeList &edges) {
	uint64_t h = 0xcbf29ce484222325ull;
	auto mix = [&h](int64_t v) {
		uint64_t u = uint64_t(v);
		for (int i = 0; i < 8; i++) {
			h ^= (u >> (8 * i)) & 0xff;
			h *= 0x100000001b3ull;
		}
	};
	for (size_t i = 0; i < edges.size(); i++) {
		mix(edges.source[i]);
		mix(edges.target[i]);
	}
	return h;
}

std::vector<uint64_t>
out_degrees(uint64_t n, const EdgeList &edges) {
	std::vector<uint64_t> deg(n, 0);
	for (int64_t s : edges.source)
		deg[uint64_t(s)]++;
	return deg;
}

int
popcount(uint64_t x) {
	int c = 0;
	for (; x; x &= x - 1)
		c++;
	return c;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Random DAG

TEST(GenerateDag, SizeAndIdRange) {
	EdgeList e = generate_random_dag(1000, 5.0, 42);
	EXPECT_EQ(e.size(), 5000u);
	expect_ids_in_range(e, 1000);
	// Fractional degrees round to the nearest edge count.
	EXPECT_EQ(generate_random_dag(10, 2.5, 1).size(), 25u);
	EXPECT_EQ(generate_random_dag(3, 0.4, 1).size(), 1u);
	EXPECT_EQ(generate_random_dag(7, 0.0, 1).size(), 0u);
	EXPECT_EQ(generate_random_dag(0, 5.0, 1).size(), 0u);
}

TEST(GenerateDag, NoSelfLoopsAndAcyclic) {
	struct Case {
		uint64_t n;
		double degree;
	};
	for (Case c : {Case{2, 3.0}, Case{3, 10.0}, Case{50, 20.0}, Case{1000, 5.0}, Case{20000, 2.0}}) {
		for (uint64_t seed : {1u, 2u, 3u}) {
			EdgeList e = generate_random_dag(c.n, c.degree, seed);
			for (size_t i = 0; i < e.size(); i++)
				ASSERT_NE(e.source[i], e.target[i]) << "self-loop n=" << c.n << " seed=" << seed;
			KahnResult k = kahn(c.n, e);
			EXPECT_EQ(k.removed, c.n) << "cycle in DAG n=" << c.n << " degree=" << c.degree << " seed=" << seed;
		}
	}
}

TEST(GenerateDag, Deterministic) {
	EdgeList a = generate_random_dag(5000, 4.0, 7);
	EdgeList b = generate_random_dag(5000, 4.0, 7);
	EdgeList c = generate_random_dag(5000, 4.0, 8);
	EXPECT_TRUE(same_edges(a, b));
	EXPECT_FALSE(same_edges(a, c));
	// Different seeds differ almost everywhere, not in one edge.
	size_t equal = 0;
	for (size_t i = 0; i < a.size(); i++)
		equal += a.source[i] == c.source[i] && a.target[i] == c.target[i];
	EXPECT_LT(equal, a.size() / 100);
}

// Pinned edge streams: a change here changes every benchmark graph. If the change is intended,
// update the constants and say so in the commit message.
TEST(GenerateDag, PinnedFingerprint) {
	EdgeList e = generate_random_dag(1000, 3.0, 1);
	EXPECT_EQ(fingerprint(e), 0x124366f41f200df0ull) << std::hex << fingerprint(e);
}

// The topological order is a random permutation: ids must not be in topological order (then
// every edge would go from a smaller to a larger id), and each vertex takes part.
TEST(GenerateDag, IdsShuffledAndVerticesCovered) {
	const uint64_t n = 20000;
	EdgeList e = generate_random_dag(n, 5.0, 3);
	size_t ascending = 0;
	for (size_t i = 0; i < e.size(); i++)
		ascending += e.source[i] < e.target[i];
	double frac = double(ascending) / double(e.size());
	EXPECT_GT(frac, 0.45);
	EXPECT_LT(frac, 0.55);
	std::vector<char> seen(n, 0);
	for (size_t i = 0; i < e.size(); i++)
		seen[uint64_t(e.source[i])] = seen[uint64_t(e.target[i])] = 1;
	size_t covered = size_t(std::count(seen.begin(), seen.end(), 1));
	// About e^-5 / 6 = 0.1% of the vertices get no edge.
	EXPECT_GT(covered, n * 995 / 1000);
}

// Edges pick the tail uniformly: out-degrees average avg_degree and are spread over (almost) all
// vertices, not concentrated; heads are uniform among the later positions, so paths chain many
// short hops near the end of the order: a deep DAG (longest path 85 edges for this seed, while a
// few-layer random DAG of the same density, the wrong kind of graph for GRAIL, has a handful).
TEST(GenerateDag, DegreeAndDepth) {
	const uint64_t n = 20000;
	EdgeList e = generate_random_dag(n, 5.0, 11);
	std::vector<uint64_t> deg = out_degrees(n, e);
	uint64_t max_deg = *std::max_element(deg.begin(), deg.end());
	EXPECT_LT(max_deg, 25u); // binomial(1e5, 1/n): mean 5, a max of 25 is astronomically unlikely
	size_t zero = size_t(std::count(deg.begin(), deg.end(), 0));
	EXPECT_LT(zero, n / 50); // e^-5 = 0.7% have no out-edge
	KahnResult k = kahn(n, e);
	ASSERT_EQ(k.removed, n);
	EXPECT_GT(k.longest_path, 50u);
}

TEST(GenerateDag, RejectsBadArguments) {
	EXPECT_THROW(generate_random_dag(10, -1.0, 1), Error);
	EXPECT_THROW(generate_random_dag(10, std::nan(""), 1), Error);
	EXPECT_THROW(generate_random_dag(10, std::numeric_limits<double>::infinity(), 1), Error);
	EXPECT_THROW(generate_random_dag(1, 1.0, 1), Error);                 // no edge possible
	EXPECT_THROW(generate_random_dag(uint64_t(1) << 33, 1.0, 1), Error); // > 2^32 vertices
	EXPECT_NO_THROW(generate_random_dag(1, 0.0, 1));
}

// ---------------------------------------------------------------------------------------------
// R-MAT

TEST(GenerateRmat, SizeAndIdRange) {
	EdgeList e = generate_rmat(10, 8, 5);
	EXPECT_EQ(e.size(), 8u * 1024u);
	expect_ids_in_range(e, 1024);
	EXPECT_EQ(generate_rmat(0, 3, 5).size(), 3u); // one vertex: three self-loops
	EXPECT_EQ(generate_rmat(4, 0, 5).size(), 0u);
}

TEST(GenerateRmat, Deterministic) {
	EXPECT_TRUE(same_edges(generate_rmat(12, 4, 9), generate_rmat(12, 4, 9)));
	EXPECT_FALSE(same_edges(generate_rmat(12, 4, 9), generate_rmat(12, 4, 10)));
}

TEST(GenerateRmat, PinnedFingerprint) {
	EdgeList e = generate_rmat(8, 4, 1);
	EXPECT_EQ(fingerprint(e), 0xbc4b3af704436b22ull) << std::hex << fingerprint(e);
}

// R-MAT's point is a heavy-tailed degree distribution: a few hubs hold a large share of the
// edges. A uniform random graph of the same size has its top 1% of vertices holding ~2.5% of the
// edges and a maximum degree of ~30.
TEST(GenerateRmat, SkewedDegrees) {
	const unsigned scale = 14;
	const uint64_t n = uint64_t(1) << scale;
	EdgeList e = generate_rmat(scale, 16, 3);
	for (bool use_source : {true, false}) {
		std::vector<uint64_t> deg(n, 0);
		for (size_t i = 0; i < e.size(); i++)
			deg[uint64_t(use_source ? e.source[i] : e.target[i])]++;
		std::sort(deg.rbegin(), deg.rend());
		uint64_t top = 0;
		for (uint64_t i = 0; i < n / 100; i++)
			top += deg[i];
		double share = double(top) / double(e.size());
		EXPECT_GT(share, 0.25) << (use_source ? "out" : "in") << "-degree top 1% share";
		EXPECT_GT(deg[0], 50u * 16u) << "max degree should be a hub, ~50x the mean or more";
		size_t isolated = size_t(std::count(deg.begin(), deg.end(), 0));
		EXPECT_GT(isolated, n / 10) << "R-MAT leaves many vertices without out- (in-) edges";
	}
}

// Ids are permuted: in raw R-MAT the hubs are the ids with few one bits (vertex 0 first); after
// the permutation the hubs' ids look like random numbers.
TEST(GenerateRmat, IdsPermuted) {
	const unsigned scale = 14;
	const uint64_t n = uint64_t(1) << scale;
	EdgeList e = generate_rmat(scale, 16, 4);
	std::vector<uint64_t> deg = out_degrees(n, e);
	std::vector<uint64_t> ids(n);
	for (uint64_t v = 0; v < n; v++)
		ids[v] = v;
	std::sort(ids.begin(), ids.end(), [&](uint64_t x, uint64_t y) { return deg[x] > deg[y]; });
	double bits = 0;
	const uint64_t top = 128;
	for (uint64_t i = 0; i < top; i++)
		bits += popcount(ids[i]);
	double mean_bits = bits / double(top);
	EXPECT_GT(mean_bits, 0.4 * scale); // raw R-MAT: well under 0.25 * scale
	EXPECT_LT(mean_bits, 0.6 * scale);
}

// Self-loops and duplicate edges are kept, as an edge table would have them.
TEST(GenerateRmat, KeepsSelfLoopsAndDuplicates) {
	EdgeList e = generate_rmat(6, 16, 2);
	size_t loops = 0;
	std::set<std::pair<int64_t, int64_t>> distinct;
	for (size_t i = 0; i < e.size(); i++) {
		loops += e.source[i] == e.target[i];
		distinct.insert({e.source[i], e.target[i]});
	}
	EXPECT_GT(loops, 0u);
	EXPECT_LT(distinct.size(), e.size());
}

TEST(GenerateRmat, RejectsBadArguments) {
	EXPECT_THROW(generate_rmat(32, 1, 1), Error);
	EXPECT_NO_THROW(generate_rmat(1, 1, 1));
}

// ---------------------------------------------------------------------------------------------
// Grid

TEST(GenerateGrid, ExactEdges) {
	const uint64_t rows = 3, cols = 4;
	EdgeList e = generate_grid(rows, cols, false);
	ASSERT_EQ(e.size(), rows * (cols - 1) + (rows - 1) * cols); // 17
	expect_ids_in_range(e, int64_t(rows * cols));
	std::multiset<std::pair<int64_t, int64_t>> got, want;
	for (size_t i = 0; i < e.size(); i++)
		got.insert({e.source[i], e.target[i]});
	for (uint64_t r = 0; r < rows; r++)
		for (uint64_t c = 0; c < cols; c++) {
			int64_t v = int64_t(r * cols + c);
			if (c + 1 < cols)
				want.insert({v, v + 1});
			if (r + 1 < rows)
				want.insert({v, v + int64_t(cols)});
		}
	EXPECT_EQ(got, want);
	// First edges in the documented order: (0,0) right, (0,0) down, (0,1) right, ...
	EXPECT_EQ(e.source[0], 0);
	EXPECT_EQ(e.target[0], 1);
	EXPECT_EQ(e.source[1], 0);
	EXPECT_EQ(e.target[1], 4);
}

TEST(GenerateGrid, IsDagWithLongestPath) {
	const uint64_t rows = 30, cols = 17;
	EdgeList e = generate_grid(rows, cols, false);
	KahnResult k = kahn(rows * cols, e);
	EXPECT_EQ(k.removed, rows * cols);
	EXPECT_EQ(k.longest_path, rows + cols - 2);
}

TEST(GenerateGrid, BothDirectionsIsOneScc) {
	const uint64_t rows = 5, cols = 7, n = rows * cols;
	EdgeList e = generate_grid(rows, cols, true);
	ASSERT_EQ(e.size(), 2 * (rows * (cols - 1) + (rows - 1) * cols));
	expect_ids_in_range(e, int64_t(n));
	std::multiset<std::pair<int64_t, int64_t>> all;
	for (size_t i = 0; i < e.size(); i++)
		all.insert({e.source[i], e.target[i]});
	for (const auto &p : all)
		EXPECT_EQ(all.count({p.second, p.first}), 1u) << p.first << "->" << p.second << " has no reverse";
	// One SCC: everything reachable from 0 (and, edges being symmetric, 0 from everything).
	std::vector<std::vector<int64_t>> adj(n);
	for (size_t i = 0; i < e.size(); i++)
		adj[uint64_t(e.source[i])].push_back(e.target[i]);
	std::vector<char> seen(n, 0);
	std::vector<int64_t> stack{0};
	seen[0] = 1;
	while (!stack.empty()) {
		int64_t v = stack.back();
		stack.pop_back();
		for (int64_t w : adj[uint64_t(v)])
			if (!seen[uint64_t(w)]) {
				seen[uint64_t(w)] = 1;
				stack.push_back(w);
			}
	}
	EXPECT_EQ(size_t(std::count(seen.begin(), seen.end(), 1)), n);
	EXPECT_LT(kahn(n, e).removed, n);
}

TEST(GenerateGrid, Degenerate) {
	EXPECT_EQ(generate_grid(0, 5, false).size(), 0u);
	EXPECT_EQ(generate_grid(5, 0, true).size(), 0u);
	EXPECT_EQ(generate_grid(1, 1, true).size(), 0u);
	EdgeList path = generate_grid(1, 6, false);
	ASSERT_EQ(path.size(), 5u);
	for (size_t i = 0; i < path.size(); i++) {
		EXPECT_EQ(path.source[i], int64_t(i));
		EXPECT_EQ(path.target[i], int64_t(i + 1));
	}
	EXPECT_EQ(generate_grid(6, 1, false).size(), 5u);
	EXPECT_THROW(generate_grid(uint64_t(1) << 20, uint64_t(1) << 20, false), Error);
}
