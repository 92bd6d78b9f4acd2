// ReachabilityOverlay: an index plus rows inserted and deleted since its build, against the
// brute-force closure of the rows as they are after the changes.
#include "edge_rows.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "overlay.hpp"
#include "reach.hpp"
#include "rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

using namespace grail;

namespace {

using grail_test::edge_list;
using grail_test::Rows;
using grail_test::rows_of;

// The oracle over adjacency lists by vertex: whether a reaches b, by a search of the lists.
class ListSearch {
public:
	explicit ListSearch(const std::vector<std::vector<vid_t>> &out) : out_(out), seen_(out.size(), 0) {
	}
	bool
	reaches(vid_t a, vid_t b) {
		std::vector<vid_t> stack{a};
		seen_[a] = ++search_;
		bool found = a == b;
		while (!stack.empty() && !found) {
			vid_t u = stack.back();
			stack.pop_back();
			for (vid_t w : out_[u])
				if (seen_[w] != search_) {
					seen_[w] = search_;
					found |= w == b;
					stack.push_back(w);
				}
		}
		return found;
	}

private:
	const std::vector<std::vector<vid_t>> &out_;
	std::vector<uint32_t> seen_;
	uint32_t search_ = 0;
};

// A random DAG over ids 0..n-1 (draws of an edge to a larger id, repeats dropped), its index, and
// its edges as lists by vertex of the index, for tests that add edges and search the lists.
struct ForwardDag {
	std::set<std::pair<vid_t, vid_t>> rows;
	Index index;
	std::vector<std::vector<vid_t>> out;
	vid_t
	vertex(vid_t id) const {
		return vid_t(index.find(int64_t(id)));
	}
};

ForwardDag
forward_dag(uint32_t n, uint32_t draws, Rng &rng) {
	ForwardDag dag;
	for (uint32_t e = 0; e < draws; e++) {
		vid_t s = vid_t(rng.below(n - 1));
		dag.rows.emplace(s, vid_t(s + 1 + rng.below(n - 1 - s)));
	}
	Rows before;
	for (const auto &[s, t] : dag.rows)
		before.emplace_back(int64_t(s), int64_t(t));
	dag.index = Index::build(edge_list(before), BuildOptions{});
	dag.out.resize(dag.index.graph().vertex_count());
	for (const auto &[s, t] : dag.rows)
		if (dag.index.find(int64_t(s)) >= 0)
			dag.out[dag.vertex(s)].push_back(dag.vertex(t));
	return dag;
}

// What the glue hands the overlay: the vertices of ids (base, then added ones numbered from n), the
// edges some row now holds and none held at the build, and those no row holds any more.
struct Changes {
	std::unordered_map<int64_t, vid_t> vertex;
	size_t added = 0;
	ReachabilityOverlay::Edges inserted, deleted;
};

Changes
changes(const Index &index, const Rows &before, const Rows &after) {
	Changes c;
	size_t n = index.graph().vertex_count();
	auto vertex_of = [&](int64_t id) {
		auto found = c.vertex.find(id);
		if (found != c.vertex.end())
			return found->second;
		int64_t v = index.find(id);
		vid_t dense = v >= 0 ? vid_t(v) : vid_t(n + c.added++);
		c.vertex[id] = dense;
		return dense;
	};
	std::map<std::pair<int64_t, int64_t>, std::pair<int, int>> count; // rows before, rows after
	for (const auto &row : before)
		count[row].first++;
	for (const auto &row : after)
		count[row].second++;
	for (const auto &[pair, n_rows] : count) {
		vid_t u = vertex_of(pair.first), v = vertex_of(pair.second);
		if (u == v)
			continue;
		if (n_rows.first == 0 && n_rows.second > 0)
			c.inserted.emplace_back(u, v);
		if (n_rows.first > 0 && n_rows.second == 0)
			c.deleted.emplace_back(u, v);
	}
	return c;
}

// Some rows deleted, some added (between old ids and new ones, duplicates and self-loops included);
// with forward, only rows u -> v whose components come in that order in the index (so that the
// changed graph gains no cycle), and no new ids.
Rows
changed_rows(const Rows &before, const std::vector<int64_t> &ids, Rng &rng, size_t deletions, size_t insertions,
             const Index *forward = nullptr) {
	Rows after = before;
	for (size_t k = 0; k < deletions && !after.empty(); k++)
		after.erase(after.begin() + long(rng.below(after.size())));
	auto some_id = [&]() -> int64_t {
		if (ids.empty() || rng.below(5) == 0)
			return 1000000 + int64_t(rng.below(6)); // an id the build may not have had
		return ids[rng.below(ids.size())];
	};
	for (size_t k = 0; k < insertions; k++) {
		int64_t s = some_id(), t = rng.below(8) == 0 ? s : some_id();
		if (forward != nullptr) {
			s = ids[rng.below(ids.size())];
			t = ids[rng.below(ids.size())];
			int64_t cs = forward->components().of_vertex[size_t(forward->find(s))];
			int64_t ct = forward->components().of_vertex[size_t(forward->find(t))];
			if (cs > ct)
				std::swap(s, t);
		}
		after.emplace_back(s, t);
		if (rng.below(6) == 0)
			after.emplace_back(s, t);
	}
	return after;
}

} // namespace

