// BuildOptions::graph_builder, the hook through which a device makes the graph, its components and
// its DAG from the rows (the GPU's build_graph_gpu, tested against the host in test_gpu_build.cpp):
// Index::build takes what it returns, checks its shape, leaves a declined build to the host's steps,
// and keeps the memory limit for the host's steps when the rows were read for a device.
#include "error.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "scc.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace grail;

namespace {

// What a device must return: the host's own steps, done here.
BuiltGraph
host_parts(const EdgeList &rows) {
	BuiltGraph built;
	built.graph = Graph::from_edges(rows);
	built.components = strongly_connected_components(built.graph.out);
	built.dag = condensation(built.graph.out, built.components);
	return built;
}

void
expect_answers(const Index &index, const EdgeList &edges, const std::string &what) {
	grail_test::Oracle oracle(edges);
	ReachabilityQuery query(index);
	for (int64_t a : oracle.vertices())
		for (int64_t b : oracle.vertices())
			ASSERT_EQ(query.reachable(a, b), oracle.reachable(a, b)) << what << ": " << a << " -> " << b;
}

TEST(GraphBuilder, TakesTheBuiltPartsAndAnswersAsTheOracle) {
	for (uint64_t seed = 0; seed < 60; seed++) {
		grail_test::TestGraph g = grail_test::random_graph(seed);
		BuildOptions options;
		int calls = 0;
		options.graph_builder = [&](EdgeList &rows, BuiltGraph &built) {
			calls++;
			built = host_parts(rows);
			rows = EdgeList{}; // a builder may release the rows
			return true;
		};
		options.components = [](const Csr &) -> Components { throw Error(ErrorKind::internal, "not called"); };
		BuildStats stats;
		Index index = Index::build(g.edges, options, &stats);
		EXPECT_EQ(calls, 1);
		Index host = Index::build(g.edges, BuildOptions{});
		EXPECT_EQ(stats.vertices, host.graph().vertex_count());
		EXPECT_EQ(stats.dag_edges, host.dag().edge_count());
		expect_answers(index, g.edges, "seed " + std::to_string(seed) + " (" + g.shape + ")");
	}
}

TEST(GraphBuilder, DeclinedLeavesTheHostSteps) {
	grail_test::TestGraph g = grail_test::random_graph(7);
	BuildOptions options;
	options.graph_builder = [](EdgeList &, BuiltGraph &) { return false; };
	Index index = Index::build(g.edges, options);
	expect_answers(index, g.edges, "declined");
}

TEST(GraphBuilder, KeyedGraphsComeAsTheirKeyNumbers) {
	// Text keys, numbered by the dictionary while reading: the builder gets the numbers and its
	// vertex v is key v, as the host's steps make it.
	auto keyed_rows = [](EdgeList &edges) {
		KeyDictionaryBuilder keys(KeyKind::text, 1);
		const std::string rows[][2] = {{"b", "a"}, {"a", "c"}, {"c", "b"}, {"c", "d"}, {"d", "d"}, {"a", "c"}};
		for (const auto &row : rows)
			edges.append(keys.add(row[0].data(), row[0].size()), keys.add(row[1].data(), row[1].size()));
		return keys.finish(edges);
	};
	EdgeList host_edges;
	KeyDictionary host_keys = keyed_rows(host_edges);
	Index host = Index::build(host_edges, BuildOptions{}, nullptr, std::move(host_keys));

	EdgeList edges;
	KeyDictionary dictionary = keyed_rows(edges);
	BuildOptions options;
	int calls = 0;
	options.graph_builder = [&](EdgeList &rows, BuiltGraph &built) {
		calls++;
		built = host_parts(rows);
		return true;
	};
	Index index = Index::build(edges, options, nullptr, std::move(dictionary));
	EXPECT_EQ(calls, 1);
	ASSERT_EQ(index.graph().vertex_count(), 4u);
	EXPECT_EQ(index.components().count(), 2u); // {a, b, c} and {d}
	for (vid_t v = 0; v < 4; v++) {
		EXPECT_EQ(index.graph().ids[v], int64_t(v));
		EXPECT_EQ(index.components().of_vertex[v], host.components().of_vertex[v]);
	}
	ReachabilityQuery query(index), host_query(host);
	for (int64_t a = 0; a < 4; a++)
		for (int64_t b = 0; b < 4; b++)
			EXPECT_EQ(query.reachable(a, b), host_query.reachable(a, b)) << a << " -> " << b;

	// A builder whose vertices are not the dictionary's numbers is refused.
	EdgeList fewer;
	KeyDictionary fewer_keys = keyed_rows(fewer);
	options.graph_builder = [](EdgeList &rows, BuiltGraph &built) {
		for (size_t e = 0; e < rows.size(); e++) // renumber key 3 as 7: a gap
			for (int64_t *id : {&rows.source[e], &rows.target[e]})
				if (*id == 3)
					*id = 7;
		built = host_parts(rows);
		return true;
	};
	try {
		Index::build(fewer, options, nullptr, std::move(fewer_keys));
		FAIL() << "no error";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::internal);
		EXPECT_NE(std::string(e.what()).find("dictionary"), std::string::npos) << e.what();
	}
}

