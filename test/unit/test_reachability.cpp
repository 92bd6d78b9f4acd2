#include "error.hpp"
#include "generate.hpp"
#include "grail_labels.hpp"
#include "index.hpp"
#include "keyed_labels.hpp"
#include "oracle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

using namespace grail;

namespace {

EdgeList
copy(const EdgeList &e) {
	return e;
}

} // namespace

// Every pair of every random graph, for label counts 1..5, against the brute-force closure.
TEST(Reachability, AllPairsOfRandomGraphsMatchOracle) {
	size_t decided[ReachabilityQuery::kDecidedCount] = {};
	for (uint64_t seed = 0; seed < 1200; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 4 == 0 ? 120 : 40);
		grail_test::Oracle oracle(t.edges);
		for (unsigned d = 1; d <= 5; d++) {
			BuildOptions options;
			options.labels = d;
			options.seed = seed * 31 + d;
			// All components supports (small graphs), none, or a few: every decider gets pairs.
			options.supports = (seed + d) % 3 == 0 ? kMaxSupports : (seed + d) % 3 == 1 ? 0 : 3;
			Index index = Index::build(copy(t.edges), options);
			ReachabilityQuery q(index);
			for (int64_t a : t.query_ids)
				for (int64_t b : t.query_ids) {
					bool got = q.reachable(a, b);
					ASSERT_EQ(got, oracle.reachable(a, b))
					    << "seed " << seed << " (" << t.shape << ") d=" << d << " " << a << " -> " << b;
					decided[int(q.last_decision())]++;
				}
		}
	}
	// Every filter and the search must have decided something, or the test misses code paths. On
	// graphs this small every vertex has a Bloom bit of its own, so the Bloom filter is nearly exact
	// and leaves the level and GRAIL filters nothing: LargeDagFilters covers those.
	for (int k = 0; k < ReachabilityQuery::kDecidedCount; k++)
		if (k != int(ReachabilityQuery::Decided::level) && k != int(ReachabilityQuery::Decided::labels)) {
			EXPECT_GT(decided[k], 0u) << "decision " << k;
		}
}

// A DAG large enough that Bloom bits are shared by intervals of vertices and saturate: every
// filter behind the Bloom test decides some queries. Checked against a BFS per query.
TEST(Reachability, LargeDagFilters) {
	EdgeList edges = generate_random_dag(30000, 4, 11);
	Index index = Index::build(copy(edges), BuildOptions{});
	const Csr &g = index.graph().out;
	const Array<int64_t> &ids = index.graph().ids;
	size_t n = ids.size();
	std::vector<uint32_t> seen(n, 0);
	std::vector<vid_t> stack;
	auto bfs_reaches = [&](vid_t a, vid_t b, uint32_t mark) {
		stack.assign(1, a);
		seen[a] = mark;
		while (!stack.empty()) {
			vid_t v = stack.back();
			stack.pop_back();
			if (v == b)
				return true;
			for (const vid_t *w = g.begin(v); w != g.end(v); w++)
				if (seen[*w] != mark) {
					seen[*w] = mark;
					stack.push_back(*w);
				}
		}
		return false;
	};
	ReachabilityQuery q(index);
	size_t decided[ReachabilityQuery::kDecidedCount] = {};
	Rng rng(3);
	for (uint32_t k = 1; k <= 20000; k++) {
		vid_t a = vid_t(rng.below(n)), b = vid_t(rng.below(n));
		ASSERT_EQ(q.reachable(ids[a], ids[b]), bfs_reaches(a, b, k)) << ids[a] << " -> " << ids[b];
		decided[int(q.last_decision())]++;
	}
	for (auto k :
	     {ReachabilityQuery::Decided::topological, ReachabilityQuery::Decided::bloom, ReachabilityQuery::Decided::level,
	      ReachabilityQuery::Decided::labels, ReachabilityQuery::Decided::search})
		EXPECT_GT(decided[int(k)], 0u) << "decision " << int(k);
}

