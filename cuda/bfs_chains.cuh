// Chains of the GPU BFS: runs of vertices with one in-edge and one out-edge each (the source
// excepted), such as the whole of a path. A level-synchronous BFS crosses a chain one level per
// vertex, a dependent load each (about 190 ns a level on an H100, where the CPU takes 30 ns), so
// on long thin graphs the GPU lost by 5.7x. The chain index turns the crossing into arithmetic:
//   - a chain vertex is reached only through its chain: its depth is the depth of its chain's
//     first vertex plus its offset from it, and its parent its one in-neighbour;
//   - the chains are ranked once, in parallel (Wyllie's pointer jumping towards each chain's
//     first vertex, O(log length) passes over the chain vertices), giving every chain vertex
//     (first, offset), and every chain its span (edges from its first vertex to the vertex it
//     leads to, its end) and its place in a list of the chain vertices in chain order;
//   - the narrow BFS kernel then takes a chain off when it reaches one of its vertices: the chain
//     is in flight, and its end is reached at depth(first) + span unless something reaches it
//     first (Dial's buckets with one pending list: the level loop lands the flights due at each
//     level, and jumps to the earliest arrival when the frontier is empty). The chain vertices'
//     depths are filled in after the traversal.
// The index is built only where it pays: after the narrow kernel has run many levels, and when
// chain vertices are a large share of the graph (bfs.cu). Flights live inside one narrow launch:
// one that ends with flights pending puts the chain vertex each flight has reached into the
// frontier (it lands them back on the graph), so that the other steps know nothing of chains.
#pragma once
#include "bfs_levels.cuh"

namespace grail::cuda::bfs {

// A chain vertex's place: its chain's first vertex in the low word, its offset from it in the
// high word below kRanked, and kRanked once the first vertex is known.
using ChainLink = unsigned long long;
constexpr ChainLink kRanked = 1ull << 63;

// What the narrow kernel reads of the index; member.words is null when there is none.
struct ChainView {
	Bitmap member;         // the chain vertices
	const ChainLink *link; // by chain vertex
	const uint32_t *span;  // by first vertex: edges from it to its chain's end
	const vid_t *end;      // by first vertex: the vertex its chain leads to (not a chain vertex)
	const vid_t *start;    // by first vertex: where its chain begins in vertices
	const vid_t *vertices; // the chain vertices, chain after chain, each in chain order
	vid_t *in_flight[2];   // the first vertices of the chains in flight: a list and its successor

	__device__ vid_t
	first(vid_t c) const {
		return vid_t(link[c]);
	}
	__device__ uint32_t
	offset(vid_t c) const {
		return uint32_t((link[c] & ~kRanked) >> 32);
	}
};

class ChainIndex {
public:
	// The index of graph's chains for a BFS from source, when chain vertices are at least 1/share
	// of the vertices and their arrays fit in free device memory; otherwise none (active() false),
	// after one pass over the edges. Waits for the stream once or twice.
	ChainIndex(CsrView graph, vid_t source, vid_t share, TempStorage &temp, cudaStream_t stream);

	bool
	active() const noexcept {
		return link_.size() > 0;
	}
	vid_t
	chain_vertices() const noexcept {
		return chain_vertices_;
	}
	ChainView view() const noexcept;

	// After the traversal: the depth of every chain vertex whose first vertex was reached (up to
	// max_depth). Returns the deepest depth of the graph, given the traversal's deepest; waits for
	// the stream.
	uint32_t fill_depths(const BfsArrays &a, uint32_t max_depth, uint32_t deepest, cudaStream_t stream) const;

private:
	vid_t vertices_ = 0, chain_vertices_ = 0;
	DeviceBuffer<uint32_t> member_;
	DeviceBuffer<ChainLink> link_;
	DeviceBuffer<uint32_t> span_;
	DeviceBuffer<vid_t> end_, start_, list_, in_flight_[2];
	DeviceBuffer<uint32_t> counter_;
};

} // namespace grail::cuda::bfs
