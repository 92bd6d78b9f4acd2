// Shortest paths and shortest directed cycles, with bfs()'s tie rule (bfs.hpp), so that a path is
// the parent chain bfs(source) reports for its target.
//
// A path: the pair's labels rule out most unreachable pairs before any search (a reachable pair is
// not searched twice: no reachability search first). Then a bidirectional breadth-first search: a
// forward ball from the source over the out-edges and a backward ball from the target over the
// in-edges, a whole level at a time, the frontier with fewer edges to scan first, until a level of
// one meets the other ball, or a side has nothing left to expand (no path). The labels prune both:
// the forward side never
// expands a vertex whose component cannot reach the target's, the backward side one whose
// component the source's cannot reach (pruning.hpp). Pruning changes no depth that matters: every
// vertex on a shortest path to a vertex that reaches the target reaches it too.
//
// The meeting gives the distance D and the forward depth J that is complete. The tie rule needs
// the source's depth of every vertex on a shortest path (the set S: d(a, u) + d(u, b) = D): those
// at depth J or less are the forward ball's; the others are found by a second pass from the
// forward ball's level J over the backward ball (u at depth k in S, w an out-neighbour with
// d(w, b) = D - k - 1: w is in S at depth k + 1, and every such w is found so), each level from
// S's out-edges or from the in-edges of the backward ball's level D - k - 1, whichever has fewer
// (the latter at most what the backward search scanned, where hubs' out-lists are long). The path is then
// read backwards from the target: a vertex's predecessor is its smallest in-neighbour at the
// source's depth one less, which is its bfs() parent (bfs() scans a level in ascending order, so a
// vertex's first discoverer is the smallest one at the level above with an edge to it), and is in
// S. So the answer is exactly that of a forward breadth-first search, for a fraction of its work.
//
// A cycle through v is the same search from v to v, both sides restricted to v's strongly connected
// component (no cycle through v leaves it), v being the source on one side and the target on the
// other: v's predecessor on the cycle is the smallest vertex at the least depth from v with an edge
// to v, the rest its bfs() parent chain. Self-loops are not in the index's graph (graph.hpp), so a
// cycle has two edges or more.
#pragma once
#include "cpp_only.hpp"
#include "index.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace grail {

// Answers paths and cycles over one index; holds the scratch space of its searches (one per
// thread), made by the first search that needs it, so that one kept with its build makes later
// searches allocate nothing.
class PathFinder {
public:
	// in_edges: the index's graph reversed (Csr::reversed()), asked for by the first path that
	// needs a search, for a caller that keeps one already; without it, the finder makes its own.
	explicit PathFinder(const Index &index, std::function<const Csr &()> in_edges = {});

	// A shortest path from vertex a to vertex b (dense indexes of the index's graph): a first, b
	// last, each vertex's predecessor the bfs() parent; {a} when a == b; empty when a does not reach
	// b. Polls for cancellation; Error(invalid_input) for a vertex out of range.
	std::vector<vid_t> shortest_path(vid_t a, vid_t b);

	// A shortest directed cycle through v: v first and last, v's predecessor the smallest vertex at
	// the least bfs() depth from v with an edge to v, the rest its bfs() parent chain; empty when v
	// is on no cycle of two or more edges. Polls for cancellation.
	std::vector<vid_t> shortest_cycle(vid_t v);

	// The plain forward search's scratch (the reference functions below): visited marks, parents
	// (read only where marked), the levels.
	struct Scratch {
		VisitMarks seen;
		std::unique_ptr<vid_t[]> parent;
		std::vector<vid_t> level, next;
	};
	// A vertex's depths from both sides, side by side (one cache miss reads both): a side's depth
	// is set in the current search when its epoch is the search's.
	struct DepthSlot {
		uint32_t epoch[2], depth[2];
	};
	// One side's view of the slots in the current search.
	class Depths {
	public:
		Depths(DepthSlot *slots, int side, uint32_t epoch) noexcept : slots_(slots), side_(side), epoch_(epoch) {
		}
		bool
		marked(vid_t v) const noexcept {
			return slots_[v].epoch[side_] == epoch_;
		}
		// Sets v's depth; false (and no change) when v was marked already.
		bool
		mark(vid_t v, uint32_t depth) noexcept {
			DepthSlot &slot = slots_[v];
			if (slot.epoch[side_] == epoch_)
				return false;
			slot.epoch[side_] = epoch_;
			slot.depth[side_] = depth;
			return true;
		}
		// v's depth, v marked.
		uint32_t
		depth(vid_t v) const noexcept {
			return slots_[v].depth[side_];
		}

	private:
		DepthSlot *slots_;
		int side_;
		uint32_t epoch_;
	};
	// The bidirectional search's: the depth slots and their current epoch, each side's frontier.
	struct Balls {
		// A new search over count vertices (the same count every time): nothing marked.
		void start(size_t count);
		std::unique_ptr<DepthSlot[]> slots;
		uint32_t epoch = 0;
		std::vector<vid_t> forward, backward, next;
		// The backward side's levels one after another, where each starts, the in-edges of each.
		std::vector<vid_t> layers;
		std::vector<size_t> layer_start, layer_work;
		size_t slot_count = 0; // of slots, made by the first start()
	};
	// What the last search scanned: the edges of the two balls' expansions, and of the pass that
	// finds the shortest paths' vertices past the forward ball (its levels read from S's out-edges
	// or from the backward levels' in-edges; out_pass_edges: what reading every level from S's
	// out-edges would have scanned). For tests and measurements.
	struct Counts {
		size_t search_edges = 0, pass_edges = 0, out_pass_edges = 0;
		uint32_t out_levels = 0, in_levels = 0;
	};
	const Counts &
	last_counts() const noexcept {
		return counts_;
	}

	// The bytes its searches keep for the next one (the depth slots, 16 bytes a vertex, and the
	// frontiers' vectors), for a caller that bounds a process's memory; release_scratch() frees
	// them, and the next search makes them again.
	size_t scratch_bytes() const noexcept;
	void release_scratch() noexcept;

private:
	const Csr &in_edges();
	// The bidirectional search from a to b (a == b: a cycle through it), each side expanding the
	// vertices its rule keeps; a shortest path, by the tie rule.
	template <class KeepForward, class KeepBackward>
	std::vector<vid_t> bidirectional(vid_t a, vid_t b, KeepForward &&keep_forward, KeepBackward &&keep_backward);

	const Index &index_;
	std::function<const Csr &()> in_edges_;
	std::unique_ptr<const Csr> own_in_edges_;
	Balls balls_;
	Counts counts_;
};

// The same without labels over a bare CSR (no pruning, no component restriction): the reference
// the index's answers are tested against, and for graphs without an index.
std::vector<vid_t> shortest_path(const Csr &graph, vid_t a, vid_t b);
std::vector<vid_t> shortest_cycle(const Csr &graph, vid_t v);

} // namespace grail
