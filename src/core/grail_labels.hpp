// GRAIL reachability labels over a DAG (Yildirim, Chaoji, Zaki; as summarised in
// papers/gpu-grail-reachability.txt section 2.4) plus the exact filters GRAIL's code recommends.
#pragma once
#include "cpp_only.hpp"
#include "graph.hpp"
#include "pruning.hpp"

#include <functional>
#include <string>

namespace grail {

constexpr unsigned kMaxLabels = 16;
// The traversals a build makes unless told otherwise. Two: with the lookup records deciding most
// pairs first, more traversals decided few more and their records cost lines of their own. On
// 1M-vertex random, deep local, sparse, grid and R-MAT DAGs (grail_cli bench-queries, d = 1..5) the
// query times were equal within noise (a search visits 3-16% more components at d = 2 than at 5,
// over records of 28 bytes instead of 52), while d = 5 took 40% more of a build's time on the
// random DAG and 10% more image.
constexpr unsigned kDefaultLabels = 2;

// Per DAG vertex, stored contiguously (one record of record_width() uint32 values) so that a
// query touches one or two cache lines per vertex:
//   [0]          post-order rank in traversal 0
//   [1]          first rank of v's subtree in the DFS *tree* of traversal 0: ranks in
//                [record[1], record[0]] are tree descendants, a certain positive (positive cut)
//   [2]          topological level: 0 for sources, 1 + max over parents otherwise; u reaches
//                v != u only if level(u) < level(v)
//   [3 + 2i]     lo_i, the smallest post-order rank reachable from v in traversal i
//   [3 + 2i + 1] hi_i, v's post-order rank in traversal i (so hi_0 == record[0])
// If u reaches v then [lo_i(v), hi_i(v)] lies within [lo_i(u), hi_i(u)] for every i.
class GrailLabels {
public:
	// d randomized traversals (1 <= d <= kMaxLabels), deterministic for a given seed: the same
	// labels bit for bit whatever `threads`, the helper threads that run traversals beside the
	// calling one (parallel.hpp; 0: none).
	static GrailLabels build(const Csr &dag, unsigned d, uint64_t seed, unsigned threads = 0);

	unsigned
	label_count() const noexcept {
		return d_;
	}
	size_t
	record_width() const noexcept {
		return 3 + 2 * size_t(d_);
	}
	const uint32_t *
	record(vid_t v) const noexcept {
		return data_.data() + size_t(v) * record_width();
	}

	// Every label interval of v inside u's (level and tree filters not included).
	bool
	contains(vid_t u, vid_t v) const noexcept {
		return pruning::intervals_allow(record(u), record(v), d_);
	}

	// Writable access gives up the trust of built_here(): the data may no longer be what build() made.
	Array<uint32_t> &
	data() noexcept {
		built_here_ = false;
		return data_;
	}
	const Array<uint32_t> &
	data() const noexcept {
		return data_;
	}
	static GrailLabels from_data(unsigned d, Array<uint32_t> data);
	// Whether these labels are build()'s own, untouched since (not from_data(), a device's or another
	// builder's, nor written through data()): valid and exact by construction, no check needed.
	bool
	built_here() const noexcept {
		return built_here_;
	}

	// Containment and level order along every DAG edge imply them along every path, so they make
	// labels valid: the first edge that breaks them ("a->b"), or an empty string.
	std::string first_inconsistent_edge(const Csr &dag) const;
	// The interval end test (pruning::end_holds) needs more: within each traversal the post ranks
	// are distinct, and lo_i(v) is exactly min(post_i(v), lo_i over v's children), so the smallest
	// post rank v reaches. The first place that breaks this, described, or an empty string.
	std::string first_inexact_label(const Csr &dag) const;

private:
	unsigned d_ = 0;
	Array<uint32_t> data_;
	bool built_here_ = false;
};

// BFL Bloom-filter labels over the same DAG (the records and their test: pruning.hpp).

class BloomLabels {
public:
	// post_rank: each vertex's post-order rank in one DFS of the DAG. Vertices close in post-order
	// share a hash bit (BFL's interval hashing): a reachable set is mostly a few runs of that order,
	// so it covers few bits and the filters stay sparse.
	// beside: its two passes at once, one on a helper thread (the same records).
	static BloomLabels build(const Csr &dag, const std::vector<uint32_t> &post_rank, bool beside = false);

	const BloomRecord &
	record(vid_t v) const noexcept {
		return data_[v];
	}
	// Necessary for u to reach v.
	static bool
	may_reach(const BloomRecord &u, const BloomRecord &v) noexcept {
		return pruning::bloom_allows(u, v);
	}