// Every pair of vertices of random graphs after random writes; when the overlay declines, a
// component of the build must really have split, or components have joined into a new one.
TEST(Overlay, RandomWritesMatchOracle) {
	size_t answered = 0, declined = 0, with_both = 0;
	for (uint64_t seed = 0; seed < 1500; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 5 == 0 ? 80 : 30);
		Rows before = rows_of(t.edges);
		BuildOptions options;
		options.labels = 1 + unsigned(seed % 4);
		options.seed = seed;
		Index index = Index::build(edge_list(before), options);
		Rng rng(seed * 7919 + 1);
		Rows after = changed_rows(before, t.query_ids, rng, rng.below(6), rng.below(6));
		Changes c = changes(index, before, after);
		std::unique_ptr<ReachabilityOverlay> overlay =
		    ReachabilityOverlay::build(index, c.added, c.inserted, c.deleted);
		grail_test::Oracle oracle(edge_list(after));
		if (!overlay) {
			// Declined: some component of the build is not strongly connected over the edges that
			// now lie inside it (the overlay does not look for paths through other components), or
			// vertices of two components (or added ones) now reach each other.
			bool split = false, joined = false;
			for (const auto &[a, va] : c.vertex)
				for (const auto &[b, vb] : c.vertex) {
					bool both_built = va < index.graph().vertex_count() && vb < index.graph().vertex_count();
					if (a != b && (!both_built || index.component_id(a) != index.component_id(b)) &&
					    oracle.reachable(a, b) && oracle.reachable(b, a))
						joined = true;
					if (!both_built || index.component_id(a) != index.component_id(b))
						continue;
					Rows inside;
					for (const auto &row : after)
						if (c.vertex[row.first] < index.graph().vertex_count() &&
						    c.vertex[row.second] < index.graph().vertex_count() &&
						    index.component_id(row.first) == index.component_id(a) &&
						    index.component_id(row.second) == index.component_id(a))
							inside.push_back(row);
					grail_test::Oracle component(edge_list(inside));
					split |= !component.reachable(a, b);
				}
			split |= joined;
			ASSERT_TRUE(split) << "seed " << seed << ": the overlay declined, yet no component split";
			declined++;
			continue;
		}
		answered++;
		with_both += overlay->widened_components() > 0 && overlay->ancestors_of_deletions() > 0;
		for (const auto &[a, va] : c.vertex)
			for (const auto &[b, vb] : c.vertex)
				ASSERT_EQ(overlay->reachable(va, vb), oracle.reachable(a, b))
				    << "seed " << seed << " (" << t.shape << ") " << a << " -> " << b;
	}
	// The test must reach both outcomes and overlays that widen labels and disable tree answers.
	EXPECT_GT(answered, 500u);
	EXPECT_GT(declined, 10u);
	EXPECT_GT(with_both, 50u);
}

// A DAG large enough that Bloom bits saturate, so that the widened intervals prune too: 200
// inserted edges that keep it acyclic and 200 deleted ones, 20,000 random pairs against a BFS of
// the changed graph.
TEST(Overlay, LargeDagWithWrites) {
	EdgeList edges = generate_random_dag(20000, 4, 5);
	Rows before = rows_of(edges);
	Index index = Index::build(edge_list(before), BuildOptions{});
	Rng rng(17);
	std::vector<int64_t> ids(index.graph().ids.begin(), index.graph().ids.end());
	Rows after = changed_rows(before, ids, rng, 200, 200, &index);
	Changes c = changes(index, before, after);
	std::unique_ptr<ReachabilityOverlay> overlay = ReachabilityOverlay::build(index, c.added, c.inserted, c.deleted);
	ASSERT_TRUE(overlay) << "a DAG with edges added in its order has no component to split or join";
	EXPECT_GT(overlay->widened_components(), 0u);
	EXPECT_GT(overlay->ancestors_of_deletions(), 0u);

	// A BFS over the changed graph per pair, on the overlay's own vertex numbers.
	size_t total = index.graph().vertex_count() + c.added;
	std::vector<std::vector<vid_t>> out(total);
	for (const auto &[s, t] : after)
		out[c.vertex.at(s)].push_back(c.vertex.at(t));
	std::vector<std::pair<int64_t, vid_t>> vertices(c.vertex.begin(), c.vertex.end());
	std::sort(vertices.begin(), vertices.end());
	std::vector<uint32_t> seen(total, 0);
	size_t reachable = 0;
	for (uint32_t q = 1; q <= 20000; q++) {
		auto [a, va] = vertices[rng.below(vertices.size())];
		auto [b, vb] = vertices[rng.below(vertices.size())];
		std::vector<vid_t> stack{va};
		seen[va] = q;
		bool expected = va == vb;
		while (!stack.empty() && !expected) {
			vid_t u = stack.back();
			stack.pop_back();
			for (vid_t w : out[u])
				if (seen[w] != q) {
					seen[w] = q;
					expected |= w == vb;
					stack.push_back(w);
				}
		}
		reachable += expected;
		ASSERT_EQ(overlay->reachable(va, vb), expected) << a << " -> " << b;
	}
	EXPECT_GT(reachable, 500u);
}

// Statements that see more and more changes over one build, each overlay given the transpose of
// the build's DAG that the last one used (as the glue does): every answer equals the oracle's over
// the rows the statement sees, and the transpose is the one given, not a new one. A transpose of
// another DAG is refused.
TEST(Overlay, TransposeLentFromTheLastOverlay) {
	size_t lent = 0;
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 3 == 0 ? 80 : 30);
		Rows before = rows_of(t.edges);
		Index index = Index::build(edge_list(before), BuildOptions{});
		std::vector<int64_t> ids(index.graph().ids.begin(), index.graph().ids.end());
		Rng rng(seed + 11);
		Rows after = before;
		std::shared_ptr<const Csr> transpose;
		for (int statement = 0; statement < 4; statement++) {
			after = changed_rows(after, ids, rng, rng.below(3), rng.below(3), ids.empty() ? nullptr : &index);
			Changes c = changes(index, before, after);
			std::unique_ptr<ReachabilityOverlay> overlay =
			    ReachabilityOverlay::build(index, c.added, c.inserted, c.deleted, transpose);
			if (!overlay)
				continue;
			if (transpose) {
				ASSERT_EQ(overlay->reversed_dag(), transpose) << "seed " << seed;
				lent++;
			}
			grail_test::Oracle oracle(edge_list(after));
			for (const auto &[a, va] : c.vertex)
				for (const auto &[b, vb] : c.vertex)
					ASSERT_EQ(overlay->reachable(va, vb), oracle.reachable(a, b))
					    << "seed " << seed << " statement " << statement << ": " << a << " -> " << b;
			if (overlay->reversed_dag())
				transpose = overlay->reversed_dag();
		}
	}
	EXPECT_GT(lent, 200u);

	Index small = Index::build(generate_random_dag(50, 2, 1), BuildOptions{});
	Index other = Index::build(generate_random_dag(60, 2, 2), BuildOptions{});
	auto wrong = std::make_shared<const Csr>(other.dag().reversed());
	EXPECT_THROW(ReachabilityOverlay::build(small, 0, {{0, 1}}, {}, wrong), Error);
}

// Nothing changed: the overlay answers as the index does.
TEST(Overlay, NoChangesAnswerAsTheIndex) {
	grail_test::TestGraph t = grail_test::random_graph(3, 60);
	Index index = Index::build(t.edges, BuildOptions{});
	std::unique_ptr<ReachabilityOverlay> overlay = ReachabilityOverlay::build(index, 0, {}, {});
	ASSERT_TRUE(overlay);
	ReachabilityQuery q(index);
	for (size_t a = 0; a < index.graph().vertex_count(); a++)
		for (size_t b = 0; b < index.graph().vertex_count(); b++)
			ASSERT_EQ(overlay->reachable(vid_t(a), vid_t(b)), q.reachable(index.graph().ids[a], index.graph().ids[b]));
}

