#include "bfs.hpp"
#include "error.hpp"
#include "oracle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

using namespace grail;

// Along edge direction (the CSR), against it (the reversed CSR) and ignoring it (the CSR and its
// reverse together): the oracle's BFS over the edge rows, the rows swapped, and the rows in both
// directions; every row's vertex, depth and parent, in order; along or against edge direction,
// also with levels run bottom-up.
namespace {
// Whether r has the rows of expected in BfsOutput::depths' form: the same depths, each level the
// same vertices in any order, no parents.
::testing::AssertionResult
same_levels(const BfsResult &r, const BfsResult &expected) {
	if (r.depth != expected.depth)
		return ::testing::AssertionFailure() << "depths differ";
	if (!r.parent.empty())
		return ::testing::AssertionFailure() << "parents given";
	std::vector<vid_t> sorted = r.vertex;
	for (size_t begin = 0, end = 0; begin < sorted.size(); begin = end) {
		for (end = begin; end < sorted.size() && r.depth[end] == r.depth[begin];)
			end++;
		std::sort(sorted.begin() + ptrdiff_t(begin), sorted.begin() + ptrdiff_t(end));
	}
	if (sorted != expected.vertex)
		return ::testing::AssertionFailure() << "levels differ";
	return ::testing::AssertionSuccess();
}
} // namespace

TEST(Bfs, RandomGraphsMatchOracleInEveryDirection) {
	enum class Direction { out, in, both };
	for (uint64_t seed = 0; seed < 500; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed);
		EdgeList swapped, both;
		for (size_t e = 0; e < t.edges.size(); e++) {
			swapped.append(t.edges.target[e], t.edges.source[e]);
			both.append(t.edges.source[e], t.edges.target[e]);
			both.append(t.edges.target[e], t.edges.source[e]);
		}
		grail_test::Oracle out_oracle(t.edges), in_oracle(swapped), both_oracle(both);
		Graph g = Graph::from_edges(t.edges);
		Csr in = g.out.reversed();
		BfsTuning every_level_bottom_up;
		every_level_bottom_up.alpha = every_level_bottom_up.beta = 1e18;
		for (Direction direction : {Direction::out, Direction::in, Direction::both}) {
			const grail_test::Oracle &oracle = direction == Direction::out  ? out_oracle
			                                   : direction == Direction::in ? in_oracle
			                                                                : both_oracle;
			for (uint32_t max_depth : {0u, 1u, 2u, UINT32_MAX}) {
				for (vid_t s = 0; s < g.vertex_count(); s += 1 + vid_t(seed % 3)) {
					BfsResult r = direction == Direction::out  ? bfs(g.out, s, max_depth)
					              : direction == Direction::in ? bfs(in, s, max_depth)
					                                           : bfs(g.out, in, s, max_depth);
					if (direction != Direction::both) {
						// The levels run bottom-up over the other direction's CSR, by the default
						// rule and at every level: the same rows.
						const Csr &forward = direction == Direction::out ? g.out : in;
						const Csr &backward = direction == Direction::out ? in : g.out;
						for (const BfsTuning &tuning : {BfsTuning{}, every_level_bottom_up}) {
							BfsResult other = bfs(
							    forward, [&]() -> const Csr & { return backward; }, s, max_depth, tuning);
							ASSERT_EQ(other.vertex, r.vertex) << "seed " << seed << " source " << s;
							ASSERT_EQ(other.depth, r.depth);
							ASSERT_EQ(other.parent, r.parent);
						}
					}
					auto expected = oracle.bfs(g.ids[s], max_depth);
					ASSERT_EQ(r.vertex.size(), expected.size())
					    << "seed " << seed << " source " << s << " direction " << int(direction);
					ASSERT_EQ(r.depth.size(), expected.size());
					ASSERT_EQ(r.parent.size(), expected.size());
					for (size_t k = 0; k < expected.size(); k++) {
						EXPECT_EQ(g.ids[r.vertex[k]], expected[k].vertex);
						EXPECT_EQ(r.depth[k], expected[k].depth);
						if (k == 0)
							EXPECT_EQ(r.parent[k], kNoVertex);
						else
							EXPECT_EQ(g.ids[r.parent[k]], expected[k].parent);
					}
				}
			}
		}
	}
}

