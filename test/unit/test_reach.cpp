// OverlayChanges (a live graph's pending changes netted per edge, new vertices numbered) and Reach
// (one build's reachability, single pairs and batches, with and without those changes), against
// hand-made cases and the brute-force closure of the rows.
#include "edge_rows.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "index.hpp"
#include "keys.hpp"
#include "oracle.hpp"
#include "overlay_changes.hpp"
#include "reach.hpp"
#include "rng.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

using namespace grail;

namespace {

using grail_test::edge_list;
using grail_test::ids_of;
using grail_test::Rows;

EdgeChange
change(int64_t source, int64_t target, int64_t rows) {
	EdgeChange c;
	c.source = source;
	c.target = target;
	c.rows = rows;
	return c;
}

EdgeChange
key_change(std::string source, std::string target, int64_t rows) {
	EdgeChange c;
	c.source_key = std::move(source);
	c.target_key = std::move(target);
	c.rows = rows;
	return c;
}

using Edges = OverlayChanges::Edges;

// 10 -> 20 -> 30, and 10 -> 30 held by two rows.
Index
small_index() {
	return Index::build(edge_list({{10, 20}, {20, 30}, {10, 30}, {10, 30}}), BuildOptions{});
}

// Each row written or removed as one change: the log of going from `before` to `after`.
std::vector<EdgeChange>
log_of(const Rows &before, const Rows &after) {
	std::map<std::pair<int64_t, int64_t>, int64_t> count;
	for (const auto &row : before)
		count[row]--;
	for (const auto &row : after)
		count[row]++;
	std::vector<EdgeChange> log;
	for (const auto &[edge, rows] : count)
		for (int64_t k = 0; k < (rows < 0 ? -rows : rows); k++)
			log.push_back(change(edge.first, edge.second, rows < 0 ? -1 : 1));
	return log;
}

// Random writes over rows: some deleted, some added between known ids and new ones (duplicates
// and self-loops included).
Rows
written(const Rows &before, const std::vector<int64_t> &ids, Rng &rng) {
	Rows after = before;
	for (size_t k = rng.below(5); k > 0 && !after.empty(); k--)
		after.erase(after.begin() + long(rng.below(after.size())));
	auto some_id = [&]() -> int64_t {
		if (ids.empty() || rng.below(5) == 0)
			return 1000000 + int64_t(rng.below(6));
		return ids[rng.below(ids.size())];
	};
	for (size_t k = rng.below(5); k > 0; k--) {
		int64_t s = some_id(), t = rng.below(8) == 0 ? s : some_id();
		after.emplace_back(s, t);
		if (rng.below(6) == 0)
			after.emplace_back(s, t);
	}
	return after;
}

// Every ordered pair of ids, and the oracle's answers.
struct Pairs {
	std::vector<int64_t> a, b;
	std::vector<bool> expected;
};

Pairs
all_pairs(const std::vector<int64_t> &ids, const grail_test::Oracle &oracle) {
	Pairs p;
	for (int64_t a : ids)
		for (int64_t b : ids) {
			p.a.push_back(a);
			p.b.push_back(b);
			p.expected.push_back(oracle.reachable(a, b));
		}
	return p;
}

DevicePolicy
policy(DeviceMode mode) {
	DevicePolicy p;
	p.mode = mode;
	return p;
}

const DeviceFallback kNoFallback = [](const char *, const std::string &) {
	ADD_FAILURE() << "no GPU failure expected";
};

} // namespace

TEST(OverlayChanges, InsertThenDeleteNetsToNothing) {
	Index index = small_index();
	auto c = OverlayChanges::of(index, {change(10, 40, 1), change(30, 10, 1), change(10, 40, -1), change(30, 10, -1)});
	ASSERT_TRUE(c);
	EXPECT_TRUE(c->inserted().empty());
	EXPECT_TRUE(c->deleted().empty());
	// 40 was named by a change, so it has a vertex (numbered after the build's 3), edges or not.
	EXPECT_EQ(c->added(), 1u);
	EXPECT_EQ(c->vertex(40), 3);
}

TEST(OverlayChanges, RowCountsDecideWhetherAnEdgeAppearsOrVanishes) {
	Index index = small_index();
	int64_t v10 = index.find(10), v20 = index.find(20), v30 = index.find(30);
	// One more row of a built edge, one of two rows of another removed: the graph is the same.
	auto same = OverlayChanges::of(index, {change(10, 20, 1), change(10, 30, -1)});
	ASSERT_TRUE(same);
	EXPECT_TRUE(same->inserted().empty());
	EXPECT_TRUE(same->deleted().empty());
	// Both rows of 10 -> 30 removed, the one of 20 -> 30 removed twice and written once: both vanish.
	auto gone = OverlayChanges::of(
	    index, {change(10, 30, -1), change(20, 30, -1), change(10, 30, -1), change(20, 30, 1), change(20, 30, -1)});
	ASSERT_TRUE(gone);
	EXPECT_EQ(gone->deleted(), (Edges{{vid_t(v10), vid_t(v30)}, {vid_t(v20), vid_t(v30)}}));
	EXPECT_TRUE(gone->inserted().empty());
	// A new edge written twice is one inserted edge.
	auto twice = OverlayChanges::of(index, {change(30, 20, 1), change(30, 20, 1)});
	ASSERT_TRUE(twice);
	EXPECT_EQ(twice->inserted(), (Edges{{vid_t(v30), vid_t(v20)}}));
}

