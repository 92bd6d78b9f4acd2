// GPU GRAIL labelling and batched GPU reachability search. The labels must equal, value for value,
// a sequential DFS in the same keyed order (keyed_labels.hpp); indexes built with them must answer
// every pair like the brute-force closure; batched GPU searches must answer like the CPU's pruned
// DFS. Labelled `gpu` in CTest; without a usable GPU every test reports skipped.
#include "error.hpp"
#include "generate.hpp"
#include "gpu.hpp"
#include "gpu_test.hpp"
#include "index.hpp"
#include "keyed_labels.hpp"
#include "oracle.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace grail;

namespace {

using GpuGrail = GpuTest;

// Reports the first differing record, not millions.
void
expect_keyed_labels(const Csr &dag, unsigned d, uint64_t seed, const std::string &what) {
	GpuLabelTimings t;
	GrailLabels gpu = grail_labels_gpu(dag, d, seed, &t);
	GrailLabels expected = grail_test::keyed_dfs_labels(dag, d, seed);
	ASSERT_EQ(gpu.label_count(), d) << what;
	ASSERT_EQ(gpu.data().size(), expected.data().size()) << what;
	size_t w = expected.record_width();
	for (size_t k = 0; k < expected.data().size(); k++)
		if (gpu.data()[k] != expected.data()[k]) {
			FAIL() << what << " d=" << d << ": vertex " << k / w << " word " << k % w << " is " << gpu.data()[k]
			       << ", the keyed DFS gives " << expected.data()[k];
		}
}

Csr
dag_of(const EdgeList &edges) {
	return Index::build(edges, BuildOptions{}).dag();
}

BuildOptions
gpu_labels(unsigned d, uint64_t seed) {
	BuildOptions options;
	options.labels = d;
	options.seed = seed;
	options.label_builder = [](const Csr &dag, unsigned labels, uint64_t s) {
		return grail_labels_gpu(dag, labels, s);
	};
	return options;
}

} // namespace

TEST_F(GpuGrail, LabelsEqualKeyedDfsOnRandomGraphs) {
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 3 == 0 ? 400 : 40);
		expect_keyed_labels(dag_of(t.edges), 1 + seed % 5, seed, "seed " + std::to_string(seed) + " " + t.shape);
		if (HasFatalFailure())
			return;
	}
}

// Shapes that stress path comparison: grids (many equal-length paths to each vertex), a deep chain
// (lifting tables of many levels), a star and isolated vertices (many roots), dense random DAGs
// with shuffled ids (not topologically numbered), R-MAT condensations, the empty DAG.
TEST_F(GpuGrail, LabelsEqualKeyedDfsOnShapes) {
	std::vector<std::pair<std::string, Csr>> shapes;
	shapes.push_back({"grid 60x70", Graph::from_edges(generate_grid(60, 70, false)).out});
	shapes.push_back({"random DAG 20000 x 12", Graph::from_edges(generate_random_dag(20000, 12, 3)).out});
	shapes.push_back({"random DAG 3000 x 60", Graph::from_edges(generate_random_dag(3000, 60, 4)).out});
	shapes.push_back({"rmat 14 condensation", dag_of(generate_rmat(14, 4, 5))});
	EdgeList chain, star;
	for (int64_t v = 0; v < 5000; v++)
		chain.append(v, v + 1);
	for (int64_t v = 1; v <= 100000; v++)
		star.append(v % 2 ? 0 : v, v % 2 ? v : 0); // edges out of and into the hub
	shapes.push_back({"chain 5001", Graph::from_edges(chain).out});
	shapes.push_back({"star 100001", Graph::from_edges(star).out});
	shapes.push_back({"10000 isolated vertices", Csr::from_pairs(10000, {}, {}, true)});
	shapes.push_back({"one vertex", Csr::from_pairs(1, {}, {}, true)});
	shapes.push_back({"empty", Csr::from_pairs(0, {}, {}, true)});
	for (auto &[name, dag] : shapes)
		for (unsigned d : {1u, 5u}) {
			expect_keyed_labels(dag, d, 42 + d, name);
			if (HasFatalFailure())
				return;
		}
}

TEST_F(GpuGrail, IndexWithGpuLabelsAnswersEveryPair) {
	for (uint64_t seed = 0; seed < 150; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 4 == 0 ? 120 : 40);
		grail_test::Oracle oracle(t.edges);
		Index index = Index::build(t.edges, gpu_labels(1 + seed % 5, seed));
		ReachabilityQuery q(index);
		for (int64_t a : t.query_ids)
			for (int64_t b : t.query_ids)
				ASSERT_EQ(q.reachable(a, b), oracle.reachable(a, b))
				    << "seed " << seed << " " << t.shape << " " << a << " -> " << b;
	}
}

