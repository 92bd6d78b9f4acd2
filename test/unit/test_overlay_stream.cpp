// The kept overlay under a stream of single-row writes, one or two rows a statement, each batch
// taken in by Reach::extend: the writes that stress its hashed edge lists and the lists of changes
// sorted only when asked for. Duplicate rows of one edge, an edge inserted, deleted and inserted
// again, self-loops, edges into and between new ids (the extreme ids among them), a second edge
// between the same two components (one taken back while the other holds the DAG edge), rows of the
// build deleted. After every statement: every pair answers as a closure of the rows and as a fresh
// reachability of all the changes, and the changes' sorted lists equal the fresh ones'.
#include "edge_rows.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "overlay_changes.hpp"
#include "reach.hpp"
#include "failing_allocations.hpp"
#include "rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

using namespace grail;
using grail_test::edge_list;
using grail_test::Rows;
using grail_test::rows_of;

namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::vector<EdgeChange>
logged(const Rows &before, const Rows &after) {
	std::map<std::pair<int64_t, int64_t>, int64_t> count;
	for (const auto &row : before)
		count[row]--;
	for (const auto &row : after)
		count[row]++;
	std::vector<EdgeChange> changes;
	for (const auto &[row, n] : count)
		for (int64_t k = 0; k < (n < 0 ? -n : n); k++) {
			EdgeChange change;
			change.source = row.first;
			change.target = row.second;
			change.rows = n < 0 ? -1 : 1;
			changes.push_back(change);
		}
	return changes;
}

std::unique_ptr<Reach>
fresh_reach(const Index &index, const std::vector<EdgeChange> &changes) {
	std::optional<OverlayChanges> net = OverlayChanges::of(index, changes);
	return net ? Reach::with_changes(index, std::move(*net)) : nullptr;
}

// One statement's rows: one or two single-row writes of the kinds above.
Rows
next_rows(const Rows &before, const Rows &after, const Index &index, const std::vector<int64_t> &ids,
          std::vector<std::pair<int64_t, int64_t>> &deleted_since, Rng &rng) {
	Rows next = after;
	const auto &of = index.components().of_vertex;
	auto some_id = [&]() -> int64_t {
		uint64_t pick = rng.below(12);
		if (ids.empty() || pick == 0)
			return 1000000 + int64_t(rng.below(4));
		if (pick == 1)
			return rng.below(2) ? kMin : kMax;
		return ids[rng.below(ids.size())];
	};
	// A row u -> v whose components come in the build's order (no cycle between components), where
	// both are ids of the build; others as they come.
	auto forward = [&](int64_t u, int64_t v) {
		int64_t du = index.find(u), dv = index.find(v);
		if (du >= 0 && dv >= 0 && of[size_t(du)] > of[size_t(dv)])
			std::swap(u, v);
		return std::make_pair(u, v);
	};
	std::vector<std::pair<int64_t, int64_t>> inserted_since;
	{
		Rows built = before, now = after;
		std::sort(built.begin(), built.end());
		std::sort(now.begin(), now.end());
		std::set_difference(now.begin(), now.end(), built.begin(), built.end(), std::back_inserter(inserted_since));
	}
	for (uint64_t writes = 1 + rng.below(2); writes > 0; writes--) {
		switch (rng.below(8)) {
		case 0: // a self-loop
		{
			int64_t u = some_id();
			next.emplace_back(u, u);
			break;
		}
		case 1: // a duplicate row of an edge inserted since
			if (!inserted_since.empty()) {
				next.push_back(inserted_since[rng.below(inserted_since.size())]);
				break;
			}
			[[fallthrough]];
		case 2: // a row inserted since deleted again
			if (!inserted_since.empty()) {
				auto row = inserted_since[rng.below(inserted_since.size())];
				next.erase(std::find(next.begin(), next.end(), row));
				deleted_since.push_back(row);
				break;
			}
			[[fallthrough]];
		case 3: // an edge deleted since inserted again
			if (!deleted_since.empty()) {
				next.push_back(deleted_since[rng.below(deleted_since.size())]);
				break;
			}
			[[fallthrough]];
		case 4: // a second edge between the components of an inserted one
			if (!inserted_since.empty()) {
				auto [u, v] = inserted_since[rng.below(inserted_since.size())];
				int64_t du = index.find(u), dv = index.find(v);
				if (du >= 0 && dv >= 0) {
					std::vector<int64_t> from, to;
					for (int64_t id : ids) {
						uint32_t c = of[size_t(index.find(id))];
						if (c == of[size_t(du)])
							from.push_back(id);
						if (c == of[size_t(dv)])
							to.push_back(id);
					}
					next.emplace_back(from[rng.below(from.size())], to[rng.below(to.size())]);
					break;
				}
			}
			[[fallthrough]];
		case 5: // a row of the build deleted
			if (rng.below(3) == 0 && !before.empty()) {
				auto row = before[rng.below(before.size())];
				auto at = std::find(next.begin(), next.end(), row);
				if (at != next.end()) {
					next.erase(at);
					break;
				}
			}
			[[fallthrough]];
		default: // a new row, mostly forward
			next.push_back(rng.below(4) == 0 ? std::make_pair(some_id(), some_id()) : forward(some_id(), some_id()));
		}
	}
	return next;
}