TEST(OverlayChanges, SelfLoopsNumberVerticesButAreNoEdges) {
	Index index = small_index();
	auto c = OverlayChanges::of(index, {change(20, 20, 1), change(50, 50, 1), change(50, 50, -1)});
	ASSERT_TRUE(c);
	EXPECT_TRUE(c->inserted().empty());
	EXPECT_TRUE(c->deleted().empty());
	EXPECT_EQ(c->added(), 1u);
	EXPECT_EQ(c->vertex(50), 3);
	EXPECT_EQ(c->vertex(20), index.find(20));
}

TEST(OverlayChanges, NewVerticesNumberedAfterTheBuildInOrderOfFirstMention) {
	Index index = small_index();
	auto c = OverlayChanges::of(index, {change(70, 10, 1), change(20, 60, 1), change(60, 70, 1), change(80, 70, 1)});
	ASSERT_TRUE(c);
	EXPECT_EQ(c->added(), 3u);
	EXPECT_EQ(c->vertex(70), 3);
	EXPECT_EQ(c->vertex(60), 4);
	EXPECT_EQ(c->vertex(80), 5);
	EXPECT_EQ(c->vertex(90), -1);
	EXPECT_EQ(c->vertex(10), index.find(10));
	EXPECT_EQ(c->inserted(), (Edges{{vid_t(index.find(20)), 4}, {3, vid_t(index.find(10))}, {4, 3}, {5, 3}}));
}

TEST(OverlayChanges, DeletesOfAbsentEdgesAreDeclined) {
	Index index = small_index();
	EXPECT_FALSE(OverlayChanges::of(index, {change(30, 10, -1)}));                   // between built vertices
	EXPECT_FALSE(OverlayChanges::of(index, {change(10, 90, -1)}));                   // to a new one
	EXPECT_FALSE(OverlayChanges::of(index, {change(20, 30, -2)}));                   // more rows than it held
	EXPECT_TRUE(OverlayChanges::of(index, {change(10, 30, -2)}));                    // as many rows as it held
	EXPECT_TRUE(OverlayChanges::of(index, {change(30, 10, -1), change(30, 10, 1)})); // netted first
}

TEST(OverlayChanges, TooManyChangesAreDeclined) {
	Index index = small_index();
	EXPECT_TRUE(OverlayChanges::takes(65536, index));
	EXPECT_FALSE(OverlayChanges::takes(65537, index));
	std::vector<EdgeChange> many(65537, change(10, 20, 1));
	EXPECT_FALSE(OverlayChanges::of(index, many));
	many.pop_back();
	EXPECT_TRUE(OverlayChanges::of(index, many));
}

TEST(OverlayChanges, TextKeysTheBuildLacks) {
	KeyDictionaryBuilder builder(KeyKind::text);
	EdgeList ids;
	for (auto [s, t] : {std::pair<const char *, const char *>{"a", "b"}, {"b", "c"}})
		ids.append(builder.add(s, std::strlen(s)), builder.add(t, std::strlen(t)));
	KeyDictionary keys = builder.finish(ids);
	Index index = Index::build(std::move(ids), BuildOptions{}, nullptr, std::move(keys));
	auto c = OverlayChanges::of(index, {key_change("c", "zz", 1), key_change("zz", "a", 1), key_change("b", "c", -1)});
	ASSERT_TRUE(c);
	EXPECT_TRUE(c->adds_keys());
	EXPECT_EQ(c->added(), 1u);
	EXPECT_EQ(c->added_key("zz"), 3);
	EXPECT_EQ(c->added_key("a"), -1); // the build's own keys are the index's to find
	EXPECT_EQ(c->inserted(), (Edges{{2, 3}, {3, 0}}));
	EXPECT_EQ(c->deleted(), (Edges{{1, 2}}));

	// With them, "c" reaches "a" and "b" reaches "c" no more; a key no one has reaches only itself.
	std::unique_ptr<Reach> reach = Reach::with_changes(index, std::move(*c));
	ASSERT_TRUE(reach);
	EXPECT_TRUE(reach->reachable(2, 0));
	EXPECT_TRUE(reach->reachable(3, 1));
	EXPECT_FALSE(reach->reachable(1, 2));
	EXPECT_EQ(reach->added_key("zz"), 3);
	EXPECT_TRUE(reach->reachable(4, 4));
	EXPECT_FALSE(reach->reachable(4, 0));
}