// The GRAIL invariant on the condensation: reachable implies containment and a lower level,
// and every traversal's post-order ranks are a permutation.
TEST(Reachability, LabelInvariants) {
	for (uint64_t seed = 0; seed < 200; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, 80);
		BuildOptions options;
		options.labels = 1 + unsigned(seed % kMaxLabels);
		Index index = Index::build(copy(t.edges), options);
		const Csr &dag = index.dag();
		const GrailLabels &labels = index.labels();
		size_t c = dag.vertex_count();
		ASSERT_EQ(labels.label_count(), options.labels);
		ASSERT_EQ(labels.data().size(), c * labels.record_width());
		for (unsigned i = 0; i < labels.label_count(); i++) {
			std::vector<uint32_t> posts;
			for (vid_t v = 0; v < c; v++)
				posts.push_back(labels.record(v)[4 + 2 * i]);
			std::sort(posts.begin(), posts.end());
			for (vid_t v = 0; v < c; v++)
				ASSERT_EQ(posts[v], v);
		}
		// DAG closure by reverse topological sweep (components are topologically numbered).
		std::vector<std::vector<bool>> reach(c, std::vector<bool>(c, false));
		for (size_t v = c; v-- > 0;) {
			reach[v][v] = true;
			for (const vid_t *w = dag.begin(vid_t(v)); w != dag.end(vid_t(v)); w++)
				for (size_t x = 0; x < c; x++)
					if (reach[*w][x])
						reach[v][x] = true;
		}
		for (vid_t u = 0; u < c; u++)
			for (vid_t v = 0; v < c; v++) {
				const uint32_t *ru = labels.record(u), *rv = labels.record(v);
				if (reach[u][v]) {
					ASSERT_TRUE(labels.contains(u, v));
					if (u != v) {
						ASSERT_LT(ru[2], rv[2]);
					}
				}
				const BloomRecord &bu = index.bloom().record(u), &bv = index.bloom().record(v);
				if (reach[u][v]) {
					ASSERT_TRUE(BloomLabels::may_reach(bu, bv)) << "seed " << seed << " " << u << " -> " << v;
				}
				// The tree interval is a certain positive.
				if (rv[0] >= ru[1] && rv[0] <= ru[0]) {
					ASSERT_TRUE(reach[u][v]) << "seed " << seed << " " << u << " -> " << v;
				}
			}
	}
}

TEST(Reachability, LabelsAreDeterministicBySeed) {
	EdgeList dag;
	Rng rng(5);
	for (int k = 0; k < 600; k++) {
		int64_t a = int64_t(rng.below(199));
		dag.append(a, a + 1 + int64_t(rng.below(uint64_t(199 - a))));
	}
	BuildOptions options;
	Index a = Index::build(copy(dag), options), b = Index::build(copy(dag), options);
	ASSERT_GT(a.dag().vertex_count(), 100u);
	EXPECT_EQ(a.labels().data(), b.labels().data());
	ASSERT_EQ(a.bloom().data().size(), b.bloom().data().size());
	EXPECT_EQ(std::memcmp(a.bloom().data().data(), b.bloom().data().data(), a.bloom().data().size() * 64), 0);
	options.seed = 12345;
	Index c = Index::build(copy(dag), options);
	EXPECT_NE(a.labels().data(), c.labels().data());
}

