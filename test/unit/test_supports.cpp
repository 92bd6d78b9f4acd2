// How the lookup labels choose their supports (grail_labels.hpp): the records are exactly what a
// sweep over the chosen supports makes, the choice is deterministic and of the size asked, the
// supports' answers are those of the brute-force closure, and the choice pays where hubs do not.
#include "generate.hpp"
#include "grail_labels.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

using namespace grail;

namespace {

EdgeList
copy(const EdgeList &e) {
	return e;
}

// A deep "local" DAG with permuted ids: vertex i to `degree` random vertices of i+1 .. i+window,
// optionally with back edges (cycles), self-loops and duplicate edges.
EdgeList
local_dag(uint64_t seed, size_t n, size_t window, unsigned degree, bool noise) {
	Rng rng(seed);
	std::vector<int64_t> perm(n);
	for (size_t i = 0; i < n; i++)
		perm[i] = seed % 2 ? int64_t(i) * 7919 - 1000000 : int64_t(i);
	for (size_t i = n; i > 1; i--)
		std::swap(perm[i - 1], perm[rng.below(i)]);
	EdgeList edges;
	for (size_t i = 0; i + 1 < n; i++)
		for (unsigned k = 0; k < degree; k++)
			edges.append(perm[i], perm[std::min(n - 1, i + 1 + rng.below(window))]);
	if (noise)
		for (size_t k = 0; k < n / 30; k++) {
			size_t i = rng.below(n);
			edges.append(perm[i], perm[i > 3 ? i - 1 - rng.below(3) : 0]); // a short cycle
			edges.append(perm[i], perm[i]);                                // a self-loop
			edges.append(perm[i], perm[std::min(n - 1, i + 1)]);           // a duplicate, often
		}
	return edges;
}

void
expect_records_of_a_sweep(const Index &index, const std::string &what) {
	const LookupLabels &lookup = index.lookup();
	const Array<uint32_t> &supports = lookup.supports();
	std::set<uint32_t> distinct(supports.begin(), supports.end());
	ASSERT_EQ(distinct.size(), supports.size()) << what;
	for (uint32_t s : supports)
		ASSERT_LT(s, index.dag().vertex_count()) << what;
	LookupLabels swept = LookupLabels::build(index.dag(), 0, std::vector<vid_t>(supports.begin(), supports.end()));
	ASSERT_EQ(swept.records().size(), lookup.records().size()) << what;
	ASSERT_EQ(
	    std::memcmp(swept.records().data(), lookup.records().data(), lookup.records().size() * sizeof(LookupRecord)), 0)
	    << what << ": the gathered records differ from a sweep over the chosen supports";
}

} // namespace

// Many random graphs (cycles, self-loops, duplicates, extreme ids, the empty graph) and deep local
// DAGs with more components than supports: the choice is of min(count, components) distinct
// components, its records equal a sweep over them, an image of it passes the full check, and every
// support rule agrees with the brute-force closure.
TEST(Supports, ChosenRecordsAreASweepAndSound) {
	size_t proved = 0, ruled_out = 0;
	for (uint64_t seed = 0; seed < 160; seed++) {
		grail_test::TestGraph t;
		if (seed % 3 == 0) {
			t.edges = local_dag(seed, 100 + seed * 3, 3 + seed % 20, 1 + unsigned(seed % 3), seed % 2 == 0);
			grail_test::Oracle all(t.edges);
			t.query_ids = all.vertices();
			t.shape = "local DAG";
		} else {
			t = grail_test::random_graph(seed, seed % 4 == 1 ? 200 : 60);
		}
		grail_test::Oracle oracle(t.edges);
		BuildOptions options;
		options.supports = unsigned(seed % 5 == 0 ? kMaxSupports : seed % 5 == 1 ? 0 : 1 + seed % 40);
		options.seed = seed;
		Index index = Index::build(copy(t.edges), options);
		std::string what = "seed " + std::to_string(seed) + " (" + t.shape + ")";
		size_t components = index.dag().vertex_count();
		ASSERT_EQ(index.lookup().supports().size(), std::min<size_t>(options.supports, components)) << what;
		expect_records_of_a_sweep(index, what);
		std::vector<uint8_t> image = index.serialize();
		Index back = Index::deserialize(image.data(), image.size()); // Check::full recomputes the records
		ASSERT_EQ(back.lookup().supports().size(), index.lookup().supports().size()) << what;
		// The same seed chooses the same supports.
		Index again = Index::build(copy(t.edges), options);
		ASSERT_TRUE(std::equal(again.lookup().supports().begin(), again.lookup().supports().end(),
		                       index.lookup().supports().begin(), index.lookup().supports().end()))
		    << what;

		const LookupLabels &lookup = index.lookup();
		const Components &c = index.components();
		const auto &ids = index.graph().ids;
		for (size_t a = 0; a < ids.size(); a++)
			for (size_t b = 0; b < ids.size(); b++) {
				uint32_t ca = c.of_vertex[a], cb = c.of_vertex[b];
				if (ca == cb || lookup.empty())
					continue;
				const LookupRecord &la = lookup.record(ca), &lb = lookup.record(cb);
				bool reaches = oracle.reachable(ids[a], ids[b]);
				if (LookupLabels::proves(la, lb)) {
					proved++;
					ASSERT_TRUE(reaches) << what << " " << ids[a] << " -> " << ids[b];
				}
				if (LookupLabels::supports_rule_out(la, lb) || LookupLabels::level_rules_out(la, lb)) {
					ruled_out++;
					ASSERT_FALSE(reaches) << what << " " << ids[a] << " -> " << ids[b];
				}
			}
		// And the queries, which read the supports first, against the closure.
		ReachabilityQuery q(index);
		for (int64_t a : t.query_ids)
			for (int64_t b : t.query_ids)
				ASSERT_EQ(q.reachable(a, b), oracle.reachable(a, b)) << what << " " << a << " -> " << b;
	}
	EXPECT_GT(proved, 10000u);
	EXPECT_GT(ruled_out, 10000u);
}

