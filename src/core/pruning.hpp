// The rule that prunes a reachability search over an index's DAG, written once for the CPU query
// code (pruned_search.hpp: reachability.cpp, and overlay.cpp over a changed graph) and the GPU
// batch search (cuda/grail_queries.cu) and compiled for both, so that the two cannot answer
// differently. It reads a vertex's GRAIL record (layout in
// grail_labels.hpp: [0] post rank, [1] first rank of its DFS subtree, [2] topological level,
// [3 + 2i, 4 + 2i] interval of traversal i) and its BFL Bloom record. Each test is a necessary
// condition for u to reach v, except tree_holds and end_holds, which are sufficient.
#pragma once
#include "cpp_only.hpp"
#include "host_device.hpp"

#include <cstdint>

namespace grail {

// BFL Bloom-filter labels (Su, Zhu, Wei, Yu, TKDE 2017): each vertex v gets one hash bit h(v) in
// [0, kBloomBits); out(v) is the OR of h over everything v reaches, in(v) the OR over everything
// reaching v (v included in both).
constexpr unsigned kBloomShift = 8; // log2 of the bits per filter
constexpr unsigned kBloomBits = 1u << kBloomShift;
constexpr unsigned kBloomWords = kBloomBits / 64;

// Both filters of a vertex in one 64-byte cache line: a query touches one line per vertex.
struct alignas(64) BloomRecord {
	uint64_t out[kBloomWords];
	uint64_t in[kBloomWords];
};
static_assert(sizeof(BloomRecord) == 64, "one Bloom record per cache line");

namespace pruning {

// If u reaches v then out(v) is a subset of out(u) and in(u) a subset of in(v).
GRAIL_HOST_DEVICE inline bool
bloom_allows(const BloomRecord &u, const BloomRecord &v) {
	uint64_t miss = 0;
	for (unsigned k = 0; k < kBloomWords; k++)
		miss |= (v.out[k] & ~u.out[k]) | (u.in[k] & ~v.in[k]);
	return miss == 0;
}

// u reaches v != u only if it lies on an earlier topological level.
GRAIL_HOST_DEVICE inline bool
level_allows(const uint32_t *ru, const uint32_t *rv) {
	return ru[2] < rv[2];
}

// If u reaches v then each of v's `labels` intervals lies within u's; intervals as (low, high)
// pairs, label by label (a record's from [3] on).
GRAIL_HOST_DEVICE inline bool
intervals_within(const uint32_t *u_intervals, const uint32_t *v_intervals, unsigned labels) {
	for (unsigned i = 0; i < labels; i++)
		if (v_intervals[2 * i] < u_intervals[2 * i] || v_intervals[2 * i + 1] > u_intervals[2 * i + 1])
			return false;
	return true;
}

GRAIL_HOST_DEVICE inline bool
intervals_allow(const uint32_t *ru, const uint32_t *rv, unsigned labels) {
	return intervals_within(ru + 3, rv + 3, labels);
}

// If u reaches v then out(v) is a subset of out(u): the half of bloom_allows that holds for a
// bound of what u reaches which keeps no "in" filter.
GRAIL_HOST_DEVICE inline bool
out_covers(const uint64_t *u_out, const uint64_t *v_out) {
	uint64_t miss = 0;
	for (unsigned k = 0; k < kBloomWords; k++)
		miss |= v_out[k] & ~u_out[k];
	return miss == 0;
}

// v's post rank within u's DFS-tree interval: v is a tree descendant, so u reaches it.
GRAIL_HOST_DEVICE inline bool
tree_holds(const uint32_t *ru, const uint32_t *rv) {
	return rv[0] >= ru[1] && rv[0] <= ru[0];
}

// v's post rank in some traversal i equals lo_i(u), the smallest post rank of everything u
// reaches: ranks are distinct within a traversal, so v is the vertex of that rank, and u reaches
// it. Sound wherever lo_i(u) is exact, as GrailLabels::build and the GPU's min-post pass make it
// (first_inconsistent_edge checks labels from elsewhere).
GRAIL_HOST_DEVICE inline bool
end_holds(const uint32_t *ru, const uint32_t *rv, unsigned labels) {
	bool hit = false;
	for (unsigned i = 0; i < labels; i++)
		hit |= rv[4 + 2 * i] == ru[3 + 2 * i];
	return hit;
}

// What a search that has reached u (u != v) does about target v.
enum class Step : uint8_t {
	prune,  // u cannot reach v
	expand, // u may reach v: search on from u
	reached // u certainly reaches v
};

GRAIL_HOST_DEVICE inline Step
step(const BloomRecord &bu, const uint32_t *ru, const BloomRecord &bv, const uint32_t *rv, unsigned labels) {
	if (!bloom_allows(bu, bv) || !level_allows(ru, rv) || !intervals_allow(ru, rv, labels))
		return Step::prune;
	return tree_holds(ru, rv) || end_holds(ru, rv, labels) ? Step::reached : Step::expand;
}

// step() at a component u whose labels were widened to bound what it reaches after changes to the
// graph (overlay.hpp): each of u's intervals the hull of its successors', its "out" filter their
// union. They keep no level, "in" filter or DFS tree: only v's intervals and "out" filter within
// u's rule a search out, and nothing rules it certain.
GRAIL_HOST_DEVICE inline Step
widened_step(const uint32_t *u_intervals, const uint64_t *u_out, const uint32_t *v_intervals, const uint64_t *v_out,
             unsigned labels) {
	if (!intervals_within(u_intervals, v_intervals, labels) || !out_covers(u_out, v_out))
		return Step::prune;
	return Step::expand;
}

} // namespace pruning

} // namespace grail