TEST(Bfs, BothNeedsEqualVertexCounts) {
	Csr a = Csr::from_pairs(2, {0}, {1}, true), b = Csr::from_pairs(3, {0}, {2}, true);
	EXPECT_THROW(bfs(a, b, 0), Error);
	EXPECT_THROW(bfs(a, a.reversed(), 2), Error);
	EXPECT_EQ(bfs(a, a.reversed(), 1).vertex.size(), 2u);
}

TEST(Bfs, BadSourceIsAnError) {
	Csr g = Csr::from_pairs(2, {0}, {1}, true);
	EXPECT_THROW(bfs(g, 2), Error);
	EXPECT_THROW(bfs(Csr{}, 0), Error);
}

TEST(Bfs, LongPath) {
	const vid_t n = 10'000'000;
	std::vector<vid_t> s(n - 1), t(n - 1);
	for (vid_t v = 0; v + 1 < n; v++) {
		s[v] = v;
		t[v] = v + 1;
	}
	Csr g = Csr::from_pairs(n, s, t, true);
	BfsResult r = bfs(g, 0);
	ASSERT_EQ(r.vertex.size(), n);
	EXPECT_EQ(r.vertex.back(), n - 1);
	EXPECT_EQ(r.depth.back(), n - 1);
	EXPECT_EQ(r.parent.back(), n - 2);
	BfsResult limited = bfs(g, 5, 1000);
	ASSERT_EQ(limited.vertex.size(), 1001u);
	EXPECT_EQ(limited.vertex.back(), 1005u);
	EXPECT_EQ(bfs(g, n - 1).vertex.size(), 1u);
}

// A star with 10^6 leaves, each also linked to the next one: depth 1 for all, parent the hub.
TEST(Bfs, LargeStar) {
	const vid_t leaves = 1'000'000;
	std::vector<vid_t> s, t;
	for (vid_t v = 1; v <= leaves; v++) {
		s.push_back(0);
		t.push_back(leaves + 1 - v);
		if (v < leaves) {
			s.push_back(v);
			t.push_back(v + 1);
		}
	}
	Csr g = Csr::from_pairs(leaves + 1, s, t, true);
	BfsResult r = bfs(g, 0);
	ASSERT_EQ(r.vertex.size(), leaves + 1u);
	for (vid_t k = 1; k <= leaves; k++) {
		ASSERT_EQ(r.vertex[k], k);
		ASSERT_EQ(r.depth[k], 1u);
		ASSERT_EQ(r.parent[k], 0u);
	}
	BfsResult from_leaf = bfs(g, 1);
	EXPECT_EQ(from_leaf.vertex.size(), leaves);
	EXPECT_EQ(from_leaf.depth.back(), leaves - 1);
	EXPECT_EQ(bfs(g, 0, 0).vertex.size(), 1u);
}

// The search as first written (every level's (vertex, parent) pairs sorted), the reference for the
// larger graphs below, whose levels take each of bfs()'s ways of ordering a level: sorting a small
// one, reading a dense one back from a bitmap, a radix sort of a wide one scattered over the ids.
static BfsResult
reference_bfs(const std::vector<const Csr *> &lists, vid_t source, uint32_t max_depth) {
	BfsResult result;
	std::vector<uint8_t> seen(lists[0]->vertex_count(), 0);
	seen[source] = 1;
	result.vertex.push_back(source);
	result.depth.push_back(0);
	result.parent.push_back(kNoVertex);
	size_t level_begin = 0;
	for (uint32_t depth = 0; depth < max_depth; depth++) {
		size_t level_end = result.vertex.size();
		if (level_begin == level_end)
			break;
		std::vector<std::pair<vid_t, vid_t>> next;
		for (size_t k = level_begin; k < level_end; k++)
			for (const Csr *csr : lists)
				for (const vid_t *w = csr->begin(result.vertex[k]); w != csr->end(result.vertex[k]); w++)
					if (!seen[*w]) {
						seen[*w] = 1;
						next.emplace_back(*w, result.vertex[k]);
					}
		std::sort(next.begin(), next.end());
		for (auto [v, parent] : next) {
			result.vertex.push_back(v);
			result.depth.push_back(depth + 1);
			result.parent.push_back(parent);
		}
		level_begin = level_end;
	}
	return result;
}

