// The build's first steps (ids and CSR, components, condensation) against the straightforward
// implementations they replaced, kept here as references: the same vertex ids, CSR, repeated
// edges, component numbering and DAG, to the element, on every kind of input (dense and sparse id
// ranges, extreme ids, cycles, self-loops, duplicates, graphs large enough for many buckets), so a
// build makes the same index image as before, whatever it is.
#include "error.hpp"
#include "generate.hpp"
#include "graph.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "rng.hpp"
#include "scc.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace grail;

namespace reference {

size_t
sort_unique(vid_t *first, vid_t *last, vid_t self, bool drop_self, std::vector<RepeatedEdge> *repeated, eid_t base) {
	std::sort(first, last);
	size_t len = size_t(last - first), out = 0;
	for (size_t i = 0; i < len; i++) {
		vid_t x = first[i];
		if (drop_self && x == self)
			continue;
		if (out > 0 && first[out - 1] == x) {
			if (repeated == nullptr)
				continue;
			eid_t edge = base + out - 1;
			if (!repeated->empty() && repeated->back().edge == edge)
				repeated->back().rows++;
			else
				repeated->push_back(RepeatedEdge{edge, 2});
			continue;
		}
		first[out++] = x;
	}
	return out;
}

// Counting sort by source straight into the lists, then each list sorted and compacted.
Csr
from_pairs(size_t n, const std::vector<vid_t> &source, const std::vector<vid_t> &target, bool drop_self_loops,
           std::vector<RepeatedEdge> *repeated = nullptr) {
	std::vector<eid_t> offsets(n + 1, 0);
	size_t m = source.size();
	for (size_t e = 0; e < m; e++)
		offsets[source[e] + 1]++;
	for (size_t v = 0; v < n; v++)
		offsets[v + 1] += offsets[v];
	std::vector<vid_t> targets(m);
	std::vector<eid_t> fill(offsets.begin(), offsets.end() - 1);
	for (size_t e = 0; e < m; e++)
		targets[fill[source[e]]++] = target[e];
	eid_t write = 0;
	for (size_t v = 0; v < n; v++) {
		eid_t begin = offsets[v], end = offsets[v + 1];
		size_t len =
		    sort_unique(targets.data() + begin, targets.data() + end, vid_t(v), drop_self_loops, repeated, write);
		if (len != 0) // the targets of an edgeless graph may have no storage, which memmove must not be given
			std::memmove(targets.data() + write, targets.data() + begin, len * sizeof(vid_t));
		offsets[v] = write;
		write += len;
	}
	offsets[n] = write;
	targets.resize(write);
	Csr csr;
	csr.offsets = Array<eid_t>(std::move(offsets));
	csr.targets = Array<vid_t>(std::move(targets));
	return csr;
}

// Sorted unique ids by std::sort; vertex v is the v-th smallest id.
Graph
from_edges(const EdgeList &edges) {
	std::vector<int64_t> ids(edges.source.begin(), edges.source.end());
	ids.insert(ids.end(), edges.target.begin(), edges.target.end());
	std::sort(ids.begin(), ids.end());
	ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
	auto vertex = [&](int64_t id) { return vid_t(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin()); };
	std::vector<vid_t> source, target;
	for (size_t e = 0; e < edges.size(); e++) {
		source.push_back(vertex(edges.source[e]));
		target.push_back(vertex(edges.target[e]));
	}
	Graph g;
	std::vector<RepeatedEdge> repeated;
	g.out = from_pairs(ids.size(), source, target, true, &repeated);
	g.repeated = Array<RepeatedEdge>(std::move(repeated));
	g.ids = Array<int64_t>(std::move(ids));
	return g;
}

// Tarjan, iterative, with separate index, low-link and on-stack arrays: the numbering the build
// has always given (completion order reversed).
Components
tarjan(const Csr &graph) {
	size_t n = graph.vertex_count();
	constexpr uint32_t kUnvisited = UINT32_MAX;
	std::vector<uint32_t> index(n, kUnvisited), low(n, 0), finished(n);
	std::vector<uint8_t> on_stack(n, 0);
	std::vector<vid_t> stack, smallest_rev;
	struct Frame {
		vid_t v;
		eid_t next;
	};
	std::vector<Frame> call;
	uint32_t counter = 0, completed = 0;
	for (size_t root = 0; root < n; root++) {
		if (index[root] != kUnvisited)
			continue;
		index[root] = low[root] = counter++;
		stack.push_back(vid_t(root));
		on_stack[root] = 1;
		call.push_back({vid_t(root), graph.offsets[root]});
		while (!call.empty()) {
			Frame &f = call.back();
			vid_t v = f.v;
			if (f.next < graph.offsets[v + 1]) {
				vid_t w = graph.targets[f.next++];
				if (index[w] == kUnvisited) {
					index[w] = low[w] = counter++;
					stack.push_back(w);
					on_stack[w] = 1;
					call.push_back({w, graph.offsets[w]});
				} else if (on_stack[w]) {
					low[v] = std::min(low[v], index[w]);
				}
				continue;
			}
			if (low[v] == index[v]) {
				vid_t smallest = v, w;
				do {
					w = stack.back();
					stack.pop_back();
					on_stack[w] = 0;
					finished[w] = completed;
					smallest = std::min(smallest, w);
				} while (w != v);
				smallest_rev.push_back(smallest);
				completed++;
			}
			call.pop_back();
			if (!call.empty())
				low[call.back().v] = std::min(low[call.back().v], low[v]);
		}
	}
	Components c;
	for (uint32_t &comp : finished)
		comp = completed - 1 - comp;
	c.of_vertex = Array<uint32_t>(std::move(finished));
	c.smallest_vertex = Array<vid_t>(std::vector<vid_t>(smallest_rev.rbegin(), smallest_rev.rend()));
	return c;
}

Csr
condensation(const Csr &graph, const Components &components) {
	std::vector<vid_t> source, target;
	for (size_t v = 0; v < graph.vertex_count(); v++)
		for (const vid_t *w = graph.begin(vid_t(v)); w != graph.end(vid_t(v)); w++)
			if (components.of_vertex[v] != components.of_vertex[*w]) {
				source.push_back(components.of_vertex[v]);
				target.push_back(components.of_vertex[*w]);
			}
	return from_pairs(components.count(), source, target, true);
}

} // namespace reference