	const Array<BloomRecord> &
	data() const noexcept {
		return data_;
	}
	static BloomLabels from_data(Array<BloomRecord> data);

private:
	Array<BloomRecord> data_;
};

// O(1) deciders beside the GRAIL labels, one 32-byte record per DAG vertex (component), aligned so
// that a record never straddles a cache line:
//  - back_level: the longest path from v to a sink (0 for sinks). u reaches v != u only if
//    back_level(u) > back_level(v): with GRAIL's forward level, topological levels both ways.
//  - up to 64 supports s_i; reaches bit i: v reaches s_i; reached_by bit i: s_i reaches v (s_i
//    itself has both). Two bit-parallel sweeps over the topologically numbered DAG make them. u
//    reaches s_i and s_i reaches v: yes; v reaches s_i and u does not, or s_i reaches u and not v:
//    no. The supports are chosen where they pay: candidates (the hubs of largest in- times
//    out-degree, then vertices on the walks of sampled pairs that nothing else decides) are swept
//    64 at a time, and a greedy cover of the sample keeps those that decide the most of it.
//  - an extended topological order of the reversed DAG (O'Reach's backward DFS order): a
//    depth-first search over the predecessors, from the sinks in ascending order, each vertex's
//    predecessors in ascending order (the components' topological numbering: measured, this
//    order decides far more pairs than a random one). back_post is v's post-order rank,
//    back_first the first rank of its DFS subtree (the ancestors of v that it discovered),
//    back_lo the smallest post rank among v's ancestors (v included). For u != v: u's rank within
//    [back_first(v), back_post(v)] (a tree ancestor of v) or equal to back_lo(v): yes;
//    back_lo(u) < back_lo(v) (u has an ancestor that v lacks) or back_post(u) > back_post(v)
//    (the reversed DFS finishes every ancestor of v before v): no.
struct alignas(32) LookupRecord {
	uint64_t reaches;
	uint64_t reached_by;
	uint32_t back_level;
	uint32_t back_post;
	uint32_t back_first;
	uint32_t back_lo;
};
static_assert(sizeof(LookupRecord) == 32, "a lookup record is 32 bytes");

// The lookup record of image format 6, before the backward order: read and converted (with
// LookupLabels::kNoOrder*'s fields) by the image reader.
struct LookupRecordV6 {
	uint64_t reaches;
	uint64_t reached_by;
	uint32_t back_level;
	uint32_t reserved; // 0
};
static_assert(sizeof(LookupRecordV6) == 24, "a format 6 lookup record is 24 bytes");

constexpr unsigned kMaxSupports = 64;

// Whether a pair of DAG vertices u < v is settled without the lookup records and a search.
using DecidedElsewhere = std::function<bool(vid_t u, vid_t v)>;

class LookupLabels {
public:
	// dag: topologically numbered (every edge to a larger vertex). supports: the DAG vertices
	// chosen, at most kMaxSupports, distinct; empty: up to count (<= kMaxSupports) chosen here
	// (every vertex where there are no more than count), deterministically for a seed. decided:
	// whether the index's other deciders settle components u < v without a search (empty: none do),
	// so that the supports are chosen for the pairs they leave.
	// ordered: false leaves the records without a backward order until set_order() (a caller that
	// makes the order beside, on another thread: it needs only the DAG). beside: each sweep's two
	// passes at once, one on a helper thread (the same records).
	static LookupLabels build(const Csr &dag, unsigned count, std::vector<vid_t> supports = {},
	                          const DecidedElsewhere &decided = {}, uint64_t seed = 0, bool ordered = true,
	                          bool beside = false);

	bool
	empty() const noexcept {
		return records_.empty();
	}
	const LookupRecord &
	record(vid_t v) const noexcept {
		return records_[v];
	}
	const Array<LookupRecord> &
	records() const noexcept {
		return records_;
	}
	const Array<uint32_t> &
	supports() const noexcept {
		return supports_;
	}
	// has_order: whether the records' order fields hold the backward order (else kNoOrder*).
	static LookupLabels from_data(Array<uint32_t> supports, Array<LookupRecord> records, bool has_order = true);

	// u reaches v (u != v, u before v in topological order): the supports prove it.
	static bool
	proves(const LookupRecord &u, const LookupRecord &v) noexcept {
		return (u.reaches & v.reached_by) != 0;
	}
	// The back levels rule it out.
	static bool
	level_rules_out(const LookupRecord &u, const LookupRecord &v) noexcept {
		return u.back_level <= v.back_level;
	}
	// The supports rule it out.
	static bool
	supports_rule_out(const LookupRecord &u, const LookupRecord &v) noexcept {
		return ((v.reaches & ~u.reaches) | (u.reached_by & ~v.reached_by)) != 0;
	}
	// The backward DFS order proves it: u in v's subtree of the reversed DFS, or u the ancestor of
	// v of smallest rank (the end of v's interval).
	static bool
	order_proves(const LookupRecord &u, const LookupRecord &v) noexcept {
		return (u.back_post >= v.back_first && u.back_post <= v.back_post) || u.back_post == v.back_lo;
	}
	// The backward DFS order rules it out: u's interval [back_lo, back_post] is not within v's.
	static bool
	order_rules_out(const LookupRecord &u, const LookupRecord &v) noexcept {
		return u.back_lo < v.back_lo || u.back_post > v.back_post;
	}
	// The order fields of a record without a backward order (one of a format 6 image): neither
	// order_proves() nor order_rules_out() holds for two such records.
	static constexpr uint32_t kNoOrderPost = 0, kNoOrderFirst = 1, kNoOrderLo = 1;
	// Whether the records hold a backward order (false for those of a format 6 image).
	bool
	has_order() const noexcept {
		return has_order_;
	}
	// The backward DFS order of a topologically numbered DAG: each vertex's back_post, back_first
	// and back_lo, an array each (compact, written into the records in one pass).
	struct BackwardOrder {
		std::vector<uint32_t> post, first, lo;
		void write_to(LookupRecord *records) const noexcept;
	};
	static BackwardOrder backward_order(const Csr &dag);
	// The order into the records' back_post, back_first and back_lo.
	static void
	order(const Csr &dag, LookupRecord *records) {
		backward_order(dag).write_to(records);
	}
	// An order made by backward_order() of this build's DAG into its records (built unordered).
	void set_order(const BackwardOrder &order);

private:
	Array<uint32_t> supports_;
	Array<LookupRecord> records_;
	bool has_order_ = true;
};

} // namespace grail