TEST(Reachability, UnknownIdsAndSelf) {
	EdgeList e;
	e.append(1, 2);
	Index index = Index::build(e, BuildOptions{});
	ReachabilityQuery q(index);
	EXPECT_TRUE(q.reachable(1, 2));
	EXPECT_FALSE(q.reachable(2, 1));
	EXPECT_TRUE(q.reachable(99, 99));
	EXPECT_FALSE(q.reachable(99, 1));
	EXPECT_FALSE(q.reachable(1, 99));
	EXPECT_EQ(q.last_decision(), ReachabilityQuery::Decided::unknown_vertex);
	EXPECT_TRUE(q.reachable(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min()));

	Index empty = Index::build(EdgeList{}, BuildOptions{});
	ReachabilityQuery qe(empty);
	EXPECT_TRUE(qe.reachable(0, 0));
	EXPECT_FALSE(qe.reachable(0, 1));
	EXPECT_EQ(empty.component_id(7), 7);
}

TEST(Reachability, BadLabelCountIsAnError) {
	BuildOptions options;
	options.labels = 0;
	EXPECT_THROW(Index::build(EdgeList{}, options), Error);
	options.labels = kMaxLabels + 1;
	EXPECT_THROW(Index::build(EdgeList{}, options), Error);
}

// Many queries on one ReachabilityQuery: visited marks (epochs) must not leak between searches.
TEST(Reachability, ManyQueriesReuseScratch) {
	grail_test::TestGraph t = grail_test::random_graph(77, 120);
	grail_test::Oracle oracle(t.edges);
	BuildOptions options;
	options.labels = 1;
	Index index = Index::build(copy(t.edges), options);
	ReachabilityQuery q(index);
	for (int round = 0; round < 20; round++)
		for (int64_t a : t.query_ids)
			for (int64_t b : t.query_ids)
				ASSERT_EQ(q.reachable(a, b), oracle.reachable(a, b));
}

// The keyed-order DFS labels that the GPU labelling reproduces (keyed_labels.hpp), through the
// label-builder hook: valid labels, so every pair is answered like the closure.
TEST(Reachability, KeyedDfsLabelsThroughBuilderAnswerEveryPair) {
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 4 == 0 ? 120 : 40);
		grail_test::Oracle oracle(t.edges);
		BuildOptions options;
		options.labels = 1 + seed % 5;
		options.seed = seed;
		options.label_builder = grail_test::keyed_dfs_labels;
		Index index = Index::build(copy(t.edges), options);
		ReachabilityQuery q(index);
		for (int64_t a : t.query_ids)
			for (int64_t b : t.query_ids)
				ASSERT_EQ(q.reachable(a, b), oracle.reachable(a, b)) << "seed " << seed << " " << a << " -> " << b;
	}
}

// Labels from a builder are checked, not trusted: a swapped interval or a wrong shape is refused.
TEST(Reachability, InvalidBuiltLabelsAreRefused) {
	EdgeList chain;
	for (int64_t v = 0; v < 10; v++)
		chain.append(v, v + 1);
	BuildOptions options;
	options.labels = 2;
	options.label_builder = [](const Csr &dag, unsigned d, uint64_t seed) {
		GrailLabels labels = grail_test::keyed_dfs_labels(dag, d, seed);
		labels.data()[labels.record_width() + 4] += 100; // vertex 1's interval sticks out of vertex 0's
		return labels;
	};
	EXPECT_THROW(Index::build(copy(chain), options), Error);
	options.label_builder = [](const Csr &dag, unsigned d, uint64_t seed) {
		return grail_test::keyed_dfs_labels(dag, d == 1 ? 2 : 1, seed);
	};
	EXPECT_THROW(Index::build(copy(chain), options), Error);
	options.label_builder = grail_test::keyed_dfs_labels;
	EXPECT_NO_THROW(Index::build(copy(chain), options));
}