namespace {

template <class A, class B>
::testing::AssertionResult
same(const A &a, const B &b, const char *part) {
	if (a.size() != b.size())
		return ::testing::AssertionFailure() << part << ": " << a.size() << " entries, expected " << b.size();
	for (size_t i = 0; i < a.size(); i++)
		if (!(a[i] == b[i]))
			return ::testing::AssertionFailure() << part << " differs first at " << i;
	return ::testing::AssertionSuccess();
}

void
expect_same_build(const EdgeList &edges, const std::string &what) {
	SCOPED_TRACE(what);
	Graph got = Graph::from_edges(edges);
	Graph want = reference::from_edges(edges);
	EXPECT_TRUE(same(got.ids, want.ids, "ids"));
	EXPECT_TRUE(same(got.out.offsets, want.out.offsets, "offsets"));
	EXPECT_TRUE(same(got.out.targets, want.out.targets, "targets"));
	EXPECT_TRUE(same(got.repeated, want.repeated, "repeated edges"));
	Components c = strongly_connected_components(want.out);
	Components rc = reference::tarjan(want.out);
	EXPECT_TRUE(same(c.of_vertex, rc.of_vertex, "components"));
	EXPECT_TRUE(same(c.smallest_vertex, rc.smallest_vertex, "smallest vertices"));
	Csr dag = condensation(want.out, rc);
	Csr rdag = reference::condensation(want.out, rc);
	EXPECT_TRUE(same(dag.offsets, rdag.offsets, "DAG offsets"));
	EXPECT_TRUE(same(dag.targets, rdag.targets, "DAG targets"));
}

// m rows over ids base + [0, span) * stride, some repeated, some self-loops; with back_edges, some
// edges go against the order (cycles).
EdgeList
rows(uint64_t seed, size_t m, uint64_t span, int64_t base, int64_t stride, bool back_edges) {
	Rng rng(seed);
	EdgeList e;
	for (size_t i = 0; i < m; i++) {
		uint64_t a = rng.below(span), b = rng.below(span);
		if (!back_edges && a > b)
			std::swap(a, b);
		e.append(base + int64_t(a) * stride, base + int64_t(b) * stride);
		if (rng.below(10) == 0)
			e.append(e.source.back(), e.target.back()); // a duplicate row
		if (rng.below(50) == 0)
			e.append(e.source.back(), e.source.back()); // a self-loop
	}
	return e;
}

} // namespace

TEST(BuildExact, SmallRandomGraphsAsBefore) {
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph g = grail_test::random_graph(seed, 80);
		expect_same_build(g.edges, "random graph " + std::to_string(seed) + " (" + g.shape + ")");
	}
}

TEST(BuildExact, EmptyAndTinyGraphs) {
	expect_same_build(EdgeList{}, "empty");
	EdgeList loop;
	loop.append(7, 7);
	expect_same_build(loop, "one self-loop");
	EdgeList extremes;
	const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
	extremes.append(lo, hi);
	extremes.append(hi, lo);
	extremes.append(0, lo);
	extremes.append(-1, 0);
	extremes.append(hi, hi);
	extremes.append(lo, hi);
	expect_same_build(extremes, "extreme ids");
	EdgeList near_top;
	near_top.append(hi, hi - 1);
	near_top.append(hi - 2, hi);
	near_top.append(hi - 1, hi - 2);
	expect_same_build(near_top, "ids just below the largest");
	EdgeList near_bottom;
	near_bottom.append(lo, lo + 1);
	near_bottom.append(lo + 64, lo);
	near_bottom.append(lo + 63, lo + 65);
	expect_same_build(near_bottom, "ids just above the smallest");
}

