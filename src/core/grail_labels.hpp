// GRAIL reachability labels over a DAG (Yildirim, Chaoji, Zaki; as summarised in
// papers/gpu-grail-reachability.txt section 2.4) plus the exact filters GRAIL's code recommends.
#pragma once
#include "cpp_only.hpp"
#include "graph.hpp"

#include <string>

namespace grail {

constexpr unsigned kMaxLabels = 16;

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
	// d randomized traversals (1 <= d <= kMaxLabels), deterministic for a given seed.
	static GrailLabels build(const Csr &dag, unsigned d, uint64_t seed);

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
		const uint32_t *a = record(u), *b = record(v);
		for (unsigned i = 0; i < d_; i++)
			if (b[3 + 2 * i] < a[3 + 2 * i] || b[4 + 2 * i] > a[4 + 2 * i])
				return false;
		return true;
	}

	Array<uint32_t> &
	data() noexcept {
		return data_;
	}
	const Array<uint32_t> &
	data() const noexcept {
		return data_;
	}
	static GrailLabels from_data(unsigned d, Array<uint32_t> data);

	// Containment and level order along every DAG edge imply them along every path, so they make
	// labels valid: the first edge that breaks them ("a->b"), or an empty string.
	std::string first_inconsistent_edge(const Csr &dag) const;

private:
	unsigned d_ = 0;
	Array<uint32_t> data_;
};

// BFL Bloom-filter labels (Su, Zhu, Wei, Yu, TKDE 2017) over the same DAG. Each vertex v gets one
// hash bit h(v) in [0, kBloomBits); out(v) is the OR of h over everything v reaches, in(v) the OR
// over everything reaching v (v included in both). If u reaches v then out(v) is a subset of out(u)
// and in(u) a subset of in(v): a failed subset test is a certain negative.
constexpr unsigned kBloomShift = 8; // log2 of the bits per filter
constexpr unsigned kBloomBits = 1u << kBloomShift;
constexpr unsigned kBloomWords = kBloomBits / 64;

// Both filters of a vertex in one 64-byte cache line: a query touches one line per vertex.
struct alignas(64) BloomRecord {
	uint64_t out[kBloomWords];
	uint64_t in[kBloomWords];
};
static_assert(sizeof(BloomRecord) == 64, "one Bloom record per cache line");

class BloomLabels {
public:
	// post_rank: each vertex's post-order rank in one DFS of the DAG. Vertices close in post-order
	// share a hash bit (BFL's interval hashing): a reachable set is mostly a few runs of that order,
	// so it covers few bits and the filters stay sparse.
	static BloomLabels build(const Csr &dag, const std::vector<uint32_t> &post_rank);

	const BloomRecord &
	record(vid_t v) const noexcept {
		return data_[v];
	}
	// Necessary for u to reach v.
	static bool
	may_reach(const BloomRecord &u, const BloomRecord &v) noexcept {
		uint64_t miss = 0;
		for (unsigned k = 0; k < kBloomWords; k++)
			miss |= (v.out[k] & ~u.out[k]) | (u.in[k] & ~v.in[k]);
		return miss == 0;
	}

	const Array<BloomRecord> &
	data() const noexcept {
		return data_;
	}
	static BloomLabels from_data(Array<BloomRecord> data);

private:
	Array<BloomRecord> data_;
};

} // namespace grail