// The rows each edge was read from, as the overlay's caller needs them, survive the image: for
// random graphs with duplicate rows, Graph::rows_of equals the count of rows u -> v (u != v) of
// the build and of the image read back; an image of format 3 says it does not know.
TEST(Overlay, RowsOfCountsRowsThroughTheImage) {
	size_t repeated = 0;
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, 30);
		Index built = Index::build(t.edges, BuildOptions{});
		std::vector<uint8_t> image = built.serialize();
		Index read = Index::deserialize(image.data(), image.size());
		std::map<std::pair<int64_t, int64_t>, int64_t> rows;
		for (size_t i = 0; i < t.edges.size(); i++)
			if (t.edges.source[i] != t.edges.target[i])
				rows[{t.edges.source[i], t.edges.target[i]}]++;
		for (const Index *index : {&built, &read}) {
			const Graph &g = index->graph();
			for (size_t u = 0; u < g.vertex_count(); u++)
				for (size_t v = 0; v < g.vertex_count(); v++) {
					if (u == v)
						continue;
					auto found = rows.find({g.ids[u], g.ids[v]});
					ASSERT_EQ(g.rows_of(vid_t(u), vid_t(v)), found == rows.end() ? 0 : found->second)
					    << "seed " << seed << " " << g.ids[u] << " -> " << g.ids[v];
				}
		}
		repeated += read.graph().repeated.size();
	}
	EXPECT_GT(repeated, 100u) << "the random graphs must repeat edges";
}

// The interval end test's "yes" rests on the built graph: a -> b -> c, where c holds the smallest
// post rank a reaches (so lo(a) == post(c)), with b -> c deleted. The overlay must not take it
// (a is an ancestor of a deletion): a no longer reaches c; nor where a also reaches an inserted
// edge (a -> d inserted: a's widened labels and the base's "yes"es together). Vertices as the
// build numbers them.
TEST(Overlay, IntervalEndYesIsNotTakenAboveADeletion) {
	for (unsigned d = 1; d <= 5; d++) {
		EdgeList e;
		e.append(0, 1);
		e.append(1, 2);
		e.append(3, 4); // another chain, so that traversals differ
		BuildOptions options;
		options.labels = d;
		Index index = Index::build(EdgeList(e), options);
		const GrailLabels &labels = index.labels();
		uint32_t c0 = index.components().of_vertex[0], c2 = index.components().of_vertex[2];
		ASSERT_TRUE(pruning::end_holds(labels.record(c0), labels.record(c2), d)) << "the end test proves 0 -> 2";
		std::unique_ptr<ReachabilityOverlay> overlay = ReachabilityOverlay::build(index, 0, {}, {{1, 2}});
		ASSERT_TRUE(overlay);
		EXPECT_FALSE(overlay->reachable(0, 2)) << d;
		EXPECT_TRUE(overlay->reachable(0, 1)) << d;
		EXPECT_FALSE(overlay->reachable(1, 2)) << d;
		std::unique_ptr<ReachabilityOverlay> widened = ReachabilityOverlay::build(index, 0, {{0, 4}}, {{1, 2}});
		ASSERT_TRUE(widened);
		ASSERT_GT(widened->widened_components(), 0u);
		EXPECT_FALSE(widened->reachable(0, 2)) << d;
		EXPECT_TRUE(widened->reachable(0, 4)) << d;
		EXPECT_FALSE(widened->reachable(1, 2)) << d;
	}
}

namespace {

// The rows' changes from `before` to `after` as the log holds them: a row written, +1; removed, -1.
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

// A fresh reachability of the base with all the changes, or null where the overlay declines them.
std::unique_ptr<Reach>
fresh_reach(const Index &index, const std::vector<EdgeChange> &changes) {
	std::optional<OverlayChanges> net = OverlayChanges::of(index, changes);
	return net ? Reach::with_changes(index, std::move(*net)) : nullptr;
}

} // namespace

// Statements that each see a few more changes than the last, as under a steady stream of writes:
// the reachability of the last is extended with the new batch where it takes it (edges added), and
// made again from all the changes where not (an edge deleted, one inserted earlier deleted, one
// written again, a cycle between components). After every step, every pair of ids (those of the
// build, new ones, one that no row names) answers as a fresh reachability of all the changes and
// as a closure of the rows.
TEST(Overlay, ExtendedStepByStepMatchesFreshAndOracle) {
	size_t extended = 0, remade = 0, declined = 0, steps = 0;
	for (uint64_t seed = 0; seed < 600; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 4 == 0 ? 60 : 25);
		Rows before = rows_of(t.edges);
		BuildOptions options;
		options.labels = 1 + unsigned(seed % 3);
		options.seed = seed;
		Index index = Index::build(edge_list(before), options);
		std::vector<int64_t> ids(index.graph().ids.begin(), index.graph().ids.end());
		Rng rng(seed * 31 + 7);
		Rows after = before;
		std::vector<EdgeChange> all;
		std::unique_ptr<Reach> reach;
		bool forward_only = seed % 3 != 0;
		for (int step = 0; step < 8; step++) {
			Rows next;
			if (!ids.empty() && forward_only && rng.below(4) != 0)
				next = changed_rows(after, ids, rng, 0, 1 + rng.below(3), &index);
			else
				next = changed_rows(after, ids, rng, rng.below(3) == 0 ? rng.below(2) : 0, rng.below(3));
			std::vector<EdgeChange> batch = logged(after, next);
			after = std::move(next);
			all.insert(all.end(), batch.begin(), batch.end());
			steps++;
			bool taken = reach && reach->extend(batch);
			if (taken) {
				extended++;
			} else {
				reach = fresh_reach(index, all);
				remade += reach != nullptr;
			}
			std::unique_ptr<Reach> fresh = fresh_reach(index, all);
			if (taken) {
				ASSERT_TRUE(fresh) << "seed " << seed << " step " << step << ": extended, yet a fresh overlay declines";
			}
			if (!reach) {
				declined++;
				continue;
			}
			grail_test::Oracle oracle(edge_list(after));
			std::vector<int64_t> query = grail_test::ids_of(after);
			query.insert(query.end(), ids.begin(), ids.end());
			query.push_back(-9223372036854775807 - 1);
			for (int64_t a : query)
				for (int64_t b : query) {
					bool expected = oracle.reachable(a, b);
					ASSERT_EQ(reach->reachable(a, b), expected)
					    << "seed " << seed << " step " << step << (taken ? " extended " : " fresh ") << a << " -> "
					    << b;
					ASSERT_EQ(fresh->reachable(a, b), expected) << "seed " << seed << " step " << step;
				}
		}
	}
	// Both paths, many times.
	EXPECT_GT(extended, 1500u) << "of " << steps;
	EXPECT_GT(remade, 500u);
	EXPECT_GT(declined, 20u);
}