// Reach without changes: single pairs and batches (on the CPU, by policy or for want of a GPU)
// answer as the closure of the rows, ids that are no vertex included.
TEST(Reach, BatchMatchesOracle) {
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed);
		grail_test::Oracle oracle(t.edges);
		BuildOptions options;
		options.labels = 1 + unsigned(seed % 4);
		options.seed = seed;
		Index index = Index::build(t.edges, options);
		Reach reach(index);
		Pairs p = all_pairs(t.query_ids, oracle);
		for (DeviceMode mode : {DeviceMode::cpu, DeviceMode::automatic}) {
			std::unique_ptr<bool[]> answers(new bool[p.a.size() + 1]);
			reach.reachable_many(p.a.data(), p.b.data(), p.a.size(), answers.get(), policy(mode), kNoFallback);
			for (size_t i = 0; i < p.a.size(); i++)
				ASSERT_EQ(answers[i], p.expected[i]) << "seed " << seed << " " << p.a[i] << " -> " << p.b[i];
		}
		for (size_t i = 0; i < p.a.size(); i++)
			ASSERT_EQ(reach.reachable(p.a[i], p.b[i]), p.expected[i]) << "seed " << seed;
	}
}

// Under gpu a batch whose labels leave searches goes to the GPU: an error without one, the same
// answers with one.
TEST(Reach, BatchUnderGpuPolicy) {
	EdgeList edges = generate_random_dag(3000, 3, 7);
	grail_test::Oracle oracle(edges);
	Index index = Index::build(edges, BuildOptions{});
	Reach reach(index);
	Rng rng(3);
	std::vector<int64_t> a, b;
	for (int k = 0; k < 2000; k++) {
		a.push_back(index.graph().ids[rng.below(index.graph().vertex_count())]);
		b.push_back(index.graph().ids[rng.below(index.graph().vertex_count())]);
	}
	std::unique_ptr<bool[]> answers(new bool[a.size()]);
	ASSERT_GT(reach.reachable_many(a.data(), b.data(), a.size(), answers.get(), policy(DeviceMode::cpu), kNoFallback),
	          0u);
	if (!process_gpu().usable) {
		EXPECT_THROW(
		    reach.reachable_many(a.data(), b.data(), a.size(), answers.get(), policy(DeviceMode::gpu), kNoFallback),
		    Error);
		return;
	}
	EXPECT_GT(reach.reachable_many(a.data(), b.data(), a.size(), answers.get(), policy(DeviceMode::gpu), kNoFallback),
	          0u);
	for (size_t i = 0; i < a.size(); i++)
		ASSERT_EQ(answers[i], oracle.reachable(a[i], b[i])) << a[i] << " -> " << b[i];
}

// Reach with a live graph's changes: single pairs and batches (on the CPU under every policy, gpu
// included) answer as the closure of the rows after the writes, over the build's ids, new ones and
// ids no one has.
TEST(Reach, WithChangesMatchesOracle) {
	size_t answered = 0;
	for (uint64_t seed = 0; seed < 600; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 5 == 0 ? 60 : 25);
		Rows before;
		for (size_t i = 0; i < t.edges.size(); i++)
			before.emplace_back(t.edges.source[i], t.edges.target[i]);
		BuildOptions options;
		options.labels = 1 + unsigned(seed % 3);
		options.seed = seed;
		Index index = Index::build(edge_list(before), options);
		Rng rng(seed * 31 + 7);
		Rows after = written(before, ids_of(before), rng);
		std::optional<OverlayChanges> changes = OverlayChanges::of(index, log_of(before, after));
		ASSERT_TRUE(changes) << "seed " << seed << ": rows that exist are removed, and few";
		std::unique_ptr<Reach> reach = Reach::with_changes(index, std::move(*changes));
		if (!reach)
			continue; // a component split or components joined: Overlay.RandomWritesMatchOracle checks that
		answered++;
		grail_test::Oracle oracle(edge_list(after));
		std::vector<int64_t> ids = ids_of(before), now = ids_of(after);
		ids.insert(ids.end(), now.begin(), now.end());
		ids.push_back(-77); // no one's
		Pairs p = all_pairs(ids, oracle);
		for (DeviceMode mode : {DeviceMode::cpu, DeviceMode::automatic, DeviceMode::gpu}) {
			std::unique_ptr<bool[]> answers(new bool[p.a.size() + 1]);
			reach->reachable_many(p.a.data(), p.b.data(), p.a.size(), answers.get(), policy(mode), kNoFallback);
			for (size_t i = 0; i < p.a.size(); i++)
				ASSERT_EQ(answers[i], p.expected[i]) << "seed " << seed << " " << p.a[i] << " -> " << p.b[i];
		}
		for (size_t i = 0; i < p.a.size(); i++)
			ASSERT_EQ(reach->reachable(p.a[i], p.b[i]), p.expected[i]) << "seed " << seed;
	}
	EXPECT_GT(answered, 400u);
}
