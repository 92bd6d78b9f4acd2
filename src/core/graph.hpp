// Edge lists in, CSR graphs with dense vertex ids out.
#pragma once
#include "cpp_only.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "array.hpp"

namespace grail {

using vid_t = uint32_t; // dense vertex index, 0..n-1; graphs hold fewer than 2^32 vertices
using eid_t = uint64_t; // edge offset; edge counts past 2^32 work

// Raw edges as read from the user's table: any int64 ids, self-loops and duplicates allowed.
class EdgeList {
public:
	// Never throws: returns false when memory runs out, so that hosts can call it from code
	// where a C++ exception must not propagate (a PostgreSQL heap scan).
	bool append(int64_t source, int64_t target) noexcept;
	void reserve(size_t edges);
	size_t
	size() const noexcept {
		return source.size();
	}

	std::vector<int64_t> source;
	std::vector<int64_t> target;
};

// An edge that the rows held more than once: its place in a Csr's targets and how many rows.
struct RepeatedEdge {
	eid_t edge;
	uint64_t rows;
	friend bool
	operator==(const RepeatedEdge &a, const RepeatedEdge &b) noexcept {
		return a.edge == b.edge && a.rows == b.rows;
	}
};

// Compressed sparse rows: the out-neighbours of v are targets[offsets[v] .. offsets[v+1]).
struct Csr {
	Array<eid_t> offsets; // vertex_count() + 1 entries
	Array<vid_t> targets;

	size_t
	vertex_count() const noexcept {
		return offsets.empty() ? 0 : offsets.size() - 1;
	}
	size_t
	edge_count() const noexcept {
		return targets.size();
	}
	const vid_t *
	begin(vid_t v) const noexcept {
		return targets.data() + offsets[v];
	}
	const vid_t *
	end(vid_t v) const noexcept {
		return targets.data() + offsets[v + 1];
	}

	// Builds a CSR over n vertices from dense (source, target) pairs; each adjacency list is
	// sorted ascending, duplicates are merged and, when drop_self_loops, u->u edges removed. With
	// repeated, the merged duplicates are counted there, by ascending place. helpers: threads that
	// may work beside the caller's (the CSR is the same with any number).
	static Csr from_pairs(size_t n, const std::vector<vid_t> &source, const std::vector<vid_t> &target,
	                      bool drop_self_loops, std::vector<RepeatedEdge> *repeated = nullptr, unsigned helpers = 0);
	Csr reversed() const;
};

// The graph of an edge list: sorted unique ids (dense index -> id) and the out-CSR without
// self-loops and duplicate edges (they change no answer), with the edges that several rows held.
struct Graph {
	Array<int64_t> ids; // strictly ascending
	Csr out;
	// The edges of out read from more than one row, by ascending place: a live graph's overlay needs
	// to know whether deleting rows of an edge removes it. rows_known is false for images written
	// before format 4, which did not record them.
	Array<RepeatedEdge> repeated;
	bool rows_known = true;

	// How many rows held edge u->v (u != v, dense indexes; 0 when it is no edge), or -1 when the
	// graph does not know (rows_known false).
	int64_t rows_of(vid_t u, vid_t v) const noexcept;

	// helpers: threads that may work beside the caller's (the graph is the same with any number).
	static Graph from_edges(const EdgeList &edges, unsigned helpers = 0);

	size_t
	vertex_count() const noexcept {
		return ids.size();
	}
	// Dense index of id, or -1 if the id is not a vertex. O(log n).
	int64_t find(int64_t id) const noexcept;
};

} // namespace grail
