// Breadth-first search over a CSR graph.
#pragma once
#include "cpp_only.hpp"
#include "graph.hpp"

#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace grail {

constexpr vid_t kNoVertex = std::numeric_limits<vid_t>::max();

struct BfsResult {
	// Reached vertices ordered by (depth, vertex index), the source first; parent[i] is the
	// smallest vertex at depth[i] - 1 with an edge to vertex[i], kNoVertex for the source.
	// Both choices are deterministic, so every implementation (CPU or GPU) gives equal rows.
	// parent is empty where the caller asked for no parents (BfsScratch's search).
	std::vector<vid_t> vertex;
	std::vector<uint32_t> depth;
	std::vector<vid_t> parent;
};

// When a level of a search runs bottom-up instead of top-down (Beamer et al.'s rule): once the
// frontier's edges times alpha exceed the edges not yet explored, until the frontier times beta is
// under the vertex count. alpha 0: never; tests pass a huge alpha and beta to run every level
// bottom-up. Either way the rows are the same.
struct BfsTuning {
	double alpha = 14;
	double beta = 24;
};

// The memory a search needs besides its rows (visited marks, the level being put in order, each
// vertex's discoverer), kept between searches by a caller that makes many: a search then allocates
// only its rows, and leaves the marks clean in time proportional to what it reached (a search cut
// short by an error, a cancel included, leaves them to be cleared in full by the next one). One
// serves graphs of any size (it grows to the largest) and one search at a time.
class BfsScratch {
public:
	// Ready for a search over n vertices: nothing marked.
	void start(size_t n);
	// After a search that reached `reached` (every vertex marked in seen): nothing marked.
	void finish(const std::vector<vid_t> &reached) noexcept;
	// The discoverers' room, made by the first search that records parents.
	vid_t *parents();
	// The bytes it holds: its bitmaps, lists and discoverers' room.
	size_t bytes() const noexcept;
	std::vector<uint64_t> seen, level;
	// The level's vertices' lists and the next level's, as search() reads them; a level's new
	// vertices, and room to sort them.
	std::vector<const vid_t *> lists, next_lists;
	std::vector<vid_t> next, spare;

private:
	size_t capacity_ = 0;
	std::unique_ptr<vid_t[]> parent_of_;
	bool dirty_ = false;
};

// Vertices at depth <= max_depth from source. Polls for cancellation.
// Against edge direction: pass the graph's reversed() CSR (parent is then the smallest vertex one
// level up that vertex[i] has an edge to).
BfsResult bfs(const Csr &graph, vid_t source, uint32_t max_depth = std::numeric_limits<uint32_t>::max());

// The same search, where levels whose frontier has many edges run bottom-up (BfsTuning): each
// vertex not yet reached looks for its parent in its list of reverse() (graph's reversed() CSR,
// lists ascending), which is called once, the first time a level does (a search that never does
// never needs it: LoadedGraph::in_edges() makes it on demand).
BfsResult bfs(const Csr &graph, const std::function<const Csr &()> &reverse, vid_t source,
              uint32_t max_depth = std::numeric_limits<uint32_t>::max(), const BfsTuning &tuning = {});

// What a caller reads of a search's rows.
enum class BfsOutput {
	parents, // vertex, depth and parent, each level in vertex order
	ordered, // vertex and depth, each level in vertex order; result.parent left empty
	// The depths alone (a count, a histogram of depths): each level's vertices in the order the
	// search found them, not put in vertex order, since no row shows which vertex it is.
	depths,
};

// The same search in scratch (kept by the caller between searches), giving what `rows` asks for
// (descendants() and ancestors(): ordered, or depths where the plan reads no key).
BfsResult bfs(const Csr &graph, const std::function<const Csr &()> &reverse, vid_t source, uint32_t max_depth,
              BfsScratch &scratch, BfsOutput rows, const BfsTuning &tuning = {});

// The same search where a vertex's neighbours are its lists in first and in second, both over the
// same vertices: with a graph and its reversed() CSR, a search that ignores edge direction (parent
// is then the smallest vertex one level up joined to vertex[i] by an edge either way).
// Levels run bottom-up over the same lists (BfsTuning).
BfsResult bfs(const Csr &first, const Csr &second, vid_t source,
              uint32_t max_depth = std::numeric_limits<uint32_t>::max(), const BfsTuning &tuning = {});
BfsResult bfs(const Csr &first, const Csr &second, vid_t source, uint32_t max_depth, BfsScratch &scratch,
              const BfsTuning &tuning = {});

} // namespace grail