// A DAG large enough that the labels prune: step by step, one to three edges at a time in the
// order of its ids, which is not the build's numbering (so that the order of G' moves), and now and
// then a new id; every extension is taken, and 3,000 random pairs answer as a BFS of the changed
// graph, in the extended overlay and in a fresh one.
TEST(Overlay, ExtendedLargeDagMatchesBfs) {
	const int64_t n = 6000;
	Rng rng(23);
	Rows before;
	for (int i = 0; i < 4 * n; i++) {
		int64_t a = int64_t(rng.below(uint64_t(n))), b = int64_t(rng.below(uint64_t(n)));
		if (a != b)
			before.emplace_back(std::min(a, b), std::max(a, b));
	}
	Index index = Index::build(edge_list(before), BuildOptions{});
	Rows after = before;
	std::vector<EdgeChange> all;
	std::unique_ptr<Reach> reach;
	size_t extended = 0;
	for (int step = 0; step < 120; step++) {
		Rows batch_rows;
		for (uint64_t k = 0, count = 1 + rng.below(3); k < count; k++) {
			int64_t a = int64_t(rng.below(uint64_t(n))), b = int64_t(rng.below(uint64_t(n)));
			if (a == b)
				continue;
			batch_rows.emplace_back(std::min(a, b), std::max(a, b));
			if (step % 10 == 0)
				batch_rows.emplace_back(n + step, std::min(a, b)); // a new id, into the graph
		}
		Rows next = after;
		next.insert(next.end(), batch_rows.begin(), batch_rows.end());
		std::vector<EdgeChange> batch = logged(after, next);
		after = std::move(next);
		all.insert(all.end(), batch.begin(), batch.end());
		if (reach) {
			ASSERT_TRUE(reach->extend(batch)) << "step " << step << ": edges in an order of the ids close no cycle";
			extended++;
		} else {
			reach = fresh_reach(index, all);
			ASSERT_TRUE(reach);
		}
		if (step % 20 != 19)
			continue;
		std::unique_ptr<Reach> fresh = fresh_reach(index, all);
		ASSERT_TRUE(fresh);
		std::map<int64_t, std::vector<int64_t>> out;
		for (const auto &[s, t2] : after)
			out[s].push_back(t2);
		std::vector<int64_t> ids = grail_test::ids_of(after);
		for (int q = 0; q < 3000; q++) {
			int64_t a = ids[rng.below(ids.size())], b = ids[rng.below(ids.size())];
			std::set<int64_t> seen{a};
			std::vector<int64_t> stack{a};
			bool expected = a == b;
			while (!stack.empty() && !expected) {
				int64_t u = stack.back();
				stack.pop_back();
				for (int64_t w : out[u])
					if (seen.insert(w).second) {
						expected |= w == b;
						stack.push_back(w);
					}
			}
			ASSERT_EQ(reach->reachable(a, b), expected) << "step " << step << ": " << a << " -> " << b;
			ASSERT_EQ(fresh->reachable(a, b), expected) << "step " << step << ": " << a << " -> " << b;
		}
	}
	EXPECT_EQ(extended, 119u);
}

// Widened Bloom filters 3/4 full or more are filled (ReachabilityOverlay::fill_if_dense): on a
// DAG made as bench/live_pgbench.sh makes it (each edge from s to a later id), whose low ids reach
// most of the graph and so have dense filters, single inserted edges one at a time. Filters do get
// filled, none is left between 3/4 full and full, sparse ones stay as they are; the extended
// overlay fills the same records as a fresh one of the same edges (filling keeps the widening's
// fixpoint one, whatever the order the edges come in); and random pairs answer as a BFS of the
// changed graph in both.
TEST(Overlay, DenseWidenedBloomFiltersFilledAndExact) {
	const uint32_t n = 3000;
	Rng rng(41);
	ForwardDag dag = forward_dag(n, 5 * n, rng);
	auto &rows = dag.rows;
	const Index &index = dag.index;
	auto &out = dag.out;
	ASSERT_EQ(index.graph().vertex_count(), index.components().count()) << "a DAG: each vertex its own component";
	auto vertex = [&](vid_t id) { return dag.vertex(id); };
	ReachabilityOverlay::Edges inserted, none;
	std::unique_ptr<ReachabilityOverlay> overlay = ReachabilityOverlay::build(index, 0, inserted, none);
	ASSERT_TRUE(overlay);
	ListSearch oracle(out);
	auto bfs = [&](vid_t a, vid_t b) { return oracle.reaches(a, b); };
	size_t vertices = index.graph().vertex_count();
	for (int step = 0; step < 400; step++) {
		vid_t s = vid_t(rng.below(n - 1));
		vid_t t = vid_t(s + 1 + rng.below(n - 1 - s));
		if (!rows.emplace(s, t).second || index.find(int64_t(s)) < 0 || index.find(int64_t(t)) < 0)
			continue;
		ReachabilityOverlay::Edges batch{{vertex(s), vertex(t)}};
		out[vertex(s)].push_back(vertex(t));
		inserted.insert(std::upper_bound(inserted.begin(), inserted.end(), batch[0]), batch[0]);
		ASSERT_TRUE(overlay->extend(0, ReachabilityOverlay::Extension{batch, none, none, inserted, none}))
		    << "step " << step << ": an edge to a later id closes no cycle";
		if (step % 50 != 49)
			continue;
		std::unique_ptr<ReachabilityOverlay> fresh = ReachabilityOverlay::build(index, 0, inserted, none);
		ASSERT_TRUE(fresh);
		EXPECT_EQ(overlay->widened_components(), fresh->widened_components()) << "step " << step;
		EXPECT_EQ(overlay->widened_blooms(kBloomBits, kBloomBits), fresh->widened_blooms(kBloomBits, kBloomBits))
		    << "step " << step;
		EXPECT_EQ(overlay->widened_blooms(ReachabilityOverlay::kFullBloomFrom, kBloomBits - 1), 0u) << "step " << step;
		for (int q = 0; q < 2000; q++) {
			vid_t a = vid_t(rng.below(vertices)), b = vid_t(rng.below(vertices));
			bool expected = bfs(a, b);
			ASSERT_EQ(overlay->reachable(a, b), expected) << "step " << step << ": " << a << " -> " << b;
			ASSERT_EQ(fresh->reachable(a, b), expected) << "step " << step << ": " << a << " -> " << b;
		}
	}
	EXPECT_GT(overlay->widened_blooms(kBloomBits, kBloomBits), 0u);
	EXPECT_GT(overlay->widened_blooms(1, ReachabilityOverlay::kFullBloomFrom - 1), 0u);
}