// Statements of single-row writes (next_rows) on random graphs, each taken in by the kept
// reachability where it takes it, made again where not; after every statement every pair answers as
// a fresh reachability and as the closure of the rows. Tuning: the kept overlay's widening budget
// (ReachabilityOverlay::set_widening_budget), its deferred edges taken in a call and its sweep's
// searches (set_admission, set_closure_searches). Counted: the statements that left the overlay
// widening, those that left edges deferred.
struct Tuning {
	size_t widening_budget = ReachabilityOverlay::kWideningBudget;
	size_t admission = 16;
	size_t closure_searches = SIZE_MAX;
};
struct Left {
	size_t unfinished = 0, deferred = 0, settled = 0; // settled: by a query, of deferred edges
};
void
single_row_writes_match(const Tuning &tuning, Left &left) {
	size_t extended = 0, steps = 0, deleting_steps = 0;
	for (uint64_t seed = 0; seed < 400; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed + 5000, seed % 4 == 0 ? 50 : 20);
		Rows before = rows_of(t.edges);
		BuildOptions options;
		options.labels = 1 + unsigned(seed % 3);
		options.seed = seed;
		Index index = Index::build(edge_list(before), options);
		std::vector<int64_t> ids(index.graph().ids.begin(), index.graph().ids.end());
		Rng rng(seed * 13 + 5);
		Rows after = before;
		std::vector<std::pair<int64_t, int64_t>> deleted_since;
		std::vector<EdgeChange> all;
		std::unique_ptr<Reach> reach;
		for (int step = 0; step < 14; step++) {
			Rows next = next_rows(before, after, index, ids, deleted_since, rng);
			std::vector<EdgeChange> batch = logged(after, next);
			after = std::move(next);
			all.insert(all.end(), batch.begin(), batch.end());
			steps++;
			bool taken = reach && reach->extend(batch);
			if (taken) {
				extended++;
				deleting_steps += std::any_of(batch.begin(), batch.end(), [&](const EdgeChange &c) {
					return c.rows < 0 && index.find(c.source) >= 0 && index.find(c.target) >= 0;
				});
			} else {
				reach = fresh_reach(index, all);
				if (reach) {
					reach->overlay()->set_widening_budget(tuning.widening_budget);
					reach->overlay()->set_admission(tuning.admission);
					reach->overlay()->set_closure_searches(tuning.closure_searches);
				}
			}
			std::unique_ptr<Reach> fresh = fresh_reach(index, all);
			if (taken) {
				ASSERT_TRUE(fresh) << "seed " << seed << " step " << step << ": extended, yet a fresh overlay declines";
			}
			if (!reach)
				continue;
			left.unfinished += reach->overlay()->unwidened() != 0;
			bool deferred = reach->overlay()->deferred() != 0;
			left.deferred += deferred;
			// The lists sorted when asked for, after appends and take-outs, equal those made at once.
			ASSERT_EQ(reach->changes()->inserted(), fresh->changes()->inserted())
			    << "seed " << seed << " step " << step;
			ASSERT_EQ(reach->changes()->deleted(), fresh->changes()->deleted()) << "seed " << seed << " step " << step;
			ASSERT_EQ(reach->changes()->inserted_count(), fresh->changes()->inserted().size());
			grail_test::Oracle oracle(edge_list(after));
			std::vector<int64_t> query = grail_test::ids_of(after);
			query.insert(query.end(), ids.begin(), ids.end());
			query.push_back(kMin);
			query.push_back(kMax);
			query.push_back(1000009); // no row names it
			for (int64_t a : query)
				for (int64_t b : query) {
					bool expected = oracle.reachable(a, b);
					ASSERT_EQ(reach->reachable(a, b), expected)
					    << "seed " << seed << " step " << step << (taken ? " extended " : " fresh ") << a << " -> "
					    << b;
					ASSERT_EQ(fresh->reachable(a, b), expected) << "seed " << seed << " step " << step;
				}
			left.settled += deferred && reach->overlay()->deferred() == 0;
		}
	}
	// Most statements extend the overlay, deleting ones included.
	EXPECT_GT(extended, steps / 2) << "of " << steps;
	EXPECT_GT(deleting_steps, 400u) << "of " << steps;
}

} // namespace

