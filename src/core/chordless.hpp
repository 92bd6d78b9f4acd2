// Chordless (induced) cycles of the undirected simple view of a graph: the sequential algorithm
// of Dias et al. as papers/gpu-chordless-cycles.txt §3 gives it (degree labelling, initial valid
// triplets, triangles, path expansion), with the path expansion done depth-first on an explicit
// stack so that memory stays O(n + m) however many cycles the graph has.
#pragma once
#include "cpp_only.hpp"
#include "graph.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace grail {

constexpr uint32_t kNoLengthLimit = std::numeric_limits<uint32_t>::max();

// The undirected simple graph under a directed CSR: u - v for every edge u -> v or v -> u,
// without self-loops or duplicates; adjacency lists sorted.
Csr undirected_simple(const Csr &graph);

// Degree labelling (§2 of the paper) of an undirected simple graph: repeatedly remove a vertex of
// minimum degree in what is left of the graph (ties: smallest index); the i-th removed vertex gets
// label i. Shared by the CPU search and the GPU one (cuda/chordless.cu), which must agree.
std::vector<vid_t> degree_labelling(const Csr &undirected);

// The undirected graph with vertex v renamed label[v] (a permutation). Consumes the graph, which
// is freed before the renamed copy is built: one copy at a time besides the edge pairs.
Csr relabelled(Csr undirected, const std::vector<vid_t> &label);

// Cycles in bounded batches, flat: cycle i is vertices[starts[i] .. starts[i + 1]).
struct CycleBatch {
	std::vector<vid_t> vertices;
	std::vector<size_t> starts{0};

	size_t
	size() const noexcept {
		return starts.size() - 1;
	}
	const vid_t *
	begin(size_t i) const noexcept {
		return vertices.data() + starts[i];
	}
	const vid_t *
	end(size_t i) const noexcept {
		return vertices.data() + starts[i + 1];
	}
	void
	clear() noexcept {
		vertices.clear();
		starts.assign(1, 0);
	}
};

// Progress of a search: (start vertices done, vertex count). Cycles are searched start vertex by
// start vertex (in degree-label order); a start vertex is done once every cycle whose smallest
// label it is has been found. Called from within the search: must not throw.
using ChordlessProgress = std::function<void(uint64_t done, uint64_t total)>;

// Enumerates every chordless cycle of the undirected simple view of `graph` exactly once, as
// dense vertex indexes in cycle order starting at the smallest index, then its smaller
// neighbour on the cycle. Cycles shorter than min_length or longer than max_length are not
// reported; paths that could only close longer cycles are not expanded. The enumerator keeps its
// own copy of the undirected graph, so `graph` may go away after construction. Order of the
// cycles: deterministic, otherwise unspecified.
class ChordlessCycleEnumerator {
public:
	ChordlessCycleEnumerator(const Csr &graph, uint32_t min_length = 3, uint32_t max_length = kNoLengthLimit);
	~ChordlessCycleEnumerator();
	ChordlessCycleEnumerator(const ChordlessCycleEnumerator &) = delete;
	ChordlessCycleEnumerator &operator=(const ChordlessCycleEnumerator &) = delete;

	// Replaces the batch's contents with the next cycles: stops after max_cycles cycles, or after
	// the cycle that brings the batch to max_vertices vertices or more. Returns false (and an
	// empty batch) once every cycle has been reported.
	bool next(CycleBatch &batch, size_t max_cycles, size_t max_vertices = std::numeric_limits<size_t>::max());

	// Reports the search's progress from now on, as start vertices advance and every few thousand
	// steps between (so also while no cycle is found for long).
	void on_progress(ChordlessProgress progress);

	class Search; // the resumable search state (chordless.cpp)

private:
	std::unique_ptr<Search> search_;
};

// counts[k] = the number of chordless cycles of length k (k <= max_length), found by the same
// search without materialising the cycles; counts has (longest length found + 1) entries, none
// when there is no cycle.
std::vector<uint64_t> count_chordless_cycles(const Csr &graph, uint32_t max_length = kNoLengthLimit);

} // namespace grail
