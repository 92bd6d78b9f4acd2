// The search of ReachabilityQuery (reachability.cpp: depth first, a batch of components at a
// time, each successor judged by the lookup, GRAIL and Bloom records) against the brute-force
// closure: graphs where the labels decide little (one traversal, no supports), so that most pairs
// are searched, with wide frontiers, deep chains, cycles, self-loops and duplicate edges.
#include "index.hpp"
#include "oracle.hpp"
#include "rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>
#include <vector>

using namespace grail;

namespace {

EdgeList
copy(const EdgeList &e) {
	return e;
}

// Shapes by seed: a wide random DAG (many successors per level), a deep chain with shortcuts, a
// layered graph, and cyclic variants of each with self-loops and duplicates; ids permuted, some
// extreme.
EdgeList
shaped_graph(uint64_t seed, std::vector<int64_t> &ids) {
	Rng rng(seed * 31 + 7);
	size_t n = seed % 6 == 5 ? 2 + rng.below(40) : seed % 3 == 0 ? 8000 + rng.below(8000) : 1500 + rng.below(2500);
	ids.resize(n);
	for (size_t i = 0; i < n; i++)
		ids[i] = int64_t(i) * 104729 - 3000000;
	ids[0] = INT64_MIN;
	ids[n - 1] = INT64_MAX;
	for (size_t i = n; i > 1; i--)
		std::swap(ids[i - 1], ids[rng.below(i)]);
	EdgeList edges;
	switch (seed % 3) {
	case 0: // wide: uniform pairs, smaller to larger
		for (size_t k = 0; k < n * (2 + rng.below(5)); k++) {
			size_t a = rng.below(n), b = rng.below(n);
			if (a != b)
				edges.append(ids[std::min(a, b)], ids[std::max(a, b)]);
		}
		break;
	case 1: // deep: a chain with short jumps, long paths
		for (size_t i = 0; i + 1 < n; i++) {
			if (rng.below(10) != 0)
				edges.append(ids[i], ids[i + 1]);
			edges.append(ids[i], ids[std::min(n - 1, i + 1 + rng.below(8))]);
		}
		break;
	default: { // layered: every vertex to a few of the next layer
		size_t width = 1 + rng.below(40);
		for (size_t i = 0; i + width < n; i++)
			for (unsigned k = 0; k < 1 + rng.below(3); k++)
				edges.append(ids[i], ids[std::min(n - 1, (i / width + 1) * width + rng.below(width))]);
	}
	}
	if (seed % 4 == 1) // back edges: cycles
		for (size_t k = 0; k < n / 15; k++) {
			size_t a = rng.below(n), b = rng.below(n);
			edges.append(ids[std::max(a, b)], ids[std::min(a, b)]);
		}
	if (seed % 5 == 2) // self-loops and duplicates
		for (size_t k = 0; k < n / 10 && edges.size() > 0; k++) {
			size_t e = rng.below(edges.size());
			edges.append(edges.source[e], edges.target[e]);
			edges.append(edges.source[e], edges.source[e]);
		}
	return edges;
}

// Brute force over the raw rows: a breadth-first search per pair (the graphs are too large for
// the closure of oracle.hpp).
class RowsOracle {
public:
	explicit RowsOracle(const EdgeList &edges) {
		for (size_t k = 0; k < edges.size(); k++)
			out_[edges.source[k]].push_back(edges.target[k]);
	}
	bool
	reachable(int64_t a, int64_t b) const {
		if (a == b)
			return true;
		std::unordered_set<int64_t> seen{a};
		std::vector<int64_t> queue{a};
		for (size_t k = 0; k < queue.size(); k++) {
			auto it = out_.find(queue[k]);
			if (it == out_.end())
				continue;
			for (int64_t w : it->second) {
				if (w == b)
					return true;
				if (seen.insert(w).second)
					queue.push_back(w);
			}
		}
		return false;
	}

private:
	std::unordered_map<int64_t, std::vector<int64_t>> out_;
};

} // namespace