TEST(OverlayStream, SingleRowWritesMatchFreshAndOracle) {
	Left left;
	single_row_writes_match(Tuning{}, left);
}

// The same with the widening left unfinished by every statement (a budget of none: it finishes only
// where U grows past its bound): every pair answers through the closure over U, with edges of U
// taken back, deletions beside them and new ids.
TEST(OverlayStream, SingleRowWritesMatchWithTheWideningUnfinished) {
	Tuning tuning;
	tuning.widening_budget = 0;
	Left left;
	single_row_writes_match(tuning, left);
	EXPECT_GT(left.unfinished, 1500u);
}

// The same with the new edges deferred until a statement takes something out or adds an edge
// backward in the order (none taken in by a call): every pair answers through the sweep over L, and
// over U beside it where the widening is left unfinished too.
TEST(OverlayStream, SingleRowWritesMatchWithEdgesDeferred) {
	Tuning tuning;
	tuning.admission = 0;
	Left left;
	single_row_writes_match(tuning, left);
	EXPECT_GT(left.deferred, 1500u);
	tuning.widening_budget = 0;
	Left both;
	single_row_writes_match(tuning, both);
	EXPECT_GT(both.deferred, 1500u);
	EXPECT_GT(both.unfinished, 500u);
}

// With a sweep that gives up after its first search and settles the overlay (every deferred edge
// taken in, the widening finished) before it answers.
TEST(OverlayStream, SingleRowWritesMatchWithSweepsCutShort) {
	Tuning tuning;
	tuning.admission = 0;
	tuning.closure_searches = 1;
	Left left;
	single_row_writes_match(tuning, left);
	EXPECT_GT(left.settled, 150u);
}

// The same edge, one row at a time: inserted, written twice more, deleted row by row, inserted
// again, over and over; beside it a second edge between the same two components that holds the DAG
// edge while the first comes and goes. Every statement extends, and the answers follow the rows.
TEST(OverlayStream, OneEdgeComesAndGoes) {
	// Components {1, 2} and {3, 4} (cycles), 5 alone; 1 -> 5 only.
	Rows before = {{1, 2}, {2, 1}, {3, 4}, {4, 3}, {1, 5}};
	Index index = Index::build(edge_list(before), BuildOptions{});
	std::vector<EdgeChange> all;
	auto change = [](int64_t u, int64_t v, int64_t rows) {
		EdgeChange c;
		c.source = u;
		c.target = v;
		c.rows = rows;
		return c;
	};
	std::unique_ptr<Reach> reach = fresh_reach(index, {change(5, 5, 1)}); // a self-loop only
	ASSERT_TRUE(reach);
	all.push_back(change(5, 5, 1));
	int held_a = 0, held_b = 0; // rows of 2 -> 3 and of 1 -> 4
	Rng rng(7);
	for (int step = 0; step < 400; step++) {
		EdgeChange next = rng.below(2) ? change(2, 3, held_a > 0 && rng.below(2) ? -1 : 1)
		                               : change(1, 4, held_b > 0 && rng.below(2) ? -1 : 1);
		(next.source == 2 ? held_a : held_b) += int(next.rows);
		all.push_back(next);
		ASSERT_TRUE(reach->extend({next})) << "step " << step;
		bool joined = held_a > 0 || held_b > 0;
		ASSERT_EQ(reach->reachable(1, 3), joined) << "step " << step;
		ASSERT_EQ(reach->reachable(2, 4), joined) << "step " << step;
		ASSERT_FALSE(reach->reachable(3, 1));
		ASSERT_FALSE(reach->reachable(5, 3));
		ASSERT_TRUE(reach->reachable(2, 5));
		std::unique_ptr<Reach> fresh = fresh_reach(index, all);
		ASSERT_TRUE(fresh);
		ASSERT_EQ(reach->changes()->inserted(), fresh->changes()->inserted()) << "step " << step;
	}
}

// A random graph of up to 30 vertices (random_graph(seed)): its rows, its build and the build's ids;
// none where it has fewer than 4 vertices.
struct SmallBuild {
	Rows rows;
	Index index;
	std::vector<int64_t> ids;
};
std::optional<SmallBuild>
small_build(uint64_t seed) {
	Rows rows = rows_of(grail_test::random_graph(seed, 30).edges);
	Index index = Index::build(edge_list(rows), BuildOptions{});
	std::vector<int64_t> ids(index.graph().ids.begin(), index.graph().ids.end());
	if (ids.size() < 4)
		return std::nullopt;
	return SmallBuild{std::move(rows), std::move(index), std::move(ids)};
}

