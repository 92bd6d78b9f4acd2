// Which built labels Index::build trusts without checking them: only GrailLabels::build's own,
// untouched. Anything else a label builder returns (from_data, a device's, a test's, build()'s
// labels written through data()) is checked, and wrong labels are refused.
#include "error.hpp"
#include "grail_labels.hpp"
#include "index.hpp"
#include "keyed_labels.hpp"
#include "oracle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

using namespace grail;

namespace {

EdgeList
chains() {
	EdgeList edges;
	for (int64_t v = 0; v < 10; v++)
		edges.append(v, v + 1);
	edges.append(20, 21);
	edges.append(21, 20); // a cycle: one component of two vertices
	edges.append(21, 22);
	return edges;
}

} // namespace

TEST(LabelTrust, OnlyBuildsOwnUntouchedLabelsAreTrusted) {
	Index index = Index::build(chains(), BuildOptions{});
	GrailLabels built = GrailLabels::build(index.dag(), 3, 7);
	EXPECT_TRUE(built.built_here());
	GrailLabels copied = built;
	EXPECT_TRUE(copied.built_here());
	GrailLabels moved = std::move(copied);
	EXPECT_TRUE(moved.built_here());
	EXPECT_FALSE(GrailLabels().built_here());
	EXPECT_FALSE(GrailLabels::from_data(3, Array<uint32_t>(std::as_const(built).data())).built_here());
	EXPECT_FALSE(grail_test::keyed_dfs_labels(index.dag(), 3, 7).built_here());
	(void)moved.data(); // writable access: the data may change, no longer trusted
	EXPECT_FALSE(moved.built_here());
	const GrailLabels &read_only = built;
	(void)read_only.data();
	EXPECT_TRUE(built.built_here());
}

// build()'s labels changed by the builder that returns them are checked like any others.
TEST(LabelTrust, BuildsLabelsChangedByABuilderAreRefused) {
	BuildOptions options;
	options.labels = 2;
	options.label_builder = [](const Csr &dag, unsigned d, uint64_t seed) {
		GrailLabels labels = GrailLabels::build(dag, d, seed);
		labels.data()[labels.record_width() + 4] += 100; // vertex 1's interval sticks out of vertex 0's
		return labels;
	};
	EXPECT_THROW(Index::build(chains(), options), Error);
	options.label_builder = [](const Csr &dag, unsigned d, uint64_t seed) {
		GrailLabels labels = GrailLabels::build(dag, d, seed);
		for (size_t v = 0; v < dag.vertex_count(); v++)
			labels.data()[v * labels.record_width() + 3] = 0; // every lo_0 := 0: nested, inexact
		return labels;
	};
	EXPECT_THROW(Index::build(chains(), options), Error);
	// The wrong shape is refused even for build()'s own labels (another label count).
	options.label_builder = [](const Csr &dag, unsigned, uint64_t seed) { return GrailLabels::build(dag, 3, seed); };
	EXPECT_THROW(Index::build(chains(), options), Error);
}

// A builder that returns build()'s labels untouched (what create_graph's does on the host) gives
// the same index as no builder, and right answers, on many random graphs.
TEST(LabelTrust, TrustedLabelsAnswerAsTheOracle) {
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 3 == 0 ? 120 : 40);
		grail_test::Oracle oracle(t.edges);
		BuildOptions options;
		options.labels = unsigned(1 + seed % 5);
		options.seed = seed;
		options.label_builder = [](const Csr &dag, unsigned d, uint64_t s) { return GrailLabels::build(dag, d, s); };
		EdgeList edges = t.edges;
		Index with_builder = Index::build(std::move(edges), options);
		options.label_builder = nullptr;
		edges = t.edges;
		Index without = Index::build(std::move(edges), options);
		ASSERT_EQ(with_builder.labels().data().size(), without.labels().data().size()) << t.shape;
		EXPECT_TRUE(std::equal(with_builder.labels().data().begin(), with_builder.labels().data().end(),
		                       without.labels().data().begin()))
		    << t.shape;
		ReachabilityQuery query(with_builder);
		for (int64_t a : t.query_ids)
			for (int64_t b : t.query_ids)
				ASSERT_EQ(query.reachable(a, b), oracle.reachable(a, b)) << t.shape << " " << a << "->" << b;
	}
}
