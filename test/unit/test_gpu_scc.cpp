// GPU SCC against the CPU strongly_connected_components(): the same partition, the same smallest
// vertex for every vertex's component (what SQL reports), and a numbering that is a topological
// order of the condensation (the contract; the GPU's need not equal Tarjan's DFS order). Labelled
// `gpu` in CTest; on a machine without a usable GPU every test reports skipped.
#include "device.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "gpu_test.hpp"
#include "gpu.hpp"
#include "oracle.hpp"
#include "scc.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

using namespace grail;

namespace {

using GpuScc = GpuTest;

// Compares with the CPU and checks the contract; reports the first difference, not millions.
GpuSccTimings
expect_same(const Csr &graph, const std::string &what) {
	Components cpu = strongly_connected_components(graph);
	GpuSccTimings t;
	Components gpu = strongly_connected_components_gpu(graph, &t);
	size_t n = graph.vertex_count();
	EXPECT_EQ(cpu.count(), gpu.count()) << what;
	if (gpu.of_vertex.size() != n || cpu.count() != gpu.count()) {
		ADD_FAILURE() << what << ": " << gpu.of_vertex.size() << " labels for " << n << " vertices";
		return t;
	}
	for (size_t v = 0; v < n; v++) {
		uint32_t c = gpu.of_vertex[v];
		if (c >= gpu.count()) {
			ADD_FAILURE() << what << ": vertex " << v << " has component " << c << " of " << gpu.count();
			return t;
		}
		vid_t expected = cpu.smallest_vertex[cpu.of_vertex[v]];
		if (gpu.smallest_vertex[c] != expected) {
			ADD_FAILURE() << what << ": vertex " << v << " smallest member cpu " << expected << " gpu "
			              << gpu.smallest_vertex[c];
			return t;
		}
	}
	// Equal smallest members per vertex and equal counts give the same partition; the numbering
	// must be topological.
	for (size_t v = 0; v < n; v++)
		for (const vid_t *w = graph.begin(vid_t(v)); w != graph.end(vid_t(v)); w++)
			if (gpu.of_vertex[v] > gpu.of_vertex[*w]) {
				ADD_FAILURE() << what << ": edge " << v << " -> " << *w << " goes from component " << gpu.of_vertex[v]
				              << " back to " << gpu.of_vertex[*w];
				return t;
			}
	return t;
}

// A CSR that keeps self-loops and duplicate edges, as a table may hold them.
Csr
raw_csr(size_t n, const EdgeList &e) {
	std::vector<vid_t> source(e.size()), target(e.size());
	for (size_t k = 0; k < e.size(); k++) {
		source[k] = vid_t(e.source[k]);
		target[k] = vid_t(e.target[k]);
	}
	return Csr::from_pairs(n, source, target, false);
}

// n vertices, about n * degree uniformly random edges.
EdgeList
uniform(uint64_t n, uint64_t degree, uint64_t seed) {
	Rng rng(seed);
	EdgeList e;
	e.reserve(n * degree);
	for (uint64_t k = 0; k < n * degree; k++)
		e.append(int64_t(rng.below(n)), int64_t(rng.below(n)));
	return e;
}

// R-MAT with each edge's direction flipped at random: a giant SCC plus many small ones.
EdgeList
rmat_random_directions(unsigned scale, unsigned edge_factor, uint64_t seed) {
	EdgeList r = generate_rmat(scale, edge_factor, seed);
	Rng rng(seed ^ 0xD1CEull);
	for (size_t k = 0; k < r.size(); k++)
		if (rng.next() & 1)
			std::swap(r.source[k], r.target[k]);
	return r;
}

// pairs 2-cycles (2i <-> 2i+1) linked 2i+1 -> 2i+2: every pair is its own SCC, Trim removes
// nothing and Trim2 only the pair at each end, so FB recurses about log(pairs) deep.
EdgeList
chain_of_two_cycles(uint64_t pairs) {
	EdgeList e;
	for (uint64_t i = 0; i < pairs; i++) {
		e.append(int64_t(2 * i), int64_t(2 * i + 1));
		e.append(int64_t(2 * i + 1), int64_t(2 * i));
		if (i + 1 < pairs)
			e.append(int64_t(2 * i + 1), int64_t(2 * i + 2));
	}
	return e;
}

// The device numbering's order: Kahn levels of the condensation (a component's level is one more
// than its deepest predecessor's), each level in ascending smallest vertex. Indexed by CPU
// component; the CPU numbering is topological, so one pass in its order finds the levels.
std::vector<uint32_t>
level_order(const Csr &graph, const Components &cpu) {
	size_t k = cpu.count();
	Csr dag = condensation(graph, cpu);
	std::vector<uint32_t> level(k, 0);
	for (size_t c = 0; c < k; c++)
		for (const vid_t *d = dag.begin(vid_t(c)); d != dag.end(vid_t(c)); d++)
			level[*d] = std::max(level[*d], level[c] + 1);
	std::vector<uint32_t> order(k);
	std::iota(order.begin(), order.end(), 0u);
	std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
		return std::pair(level[a], cpu.smallest_vertex[a]) < std::pair(level[b], cpu.smallest_vertex[b]);
	});
	std::vector<uint32_t> number(k);
	for (size_t i = 0; i < k; i++)
		number[order[i]] = uint32_t(i);
	return number;
}