TEST(GraphBuilder, WrongShapesAreRefused) {
	grail_test::TestGraph g = grail_test::random_graph(3);
	auto refused = [&](auto &&spoil) {
		BuildOptions options;
		options.graph_builder = [&](EdgeList &rows, BuiltGraph &built) {
			built = host_parts(rows);
			spoil(built);
			return true;
		};
		try {
			Index::build(g.edges, options);
		} catch (const Error &e) {
			return e.kind() == ErrorKind::internal;
		}
		return false;
	};
	EXPECT_TRUE(refused([](BuiltGraph &b) { b.components.of_vertex.resize(b.components.of_vertex.size() + 1); }));
	EXPECT_TRUE(refused([](BuiltGraph &b) { b.dag = Csr{}; }));
	EXPECT_TRUE(refused([](BuiltGraph &b) { b.graph.ids.resize(b.graph.ids.size() + 1, 0); }));
	EXPECT_TRUE(refused([](BuiltGraph &b) { std::swap(b.graph.ids[0], b.graph.ids[1]); }));
}

TEST(GraphBuilder, HostStepsKeepTheirLimitAfterADeviceRead) {
	// Rows read under the device's 20 bytes per row, then declined: the host's 80 bytes per row
	// exceed the limit, refused before the host's sort allocates. (Many rows of one edge, so that
	// reading, not indexing, is the peak.)
	EdgeList edges;
	for (int64_t i = 0; i < 10000; i++)
		edges.append(1, 2);
	BuildOptions options;
	options.memory_limit_bytes = estimate_build_bytes(edges.size(), 2, 1, 0, 0, true);
	ASSERT_LT(options.memory_limit_bytes, estimate_build_bytes(edges.size(), 2, 1));
	options.graph_builder = [](EdgeList &, BuiltGraph &) { return false; };
	try {
		Index::build(edges, options);
		FAIL() << "no error";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::limit_exceeded);
		EXPECT_NE(std::string(e.what()).find("on the CPU"), std::string::npos) << e.what();
	}
	// Taken by the device instead, the same limit holds the build.
	options.graph_builder = [](EdgeList &rows, BuiltGraph &built) {
		built = host_parts(rows);
		return true;
	};
	EXPECT_NO_THROW(Index::build(edges, options));
}

TEST(GraphBuilder, RowsGrowByAQuarter) {
	EdgeList edges;
	for (int64_t i = 0; i < 100000; i++) {
		ASSERT_TRUE(edges.append(i, -i));
		ASSERT_LE(edges.source.capacity(), edges.size() + edges.size() / 4 + 1024);
		ASSERT_LE(edges.target.capacity(), edges.size() + edges.size() / 4 + 1024);
	}
	EXPECT_EQ(edges.source[99999], 99999);
	EXPECT_EQ(edges.target[99999], -99999);
}

} // namespace