// Every pair of small random graphs through the GPU search (no minimum batch), against the closure.
TEST_F(GpuGrail, BatchedSearchAnswersEveryPair) {
	size_t searched = 0;
	for (uint64_t seed = 0; seed < 60; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, 120);
		grail_test::Oracle oracle(t.edges);
		// Without supports, which decide nearly every pair of graphs this small, the search gets
		// pairs to answer.
		BuildOptions options;
		options.supports = 0;
		Index index = Index::build(t.edges, options);
		GpuReachability gpu(index);
		std::vector<int64_t> a, b;
		for (int64_t x : t.query_ids)
			for (int64_t y : t.query_ids) {
				a.push_back(x);
				b.push_back(y);
			}
		std::unique_ptr<bool[]> answers(new bool[a.size()]);
		ReachabilityQuery q(index);
		searched += q.reachable_many(
		    a.data(), b.data(), a.size(), answers.get(),
		    [&](const std::vector<vid_t> &from, const std::vector<vid_t> &to, std::vector<uint8_t> &reached) {
			    gpu.search(from, to, reached);
			    return true;
		    });
		for (size_t i = 0; i < a.size(); i++)
			ASSERT_EQ(answers[i], oracle.reachable(a[i], b[i])) << "seed " << seed << " " << a[i] << " -> " << b[i];
	}
	EXPECT_GT(searched, 0u);
}

// Large batches on DAGs where many pairs need a search: uniform pairs and pairs drawn from a
// vertex's descendants (mostly reachable), several groups per call, against the CPU answers.
TEST_F(GpuGrail, BatchedSearchEqualsCpuOnLargeDags) {
	for (auto [n, degree, d] : {std::tuple<uint64_t, double, unsigned>{30000, 4, 5}, {20000, 16, 2}, {5000, 3, 1}}) {
		// Without supports, which the build chooses to decide most of such pairs, the search gets
		// several groups' worth.
		BuildOptions options = gpu_labels(d, 7);
		options.supports = 0;
		Index index = Index::build(generate_random_dag(n, degree, n), options);
		const Array<int64_t> &ids = index.graph().ids;
		const Csr &g = index.graph().out;
		Rng rng(n + d);
		std::vector<int64_t> a, b;
		for (int k = 0; k < 20000; k++) {
			a.push_back(ids[rng.below(ids.size())]);
			b.push_back(ids[rng.below(ids.size())]);
		}
		for (int k = 0; k < 5000; k++) { // a random walk from a random vertex: the end is reachable
			vid_t v = vid_t(rng.below(ids.size()));
			a.push_back(ids[v]);
			for (int step = 0; step < 20 && g.offsets[v] != g.offsets[v + 1]; step++)
				v = g.targets[g.offsets[v] + rng.below(g.offsets[v + 1] - g.offsets[v])];
			b.push_back(ids[v]);
		}
		GpuReachability gpu(index);
		ReachabilityQuery q(index);
		std::unique_ptr<bool[]> answers(new bool[a.size()]);
		GpuQueryTimings t;
		size_t searched = q.reachable_many(
		    a.data(), b.data(), a.size(), answers.get(),
		    [&](const std::vector<vid_t> &from, const std::vector<vid_t> &to, std::vector<uint8_t> &reached) {
			    gpu.search(from, to, reached, &t);
			    return true;
		    });
		EXPECT_GT(searched, 64 * kGpuQueryWords) << n; // several groups
		EXPECT_GT(t.groups, 1u);
		size_t yes = 0;
		for (size_t i = 0; i < a.size(); i++) {
			ASSERT_EQ(answers[i], q.reachable(a[i], b[i])) << n << ": " << a[i] << " -> " << b[i];
			yes += answers[i];
		}
		EXPECT_GE(yes, 5000u) << n;
	}
}

// Small enough for compute-sanitizer's racecheck (scripts/gpu-sanitize.sh --filter
// '*SmallEnoughForRacecheck'): labelling (Kahn's levels with a node past the kernel's big-node
// bound) and a batched search whose frontier holds a hub of 5,000 out-edges, which the push step
// walks with the whole block, against the keyed DFS and the CPU's answers.
TEST_F(GpuGrail, SmallEnoughForRacecheck) {
	EdgeList edges = generate_random_dag(3000, 3, 17);
	const int64_t hub = 3000, fan = 3001;
	for (int64_t v = 0; v < 5000; v++) {
		edges.append(hub, fan + v);
		edges.append(fan + v, v % 3000);
	}
	for (int64_t v = 0; v < 3000; v += 300)
		edges.append(fan + 5000 + v, hub); // a few parents of the hub
	Index index = Index::build(edges, gpu_labels(2, 5));
	expect_keyed_labels(index.dag(), 2, 5, "hub DAG");
	if (HasFatalFailure())
		return;
	const Array<int64_t> &ids = index.graph().ids;
	Rng rng(3);
	std::vector<int64_t> a, b;
	for (int k = 0; k < 3000; k++) {
		a.push_back(k % 3 == 0 ? hub : k % 3 == 1 ? fan + 5000 + 300 * (k % 10) : ids[rng.below(ids.size())]);
		b.push_back(ids[rng.below(ids.size())]);
	}
	GpuReachability gpu(index);
	ReachabilityQuery q(index);
	std::unique_ptr<bool[]> answers(new bool[a.size()]);
	size_t searched = q.reachable_many(
	    a.data(), b.data(), a.size(), answers.get(),
	    [&](const std::vector<vid_t> &from, const std::vector<vid_t> &to, std::vector<uint8_t> &reached) {
		    gpu.search(from, to, reached);
		    return true;
	    });
	EXPECT_GT(searched, 0u);
	for (size_t i = 0; i < a.size(); i++)
		ASSERT_EQ(answers[i], q.reachable(a[i], b[i])) << a[i] << " -> " << b[i];
}