// reachable_many: the same answers as reachable(), whether the undecided pairs go to a batched
// search (here a BFS over the DAG standing in for the GPU) or, below min_searches, to the DFS.
TEST(Reachability, ReachableManyEqualsReachable) {
	Index index = Index::build(generate_random_dag(20000, 4, 5), BuildOptions{});
	const Csr &dag = index.dag();
	const Array<int64_t> &ids = index.graph().ids;
	Rng rng(9);
	std::vector<int64_t> a, b;
	for (int k = 0; k < 20000; k++) {
		a.push_back(k % 97 == 0 ? -5 : ids[rng.below(ids.size())]);
		b.push_back(ids[rng.below(ids.size())]);
	}
	size_t calls = 0, batched = 0;
	bool decline = false;
	ReachabilityQuery::PairSearch bfs = [&](const std::vector<vid_t> &from, const std::vector<vid_t> &to,
	                                        std::vector<uint8_t> &reached) {
		calls++;
		if (decline)
			return false;
		batched += from.size();
		reached.assign(from.size(), 0);
		for (size_t k = 0; k < from.size(); k++) {
			EXPECT_LT(from[k], to[k]);
			std::vector<bool> seen(dag.vertex_count(), false);
			std::vector<vid_t> stack{from[k]};
			while (!stack.empty() && !reached[k]) {
				vid_t v = stack.back();
				stack.pop_back();
				for (const vid_t *c = dag.begin(v); c != dag.end(v); c++)
					if (!seen[*c]) {
						seen[*c] = true;
						reached[k] |= *c == to[k];
						stack.push_back(*c);
					}
			}
		}
		return true;
	};
	ReachabilityQuery q(index);
	std::unique_ptr<bool[]> many(new bool[a.size()]), dfs(new bool[a.size()]);
	size_t searched = q.reachable_many(a.data(), b.data(), a.size(), many.get(), bfs);
	EXPECT_EQ(calls, 1u);
	EXPECT_EQ(batched, searched);
	EXPECT_GT(searched, 0u);
	EXPECT_EQ(q.reachable_many(a.data(), b.data(), a.size(), dfs.get(), bfs, searched + 1), searched);
	EXPECT_EQ(calls, 1u); // too few searches for the batch: the DFS answered
	decline = true;
	std::unique_ptr<bool[]> declined(new bool[a.size()]);
	EXPECT_EQ(q.reachable_many(a.data(), b.data(), a.size(), declined.get(), bfs), searched);
	EXPECT_EQ(calls, 2u);
	size_t yes = 0;
	for (size_t i = 0; i < a.size(); i++) {
		bool expected = q.reachable(a[i], b[i]);
		ASSERT_EQ(many[i], expected) << a[i] << " -> " << b[i];
		ASSERT_EQ(dfs[i], expected) << a[i] << " -> " << b[i];
		ASSERT_EQ(declined[i], expected) << a[i] << " -> " << b[i];
		yes += expected;
	}
	EXPECT_GT(yes, 0u);
}

// The interval end test alone (pruning::end_holds): every pair of components it calls reachable
// is, by the brute-force closure, for the host's labels and a builder's (keyed DFS, as the GPU's),
// and it does call some.
TEST(Reachability, IntervalEndIsSoundAndDecides) {
	size_t proved = 0;
	for (uint64_t seed = 0; seed < 400; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 4 == 0 ? 120 : 40);
		grail_test::Oracle oracle(t.edges);
		for (int keyed = 0; keyed < 2; keyed++) {
			BuildOptions options;
			options.labels = 1 + seed % 5;
			options.seed = seed;
			if (keyed)
				options.label_builder = grail_test::keyed_dfs_labels;
			Index index = Index::build(copy(t.edges), options);
			const GrailLabels &labels = index.labels();
			ASSERT_EQ(labels.first_inexact_label(index.dag()), "") << "seed " << seed;
			const Components &c = index.components();
			const auto &ids = index.graph().ids;
			for (size_t a = 0; a < ids.size(); a++)
				for (size_t b = 0; b < ids.size(); b++) {
					uint32_t ca = c.of_vertex[a], cb = c.of_vertex[b];
					if (ca == cb || !pruning::end_holds(labels.record(ca), labels.record(cb), labels.label_count()))
						continue;
					proved++;
					ASSERT_TRUE(oracle.reachable(ids[a], ids[b])) << "seed " << seed << " (" << t.shape << ") keyed "
					                                              << keyed << " " << ids[a] << " -> " << ids[b];
				}
		}
	}
	EXPECT_GT(proved, 1000u);
}