// The same edges under a random permutation of the ids 0 .. n-1.
EdgeList
shuffled(const EdgeList &e, uint64_t n, uint64_t seed) {
	Rng rng(seed);
	std::vector<int64_t> id(n);
	std::iota(id.begin(), id.end(), int64_t(0));
	for (size_t i = id.size() - 1; i > 0; i--)
		std::swap(id[i], id[rng.below(i + 1)]);
	EdgeList out;
	out.reserve(e.size());
	for (size_t k = 0; k < e.size(); k++)
		out.append(id[size_t(e.source[k])], id[size_t(e.target[k])]);
	return out;
}

// expect_same(), and the numbering must be the device's: level order, not the host fallback's.
void
expect_level_order(const Csr &g, const std::string &what) {
	GpuSccTimings t = expect_same(g, what);
	EXPECT_FALSE(t.host_numbering) << what;
	Components cpu = strongly_connected_components(g), gpu = strongly_connected_components_gpu(g);
	std::vector<uint32_t> expected = level_order(g, cpu);
	ASSERT_EQ(gpu.of_vertex.size(), g.vertex_count()) << what;
	for (size_t v = 0; v < g.vertex_count(); v++)
		if (gpu.of_vertex[v] != expected[cpu.of_vertex[v]]) {
			ADD_FAILURE() << what << ": vertex " << v << " numbered " << gpu.of_vertex[v] << ", level order gives "
			              << expected[cpu.of_vertex[v]];
			break;
		}
}

EdgeList
cycle(uint64_t n) {
	EdgeList e;
	e.reserve(n);
	for (uint64_t v = 0; v < n; v++)
		e.append(int64_t(v), int64_t((v + 1) % n));
	return e;
}

} // namespace

TEST_F(GpuScc, SmallRandomGraphs) {
	for (uint64_t seed = 0; seed < 200; seed++) {
		grail_test::TestGraph tg = grail_test::random_graph(seed);
		expect_same(Graph::from_edges(tg.edges).out, "random graph " + std::to_string(seed) + " " + tg.shape);
	}
}

TEST_F(GpuScc, Rmat) {
	for (unsigned scale : {8u, 12u, 16u, 18u})
		for (uint64_t seed : {1u, 2u}) {
			std::string what = "rmat " + std::to_string(scale) + " seed " + std::to_string(seed);
			expect_same(Graph::from_edges(generate_rmat(scale, 16, seed)).out, what);
			expect_same(Graph::from_edges(rmat_random_directions(scale, 8, seed)).out, what + " random directions");
		}
}