// How large a batch an extension takes: up to about what the overlay holds (a build would take
// the held changes again besides the batch; beside a writer, the rows written while it ran are
// the next batch), and past that, where the batch is also large against the DAG, the caller
// builds. Random pairs answer as a BFS of the rows after the batch it takes.
TEST(Overlay, ExtensionTakesBatchesUpToWhatItHolds) {
	const int64_t n = 1000;
	Rng rng(57);
	auto forward_rows = [&](Rows &rows, size_t count) {
		while (count > 0) {
			int64_t a = int64_t(rng.below(uint64_t(n))), b = int64_t(rng.below(uint64_t(n)));
			if (a == b)
				continue;
			rows.emplace_back(std::min(a, b), std::max(a, b));
			count--;
		}
	};
	Rows before;
	forward_rows(before, 3 * n);
	Index index = Index::build(edge_list(before), BuildOptions{});
	Rows after = before;
	forward_rows(after, 1000);
	std::vector<EdgeChange> all = logged(before, after);
	std::unique_ptr<Reach> reach = fresh_reach(index, all);
	ASSERT_TRUE(reach);
	// 700 rows over about 900 held: more than a quarter of them, and 700 x 1,600 past 64 x the
	// DAG's ~2,800 edges.
	Rows next = after;
	forward_rows(next, 700);
	std::vector<EdgeChange> batch = logged(after, next);
	after = std::move(next);
	ASSERT_TRUE(reach->extend(batch)) << "a batch smaller than what the overlay holds is taken";
	std::map<int64_t, std::vector<int64_t>> out;
	for (const auto &[s, t2] : after)
		out[s].push_back(t2);
	std::vector<int64_t> ids = grail_test::ids_of(after);
	for (int q = 0; q < 3000; q++) {
		int64_t a = ids[rng.below(ids.size())], b = ids[rng.below(ids.size())];
		std::set<int64_t> seen{a};
		std::vector<int64_t> stack{a};
		bool expected = a == b;
		while (!stack.empty() && !expected) {
			int64_t u = stack.back();
			stack.pop_back();
			for (int64_t w : out[u])
				if (seen.insert(w).second) {
					expected |= w == b;
					stack.push_back(w);
				}
		}
		ASSERT_EQ(reach->reachable(a, b), expected) << a << " -> " << b;
	}
	// 4,000 rows over about 1,500 held: the caller builds.
	next = after;
	forward_rows(next, 4000);
	EXPECT_FALSE(reach->extend(logged(after, next))) << "a batch far larger than what the overlay holds is refused";
}

// What an extension refuses, leaving the caller to make the overlay again: an edge that closes a
// cycle between components, a deleted edge written again; and what it takes since it takes
// deletions: a deleted edge, an inserted edge deleted again.
TEST(Overlay, ExtensionRefusesWhatItDoesNotTake) {
	Rows before = {{1, 2}, {2, 3}, {3, 4}, {5, 6}};
	Index index = Index::build(edge_list(before), BuildOptions{});
	auto start = [&](const Rows &after) {
		std::unique_ptr<Reach> reach = fresh_reach(index, logged(before, after));
		EXPECT_TRUE(reach);
		return reach;
	};
	Rows with_7 = before;
	with_7.emplace_back(4, 7);
	{
		std::unique_ptr<Reach> reach = start(with_7);
		Rows cycle = with_7;
		cycle.emplace_back(7, 1);
		EXPECT_FALSE(reach->extend(logged(with_7, cycle)));
		EXPECT_FALSE(fresh_reach(index, logged(before, cycle)));
	}
	{
		std::unique_ptr<Reach> reach = start(with_7);
		Rows deleted = with_7;
		deleted.erase(deleted.begin()); // 1 -> 2
		ASSERT_TRUE(reach->extend(logged(with_7, deleted)));
		EXPECT_FALSE(reach->reachable(1, 7));
		EXPECT_TRUE(reach->reachable(2, 7));
	}
	{
		std::unique_ptr<Reach> reach = start(with_7);
		ASSERT_TRUE(reach->extend(logged(with_7, before))); // 4 -> 7 deleted again
		EXPECT_FALSE(reach->reachable(1, 7));
	}
	{
		Rows without = {{2, 3}, {3, 4}, {5, 6}};
		std::unique_ptr<Reach> reach = start(without);
		EXPECT_FALSE(reach->reachable(1, 4));
		EXPECT_FALSE(reach->extend(logged(without, before))); // 1 -> 2 written again
	}
	{
		// A duplicate row of an edge the build has, and one of an inserted edge: nothing to add.
		std::unique_ptr<Reach> reach = start(with_7);
		Rows more = with_7;
		more.emplace_back(1, 2);
		more.emplace_back(4, 7);
		more.emplace_back(6, 1);
		ASSERT_TRUE(reach->extend(logged(with_7, more)));
		EXPECT_TRUE(reach->reachable(5, 7));
		EXPECT_FALSE(reach->reachable(7, 5));
	}
}