// The end test trusts that lo is the smallest post rank reached: labels from a builder whose lo is
// smaller (still nested, so every "no" would stay right) are refused, for they would give a wrong
// "yes"; so are repeated post ranks.
TEST(Reachability, InexactBuiltLabelsAreRefused) {
	EdgeList edges;
	for (int64_t v = 0; v < 10; v++)
		edges.append(v, v + 1);
	edges.append(20, 21); // a second chain: lo of its head lowered to 0 would "prove" 20 -> 0's vertex
	BuildOptions options;
	options.labels = 2;
	options.label_builder = [](const Csr &dag, unsigned d, uint64_t seed) {
		GrailLabels labels = grail_test::keyed_dfs_labels(dag, d, seed);
		for (size_t v = 0; v < dag.vertex_count(); v++)
			labels.data()[v * labels.record_width() + 3] = 0; // every lo_0 := 0: nested, inexact
		return labels;
	};
	EXPECT_THROW(Index::build(copy(edges), options), Error);
	Index good = Index::build(copy(edges), BuildOptions{});
	GrailLabels labels = GrailLabels::from_data(good.labels().label_count(), Array<uint32_t>(good.labels().data()));
	labels.data()[4] = labels.data()[labels.record_width() + 4]; // post rank of traversal 0 repeated
	EXPECT_NE(labels.first_inexact_label(good.dag()), "");
	EXPECT_EQ(good.labels().first_inexact_label(good.dag()), "");
}

// The lookup labels alone: each rule, on every pair of components of many random graphs (cycles,
// self-loops, duplicates, deep chains), against the brute-force closure; and each decides some.
TEST(Reachability, LookupLabelsAreSoundAndDecide) {
	size_t proved = 0, by_level = 0, by_supports = 0;
	for (uint64_t seed = 0; seed < 400; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 4 == 0 ? 160 : 40);
		if (seed % 7 == 3) { // a deep chain with shortcuts and a back edge
			t.edges = EdgeList{};
			for (int64_t v = 0; v < 150; v++) {
				t.edges.append(v, v + 1);
				if (v % 5 == 0)
					t.edges.append(v, v + 7);
			}
			t.edges.append(90, 80);
			t.query_ids.clear();
			for (int64_t v = -1; v <= 160; v++)
				t.query_ids.push_back(v);
		}
		grail_test::Oracle oracle(t.edges);
		BuildOptions options;
		options.supports = unsigned(seed % 5 == 0 ? kMaxSupports : 1 + seed % 8);
		Index index = Index::build(copy(t.edges), options);
		const LookupLabels &lookup = index.lookup();
		ASSERT_FALSE(index.dag().vertex_count() > 0 && lookup.empty());
		ASSERT_LE(lookup.supports().size(), size_t(options.supports));
		const Components &c = index.components();
		const auto &ids = index.graph().ids;
		for (size_t a = 0; a < ids.size(); a++)
			for (size_t b = 0; b < ids.size(); b++) {
				uint32_t ca = c.of_vertex[a], cb = c.of_vertex[b];
				if (ca == cb)
					continue;
				const LookupRecord &la = lookup.record(ca), &lb = lookup.record(cb);
				bool reaches = oracle.reachable(ids[a], ids[b]);
				std::string what = "seed " + std::to_string(seed) + " (" + t.shape + ") " + std::to_string(ids[a]) +
				                   " -> " + std::to_string(ids[b]);
				if (LookupLabels::proves(la, lb)) {
					proved++;
					ASSERT_TRUE(reaches) << what;
				}
				if (LookupLabels::level_rules_out(la, lb)) {
					by_level++;
					ASSERT_FALSE(reaches) << what;
				}
				if (LookupLabels::supports_rule_out(la, lb)) {
					by_supports++;
					ASSERT_FALSE(reaches) << what;
				}
			}
	}
	EXPECT_GT(proved, 1000u);
	EXPECT_GT(by_level, 1000u);
	EXPECT_GT(by_supports, 1000u);
}

