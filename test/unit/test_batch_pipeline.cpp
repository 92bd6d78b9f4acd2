// The batch deciders' pipeline (ReachabilityQuery::decide_many prefetches and resolves pairs ahead
// of the one it decides): batches of every length around the pipeline's depth, against the
// brute-force closure and against the per-pair path, with the undecided pairs listed in order.
#include "failing_allocations.hpp"
#include "generate.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "parallel.hpp"
#include "rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

using namespace grail;

namespace {

// decide_many() over the first n pairs: each decided pair answered as the oracle, each undecided
// one listed once, in order, with its components, and answered by search_each() as the oracle.
void
check_prefix(const Index &index, const grail_test::Oracle &oracle, const std::vector<int64_t> &a,
             const std::vector<int64_t> &b, size_t n, const char *what) {
	ReachabilityQuery query(index);
	std::unique_ptr<bool[]> answers(new bool[n + 1]);
	ReachabilityQuery::Undecided undecided;
	query.decide_many(a.data(), b.data(), n, answers.get(), undecided);
	ASSERT_EQ(undecided.from.size(), undecided.size());
	ASSERT_EQ(undecided.to.size(), undecided.size());
	std::vector<bool> listed(n, false);
	for (size_t k = 0; k < undecided.size(); k++) {
		ASSERT_LT(undecided.pair[k], n) << what;
		if (k > 0) {
			ASSERT_LT(undecided.pair[k - 1], undecided.pair[k]) << what << ": undecided pairs in order";
		}
		ASSERT_LT(undecided.from[k], undecided.to[k]) << what;
		listed[undecided.pair[k]] = true;
	}
	ReachabilityQuery single(index);
	for (size_t i = 0; i < n; i++) {
		bool expected = oracle.reachable(a[i], b[i]);
		ASSERT_EQ(single.reachable(a[i], b[i]), expected) << what << ": pair " << i;
		bool searched = single.last_decision() == ReachabilityQuery::Decided::search;
		ASSERT_EQ(listed[i], searched) << what << ": pair " << i << " listed as undecided iff the single path searches";
		if (!listed[i]) {
			ASSERT_EQ(answers[i], expected) << what << ": pair " << i << " " << a[i] << " -> " << b[i];
		}
	}
	query.search_each(undecided, answers.get());
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(answers[i], oracle.reachable(a[i], b[i])) << what << ": pair " << i << " after the searches";
}

std::atomic<long> polls_left{0};
bool
cancel_after_polls() {
	return polls_left.fetch_sub(1) <= 0;
}

// A side x side grid, vertex r * side + c, edges right and down: r1 * side + c1 reaches
// r2 * side + c2 exactly where r1 <= r2 and c1 <= c2, and a search between such vertices crosses
// the components many other searches cross.
struct Grid {
	int64_t side;
	EdgeList edges;
	explicit Grid(int64_t n) : side(n) {
		for (int64_t r = 0; r < n; r++)
			for (int64_t c = 0; c < n; c++) {
				if (c + 1 < n)
					edges.append(r * n + c, r * n + c + 1);
				if (r + 1 < n)
					edges.append(r * n + c, (r + 1) * n + c);
			}
	}
	bool
	reaches(int64_t a, int64_t b) const {
		return a / side <= b / side && a % side <= b % side;
	}
};

} // namespace

TEST(BatchPipeline, EveryLengthOfRandomGraphsMatchesOracle) {
	for (uint64_t seed = 0; seed < 120; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed);
		grail_test::Oracle oracle(t.edges);
		BuildOptions options;
		options.labels = 1 + unsigned(seed % 4);
		options.seed = seed;
		Index index = Index::build(t.edges, options);
		Rng rng(seed);
		std::vector<int64_t> a, b;
		for (size_t k = 0; k < 80; k++) {
			a.push_back(t.query_ids[rng.below(t.query_ids.size())]);
			b.push_back(rng.below(7) == 0 ? a.back() : t.query_ids[rng.below(t.query_ids.size())]);
		}
		for (size_t n = 0; n <= a.size(); n++)
			ASSERT_NO_FATAL_FAILURE(check_prefix(index, oracle, a, b, n, t.shape.c_str()))
			    << "seed " << seed << " n " << n;
	}
}