// Statements under a stream of writes that delete as well as insert: rows of the build deleted
// (edges that vanish, components that may split), rows inserted since deleted again (edges taken
// back), duplicates of either, rows written again, new ids, now and then every row at once (a
// TRUNCATE's effect). Each batch extends the reachability where it takes it; after every step every
// pair answers as a fresh reachability of all the changes and as a closure of the rows. Deletions
// must extend most of the time: a deleted edge of the build, or an inserted edge deleted again,
// needs no rebuild.
TEST(Overlay, ExtendedDeletionsMatchFreshAndOracle) {
	size_t extended = 0, extended_deleting = 0, remade = 0, declined = 0, steps = 0;
	for (uint64_t seed = 0; seed < 500; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed + 1000, seed % 4 == 0 ? 50 : 22);
		Rows before = rows_of(t.edges);
		BuildOptions options;
		options.labels = 1 + unsigned(seed % 3);
		options.seed = seed;
		Index index = Index::build(edge_list(before), options);
		std::vector<int64_t> ids(index.graph().ids.begin(), index.graph().ids.end());
		Rng rng(seed * 17 + 3);
		Rows after = before;
		std::vector<EdgeChange> all;
		std::unique_ptr<Reach> reach;
		bool forward_only = seed % 3 != 0;
		for (int step = 0; step < 10; step++) {
			Rows next;
			uint64_t kind = rng.below(10);
			if (kind == 0 && step > 5) {
				next = {}; // every row deleted
			} else if (kind <= 3 && !after.empty()) {
				// Rows deleted only: of the build or inserted since.
				next = changed_rows(after, ids, rng, 1 + rng.below(2), 0);
			} else if (!ids.empty() && forward_only) {
				next = changed_rows(after, ids, rng, rng.below(2), 1 + rng.below(2), &index);
			} else {
				next = changed_rows(after, ids, rng, rng.below(3), rng.below(3));
			}
			if (kind == 9 && !before.empty())
				next.push_back(before[rng.below(before.size())]); // a row of the build written again
			std::vector<EdgeChange> batch = logged(after, next);
			bool deletes = std::any_of(batch.begin(), batch.end(), [](const EdgeChange &c) { return c.rows < 0; });
			after = std::move(next);
			all.insert(all.end(), batch.begin(), batch.end());
			steps++;
			bool taken = reach && reach->extend(batch);
			if (taken) {
				extended++;
				extended_deleting += deletes;
			} else {
				reach = fresh_reach(index, all);
				remade += reach != nullptr;
			}
			std::unique_ptr<Reach> fresh = fresh_reach(index, all);
			if (taken) {
				ASSERT_TRUE(fresh) << "seed " << seed << " step " << step << ": extended, yet a fresh overlay declines";
			}
			if (!reach) {
				declined++;
				continue;
			}
			grail_test::Oracle oracle(edge_list(after));
			std::vector<int64_t> query = grail_test::ids_of(after);
			query.insert(query.end(), ids.begin(), ids.end());
			query.push_back(-9223372036854775807 - 1);
			query.push_back(9223372036854775807);
			for (int64_t a : query)
				for (int64_t b : query) {
					bool expected = oracle.reachable(a, b);
					ASSERT_EQ(reach->reachable(a, b), expected)
					    << "seed " << seed << " step " << step << (taken ? " extended " : " fresh ") << a << " -> "
					    << b;
					ASSERT_EQ(fresh->reachable(a, b), expected) << "seed " << seed << " step " << step;
				}
		}
	}
	EXPECT_GT(extended_deleting, 800u) << "of " << steps << " steps, " << extended << " extended";
	EXPECT_GT(remade, 100u);
	EXPECT_GT(declined, 20u);
}

// A DAG large enough that the labels prune, under a stream of single-row writes of which some
// delete: a row of the build (its edge vanishes: the tail's ancestors lose the tree's "yes") or a
// row inserted earlier (taken back). Every extension is taken, and random pairs answer as a BFS of
// the rows, in the extended overlay and in a fresh one.
TEST(Overlay, ExtendedDeletionsOnLargeDagMatchBfs) {
	const int64_t n = 5000;
	Rng rng(41);
	Rows before;
	for (int i = 0; i < 4 * n; i++) {
		int64_t a = int64_t(rng.below(uint64_t(n))), b = int64_t(rng.below(uint64_t(n)));
		if (a != b)
			before.emplace_back(std::min(a, b), std::max(a, b));
	}
	Index index = Index::build(edge_list(before), BuildOptions{});
	Rows after = before;
	Rows inserted_rows;
	std::vector<EdgeChange> all;
	std::unique_ptr<Reach> reach;
	size_t extended = 0;
	for (int step = 0; step < 150; step++) {
		Rows next = after;
		uint64_t kind = rng.below(3);
		if (kind == 0) {
			next.erase(next.begin() + long(rng.below(next.size()))); // any row: the build's or one inserted
		} else if (kind == 1 && !inserted_rows.empty()) {
			auto row = inserted_rows[rng.below(inserted_rows.size())];
			auto at = std::find(next.begin(), next.end(), row);
			if (at != next.end())
				next.erase(at);
		} else {
			int64_t a = int64_t(rng.below(uint64_t(n))), b = int64_t(rng.below(uint64_t(n)));
			if (a != b) {
				next.emplace_back(std::min(a, b), std::max(a, b));
				inserted_rows.emplace_back(std::min(a, b), std::max(a, b));
			}
		}
		std::vector<EdgeChange> batch = logged(after, next);
		// A row of an edge the build had, deleted and then written again, would come back: not in
		// this stream (a deleted row of the build is never written again here).
		after = std::move(next);
		all.insert(all.end(), batch.begin(), batch.end());
		if (reach) {
			bool taken = reach->extend(batch);
			if (!taken) {
				// Only an edge of the build that comes back is refused; check that this is one.
				reach = fresh_reach(index, all);
				ASSERT_TRUE(reach);
			} else {
				extended++;
			}
		} else {
			reach = fresh_reach(index, all);
			ASSERT_TRUE(reach);
		}
		if (step % 15 != 14)
			continue;
		std::unique_ptr<Reach> fresh = fresh_reach(index, all);
		ASSERT_TRUE(fresh);
		std::map<int64_t, std::vector<int64_t>> out;
		for (const auto &[s, t2] : after)
			out[s].push_back(t2);
		std::vector<int64_t> ids = grail_test::ids_of(after);
		for (int q = 0; q < 2000; q++) {
			int64_t a = ids[rng.below(ids.size())], b = ids[rng.below(ids.size())];
			std::set<int64_t> seen{a};
			std::vector<int64_t> stack{a};
			bool expected = a == b;
			while (!stack.empty() && !expected) {
				int64_t u = stack.back();
				stack.pop_back();
				for (int64_t w : out[u])
					if (seen.insert(w).second) {
						expected |= w == b;
						stack.push_back(w);
					}
			}
			ASSERT_EQ(reach->reachable(a, b), expected) << "step " << step << ": " << a << " -> " << b;
			ASSERT_EQ(fresh->reachable(a, b), expected) << "step " << step << ": " << a << " -> " << b;
		}
	}
	EXPECT_GT(extended, 130u);
}