TEST(FrontierSearch, SearchedPairsMatchTheClosure) {
	size_t searches = 0, searched_yes = 0;
	for (uint64_t seed = 0; seed < 60; seed++) {
		std::vector<int64_t> ids;
		EdgeList edges = shaped_graph(seed, ids);
		RowsOracle oracle(edges);
		BuildOptions options;
		options.labels = 1;
		options.supports = seed % 2 ? 0 : kMaxSupports;
		options.seed = seed;
		Index index = Index::build(copy(edges), options);
		ReachabilityQuery q(index);
		Rng rng(seed);
		std::vector<int64_t> a(400), b(400);
		for (size_t k = 0; k < a.size(); k++) {
			a[k] = ids[rng.below(ids.size())];
			b[k] = k % 50 == 0 ? int64_t(k) * 3 + 1 : ids[rng.below(ids.size())]; // some unknown ids
			bool expected = oracle.reachable(a[k], b[k]);
			ASSERT_EQ(q.reachable(a[k], b[k]), expected) << "seed " << seed << ": " << a[k] << " -> " << b[k];
			if (q.last_decision() == ReachabilityQuery::Decided::search) {
				searches++;
				searched_yes += expected;
			}
		}
		// The batch's searches (search_each) answer the same.
		std::unique_ptr<bool[]> answers(new bool[a.size()]);
		q.reachable_many(a.data(), b.data(), a.size(), answers.get());
		for (size_t k = 0; k < a.size(); k++)
			ASSERT_EQ(answers[k], oracle.reachable(a[k], b[k])) << "seed " << seed << ": pair " << k;
		// Component pairs straight to the search path, every ordered pair of some components.
		const Components &c = index.components();
		for (size_t k = 0; k < 150 && c.count() > 0; k++) {
			vid_t ca = vid_t(rng.below(c.count())), cb = vid_t(rng.below(c.count()));
			int64_t ia = index.graph().ids[c.smallest_vertex[ca]], ib = index.graph().ids[c.smallest_vertex[cb]];
			ASSERT_EQ(q.reachable_components(ca, cb), oracle.reachable(ia, ib)) << "seed " << seed;
		}
	}
	// Searches ran, ending both ways.
	std::printf("searches %zu, of which reached %zu\n", searches, searched_yes);
	EXPECT_GT(searches, 400u);
	EXPECT_GT(searched_yes, 100u);
	EXPECT_GT(searches - searched_yes, 15u);
}

// A frontier far wider than a cache's worth: one source to 20,000 middle vertices, each to a
// common sink that is not the target, and the target reached only through the last middle one.
TEST(FrontierSearch, WideFrontierAndTheEmptyGraph) {
	EdgeList edges;
	const int64_t width = 20000;
	for (int64_t m = 1; m <= width; m++) {
		edges.append(0, m);
		edges.append(m, width + 1);
		edges.append(m, m); // self-loops change nothing
	}
	edges.append(width, width + 2);
	edges.append(width + 3, width + 2); // the target's other parent, unreachable from 0
	edges.append(1, width + 4);         // a target only through the first middle vertex
	BuildOptions options;
	options.labels = 1;
	options.supports = 0;
	Index index = Index::build(copy(edges), options);
	ReachabilityQuery q(index);
	EXPECT_TRUE(q.reachable(0, width + 2));
	EXPECT_TRUE(q.reachable(0, width + 1));
	EXPECT_FALSE(q.reachable(1, width + 2));
	EXPECT_FALSE(q.reachable(width + 3, width + 1));
	EXPECT_FALSE(q.reachable(width + 2, 0));
	EXPECT_TRUE(q.reachable(width + 3, width + 3));
	// The stack holds every middle vertex: whichever end of it leads to the target, the search
	// drains it batch by batch until it finds the way.
	EXPECT_TRUE(q.reachable(0, width + 4));
	EXPECT_FALSE(q.reachable(2, width + 4));
	EXPECT_FALSE(q.reachable(width + 3, width + 4));

	Index empty = Index::build(EdgeList{}, BuildOptions{});
	ReachabilityQuery e(empty);
	EXPECT_TRUE(e.reachable(5, 5));
	EXPECT_FALSE(e.reachable(5, 6));
}