TEST(Bfs, LargerGraphsMatchReference) {
	std::mt19937_64 random(7);
	// (vertices, edges): sparse graphs of long thin levels (sorted), dense ones of wide levels
	// (bitmap), and between.
	const std::pair<vid_t, size_t> shapes[] = {
	    {100000, 110000}, {100000, 400000}, {20000, 400000}, {3000, 2000}, {70000, 70000}};
	for (auto [n, m] : shapes) {
		std::vector<vid_t> s, t;
		for (size_t e = 0; e < m; e++) {
			// Half the edges near the diagonal (long chains), half anywhere.
			vid_t a = vid_t(random() % n);
			vid_t b = e % 2 == 0 ? vid_t((a + 1 + random() % 8) % n) : vid_t(random() % n);
			s.push_back(a);
			t.push_back(b);
		}
		Csr out = Csr::from_pairs(n, s, t, true);
		Csr in = out.reversed();
		for (int k = 0; k < 6; k++) {
			vid_t source = vid_t(random() % n);
			for (uint32_t max_depth : {3u, UINT32_MAX}) {
				for (int way = 0; way < 9; way++) {
					// Each direction top-down only, with the default rule, and bottom-up at every
					// level.
					BfsTuning tuning;
					if (way >= 6)
						tuning.alpha = tuning.beta = 1e18;
					auto reverse_of_out = [&]() -> const Csr & { return in; };
					auto reverse_of_in = [&]() -> const Csr & { return out; };
					BfsResult r = way == 0       ? bfs(out, source, max_depth)
					              : way == 1     ? bfs(in, source, max_depth)
					              : way % 3 == 2 ? bfs(out, in, source, max_depth, tuning)
					              : way % 3 == 0 ? bfs(out, reverse_of_out, source, max_depth, tuning)
					                             : bfs(in, reverse_of_in, source, max_depth, tuning);
					BfsResult expected = way % 3 == 0   ? reference_bfs({&out}, source, max_depth)
					                     : way % 3 == 1 ? reference_bfs({&in}, source, max_depth)
					                                    : reference_bfs({&out, &in}, source, max_depth);
					ASSERT_EQ(r.vertex, expected.vertex) << n << " " << m << " source " << source << " way " << way;
					ASSERT_EQ(r.depth, expected.depth);
					ASSERT_EQ(r.parent, expected.parent);
				}
			}
		}
	}
}

// Levels of hundreds or thousands of vertices scattered over millions of ids, which bfs() puts in
// order by a radix sort (over 2^22 ids: three passes; fewer: two): every row as the reference's.
TEST(Bfs, SparseWideLevelsMatchReference) {
	std::mt19937_64 random(11);
	for (vid_t n : {vid_t(3'000'000), vid_t((1u << 23) + 5)}) {
		std::vector<vid_t> s, t;
		// The source's 1,500 successors, theirs two each, and so on for four levels, anywhere.
		std::vector<vid_t> level = {0};
		for (size_t fan : {1500, 2, 2, 2}) {
			std::vector<vid_t> next;
			for (vid_t a : level)
				for (size_t k = 0; k < fan; k++) {
					vid_t b = vid_t(random() % n);
					s.push_back(a);
					t.push_back(b);
					next.push_back(b);
				}
			level = next;
		}
		Csr out = Csr::from_pairs(n, s, t, true);
		Csr in = out.reversed();
		BfsScratch scratch;
		for (BfsOutput rows : {BfsOutput::parents, BfsOutput::ordered, BfsOutput::depths}) {
			BfsResult r = bfs(
			    out, [&]() -> const Csr & { return in; }, 0, UINT32_MAX, scratch, rows);
			BfsResult expected = reference_bfs({&out}, 0, UINT32_MAX);
			ASSERT_GT(expected.vertex.size(), 20000u);
			if (rows == BfsOutput::depths) {
				ASSERT_TRUE(same_levels(r, expected)) << n;
				continue;
			}
			ASSERT_EQ(r.vertex, expected.vertex) << n;
			ASSERT_EQ(r.depth, expected.depth);
			if (rows == BfsOutput::parents) {
				ASSERT_EQ(r.parent, expected.parent);
			}
		}
	}
}