// The empty graph has no lookup labels and answers as before; a build asks for at most 64 supports.
TEST(Reachability, LookupLabelsOfTheEmptyGraphAndTooManySupports) {
	Index empty = Index::build(EdgeList{}, BuildOptions{});
	EXPECT_TRUE(empty.lookup().empty());
	EXPECT_TRUE(empty.lookup().supports().empty());
	ReachabilityQuery q(empty);
	EXPECT_TRUE(q.reachable(1, 1));
	EXPECT_FALSE(q.reachable(1, 2));
	std::vector<uint8_t> bytes = empty.serialize();
	EXPECT_TRUE(Index::deserialize(bytes.data(), bytes.size()).lookup().empty());
	BuildOptions options;
	options.supports = kMaxSupports + 1;
	EdgeList one;
	one.append(1, 2);
	EXPECT_THROW(Index::build(copy(one), options), Error);
}

// The search's rule (the GRAIL record first, containment and end test in one pass, the Bloom
// record last) against a BFS, on graphs where most pairs need a search: one GRAIL traversal and no
// supports, deep "local" DAGs (each vertex to a few of the next ones), random DAGs and cyclic
// graphs with permuted ids. Searches must run, and some must end on the rule's "reached".
TEST(Reachability, SearchRuleMatchesBfsOnDeepAndCyclicGraphs) {
	size_t searches = 0, searched_reachable = 0, visits = 0;
	for (uint64_t seed = 0; seed < 24; seed++) {
		Rng rng(seed + 100);
		size_t n = 300 + rng.below(900);
		EdgeList edges;
		std::vector<int64_t> perm(n);
		for (size_t i = 0; i < n; i++)
			perm[i] = seed % 2 ? int64_t(i) * 7919 - 1000000 : int64_t(i);
		for (size_t i = n; i > 1; i--)
			std::swap(perm[i - 1], perm[rng.below(i)]);
		size_t window = 2 + rng.below(40);
		for (size_t i = 0; i + 1 < n; i++)
			for (unsigned k = 0; k < 1 + rng.below(4); k++)
				edges.append(perm[i], perm[std::min(n - 1, i + 1 + rng.below(window))]);
		if (seed % 3 == 2) // back edges: cycles, components of several vertices
			for (unsigned k = 0; k < n / 20; k++) {
				size_t i = rng.below(n);
				edges.append(perm[i], perm[i > 5 ? i - 1 - rng.below(5) : 0]);
			}
		if (seed % 4 == 3) // self-loops and an isolated pair
			for (unsigned k = 0; k < 5; k++) {
				size_t i = rng.below(n);
				edges.append(perm[i], perm[i]);
			}
		grail_test::Oracle oracle(edges);
		BuildOptions options;
		options.labels = 1 + unsigned(seed % 3);
		options.supports = 0;
		options.seed = seed;
		Index index = Index::build(copy(edges), options);
		ReachabilityQuery q(index);
		for (unsigned k = 0; k < 3000; k++) {
			int64_t a = perm[rng.below(n)], b = perm[rng.below(n)];
			bool expected = oracle.reachable(a, b);
			ASSERT_EQ(q.reachable(a, b), expected) << "seed " << seed << " " << a << " -> " << b;
			if (q.last_decision() == ReachabilityQuery::Decided::search) {
				searches++;
				searched_reachable += expected;
				visits += q.last_search_visits();
			}
			// The batch answers as the single pair does.
			bool batch = !expected;
			q.reachable_many(&a, &b, 1, &batch);
			ASSERT_EQ(batch, expected) << "seed " << seed << " " << a << " -> " << b;
		}
	}
	EXPECT_GT(searches, 10000u);
	EXPECT_GT(searched_reachable, 1000u);
	EXPECT_LT(searched_reachable, searches);
	EXPECT_GT(visits, searches); // the searches went past their first step
}