TEST(BuildExact, DenseAndSparseIdRanges) {
	// Dense spans (ranked by the bit table), spans at the edge of it, and sparse ones (sorted), over
	// negative and positive bases, as DAGs and with cycles, large enough for many source buckets.
	struct Case {
		size_t m;
		uint64_t span;
		int64_t base, stride;
	};
	const Case cases[] = {{20000, 5000, 0, 1},
	                      {20000, 5000, -2500, 1},
	                      {50000, 20000, 1000000007, 1},
	                      {20000, 5000, 0, 3},
	                      {20000, 5000, -7, 1000},
	                      {30000, 30000, 0, 1 << 20},
	                      {20000, 10000, INT64_MIN / 2, 999983},
	                      {100000, 60000, 5, 1},
	                      {3000, 4000, 0, 1},
	                      {1000, 200, std::numeric_limits<int64_t>::max() - 300, 1}};
	uint64_t seed = 1;
	for (const Case &c : cases)
		for (bool back : {false, true}) {
			EdgeList e = rows(seed++, c.m, c.span, c.base, c.stride, back);
			expect_same_build(e, "m " + std::to_string(c.m) + " span " + std::to_string(c.span) + " base " +
			                         std::to_string(c.base) + " stride " + std::to_string(c.stride) +
			                         (back ? " with cycles" : " acyclic"));
		}
}

TEST(BuildExact, SpanAtTheDenseLimit) {
	// The bit table takes spans below 8 values a row plus 2^22: just below and just above it.
	for (uint64_t extra : {uint64_t(0), uint64_t(1), uint64_t(2)}) {
		EdgeList e = rows(extra + 40, 1000, 500, 0, 1, true);
		uint64_t limit = 8 * uint64_t(e.size() + 2) + (uint64_t(1) << 22);
		e.append(0, int64_t(limit - 2 + extra)); // the span: limit - 2 + extra
		e.append(int64_t(limit - 2 + extra), 3);
		expect_same_build(e, "span limit + " + std::to_string(extra) + " - 2");
	}
}

TEST(BuildExact, GeneratedGraphsAsBefore) {
	expect_same_build(generate_rmat(14, 8, 3), "R-MAT 14");
	expect_same_build(generate_random_dag(20000, 5, 4), "random DAG");
	expect_same_build(generate_grid(100, 120, true), "grid both ways");
	// A long path and a long cycle: deep searches, one big component.
	EdgeList path, cycle;
	for (int64_t i = 0; i < 200000; i++) {
		path.append(i * 7, (i + 1) * 7);
		cycle.append(i, (i + 1) % 200000);
	}
	expect_same_build(path, "path");
	expect_same_build(cycle, "cycle");
}

TEST(BuildExact, IndexImagesAsBefore) {
	// The whole image made from the reference steps (through the graph builder hook) and from the
	// build's own: byte for byte the same.
	for (uint64_t seed = 0; seed < 40; seed++) {
		grail_test::TestGraph g = grail_test::random_graph(seed, 200);
		BuildOptions options;
		options.id_hash_seed = 99;
		Index built = Index::build(g.edges, options);
		BuildOptions via_reference = options;
		via_reference.graph_builder = [](EdgeList &edges, BuiltGraph &parts) {
			parts.graph = reference::from_edges(edges);
			parts.components = reference::tarjan(parts.graph.out);
			parts.dag = reference::condensation(parts.graph.out, parts.components);
			return true;
		};
		Index expected = Index::build(g.edges, via_reference);
		EXPECT_EQ(built.serialize(), expected.serialize()) << "seed " << seed << " (" << g.shape << ")";
	}
}

TEST(BuildExact, OutOfRangePairsAreRefused) {
	std::vector<vid_t> s{0, 1, 5}, t{1, 2, 0};
	EXPECT_THROW(Csr::from_pairs(5, s, t, true), Error);
	EXPECT_THROW(Csr::from_pairs(0, std::vector<vid_t>{0}, std::vector<vid_t>{0}, true), Error);
	EXPECT_THROW(Csr::from_pairs(3, std::vector<vid_t>{0, 1}, std::vector<vid_t>{0}, true), Error);
	Csr none = Csr::from_pairs(0, {}, {}, true);
	EXPECT_EQ(none.vertex_count(), 0u);
	EXPECT_EQ(none.edge_count(), 0u);
}
