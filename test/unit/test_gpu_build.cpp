// The graph built on the GPU from raw rows (build_graph_gpu) against the host's steps: the same ids,
// CSR and repeated edges as Graph::from_edges, the same components as the GPU SCC over that CSR
// (and the same partition as Tarjan's), the same DAG as condensation(); then a whole Index built
// through the hook answers every pair as the brute-force oracle does, with valid labels. Labelled
// `gpu` in CTest; on a machine without a usable GPU every test reports skipped.
#include "error.hpp"
#include "generate.hpp"
#include "gpu.hpp"
#include "gpu_test.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "scc.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace grail;

namespace {

using GpuBuild = GpuTest;

template <class A, class B>
bool
same_array(const A &a, const B &b, const std::string &what, const char *part) {
	if (a.size() != b.size()) {
		ADD_FAILURE() << what << ": " << part << " has " << a.size() << " entries on the GPU, " << b.size()
		              << " on the host";
		return false;
	}
	for (size_t i = 0; i < a.size(); i++)
		if (!(a[i] == b[i])) {
			ADD_FAILURE() << what << ": " << part << " differs first at " << i;
			return false;
		}
	return true;
}

void
expect_same_build(const EdgeList &edges, const std::string &what) {
	GpuGraphTimings t;
	BuiltGraph gpu = build_graph_gpu(edges.source.data(), edges.target.data(), edges.size(), &t);
	Graph host = Graph::from_edges(edges);
	same_array(gpu.graph.ids, host.ids, what, "ids");
	same_array(gpu.graph.out.offsets, host.out.offsets, what, "offsets");
	same_array(gpu.graph.out.targets, host.out.targets, what, "targets");
	same_array(gpu.graph.repeated, host.repeated, what, "repeated edges");
	if (host.vertex_count() == 0) {
		EXPECT_EQ(gpu.components.count(), 0u) << what;
		EXPECT_EQ(gpu.dag.vertex_count(), 0u) << what;
		return;
	}
	Components device = strongly_connected_components_gpu(host.out);
	same_array(gpu.components.of_vertex, device.of_vertex, what, "components");
	same_array(gpu.components.smallest_vertex, device.smallest_vertex, what, "smallest vertices");
	// Anchored to the CPU's Tarjan too: the same smallest member for every vertex.
	Components tarjan = strongly_connected_components(host.out);
	ASSERT_EQ(gpu.components.count(), tarjan.count()) << what;
	for (size_t v = 0; v < host.vertex_count(); v++)
		if (gpu.components.smallest_vertex[gpu.components.of_vertex[v]] !=
		    tarjan.smallest_vertex[tarjan.of_vertex[v]]) {
			ADD_FAILURE() << what << ": vertex " << v << " is in another component than Tarjan's";
			break;
		}
	Csr dag = condensation(host.out, gpu.components);
	same_array(gpu.dag.offsets, dag.offsets, what, "DAG offsets");
	same_array(gpu.dag.targets, dag.targets, what, "DAG targets");
}

BuildOptions
device_options() {
	BuildOptions options;
	options.graph_builder = [](EdgeList &rows, BuiltGraph &built) {
		built = build_graph_gpu(rows.source.data(), rows.target.data(), rows.size());
		return true;
	};
	options.label_builder = [](const Csr &dag, unsigned d, uint64_t seed) { return grail_labels_gpu(dag, d, seed); };
	return options;
}

// A whole Index through the hooks: every pair answered as the oracle does, every reachable pair's
// intervals nested, and the same graph and components as the host's build with the GPU SCC.
void
expect_index(const EdgeList &edges, const std::string &what) {
	grail_test::Oracle oracle(edges);
	BuildStats stats;
	Index index = Index::build(edges, device_options(), &stats);
	BuildOptions host_options;
	host_options.components = [](const Csr &g) { return strongly_connected_components_gpu(g); };
	Index host = Index::build(edges, host_options);
	same_array(index.graph().ids, host.graph().ids, what, "index ids");
	same_array(index.graph().out.targets, host.graph().out.targets, what, "index targets");
	same_array(index.components().of_vertex, host.components().of_vertex, what, "index components");
	same_array(index.dag().targets, host.dag().targets, what, "index DAG");
	EXPECT_EQ(index.labels().first_inconsistent_edge(index.dag()), "") << what;
	ReachabilityQuery query(index);
	const std::vector<int64_t> &ids = oracle.vertices();
	for (int64_t a : ids)
		for (int64_t b : ids) {
			bool expected = oracle.reachable(a, b);
			ASSERT_EQ(query.reachable(a, b), expected) << what << ": " << a << " -> " << b;
			if (expected) {
				vid_t ca = index.components().of_vertex[size_t(index.find(a))];
				vid_t cb = index.components().of_vertex[size_t(index.find(b))];
				ASSERT_TRUE(index.labels().contains(ca, cb)) << what << ": intervals of " << a << " -> " << b;
			}
		}
}

EdgeList
rows(std::initializer_list<std::pair<int64_t, int64_t>> pairs) {
	EdgeList edges;
	for (auto [s, t] : pairs)
		edges.append(s, t);
	return edges;
}

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST_F(GpuBuild, SmallCases) {
	expect_same_build(EdgeList{}, "empty");
	expect_same_build(rows({{5, 5}}), "one vertex, a self-loop");
	expect_same_build(rows({{5, 5}, {5, 5}, {5, 5}}), "one vertex, repeated self-loops");
	expect_same_build(rows({{1, 2}}), "one edge");
	expect_same_build(rows({{1, 2}, {1, 2}, {2, 1}, {2, 1}, {2, 1}}), "a repeated two-cycle");
	expect_same_build(rows({{kMin, kMax}, {kMax, kMin}, {0, kMin}, {kMax, kMax}, {-1, 0}}), "extreme ids");
	expect_same_build(rows({{kMin, kMin + 1}, {kMin + 1, kMin}}), "the smallest ids");
	expect_same_build(rows({{kMax, kMax - 1}, {kMax - 1, kMax - 1}}), "the largest ids");
	expect_index(EdgeList{}, "empty index");
	expect_index(rows({{7, 7}}), "one-vertex index");
	expect_index(rows({{kMin, kMax}, {kMax, 0}, {0, kMin}, {0, 1}, {1, 1}, {1, 2}, {1, 2}}), "extreme-id index");
}

TEST_F(GpuBuild, RandomGraphsEqualTheHostBuild) {
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph g = grail_test::random_graph(seed, seed % 3 == 0 ? 200 : 40);
		std::string what = "seed " + std::to_string(seed) + " (" + g.shape + ")";
		expect_same_build(g.edges, what);
		if (seed % 5 == 0)
			expect_index(g.edges, what);
		if (HasFailure())
			return;
	}
}