// Deletions an extension takes, and those it leaves to a rebuild: an edge of the build deleted
// (its tail loses the tree's "yes"), an inserted edge deleted again, a component split by a
// deletion (refused, as a fresh overlay refuses it), an inserted edge inside a component that lost
// an edge of the build taken back (refused: it may have held the component together), and an edge of
// the build deleted then written again (refused: it comes back).
TEST(Overlay, ExtensionTakesDeletions) {
	// 1 -> 2 -> 3 -> 4, 5 -> 6, and a cycle 10 -> 11 -> 12 -> 10 with 12 -> 1.
	Rows before = {{1, 2}, {2, 3}, {3, 4}, {5, 6}, {10, 11}, {11, 12}, {12, 10}, {12, 1}};
	Index index = Index::build(edge_list(before), BuildOptions{});
	auto start = [&](const Rows &after) {
		std::unique_ptr<Reach> reach = fresh_reach(index, logged(before, after));
		EXPECT_TRUE(reach);
		return reach;
	};
	auto without = [](Rows rows, std::pair<int64_t, int64_t> row) {
		rows.erase(std::find(rows.begin(), rows.end(), row));
		return rows;
	};
	Rows with_7 = before;
	with_7.emplace_back(4, 7);
	{
		std::unique_ptr<Reach> reach = start(with_7);
		EXPECT_TRUE(reach->reachable(10, 7));
		Rows cut = without(with_7, {2, 3});
		ASSERT_TRUE(reach->extend(logged(with_7, cut)));
		EXPECT_FALSE(reach->reachable(1, 3));
		EXPECT_FALSE(reach->reachable(10, 7));
		EXPECT_TRUE(reach->reachable(3, 7));
		Rows bridged = cut;
		bridged.emplace_back(1, 3); // another edge, between the same ends' neighbours
		ASSERT_TRUE(reach->extend(logged(cut, bridged)));
		EXPECT_TRUE(reach->reachable(10, 7));
		Rows back = bridged;
		back.emplace_back(2, 3); // the build's edge written again: it comes back
		EXPECT_FALSE(reach->extend(logged(bridged, back)));
		std::unique_ptr<Reach> fresh = fresh_reach(index, logged(before, back));
		ASSERT_TRUE(fresh);
		EXPECT_TRUE(fresh->reachable(2, 7));
	}
	{
		std::unique_ptr<Reach> reach = start(with_7);
		ASSERT_TRUE(reach->extend(logged(with_7, before))); // 4 -> 7 taken back
		EXPECT_FALSE(reach->reachable(1, 7));
		EXPECT_FALSE(reach->reachable(4, 7));
		Rows again = before;
		again.emplace_back(4, 7);
		ASSERT_TRUE(reach->extend(logged(before, again))); // and inserted again
		EXPECT_TRUE(reach->reachable(1, 7));
	}
	{
		std::unique_ptr<Reach> reach = start(with_7);
		Rows split = without(with_7, {11, 12});
		EXPECT_FALSE(reach->extend(logged(with_7, split)));
		EXPECT_FALSE(fresh_reach(index, logged(before, split)));
	}
	{
		// Inserted 10 -> 12 and 11 -> 10 inside the cycle; 11 -> 12 deleted leaves 10 -> 11 -> 10 and
		// 10 -> 12 -> 10: still one component. Then 11 -> 10 taken back leaves 11 reaching nothing.
		Rows held = with_7;
		held.emplace_back(10, 12);
		held.emplace_back(11, 10);
		std::unique_ptr<Reach> reach = start(held);
		Rows lost = without(held, {11, 12});
		ASSERT_TRUE(reach->extend(logged(held, lost))); // still strongly connected
		EXPECT_TRUE(reach->reachable(11, 12));
		EXPECT_TRUE(reach->reachable(11, 7));
		Rows taken_back = without(lost, {11, 10}); // the inserted edge that held it together
		EXPECT_FALSE(reach->extend(logged(lost, taken_back)));
		EXPECT_FALSE(fresh_reach(index, logged(before, taken_back)));
	}
}

// The topological order's keys between two components run out and are numbered again
// (ReachabilityOverlay::renumber()): a chain y1 -> y2 -> ... and a vertex x before it in the
// build's order; inserting y1 -> x, y2 -> x, ... one at a time moves each y between the y moved
// before it (its predecessor) and x, into half the keys left there, until none are. Every pair
// answers as a BFS of the changed graph after each edge: an order that numbered a component out of
// place would prune a search that reaches.
TEST(Overlay, OrderKeysNumberedAgainWhereTheyRunOut) {
	const int64_t chain = 80;
	Rows before;
	for (int64_t i = 1; i < chain; i++)
		before.emplace_back(i, i + 1);
	for (int64_t k = 0; k < 8; k++) // candidates for x, numbered somewhere around the chain
		before.emplace_back(1000 + k, 2000 + k);
	Index index = Index::build(edge_list(before), BuildOptions{});
	auto component = [&](int64_t id) { return index.components().of_vertex[size_t(index.find(id))]; };
	int64_t x = -1;
	for (int64_t id : grail_test::ids_of(before))
		if (id >= 1000 && component(id) < component(1))
			x = id;
	ASSERT_GE(x, 0) << "no vertex outside the chain comes before it in the build's order";
	std::unique_ptr<ReachabilityOverlay> overlay = ReachabilityOverlay::build(index, 0, {}, {});
	ASSERT_TRUE(overlay);
	Rows after = before;
	const ReachabilityOverlay::Edges none;
	std::vector<int64_t> ids = grail_test::ids_of(before);
	for (int64_t i = 1; i <= chain; i++) {
		ReachabilityOverlay::Edges edge{{vid_t(index.find(i)), vid_t(index.find(x))}};
		ASSERT_TRUE(overlay->extend(0, ReachabilityOverlay::Extension{edge, none, none, none, none})) << "y" << i;
		after.emplace_back(i, x);
		grail_test::Oracle oracle(edge_list(after));
		for (int64_t a : ids)
			for (int64_t b : ids)
				ASSERT_EQ(overlay->reachable(vid_t(index.find(a)), vid_t(index.find(b))), oracle.reachable(a, b))
				    << "after y" << i << " -> x: " << a << " -> " << b;
	}
	EXPECT_GT(overlay->order_renumbered(), 0u);
}