TEST(BatchPipeline, EmptyGraph) {
	EdgeList none;
	grail_test::Oracle oracle(none);
	Index index = Index::build(none, BuildOptions{});
	std::vector<int64_t> a = {0, 1, INT64_MIN, INT64_MAX}, b = {0, 2, INT64_MAX, INT64_MAX};
	for (size_t n = 0; n <= a.size(); n++)
		ASSERT_NO_FATAL_FAILURE(check_prefix(index, oracle, a, b, n, "empty graph"));
}

// A DAG deep enough that many pairs need a search, in one batch far longer than the pipeline.
TEST(BatchPipeline, LargeDagBatchMatchesOracle) {
	EdgeList edges = generate_random_dag(3000, 3, 11);
	grail_test::Oracle oracle(edges);
	Index index = Index::build(edges, BuildOptions{});
	Rng rng(5);
	std::vector<int64_t> a, b;
	for (int k = 0; k < 5000; k++) {
		a.push_back(index.graph().ids[rng.below(index.graph().vertex_count())]);
		b.push_back(rng.below(50) == 0 ? int64_t(1) << 40 : index.graph().ids[rng.below(index.graph().vertex_count())]);
	}
	ASSERT_NO_FATAL_FAILURE(check_prefix(index, oracle, a, b, a.size(), "random DAG"));
}

// Helper threads (decide_many's runs of pairs, search_each's runs of searches): the same answers
// and the same undecided list as one thread, with 1 to 7 helpers, on a graph with cycles, in a
// batch long enough that both split (more than kFewestItemsToSplit pairs, thousands searched).
// One label and no lookup records, so that many pairs are searched; the one thread's answers are
// checked pair by pair against reachable() (against the oracle in the tests above).
TEST(BatchPipeline, HelpersAnswerAsOneThread) {
	EdgeList edges = generate_random_dag(30000, 3, 23);
	Rng rng(29);
	for (int k = 0; k < 200; k++) { // a few edges back: strongly connected components
		int64_t u = edges.source[rng.below(edges.size())], v = edges.target[rng.below(edges.size())];
		edges.append(std::max(u, v), std::min(u, v));
	}
	BuildOptions options;
	options.labels = 1;
	options.supports = 0;
	Index index = Index::build(edges, options);
	const auto &ids = index.graph().ids;
	std::vector<int64_t> a, b;
	for (size_t k = 0; k < kFewestItemsToSplit + 4321; k++) {
		a.push_back(ids[rng.below(ids.size())]);
		b.push_back(rng.below(100) == 0 ? int64_t(1) << 40 : ids[rng.below(ids.size())]);
	}
	size_t n = a.size();
	ReachabilityQuery alone(index), single(index);
	std::unique_ptr<bool[]> expected(new bool[n]);
	ReachabilityQuery::Undecided undecided_alone;
	alone.decide_many(a.data(), b.data(), n, expected.get(), undecided_alone);
	alone.search_each(undecided_alone, expected.get());
	ASSERT_GT(undecided_alone.size(), size_t(4 * 64 * 8)) << "enough searches for every helper count to split them";
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(expected[i], single.reachable(a[i], b[i])) << "pair " << i;
	ReachabilityQuery query(index); // one query for every count: its helpers are kept and reused
	for (unsigned helpers : {1u, 2u, 3u, 7u, 2u}) {
		std::unique_ptr<bool[]> answers(new bool[n]);
		ReachabilityQuery::Undecided undecided;
		query.decide_many(a.data(), b.data(), n, answers.get(), undecided, helpers);
		ASSERT_EQ(undecided.pair, undecided_alone.pair) << helpers << " helpers";
		ASSERT_EQ(undecided.from, undecided_alone.from) << helpers << " helpers";
		ASSERT_EQ(undecided.to, undecided_alone.to) << helpers << " helpers";
		query.search_each(undecided, answers.get(), helpers);
		for (size_t i = 0; i < n; i++)
			ASSERT_EQ(answers[i], expected[i]) << helpers << " helpers, pair " << i;
		std::unique_ptr<bool[]> at_once(new bool[n]);
		EXPECT_EQ(query.reachable_many(a.data(), b.data(), n, at_once.get(), {}, 0, helpers), undecided_alone.size());
		for (size_t i = 0; i < n; i++)
			ASSERT_EQ(at_once[i], expected[i]) << helpers << " helpers, reachable_many, pair " << i;
	}
	// What the query and its seven helpers keep for their searches (what grail.backend_memory_limit
	// counts: a thread's marks are a byte a component once it searched; which helpers took runs
	// depends on the scheduler, the query's own search here does not), all freed by
	// release_scratch(); the query answers as before afterwards, its scratch made again.
	size_t components = index.dag().vertex_count();
	query.reachable_components(undecided_alone.from[0], undecided_alone.to[0]);
	EXPECT_GE(query.scratch_bytes(), components + 7 * sizeof(ReachabilityQuery));
	query.release_scratch();
	EXPECT_EQ(query.scratch_bytes(), size_t(0));
	std::unique_ptr<bool[]> again(new bool[n]);
	query.reachable_many(a.data(), b.data(), n, again.get(), {}, 0, 2);
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(again[i], expected[i]) << "after release_scratch(), pair " << i;
	query.reachable_components(undecided_alone.from[0], undecided_alone.to[0]);
	EXPECT_GE(query.scratch_bytes(), components + 2 * sizeof(ReachabilityQuery));
}