// Every pair of `query` answers as the rows of `oracle` do.
void
expect_rows_answer(Reach &reach, const grail_test::Oracle &oracle, const std::vector<int64_t> &query, uint64_t seed) {
	for (int64_t a : query)
		for (int64_t b : query)
			ASSERT_EQ(reach.reachable(a, b), oracle.reachable(a, b)) << "seed " << seed << ": " << a << " -> " << b;
}

// A query that widens edges of L (reachable() admits them) and fails part way, an allocation
// thrown at each step in turn. The kept overlay answers the next statement unless it says it is not
// intact (the glue then makes a new one): one that says it is must answer every pair as the rows
// do, and one that is not refuses to be extended.
TEST(OverlayStream, AQueryThatFailsPartWayLeavesTheOverlayExactOrNotIntact) {
	size_t failed_queries = 0, broken = 0;
	for (uint64_t seed = 0; seed < 40; seed++) {
		std::optional<SmallBuild> built = small_build(seed + 9000);
		if (!built)
			continue;
		const Rows &before = built->rows;
		const Index &index = built->index;
		const std::vector<int64_t> &ids = built->ids;
		// Rows forward in the build's component order (no cycle between components), taken in by
		// a statement after the first.
		const auto &of = index.components().of_vertex;
		Rng rng(seed + 1);
		Rows after = before;
		for (int k = 0; k < 24; k++) {
			int64_t u = ids[rng.below(ids.size())], v = ids[rng.below(ids.size())];
			if (of[size_t(index.find(u))] > of[size_t(index.find(v))])
				std::swap(u, v);
			after.emplace_back(u, v);
		}
		std::vector<EdgeChange> batch = logged(before, after);
		if (batch.size() < 2)
			continue;
		grail_test::Oracle oracle(edge_list(after));
		std::vector<int64_t> query = grail_test::ids_of(after);
		for (long at = 0;; at++) {
			std::unique_ptr<Reach> kept = fresh_reach(index, {batch.front()});
			ASSERT_TRUE(kept);
			kept->overlay()->set_admission(1);
			ASSERT_TRUE(kept->extend(std::vector<EdgeChange>(batch.begin() + 1, batch.end())));
			bool failed = false;
			try {
				grail_test::FailAllocation fail(at);
				kept->reachable(query.front(), query.back());
			} catch (const std::bad_alloc &) {
				failed = true;
			}
			if (!failed)
				break;
			failed_queries++;
			if (!kept->intact()) {
				broken++;
				EXPECT_FALSE(kept->extend({}));
				continue;
			}
			expect_rows_answer(*kept, oracle, query, seed);
		}
	}
	EXPECT_GT(failed_queries, 40u);
	EXPECT_GT(broken, 40u);
}

// The same for the statement's extension: each of its allocations failed in turn leaves a
// reachability that says it is not intact and refuses to be extended again; once none fails, it
// answers every pair as the rows do.
TEST(OverlayStream, AnExtensionThatFailsPartWayIsNotIntact) {
	size_t failed_extensions = 0;
	for (uint64_t seed = 0; seed < 20; seed++) {
		std::optional<SmallBuild> built = small_build(seed + 9500);
		if (!built)
			continue;
		const Rows &before = built->rows;
		const Index &index = built->index;
		const std::vector<int64_t> &ids = built->ids;
		Rng rng(seed + 3);
		Rows after = before;
		for (int k = 0; k < 16; k++)
			after.emplace_back(ids[rng.below(ids.size())], rng.below(4) ? ids[rng.below(ids.size())] : 3000000 + k);
		if (!before.empty())
			after.erase(after.begin()); // a row of the build deleted too
		std::vector<EdgeChange> batch = logged(before, after);
		if (batch.size() < 2)
			continue;
		grail_test::Oracle oracle(edge_list(after));
		std::vector<int64_t> query = grail_test::ids_of(after);
		for (long at = 0;; at++) {
			std::unique_ptr<Reach> kept = fresh_reach(index, {batch.front()});
			if (!kept)
				break;
			std::vector<EdgeChange> rest(batch.begin() + 1, batch.end());
			bool failed = false, taken = false;
			try {
				grail_test::FailAllocation fail(at);
				taken = kept->extend(rest);
			} catch (const std::bad_alloc &) {
				failed = true;
			}
			if (failed) {
				failed_extensions++;
				EXPECT_FALSE(kept->intact()) << "seed " << seed << ", allocation " << at;
				EXPECT_FALSE(kept->extend({})) << "seed " << seed << ", allocation " << at;
				continue;
			}
			EXPECT_EQ(kept->intact(), taken);
			if (taken)
				expect_rows_answer(*kept, oracle, query, seed);
			break;
		}
	}
	EXPECT_GT(failed_extensions, 100u);
}