TEST_F(GpuBuild, LargerGraphs) {
	expect_same_build(generate_rmat(14, 8, 3), "R-MAT 14-8");
	expect_same_build(generate_rmat(16, 16, 5), "R-MAT 16-16");
	expect_same_build(generate_grid(300, 300, true), "grid, both directions");
	expect_same_build(generate_grid(300, 300, false), "grid, a DAG");
	expect_same_build(generate_random_dag(50000, 4, 9), "random DAG");
	// Ids spread over the whole int64 range (every sort bit used), many duplicates.
	EdgeList wide = generate_rmat(12, 16, 11);
	for (size_t e = 0; e < wide.size(); e++) {
		wide.source[e] = int64_t(uint64_t(wide.source[e]) * 0x9e3779b97f4a7c15ull);
		wide.target[e] = int64_t(uint64_t(wide.target[e]) * 0x9e3779b97f4a7c15ull);
	}
	expect_same_build(wide, "R-MAT 12-16, ids over the whole range");
}

TEST_F(GpuBuild, RefusesWhatDoesNotFit) {
	// Two billion rows are past what one build takes: refused before anything is read.
	int64_t none = 0;
	try {
		build_graph_gpu(&none, &none, size_t(1) << 31);
		FAIL() << "no error";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::limit_exceeded) << e.what();
	}
}

} // namespace
