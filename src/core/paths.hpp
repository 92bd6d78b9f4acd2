// Shortest paths and shortest directed cycles, with bfs()'s tie rule (bfs.hpp), so that a path is
// the parent chain bfs(source) reports for its target.
//
// A path is found by a forward breadth-first search from the source that stops as soon as the
// target is discovered; before it, the index decides reachability (an unreachable pair costs no
// search), and during it a vertex whose component the labels prove cannot reach the target's
// (pruning.hpp) is never expanded. No bidirectional search: it needs the reverse CSR, which a build
// does not keep, and, to keep the parent rule, a second pass from the forward ball's last level
// over the backward ball (whose vertices include every candidate parent). Pruning changes no
// answer: every vertex on a shortest path to a vertex that reaches the target reaches it too, so
// the kept vertices have their bfs() depths, and the smallest predecessor of a kept vertex at the
// level above is kept.
//
// A cycle through v is found by the same search from v restricted to v's strongly connected
// component (no cycle through v leaves it): the first edge u->v met in bfs() order closes it, u
// being the smallest vertex at the least depth with an edge to v. Self-loops are not in the index's
// graph (graph.hpp), so a cycle has two edges or more.
#pragma once
#include "cpp_only.hpp"
#include "index.hpp"

#include <memory>
#include <vector>

namespace grail {

// Answers paths and cycles over one index; holds the scratch space of its searches (one per
// thread), made by the first search that needs it.
class PathFinder {
public:
	explicit PathFinder(const Index &index);

	// A shortest path from vertex a to vertex b (dense indexes of the index's graph): a first, b
	// last, each vertex's predecessor the bfs() parent; {a} when a == b; empty when a does not reach
	// b. Polls for cancellation; Error(invalid_input) for a vertex out of range.
	std::vector<vid_t> shortest_path(vid_t a, vid_t b);

	// A shortest directed cycle through v: v first and last, v's predecessor the smallest vertex at
	// the least bfs() depth from v with an edge to v, the rest its bfs() parent chain; empty when v
	// is on no cycle of two or more edges. Polls for cancellation.
	std::vector<vid_t> shortest_cycle(vid_t v);

	// The searches' scratch: visited marks, parents (read only where marked), the levels.
	struct Scratch {
		VisitMarks seen;
		std::unique_ptr<vid_t[]> parent;
		std::vector<vid_t> level, next;
	};

private:
	const Index &index_;
	ReachabilityQuery query_;
	Scratch scratch_;
};

// The same without labels over a bare CSR (no pruning, no component restriction): the reference
// the index's answers are tested against, and for graphs without an index.
std::vector<vid_t> shortest_path(const Csr &graph, vid_t a, vid_t b);
std::vector<vid_t> shortest_cycle(const Csr &graph, vid_t v);

} // namespace grail