// The searches of a batch run interleaved, several on one thread, each with its bit of the shared
// visit marks, taken back before the slot's next search: one query answering batches of every
// size from 1 to 40 searches, with single searches (the first slot's) between them, over a DAG
// where searches cross the same components, answers as the oracle. A mark left behind, or seen by
// another search, would cut a path short.
TEST(BatchPipeline, InterleavedSearchesKeepTheirMarksApart) {
	// Each vertex to 3 random ones of the next 40: long paths through shared components.
	EdgeList edges;
	Rng draw(7);
	for (int64_t v = 0; v < 4000; v++)
		for (int k = 0; k < 3; k++)
			edges.append(v, v + 1 + int64_t(draw.below(40)));
	grail_test::Oracle oracle(edges);
	BuildOptions options;
	options.labels = 1;
	Index index = Index::build(edges, options);
	Rng rng(17);
	ReachabilityQuery query(index), single(index);
	size_t searched = 0;
	for (size_t size = 1; size <= 40; size++) {
		std::vector<int64_t> a, b;
		// Pairs a single query searches, half of them reachable.
		while (a.size() < size) {
			int64_t x = index.graph().ids[rng.below(index.graph().vertex_count())];
			int64_t y = index.graph().ids[rng.below(index.graph().vertex_count())];
			single.reachable(x, y);
			if (single.last_decision() != ReachabilityQuery::Decided::search)
				continue;
			a.push_back(x);
			b.push_back(y);
		}
		std::unique_ptr<bool[]> answers(new bool[size]);
		ReachabilityQuery::Undecided undecided;
		query.decide_many(a.data(), b.data(), size, answers.get(), undecided);
		ASSERT_EQ(undecided.size(), size);
		query.search_each(undecided, answers.get());
		for (size_t i = 0; i < size; i++)
			ASSERT_EQ(answers[i], oracle.reachable(a[i], b[i])) << size << " searches, pair " << i;
		searched += size;
		size_t k = rng.below(size);
		ASSERT_EQ(query.reachable(a[k], b[k]), oracle.reachable(a[k], b[k])) << "a single search after " << size;
	}
	EXPECT_EQ(searched, 820u);
}