// One scratch kept over many searches (as a backend keeps it): graphs of different sizes in turn,
// with and without parents, every direction, bottom-up levels or not, against a fresh search's
// rows; a search cut short by a cancel in the middle leaves no mark that reaches the next search.
TEST(Bfs, KeptScratchGivesFreshRows) {
	BfsScratch scratch;
	std::mt19937_64 random(11);
	std::vector<grail_test::TestGraph> graphs;
	for (uint64_t seed = 0; seed < 200; seed++)
		graphs.push_back(grail_test::random_graph(seed, seed % 2 == 0 ? 40 : 400));
	for (int round = 0; round < 3; round++) {
		for (const grail_test::TestGraph &t : graphs) {
			Graph g = Graph::from_edges(t.edges);
			if (g.vertex_count() == 0)
				continue;
			Csr in = g.out.reversed();
			BfsTuning every_level_bottom_up;
			every_level_bottom_up.alpha = every_level_bottom_up.beta = 1e18;
			for (int k = 0; k < 4; k++) {
				vid_t s = vid_t(random() % g.vertex_count());
				uint32_t max_depth = k == 0 ? 1 : UINT32_MAX;
				bool along = random() % 2 == 0;
				const BfsOutput rows = BfsOutput(random() % 3);
				const Csr &forward = along ? g.out : in, &backward = along ? in : g.out;
				const BfsTuning tuning = random() % 2 == 0 ? BfsTuning{} : every_level_bottom_up;
				auto reverse = [&]() -> const Csr & { return backward; };
				BfsResult fresh = bfs(forward, reverse, s, max_depth, tuning);
				BfsResult kept = bfs(forward, reverse, s, max_depth, scratch, rows, tuning);
				if (rows == BfsOutput::depths) {
					ASSERT_TRUE(same_levels(kept, fresh)) << t.shape << " source " << s;
				} else {
					ASSERT_EQ(kept.vertex, fresh.vertex) << t.shape << " source " << s;
					ASSERT_EQ(kept.depth, fresh.depth);
				}
				if (rows == BfsOutput::parents)
					ASSERT_EQ(kept.parent, fresh.parent);
				else
					ASSERT_TRUE(kept.parent.empty());
				BfsResult both = bfs(g.out, in, s, max_depth, scratch, tuning);
				BfsResult both_fresh = bfs(g.out, in, s, max_depth, tuning);
				ASSERT_EQ(both.vertex, both_fresh.vertex);
				ASSERT_EQ(both.parent, both_fresh.parent);
			}
		}
	}
}

namespace {
int cancel_after = -1;
bool
cancel_countdown() {
	return cancel_after >= 0 && cancel_after-- == 0;
}
} // namespace

TEST(Bfs, KeptScratchAfterACancelledSearch) {
	// A chain 0 -> 1 -> ... -> n - 1 and a wide level: a search polls for cancellation every 65,536
	// edges, so a cancel lands in the middle of one with many vertices marked.
	const vid_t n = 300000;
	std::vector<vid_t> s, t;
	for (vid_t v = 0; v + 1 < n; v++) {
		s.push_back(v);
		t.push_back(v + 1);
		s.push_back(v);
		t.push_back((v * 7919u + 13u) % n);
	}
	Csr out = Csr::from_pairs(n, s, t, true);
	Csr in = out.reversed();
	auto reverse = [&]() -> const Csr & { return in; };
	BfsScratch scratch;
	set_cancel_hook(cancel_countdown);
	for (int round = 0; round < 4; round++) {
		cancel_after = round;
		EXPECT_THROW(bfs(out, reverse, 0, UINT32_MAX, scratch, BfsOutput(round % 3)), Error);
		cancel_after = -1;
		for (vid_t source : {vid_t(0), vid_t(n / 2), vid_t(n - 1)}) {
			BfsResult fresh = bfs(out, reverse, source, 5);
			BfsResult kept = bfs(out, reverse, source, 5, scratch, BfsOutput::parents);
			ASSERT_EQ(kept.vertex, fresh.vertex) << "round " << round << " source " << source;
			ASSERT_EQ(kept.parent, fresh.parent);
		}
		// A smaller graph in the same scratch after the larger one.
		Csr small = Csr::from_pairs(3, {0, 1}, {1, 2}, true);
		Csr small_in = small.reversed();
		BfsResult r = bfs(
		    small, [&]() -> const Csr & { return small_in; }, 0, UINT32_MAX, scratch, BfsOutput::ordered);
		ASSERT_EQ(r.vertex, (std::vector<vid_t>{0, 1, 2}));
	}
	set_cancel_hook(nullptr);
}
