// Reachability over an index and a few changes to its graph (a live graph's pending changes): the
// edges inserted since the build and the edges that no row holds any more, answered without a
// rebuild. The index stays as built; the overlay keeps what the changes invalidate.
//
// Why each base rule still holds or is replaced (G the built graph, G' = G - deleted + inserted,
// both over the build's components, which the overlay refuses to let split):
//  - A_I, the components that reach (in G') the tail of an inserted edge, may reach more in G' than
//    in G: the base "no" rules (topological order, level, labels, Bloom filter) are unsound for
//    them. They get widened labels instead, a fixpoint over G' (each interval the hull of its
//    successors', each Bloom "out" set the union), which bound what they reach in G' as the base
//    labels bound G (the labels in the manner of DAGGER, Yildirim et al.'s dynamic GRAIL).
//  - A_D, the components that reach (in G) the tail of a vanished DAG edge, may reach less: the
//    "yes" of the DFS-tree interval is unsound for them (the tree path may use the edge); every
//    "no" stays sound.
//  - A component in neither reaches in G' exactly what it reaches in G: the base query answers.
// A query is a search over G' with, at each component, the rules that hold for it.
#pragma once
#include "cpp_only.hpp"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "index.hpp"

namespace grail {

class ReachabilityOverlay {
public:
	using Edges = std::vector<std::pair<vid_t, vid_t>>;

	// base: the index as built. Vertices are the base's dense vertices 0..n-1 and added ones n..n+added-1
	// (ids the build did not have). inserted: edges G lacks (u != v); deleted: edges of G that no row holds
	// any more (u != v, both base vertices). Returns nullptr when the changes split a strongly connected
	// component of the base (the overlay keeps the base's components): the caller rebuilds.
	static std::unique_ptr<ReachabilityOverlay> build(const Index &base, size_t added, const Edges &inserted,
	                                                  const Edges &deleted);

	// Whether a reaches b in G' (a == b: yes). Vertices as in build().
	bool reachable(vid_t a, vid_t b);

	// Components in A_I and in A_D (see above), for tests and statistics.
	size_t
	widened_components() const noexcept {
		return slots_;
	}
	size_t ancestors_of_deletions() const noexcept;
	// Passes over A_I the widening took (the last changed nothing).
	size_t
	widening_passes() const noexcept {
		return passes_;
	}

private:
	ReachabilityOverlay(const Index &base, size_t added);
	enum Flag : uint8_t {
		kReachesInsertion = 1, // in A_I
		kReachesDeletion = 2,  // in A_D
		kInsertedOut = 4,      // tail of an inserted DAG edge
		kVanishedOut = 8,      // tail of a vanished DAG edge
	};
	uint32_t
	component(vid_t v) const noexcept {
		return v < vertices_ ? base_.components().of_vertex[v] : uint32_t(components_ + (v - vertices_));
	}
	bool remove(const Edges &deleted, const Edges &inserted);
	void insert(const Edges &inserted);
	void mark_ancestors();
	void widen();
	bool vanished(uint32_t from, uint32_t to) const noexcept;
	template <typename Visit> void for_each_successor(uint32_t c, Visit &&visit) const;
	template <typename Visit> void for_each_predecessor(uint32_t c, Visit &&visit) const;
	// Widened record of a component of A_I: its intervals (low, high per label) and Bloom "out" words.
	uint32_t *
	intervals(uint32_t slot) noexcept {
		return intervals_.data() + size_t(slot) * 2 * labels_;
	}
	uint64_t *
	bloom_out(uint32_t slot) noexcept {
		return bloom_out_.data() + size_t(slot) * kBloomWords;
	}
	// A component's intervals and Bloom "out" words: the base's, or an added vertex's own rank and bit.
	void own_record(uint32_t c, uint32_t *intervals, uint64_t *bloom) const;
	// What a component contributes to its G'-ancestors' widened records: its widened record, else its own.
	void contribution(uint32_t c, uint32_t *intervals, uint64_t *bloom) const;
	bool widen_into(uint32_t slot, const uint32_t *intervals, const uint64_t *bloom) noexcept;
	enum class Step { prune, expand, reached };
	Step step(uint32_t c, uint32_t target) noexcept;

	const Index &base_;
	ReachabilityQuery base_query_;
	size_t vertices_, components_, added_;
	unsigned labels_;
	uint32_t first_added_rank_ = 0; // an added vertex k's label interval is [first + k, first + k]
	std::vector<uint8_t> flags_;    // per component, base then added
	Edges inserted_;                // DAG edges G' has and G has not, sorted (from, to)
	Edges inserted_reversed_;       // the same as (to, from), sorted
	Edges vanished_;                // DAG edges of G that G' lacks, sorted (from, to)
	Csr reversed_dag_;
	std::vector<uint32_t> slot_;   // widened record of each component of A_I, else kNoSlot
	uint32_t slots_ = 0;
	size_t passes_ = 0;
	std::vector<uint32_t> intervals_;
	std::vector<uint64_t> bloom_out_;
	// The search: visited marks by epoch, a target record for added targets.
	std::vector<uint32_t> visited_;
	uint32_t epoch_ = 0;
	std::vector<uint32_t> stack_;
	std::vector<uint32_t> target_intervals_;
	uint64_t target_bloom_[kBloomWords];
	static constexpr uint32_t kNoSlot = UINT32_MAX;
};

} // namespace grail