// The widening left unfinished (ReachabilityOverlay::set_widening_budget: none, so that it
// finishes only where U grows past its bound; or one record a call, so that queries finish it
// between them): on random DAGs whose ids do not follow the build's numbering (the order of G'
// moves), statements of inserts forward in the ids (chains of three among them, so that paths
// run through several edges of U), now and then a new id, and deletions beside them. After every
// statement every pair of ids answers as the closure of the rows; many do with U not empty.
TEST(Overlay, UnfinishedWideningAnswersExactly) {
	size_t unfinished = 0, queries = 0, extended = 0;
	for (uint64_t seed = 0; seed < 48; seed++) {
		Rng rng(seed * 97 + 3);
		const int64_t n = 30 + int64_t(seed % 4) * 25;
		auto forward = [&](int64_t a, int64_t b) { return std::make_pair(std::min(a, b), std::max(a, b)); };
		Rows before;
		for (int64_t e = 0; e < 2 * n; e++) {
			int64_t a = int64_t(rng.below(uint64_t(n))), b = int64_t(rng.below(uint64_t(n)));
			if (a != b)
				before.push_back(forward(a, b));
		}
		if (seed % 3 == 0) // a few cycles: components of several vertices, which deletions may split
			for (int k = 0; k < 3 && !before.empty(); k++) {
				auto [a, b] = before[rng.below(before.size())];
				before.emplace_back(b, a);
			}
		BuildOptions options;
		options.labels = 1 + unsigned(seed % 2);
		options.seed = seed;
		Index index = Index::build(edge_list(before), options);
		size_t budget = seed % 2;
		Rows after = before;
		std::vector<EdgeChange> all;
		std::unique_ptr<Reach> reach;
		for (int step = 0; step < 24; step++) {
			Rows next = after;
			int64_t a = int64_t(rng.below(uint64_t(n))), b = int64_t(rng.below(uint64_t(n)));
			int64_t c = int64_t(rng.below(uint64_t(n))), d = int64_t(rng.below(uint64_t(n)));
			if (step % 3 == 0) { // a chain a < b < c < d
				std::vector<int64_t> chain{a, b, c, d};
				std::sort(chain.begin(), chain.end());
				for (size_t k = 0; k + 1 < chain.size(); k++)
					if (chain[k] != chain[k + 1])
						next.emplace_back(chain[k], chain[k + 1]);
			} else {
				if (a != b)
					next.push_back(forward(a, b));
				if (c != d)
					next.push_back(forward(c, d));
			}
			if (step % 7 == 3)
				next.emplace_back(n + step, a); // a new id, into the graph
			if (rng.below(4) == 0 && !next.empty())
				next.erase(next.begin() + long(rng.below(next.size())));
			std::vector<EdgeChange> batch = logged(after, next);
			after = std::move(next);
			all.insert(all.end(), batch.begin(), batch.end());
			if (reach && reach->extend(batch)) {
				extended++;
			} else {
				reach = fresh_reach(index, all);
				if (!reach)
					continue;
				reach->overlay()->set_widening_budget(budget);
			}
			grail_test::Oracle oracle(edge_list(after));
			std::vector<int64_t> ids = grail_test::ids_of(after);
			for (int64_t x : ids)
				for (int64_t y : ids) {
					unfinished += reach->overlay()->unwidened() != 0;
					queries++;
					ASSERT_EQ(reach->reachable(x, y), oracle.reachable(x, y))
					    << "seed " << seed << " step " << step << ": " << x << " -> " << y << ", "
					    << reach->overlay()->unwidened() << " edges unwidened";
				}
		}
	}
	EXPECT_GT(extended, 800u);
	EXPECT_GT(unfinished, queries / 5) << "of " << queries;
}

// The widening takes several components off its queue at once and puts back those it had no
// budget left for: stopped part-way at every budget (budgets that end inside a group and at its
// end), then finished by queries, an extended overlay's widened records come out as a fresh
// build's of the same inserts (as many, and as many Bloom filters in each range of fill), and
// every pair answers as a BFS of the rows, between batches and while the widening is unfinished.
TEST(Overlay, WideningStoppedPartWayEndsAtTheBuildsRecords) {
	const uint32_t n = 2000;
	for (size_t budget : {size_t(1), size_t(3), size_t(8), size_t(13), size_t(40)}) {
		Rng rng(budget * 31 + 7);
		ForwardDag dag = forward_dag(n, 4 * n, rng);
		auto &rows = dag.rows;
		const Index &index = dag.index;
		auto &out = dag.out;
		ASSERT_EQ(index.graph().vertex_count(), index.components().count()) << "a DAG: each vertex its own component";
		size_t vertices = index.graph().vertex_count();
		auto vertex = [&](vid_t id) { return dag.vertex(id); };
		ListSearch oracle(out);
		auto bfs = [&](vid_t a, vid_t b) { return oracle.reaches(a, b); };
		ReachabilityOverlay::Edges inserted, none;
		std::unique_ptr<ReachabilityOverlay> overlay = ReachabilityOverlay::build(index, 0, inserted, none);
		ASSERT_TRUE(overlay);
		overlay->set_widening_budget(budget);
		size_t stopped = 0;
		for (int step = 0; step < 40; step++) {
			ReachabilityOverlay::Edges batch; // up to 10 edges: U's bound lets the widening stop
			for (int k = 0; k < 10; k++) {
				vid_t s = vid_t(rng.below(n - 1));
				vid_t t = vid_t(s + 1 + rng.below(n - 1 - s));
				if (index.find(int64_t(s)) >= 0 && index.find(int64_t(t)) >= 0 && rows.emplace(s, t).second) {
					batch.emplace_back(vertex(s), vertex(t));
					out[vertex(s)].push_back(vertex(t));
				}
			}
			std::sort(batch.begin(), batch.end());
			ReachabilityOverlay::Edges merged;
			std::merge(inserted.begin(), inserted.end(), batch.begin(), batch.end(), std::back_inserter(merged));
			inserted.swap(merged);
			ASSERT_TRUE(overlay->extend(0, ReachabilityOverlay::Extension{batch, none, none, inserted, none}))
			    << "budget " << budget << " step " << step << ": an edge to a later id closes no cycle";
			stopped += overlay->unwidened() != 0;
			for (int q = 0; q < 200; q++) {
				vid_t a = vid_t(rng.below(vertices)), b = vid_t(rng.below(vertices));
				ASSERT_EQ(overlay->reachable(a, b), bfs(a, b))
				    << "budget " << budget << " step " << step << ": " << a << " -> " << b;
			}
			for (int q = 0; q < 100000 && overlay->unwidened() != 0; q++)
				overlay->reachable(0, 1); // each query widens by another budget
			ASSERT_EQ(overlay->unwidened(), 0u) << "budget " << budget << " step " << step;
			std::unique_ptr<ReachabilityOverlay> fresh = ReachabilityOverlay::build(index, 0, inserted, none);
			ASSERT_TRUE(fresh);
			EXPECT_EQ(overlay->widened_components(), fresh->widened_components()) << "budget " << budget;
			for (auto [from, to] :
			     {std::make_pair(0u, kBloomBits), std::make_pair(0u, kBloomBits / 4),
			      std::make_pair(kBloomBits / 4 + 1, kBloomBits / 2),
			      std::make_pair(kBloomBits / 2 + 1, kBloomBits - 1), std::make_pair(kBloomBits, kBloomBits)})
				ASSERT_EQ(overlay->widened_blooms(from, to), fresh->widened_blooms(from, to))
				    << "budget " << budget << " step " << step << ": filters with " << from << ".." << to << " bits";
		}
		EXPECT_GT(stopped, 20u) << "budget " << budget << ": the widening stopped part-way in few batches";
	}
}