// A source with dozens of successors that the labels cannot rule out, one of which alone leads to
// the target: its first batch pushes more than the next one takes, and the search must keep the
// rest (ReachabilityQuery::search_step orders only the highest of what a batch pushed). The
// others' only ancestor is the source, and the target has a thousand other ancestors (sources of
// their own), so that its Bloom "in" filter is saturated and allows them; each reaches a random
// DAG that never meets the target (the target reaches its end). Every pair from the source, and random pairs, against
// the oracle, one at a time and as a batch.
TEST(Reachability, WideSearchBatchesKeepWhatTheyPushed) {
	size_t wide_searches = 0;
	for (uint64_t seed = 0; seed < 16; seed++) {
		Rng rng(seed + 500);
		std::vector<int64_t> ids(8000);
		for (size_t i = 0; i < ids.size(); i++)
			ids[i] = int64_t(i) * 104729 % 1000003 - 500000;
		for (size_t i = ids.size(); i > 1; i--)
			std::swap(ids[i - 1], ids[rng.below(i)]);
		size_t next = 0;
		auto vertex = [&] { return ids[next++]; };
		const int64_t root = vertex(), source = vertex(), target = vertex();
		EdgeList edges;
		edges.append(root, source); // source is not the ancestor that the backward order finishes first
		std::vector<int64_t> pool(3000);
		for (int64_t &v : pool)
			v = vertex();
		for (size_t i = 0; i + 1 < pool.size(); i++)
			for (unsigned k = 0; k < 3; k++)
				edges.append(pool[i], pool[i + 1 + rng.below(pool.size() - i - 1)]);
		const size_t children = 40 + rng.below(40), leading = rng.below(children);
		for (size_t c = 0; c < children; c++) {
			int64_t child = vertex();
			edges.append(source, child);
			for (unsigned k = 0; k < 20; k++)
				edges.append(child, pool[rng.below(pool.size() / 2)]);
			if (c == leading) { // child -> a chain of five -> target
				int64_t at = child;
				for (unsigned k = 0; k < 5; k++) {
					int64_t step = vertex();
					edges.append(at, step);
					at = step;
				}
				edges.append(at, target);
			}
		}
		for (unsigned k = 0; k < 1000; k++)
			edges.append(vertex(), target);
		// The target leads into the pool's end: the backward order then finds the source from the
		// pool's sinks, outside the target's subtree, and leaves the pair to the search.
		edges.append(target, pool[pool.size() - 1 - rng.below(10)]);
		grail_test::Oracle oracle(edges);
		BuildOptions options;
		options.labels = 1;
		options.supports = 0;
		options.seed = seed;
		Index index = Index::build(copy(edges), options);
		ReachabilityQuery q(index);
		auto check = [&](int64_t a, int64_t b) {
			bool expected = oracle.reachable(a, b);
			ASSERT_EQ(q.reachable(a, b), expected) << "seed " << seed << " " << a << " -> " << b;
			bool batch = !expected;
			q.reachable_many(&a, &b, 1, &batch);
			ASSERT_EQ(batch, expected) << "seed " << seed << " " << a << " -> " << b;
		};
		check(source, target);
		wide_searches += q.last_decision() == ReachabilityQuery::Decided::search && q.last_search_visits() > children;
		for (size_t k = 0; k < next; k += 7)
			check(source, ids[k]);
		for (unsigned k = 0; k < 2000; k++)
			check(ids[rng.below(next)], ids[rng.below(next)]);
	}
	EXPECT_GE(wide_searches, 12u); // most sources' searches for the target went past their children
}