// A cancel stops a batch's searches where they are, their marks set: each slot's next search must
// take them back first. One query (and its helpers) cancelled after more and more polls, part way
// through the searches of one thread or three, answers its next batch, and single searches, as the
// grid says; a mark left behind would cut a later search's path short (a false "no").
TEST(BatchPipeline, CancelledSearchesLeaveNoMarksBehind) {
	Grid grid(300);
	BuildOptions options;
	options.labels = 1;
	options.supports = 0;
	Index index = Index::build(grid.edges, options);
	Rng rng(41);
	const int64_t n = grid.side * grid.side;
	// Pairs near each other, down and to the right or not quite: most searched, about half reached.
	auto draw = [&](std::vector<int64_t> &a, std::vector<int64_t> &b, size_t count) {
		a.clear();
		b.clear();
		for (size_t k = 0; k < count; k++) {
			int64_t x = int64_t(rng.below(uint64_t(n)));
			int64_t r = std::min(grid.side - 1, x / grid.side + int64_t(rng.below(60)));
			int64_t c = x % grid.side + int64_t(rng.below(60)) - 3;
			c = std::max<int64_t>(0, std::min(grid.side - 1, c));
			a.push_back(x);
			b.push_back(r * grid.side + c);
		}
	};
	ReachabilityQuery query(index);
	int cancelled = 0;
	for (unsigned helpers : {0u, 3u}) {
		for (long after : {0L, 1L, 2L, 3L, 5L, 8L, 13L, 21L}) {
			std::vector<int64_t> a, b;
			draw(a, b, 20000);
			std::unique_ptr<bool[]> answers(new bool[a.size()]);
			polls_left = after;
			set_cancel_hook(cancel_after_polls);
			try {
				query.reachable_many(a.data(), b.data(), a.size(), answers.get(), {}, 0, helpers);
			} catch (const Error &e) {
				EXPECT_EQ(e.kind(), ErrorKind::cancelled) << e.what();
				cancelled++;
			}
			set_cancel_hook(nullptr);
			draw(a, b, 20000);
			size_t searched = query.reachable_many(a.data(), b.data(), a.size(), answers.get(), {}, 0, helpers);
			ASSERT_GT(searched, a.size() / 4) << "most pairs searched";
			for (size_t i = 0; i < a.size(); i++)
				ASSERT_EQ(answers[i], grid.reaches(a[i], b[i]))
				    << helpers << " helpers, cancelled after " << after << " polls: pair " << i << " " << a[i] << " -> "
				    << b[i];
			for (size_t i = 0; i < 200; i++)
				ASSERT_EQ(query.reachable(a[i], b[i]), grid.reaches(a[i], b[i]))
				    << helpers << " helpers, cancelled after " << after << " polls: single search " << i;
		}
	}
	EXPECT_GE(cancelled, 12) << "most batches cancelled part way";
}

// An allocation that fails in a search (the list of the components it marked growing, its stack,
// its batch) leaves the query as consistent as a cancel does: every mark it set is listed and taken
// back before the slot's next search. A chain of diamonds (v -> x, y -> the next v), where every v
// is on every path past it: a mark of one left set would make a later search through it answer
// "no". Each allocation of a fresh query's first searches made to fail in turn, then every pair
// asked again, single and in a batch.
TEST(BatchPipeline, FailedAllocationLeavesNoMarksBehind) {
	EdgeList edges;
	const int64_t diamonds = 400;
	for (int64_t i = 0; i < diamonds; i++) {
		edges.append(3 * i, 3 * i + 1);
		edges.append(3 * i, 3 * i + 2);
		edges.append(3 * i + 1, 3 * i + 3);
		edges.append(3 * i + 2, 3 * i + 3);
	}
	grail_test::Oracle oracle(edges);
	BuildOptions options;
	options.labels = 1;
	options.supports = 0;
	Index index = Index::build(edges, options);
	// Pairs that reach and need a search.
	ReachabilityQuery single(index);
	Rng rng(3);
	std::vector<int64_t> a, b;
	while (a.size() < 64) {
		int64_t x = int64_t(rng.below(uint64_t(3 * diamonds))), y = int64_t(rng.below(uint64_t(3 * diamonds + 1)));
		if (!oracle.reachable(x, y) || !single.reachable(x, y) ||
		    single.last_decision() != ReachabilityQuery::Decided::search)
			continue;
		a.push_back(x);
		b.push_back(y);
	}
	int failures = 0;
	for (long after = 0; after < 400; after++) {
		ReachabilityQuery query(index);
		bool failed = false;
		try {
			grail_test::FailAllocation fail(after);
			for (size_t i = 0; i < a.size(); i++)
				query.reachable(a[i], b[i]);
			std::unique_ptr<bool[]> answers(new bool[a.size()]);
			query.reachable_many(a.data(), b.data(), a.size(), answers.get());
		} catch (const std::bad_alloc &) {
			failed = true;
		}
		if (!failed)
			break; // past the last allocation of these searches
		failures++;
		for (size_t i = 0; i < a.size(); i++)
			ASSERT_TRUE(query.reachable(a[i], b[i])) << "allocation " << after << " failed: " << a[i] << " -> " << b[i];
		std::unique_ptr<bool[]> answers(new bool[a.size()]);
		query.reachable_many(a.data(), b.data(), a.size(), answers.get());
		for (size_t i = 0; i < a.size(); i++)
			ASSERT_TRUE(answers[i]) << "allocation " << after << " failed, in a batch: " << a[i] << " -> " << b[i];
	}
	EXPECT_GT(failures, 8) << "allocations made to fail";
	EXPECT_LT(failures, 400) << "the searches ran to the end without a failure";
}
