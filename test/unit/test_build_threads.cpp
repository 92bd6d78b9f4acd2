// Builds on helper threads (BuildOptions::threads, parallel.hpp): the same index byte for byte
// with any number of threads, on every kind of input; a cancel or an error on a helper surfaces on
// the calling thread, after every helper has stopped. And a batch's searches on helper threads
// (ReachabilityQuery::reachable_many's helpers): a cancel the same way.
#include "error.hpp"
#include "generate.hpp"
#include "grail_labels.hpp"
#include "index.hpp"
#include "keys.hpp"
#include "oracle.hpp"
#include "parallel.hpp"
#include "rng.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <dirent.h>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace grail;

namespace {

// The threads of this process now (/proc/self/task).
size_t
thread_count() {
	size_t n = 0;
	DIR *d = opendir("/proc/self/task");
	if (d == nullptr)
		return 0;
	while (dirent *e = readdir(d))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

std::vector<uint8_t>
image(const EdgeList &edges, unsigned threads, unsigned labels = 5, KeyDictionary keys = {}) {
	BuildOptions options;
	options.id_hash_seed = 77;
	options.labels = labels;
	options.threads = threads;
	Index index = Index::build(edges, options, nullptr, std::move(keys));
	// The image would not show a build that left its records unordered (serialize() orders them,
	// as it does a format 6 image's): the queries of the index in memory would decide less.
	EXPECT_TRUE(index.lookup().empty() || index.lookup().has_order()) << threads << " threads";
	return index.serialize();
}

// Text keys "k<id>" for the rows' ids, numbered as while reading.
KeyDictionary
keyed(const EdgeList &rows, EdgeList *numbered) {
	KeyDictionaryBuilder keys(KeyKind::text, 5);
	for (size_t e = 0; e < rows.size(); e++) {
		std::string s = "k" + std::to_string(rows.source[e]), t = "k" + std::to_string(rows.target[e]);
		numbered->append(keys.add(s.data(), s.size()), keys.add(t.data(), t.size()));
	}
	return keys.finish(*numbered);
}

std::atomic<long> polls_left{0};
bool
cancel_after_polls() {
	return polls_left.fetch_sub(1) <= 0;
}

} // namespace

TEST(BuildThreads, LabelsAreTheSameWithAnyNumberOfThreads) {
	for (uint64_t seed = 0; seed < 200; seed++) {
		grail_test::TestGraph g = grail_test::random_graph(seed, 1 + seed % 300);
		Index index = Index::build(g.edges, BuildOptions{});
		for (unsigned d : {1u, 2u, 5u, 16u}) {
			GrailLabels one = GrailLabels::build(index.dag(), d, seed);
			for (unsigned threads : {1u, 2u, 3u, 15u, 40u}) {
				GrailLabels many = GrailLabels::build(index.dag(), d, seed, threads);
				ASSERT_EQ(one.data().size(), many.data().size());
				EXPECT_TRUE(std::equal(one.data().begin(), one.data().end(), many.data().begin()))
				    << "seed " << seed << " (" << g.shape << "), " << d << " labels, " << threads << " threads";
			}
		}
	}
}

TEST(BuildThreads, ImagesAreTheSameWithAnyNumberOfThreads) {
	for (uint64_t seed = 0; seed < 300; seed++) {
		grail_test::TestGraph g = grail_test::random_graph(seed, 1 + seed % 400);
		std::vector<uint8_t> one = image(g.edges, 0, 1 + unsigned(seed % 16));
		for (unsigned threads : {1u, 2u, 7u})
			EXPECT_EQ(one, image(g.edges, threads, 1 + unsigned(seed % 16)))
			    << "seed " << seed << " (" << g.shape << "), " << threads << " threads";
	}
}

TEST(BuildThreads, EdgeCasesAndLargerGraphsAreTheSame) {
	std::vector<std::pair<std::string, EdgeList>> graphs;
	graphs.push_back({"empty", EdgeList{}});
	EdgeList extreme;
	extreme.append(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
	extreme.append(std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min());
	extreme.append(0, 0);
	extreme.append(std::numeric_limits<int64_t>::max(), 5);
	extreme.append(std::numeric_limits<int64_t>::max(), 5);
	graphs.push_back({"extreme ids", extreme});
	EdgeList isolated;
	for (int64_t i = 0; i < 5000; i++)
		isolated.append(i * 3, i * 3); // self-loops only: 5000 roots, no DAG edge
	graphs.push_back({"isolated", isolated});
	EdgeList chain;
	for (int64_t i = 0; i < 100000; i++)
		chain.append(i, i + 1);
	graphs.push_back({"deep chain", chain});
	graphs.push_back({"R-MAT 14", generate_rmat(14, 8, 3)});
	graphs.push_back({"random DAG", generate_random_dag(30000, 5, 4)});
	graphs.push_back({"grid both ways", generate_grid(100, 120, true)});
	for (const auto &[name, edges] : graphs) {
		std::vector<uint8_t> one = image(edges, 0);
		for (unsigned threads : {1u, 3u})
			EXPECT_EQ(one, image(edges, threads)) << name << ", " << threads << " threads";
	}
}

TEST(BuildThreads, KeyedGraphsAreTheSame) {
	for (uint64_t seed = 0; seed < 60; seed++) {
		grail_test::TestGraph g = grail_test::random_graph(seed, 1 + seed % 200);
		EdgeList a, b;
		KeyDictionary ka = keyed(g.edges, &a), kb = keyed(g.edges, &b);
		EXPECT_EQ(image(a, 0, 5, std::move(ka)), image(b, 2, 5, std::move(kb))) << "seed " << seed;
	}
}

TEST(BuildThreads, CancelStopsEveryThreadAndSurfacesHere) {
	EdgeList edges = generate_random_dag(200000, 6, 11);
	size_t before = thread_count();
	ASSERT_GT(before, 0u);
	// Cancelled after more and more polls: in the components, the traversals on either thread, the
	// hash table beside them, the supports.
	int cancelled = 0;
	for (long after : {0L, 3L, 10L, 20L, 30L, 40L, 60L, 80L, 120L, 200L}) {
		polls_left = after;
		set_cancel_hook(cancel_after_polls);
		try {
			BuildOptions options;
			options.threads = 2;
			Index::build(edges, options);
		} catch (const Error &e) {
			EXPECT_EQ(e.kind(), ErrorKind::cancelled) << e.what();
			cancelled++;
		}
		set_cancel_hook(nullptr);
		EXPECT_EQ(thread_count(), before) << "after a cancel at poll " << after;
	}
	EXPECT_GE(cancelled, 5);
	// And the build still makes the same image afterwards.
	EXPECT_EQ(image(edges, 0), image(edges, 2));
}

TEST(SearchThreads, CancelStopsEveryThreadAndSurfacesHere) {
	EdgeList edges = generate_random_dag(100000, 4, 13);
	Index index = Index::build(edges, BuildOptions{});
	const auto &ids = index.graph().ids;
	Rng rng(17);
	std::vector<int64_t> a, b;
	for (size_t k = 0; k < 4 * kFewestItemsToSplit; k++) {
		a.push_back(ids[rng.below(ids.size())]);
		b.push_back(ids[rng.below(ids.size())]);
	}
	std::vector<uint8_t> expected(a.size()), answers(a.size());
	ReachabilityQuery query(index);
	query.reachable_many(a.data(), b.data(), a.size(), reinterpret_cast<bool *>(expected.data()));
	size_t before = thread_count();
	int cancelled = 0;
	for (long after : {0L, 1L, 2L, 3L, 5L, 8L}) {
		polls_left = after;
		set_cancel_hook(cancel_after_polls);
		try {
			query.reachable_many(a.data(), b.data(), a.size(), reinterpret_cast<bool *>(answers.data()), {}, 0, 2);
		} catch (const Error &e) {
			EXPECT_EQ(e.kind(), ErrorKind::cancelled) << e.what();
			cancelled++;
		}
		set_cancel_hook(nullptr);
		EXPECT_EQ(thread_count(), before) << "after a cancel at poll " << after;
	}
	EXPECT_GE(cancelled, 3);
	// The query answers as before afterwards, helpers and all.
	query.reachable_many(a.data(), b.data(), a.size(), reinterpret_cast<bool *>(answers.data()), {}, 0, 2);
	EXPECT_EQ(answers, expected);
}

TEST(BuildThreads, TasksRethrowOnTheCallingThreadAfterJoining) {
	size_t before = thread_count();
	std::atomic<int> ran{0};
	EXPECT_THROW(run_tasks(50, 3,
	                       [&](size_t k, unsigned) {
		                       ran++;
		                       if (k == 7)
			                       throw std::runtime_error("task 7");
	                       }),
	             std::runtime_error);
	EXPECT_EQ(thread_count(), before);
	EXPECT_GE(ran.load(), 8);
	// Every task once, each on a worker number within the helpers'.
	std::vector<std::atomic<int>> seen(1000);
	std::atomic<unsigned> worst{0};
	run_tasks(1000, 3, [&](size_t k, unsigned worker) {
		seen[k]++;
		unsigned w = worst.load();
		while (worker > w && !worst.compare_exchange_weak(w, worker)) {
		}
	});
	for (auto &s : seen)
		EXPECT_EQ(s.load(), 1);
	EXPECT_LE(worst.load(), 3u);
	// A background task's error comes back on wait(), and one never waited for is joined.
	Background b;
	b.start(true, [] { throw Error(ErrorKind::internal, "boom"); });
	EXPECT_THROW(b.wait(), Error);
	{
		Background c;
		c.start(true, [] { throw Error(ErrorKind::internal, "never waited"); });
	}
	Background inline_task;
	int value = 0;
	inline_task.start(false, [&] { value = 5; });
	inline_task.wait();
	EXPECT_EQ(value, 5);
	EXPECT_EQ(thread_count(), before);
}
