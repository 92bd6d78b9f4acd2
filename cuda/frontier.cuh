// Frontier operators shared by the level-synchronous traversals (GRAIL labelling and queries;
// the BFS's own steps are in bfs_levels.cu): visited status as a bitmap, advance (push) with
// degree binning, filter (compaction), in the manner of Merrill, Garland & Grimshaw and of Gunrock: output
// space is allocated by prefix sums over frontier degrees rather than by a shared queue counter.
// advance() is a template over the per-edge operation; its definition is in frontier_impl.cuh,
// which only the .cu files that instantiate it include, to keep build time down.
#pragma once
#include "buffer.cuh"
#include "device_csr.cuh"
#include "launch.cuh"

#include <vector>

namespace grail::cuda {

// Marks an empty slot of an edge frontier; equal to grail::kNoVertex.
constexpr vid_t kInvalid = 0xFFFFFFFFu;

// Visited status, one bit per vertex: n/8 bytes, so it stays in L2 for graphs of tens of
// millions of vertices, unlike a per-vertex word.
struct Bitmap {
	uint32_t *words;

	__host__ __device__ static size_t
	words_for(size_t vertices) {
		return (vertices + 31) / 32;
	}
	__device__ bool
	test(vid_t v) const {
		return (words[v >> 5] >> (v & 31)) & 1u;
	}
	// True for the one caller that set the bit. The plain read first spares the atomic for the
	// common already-visited case; it may be stale, the atomic decides.
	__device__ bool
	try_set(vid_t v) const {
		uint32_t bit = 1u << (v & 31);
		if (words[v >> 5] & bit)
			return false;
		return !(atomicOr(&words[v >> 5], bit) & bit);
	}
};

// Scratch space of the operators for one graph, allocated once per traversal.
class FrontierWorkspace {
public:
	FrontierWorkspace(vid_t vertices);
	static size_t bytes_for(size_t vertices);

	// Positions in the frontier, one array per degree bin (see DegreeBins).
	DeviceBuffer<eid_t> edge_offsets; // exclusive prefix sum of the frontier's degrees
	DeviceBuffer<vid_t> positions, small, medium, large;
	DeviceBuffer<eid_t> counters;
	PinnedBuffer<eid_t> host_counters;
	TempStorage temp;
};

// Frontier positions grouped by how their edges are best spread over threads.
struct DegreeBins {
	eid_t edges;  // sum of the frontier's degrees
	vid_t small;  // degree < 32: a thread each
	vid_t medium; // degree < kBlockThreads: a warp each
	vid_t large;  // the rest: a block each
};

// Computes edge_offsets and the bins of frontier[0 .. count); synchronises stream once.
DegreeBins bin_frontier(CsrView graph, const vid_t *frontier, vid_t count, FrontierWorkspace &ws, cudaStream_t stream);

// Advance: calls op(u, w) -> bool on the device for every edge u -> w out of frontier[0 .. count),
// whose bins bin_frontier() computed. When out is not null, out[edge_offsets[i] + j] receives w
// for the j-th edge of frontier[i] where op returned true and kInvalid elsewhere (out needs room
// for bins.edges entries, at most the edge count). op may run concurrently for one w.
template <class Op>
void advance(CsrView graph, const vid_t *frontier, const DegreeBins &bins, vid_t *out, const Op &op,
             FrontierWorkspace &ws, cudaStream_t stream);

// Filter: copies the entries of in[0 .. count) that are not kInvalid to out, in order, and
// returns how many; synchronises stream.
vid_t compact(const vid_t *in, eid_t count, vid_t *out, FrontierWorkspace &ws, cudaStream_t stream);

// Kahn's algorithm by levels: order receives the vertices with no in-edge (level 0), then those
// whose in-neighbours all lie on earlier levels (level 1), and so on, in any order within a level;
// level[v] receives v's level (the longest path to v from a source); level_start[l] is where level
// l begins in order, level_start.back() == the vertices placed. All levels run in one cooperative
// launch with a grid barrier between them, no host round trip: DAGs thousands of levels deep
// would otherwise spend more time in round trips than in work. Returns the number of vertices
// placed, fewer than all when the graph has a cycle. remaining: n words of scratch.
vid_t topological_levels(CsrView out, CsrView in, vid_t *order, uint32_t *level, uint32_t *remaining,
                         std::vector<size_t> &level_start, cudaStream_t stream);

} // namespace grail::cuda