TEST_F(GpuScc, RandomDagsAreAllTrivial) {
	for (uint64_t seed : {1u, 2u, 3u})
		expect_same(Graph::from_edges(generate_random_dag(100'000, 4, seed)).out, "dag " + std::to_string(seed));
}

TEST_F(GpuScc, MillionTrivialComponents) {
	Csr g = Graph::from_edges(generate_random_dag(1'000'000, 3, 9)).out;
	expect_same(g, "dag of a million vertices");
}

TEST_F(GpuScc, Grids) {
	for (bool both : {false, true})
		expect_same(Graph::from_edges(generate_grid(300, 500, both)).out,
		            std::string("grid 300x500") + (both ? " both ways" : ""));
}

TEST_F(GpuScc, OneGiantComponent) {
	// A Hamiltonian cycle plus random chords: strongly connected, found by phase 1.
	EdgeList e = cycle(1'000'000);
	EdgeList chords = uniform(1'000'000, 4, 5);
	for (size_t k = 0; k < chords.size(); k++)
		e.append(chords.source[k], chords.target[k]);
	GpuSccTimings t = expect_same(Graph::from_edges(e).out, "giant");
	EXPECT_EQ(t.rounds, 1u) << "one round places every vertex of a strongly connected graph";
}

TEST_F(GpuScc, ManySmallAroundAGiant) {
	// A giant SCC (a cycle with random chords) feeding 50,000 small cycles of 2 to 7 vertices,
	// each with an edge on to a later one: Trim removes none of them. The first round places the
	// giant; the small cycles' signatures differ, so the edges between them go and the second round
	// places them all.
	const int64_t giant = 200'000;
	EdgeList e = cycle(uint64_t(giant));
	EdgeList chords = uniform(uint64_t(giant), 3, 6);
	for (size_t k = 0; k < chords.size(); k++)
		e.append(chords.source[k], chords.target[k]);
	Rng rng(7);
	std::vector<int64_t> first;
	int64_t base = giant;
	for (int k = 0; k < 50'000; k++) {
		int64_t size = 2 + int64_t(rng.below(6));
		for (int64_t i = 0; i < size; i++)
			e.append(base + i, base + (i + 1) % size);
		e.append(int64_t(rng.below(uint64_t(giant))), base);
		if (!first.empty())
			e.append(first[rng.below(first.size())], base + size - 1);
		first.push_back(base);
		base += size;
	}
	GpuSccTimings t = expect_same(Graph::from_edges(e).out, "small cycles around a giant");
	EXPECT_GE(t.rounds, 2u);
	EXPECT_FALSE(t.mixed_keys) << "ids that follow the structure settle without mixing";
	expect_same(Graph::from_edges(rmat_random_directions(20, 8, 3)).out, "rmat 20 random directions");
}

TEST_F(GpuScc, UniformRandomDigraphs) {
	for (uint64_t degree : {1u, 2u, 5u})
		expect_same(Graph::from_edges(uniform(200'000, degree, degree)).out,
		            "uniform degree " + std::to_string(degree));
}

TEST_F(GpuScc, LongChainOfTwoCycles) {
	// In id order every pair's signature is (0, its smaller vertex): the first round places the
	// first pair and removes every edge between pairs, the second places the rest. The
	// condensation is a path of 100,000 components, past the device's level budget: the host
	// numbers it.
	GpuSccTimings t = expect_same(Graph::from_edges(chain_of_two_cycles(100'000)).out, "chain of 2-cycles");
	EXPECT_LE(t.rounds, 3u);
	EXPECT_TRUE(t.host_numbering);
	// Under shuffled ids each round splits the chain at its smallest ids, like quicksort.
	expect_same(raw_csr(200'000, shuffled(chain_of_two_cycles(100'000), 200'000, 3)), "shuffled chain of 2-cycles");
}

TEST_F(GpuScc, DeepPaths) {
	// A path is a million trivial components in a chain: Trim peels two a pass, so propagation
	// rounds settle it, and the host numbers it.
	for (bool shuffle : {false, true}) {
		const uint64_t n = 1'000'000;
		EdgeList e;
		for (uint64_t v = 0; v + 1 < n; v++)
			e.append(int64_t(v), int64_t(v + 1));
		if (shuffle)
			e = shuffled(e, n, 5);
		GpuSccTimings t = expect_same(raw_csr(n, e), shuffle ? "shuffled path" : "path");
		EXPECT_TRUE(t.host_numbering);
	}
	// Reversed: every vertex reaches 0, so the first round's signatures are all distinct.
	EdgeList e;
	for (int64_t v = 1; v < 1'000'000; v++)
		e.append(v, v - 1);
	expect_same(raw_csr(1'000'000, e), "reversed path");
}

TEST_F(GpuScc, MillionIsolatedVertices) {
	// Every vertex is a sink, so Trim runs and settles them all.
	GpuSccTimings t = expect_same(Csr::from_pairs(1'000'000, {}, {}, false), "no edges");
	EXPECT_EQ(t.trim_passes, 1u);
	EXPECT_EQ(t.trimmed, 1'000'000u);
}

TEST_F(GpuScc, ChainOfLargeComponents) {
	// 24 strongly connected pieces of 3,000 to 40,000 vertices (cycles with chords), each feeding
	// later ones, under shuffled ids: components larger than one warp's share of a Kahn level are
	// released by the whole grid, and the numbering must still be the level order.
	Rng rng(13);
	EdgeList e;
	std::vector<std::pair<int64_t, int64_t>> pieces;
	int64_t base = 0;
	for (int k = 0; k < 24; k++) {
		int64_t size = 3000 + int64_t(rng.below(37'000));
		for (int64_t i = 0; i < size; i++) {
			e.append(base + i, base + (i + 1) % size);
			e.append(base + i, base + int64_t(rng.below(uint64_t(size))));
		}
		for (int j = 0; j < 3 && !pieces.empty(); j++) {
			auto [from, from_size] = pieces[rng.below(pieces.size())];
			e.append(from + int64_t(rng.below(uint64_t(from_size))), base + int64_t(rng.below(uint64_t(size))));
		}
		pieces.emplace_back(base, size);
		base += size;
	}
	Csr g = raw_csr(uint64_t(base), shuffled(e, uint64_t(base), 17));
	expect_level_order(g, "chain of large components");
}

TEST_F(GpuScc, NestedComponents) {
	// Components 0..k-1 of growing size, each a cycle, with edges from every one to the next and
	// back edges inside: the condensation is a long path with components of mixed sizes.
	EdgeList e;
	int64_t base = 0;
	for (int64_t k = 1; k <= 400; k++) {
		int64_t size = 1 + (k * 37) % 50;
		for (int64_t i = 0; i < size; i++)
			e.append(base + i, base + (i + 1) % size);
		if (size > 2)
			e.append(base + size - 1, base + 1);
		e.append(base, base + size); // to the next component
		base += size;
	}
	e.append(base, base); // the last target, a self-loop
	expect_same(raw_csr(size_t(base) + 1, e), "nested");
}

TEST_F(GpuScc, LayeredCondensationIsNumberedOnTheDevice) {
	// 20 layers of 10,000 3-cycles and 2,000 single vertices under shuffled ids, each fed from
	// random components of the layer before (from a cycle, by two edges out of different members):
	// a condensation 20 levels deep, within the device numbering's level budget for this size
	// (8 + (n + m) / 2^16, over 30), so the numbering must be the device's level order, not the
	// host fallback's queue order.
	const uint64_t layers = 20, cycles = 10'000, singles = 2'000, per_layer = 3 * cycles + singles;
	Rng rng(11);
	std::vector<int64_t> id(layers * per_layer);
	std::iota(id.begin(), id.end(), int64_t(0));
	for (size_t i = id.size() - 1; i > 0; i--)
		std::swap(id[i], id[rng.below(i + 1)]);
	// The first vertex of component j of layer l; cycles first, then singles.
	auto head = [&](uint64_t l, uint64_t j) {
		return l * per_layer + (j < cycles ? 3 * j : 3 * cycles + (j - cycles));
	};
	EdgeList e;
	for (uint64_t l = 0; l < layers; l++)
		for (uint64_t j = 0; j < cycles + singles; j++) {
			uint64_t v = head(l, j);
			if (j < cycles)
				for (uint64_t i = 0; i < 3; i++)
					e.append(id[v + i], id[v + (i + 1) % 3]);
			if (l == 0)
				continue;
			uint64_t r = rng.below(cycles + singles), u = head(l - 1, r);
			e.append(id[u], id[v]);
			if (r < cycles)
				e.append(id[u + 1], id[v + (j < cycles ? 2 : 0)]);
			e.append(id[head(l - 1, rng.below(cycles + singles))], id[v]);
		}
	expect_level_order(raw_csr(id.size(), e), "layered");
}

TEST_F(GpuScc, TenMillionVertexCycle) {
	GpuSccTimings t = expect_same(Graph::from_edges(cycle(10'000'000)).out, "cycle");
	// Ids grow along the cycle, so under ids the smallest one would travel back one edge per
	// sweep: detection must have started over with mixed keys, and then needs one round.
	EXPECT_TRUE(t.mixed_keys);
	EXPECT_EQ(t.rounds, 1u);
}

TEST_F(GpuScc, EmptyAndTiny) {
	Components none = strongly_connected_components_gpu(Csr{});
	EXPECT_EQ(none.count(), 0u);
	EXPECT_TRUE(none.of_vertex.empty());
	expect_same(Csr::from_pairs(1, {}, {}, false), "one isolated vertex");
	expect_same(Csr::from_pairs(1, {0}, {0}, false), "one self-loop");
	expect_same(Csr::from_pairs(2, {0, 1}, {1, 0}, false), "one 2-cycle");
}

TEST_F(GpuScc, SelfLoopsAndDuplicatesAreTrimmed) {
	// Vertices whose only edges are self-loops (some duplicated) are trivial SCCs, and so are
	// vertices with a duplicated edge to or from one neighbour. Every vertex has an out-edge (a
	// self-loop), so Trim does not run.
	EdgeList e;
	for (int64_t v = 0; v < 1000; v++) {
		e.append(v, v);
		if (v % 3 == 0)
			e.append(v, v);
	}
	for (int64_t v = 1000; v < 1100; v++) {
		e.append(v, v);
		e.append(v, v + 1);
		e.append(v, v + 1);
	}
	Csr g = raw_csr(1101, e);
	GpuSccTimings t = expect_same(g, "self-loops");
	// The chain's signatures (1000, v) all differ, so the first round removes its edges; the
	// self-loops of vertices not yet placed stay for a second round, which places them all.
	EXPECT_LE(t.rounds, 2u);
}

TEST_F(GpuScc, SelfLoopsEverywhere) {
	for (uint64_t seed : {1u, 2u}) {
		EdgeList e = rmat_random_directions(14, 8, seed);
		for (int64_t v = 0; v < (1 << 14); v++)
			e.append(v, v);
		expect_same(raw_csr(1 << 14, e), "rmat with self-loops " + std::to_string(seed));
	}
}

TEST_F(GpuScc, Deterministic) {
	Csr g = Graph::from_edges(rmat_random_directions(16, 8, 4)).out;
	Components a = strongly_connected_components_gpu(g), b = strongly_connected_components_gpu(g);
	EXPECT_EQ(a.of_vertex, b.of_vertex);
	EXPECT_EQ(a.smallest_vertex, b.smallest_vertex);
}