// The empty graph, a graph of fewer components than supports (every component one: the records
// are the whole reachability), and a `decided` that settles every pair (nothing sampled: the hubs).
TEST(Supports, EdgeCasesOfTheChoice) {
	Csr empty = Csr::from_pairs(0, {}, {}, true);
	LookupLabels none = LookupLabels::build(empty, kMaxSupports);
	EXPECT_TRUE(none.empty());
	EXPECT_TRUE(none.supports().empty());

	// A chain 0 -> 1 -> ... -> 9: 10 components, all supports.
	std::vector<vid_t> s, t;
	for (vid_t v = 0; v + 1 < 10; v++) {
		s.push_back(v);
		t.push_back(v + 1);
	}
	Csr chain = Csr::from_pairs(10, s, t, true);
	LookupLabels all = LookupLabels::build(chain, kMaxSupports);
	ASSERT_EQ(all.supports().size(), 10u);
	for (vid_t u = 0; u < 10; u++)
		for (vid_t v = u + 1; v < 10; v++)
			EXPECT_TRUE(LookupLabels::proves(all.record(u), all.record(v))) << u << " -> " << v;

	// A deep DAG where everything is settled elsewhere: the supports are the hubs, as many as asked.
	EdgeList edges = local_dag(7, 3000, 30, 3, false);
	Index index = Index::build(copy(edges), BuildOptions{});
	LookupLabels hubs = LookupLabels::build(
	    index.dag(), 5, {}, [](vid_t, vid_t) { return true; }, 1);
	EXPECT_EQ(hubs.supports().size(), 5u);
	LookupLabels plain = LookupLabels::build(index.dag(), 5, {}, {}, 1);
	EXPECT_EQ(plain.supports().size(), 5u);
	LookupLabels swept =
	    LookupLabels::build(index.dag(), 0, std::vector<vid_t>(plain.supports().begin(), plain.supports().end()));
	EXPECT_EQ(
	    std::memcmp(swept.records().data(), plain.records().data(), plain.records().size() * sizeof(LookupRecord)), 0);
}

// On a deep local DAG the 64 hubs of largest degree product sit anywhere along the order. The
// chosen supports must decide (either way) more of the pairs that the back levels and the GRAIL
// and Bloom records leave to a search, uniform pairs and the ends of random walks alike, than the
// hubs do (the choice before).
TEST(Supports, ChoicePaysOnADeepDag) {
	EdgeList edges = local_dag(3, 60000, 50, 3, false);
	Index index = Index::build(copy(edges), BuildOptions{});
	const Csr &dag = index.dag();
	size_t n = dag.vertex_count();
	std::vector<uint32_t> in(n, 0);
	for (vid_t v : dag.targets)
		in[v]++;
	std::vector<std::pair<uint64_t, vid_t>> score(n);
	for (size_t v = 0; v < n; v++)
		score[v] = {uint64_t(in[v] + 1) * uint64_t(dag.end(vid_t(v)) - dag.begin(vid_t(v)) + 1), vid_t(v)};
	std::partial_sort(score.begin(), score.begin() + kMaxSupports, score.end(),
	                  [](const auto &a, const auto &b) { return a.first > b.first; });
	std::vector<vid_t> hub_supports;
	for (size_t i = 0; i < kMaxSupports; i++)
		hub_supports.push_back(score[i].second);
	LookupLabels hubs = LookupLabels::build(dag, 0, hub_supports);
	const LookupLabels &chosen = index.lookup();
	const GrailLabels &labels = index.labels();
	const BloomLabels &bloom = index.bloom();
	auto decides = [](const LookupLabels &l, vid_t u, vid_t v) {
		return LookupLabels::proves(l.record(u), l.record(v)) ||
		       LookupLabels::supports_rule_out(l.record(u), l.record(v));
	};
	Rng rng(99);
	size_t searched = 0, by_hubs = 0, by_chosen = 0;
	for (int k = 0; k < 40000; k++) {
		vid_t u = vid_t(rng.below(n)), v = vid_t(rng.below(n));
		if (k % 2 == 1)
			for (v = u; v == u || rng.below(32) != 0;) {
				if (dag.begin(v) == dag.end(v))
					break;
				v = dag.begin(v)[rng.below(uint64_t(dag.end(v) - dag.begin(v)))];
			}
		if (u >= v || LookupLabels::level_rules_out(chosen.record(u), chosen.record(v)) ||
		    pruning::step(bloom.record(u), labels.record(u), bloom.record(v), labels.record(v), labels.label_count()) !=
		        pruning::Step::expand)
			continue;
		searched++;
		by_hubs += decides(hubs, u, v);
		by_chosen += decides(chosen, u, v);
	}
	ASSERT_GT(searched, 1000u);
	EXPECT_GT(by_chosen, by_hubs + searched / 40) << "of " << searched << " pairs left to a search";
	std::printf("left to a search %zu: hubs decide %zu, the chosen supports %zu\n", searched, by_hubs, by_chosen);
}
