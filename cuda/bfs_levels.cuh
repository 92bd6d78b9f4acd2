// The level steps of the GPU BFS (bfs.cu drives them) beside the frontier's own top-down step
// (Frontier::push, frontier_push.cuh), one per frontier form:
//   narrow  a single block runs many levels in one launch while the frontier stays small (paths,
//           grids, the first and last levels of anything); where the frontier is one vertex with
//           one out-edge, one thread walks the chain alone, with no barrier per level; with a
//           chain index (bfs_chains.cuh), chains are crossed in flight instead;
//   pull    bottom-up over the in-edges (Beamer's direction optimisation): each unvisited vertex
//           looks for an in-neighbour in the frontier bitmap and stops at the first, which is its
//           smallest one at the previous depth (rows are ascending), hence its parent.
// Every step leaves the next frontier's size and out-edge count in LevelCounters, which the host
// reads once per launch to choose the next step.
#pragma once
#include "device_csr.cuh"
#include "frontier.cuh"

#include <cstdint>

namespace grail::cuda::bfs {

constexpr uint32_t kUnreached = 0xFFFFFFFFu;

// The narrow regime's limits: a frontier of up to kNarrowCapacity vertices and kNarrowEdges
// out-edges stays in shared memory; kNarrowBudget levels bound one launch (a jump to a chain's
// end counts as one), so that cancellation is polled every few milliseconds even on a path of
// millions of vertices.
constexpr int kNarrowThreads = 1024;
constexpr vid_t kNarrowCapacity = 4096;
constexpr unsigned long long kNarrowEdges = 16384;
constexpr uint32_t kNarrowBudget = 1u << 18;

enum NarrowExit : uint32_t { narrow_done, narrow_budget, narrow_too_wide };

// What every step reads and writes: depth and parent per vertex, the visited bitmap.
struct BfsArrays {
	CsrView out;
	CsrView in; // empty until the in-edges exist
	Bitmap visited;
	uint32_t *depth;
	vid_t *parent;
};

struct ChainView; // bfs_chains.cuh

// Levels from frontier[0 .. count) at level, until the frontier is empty, max_depth or `budget`
// levels are reached, or the frontier outgrows the block; frontier[0 .. counters->count) is then
// the frontier at counters->level. frontier needs room for every vertex (a level too wide for
// shared memory spills to it). With a chain index (chains.member.words not null), chains are
// crossed in flight rather than level by level.
void narrow_levels(const BfsArrays &a, const ChainView &chains, vid_t *frontier, vid_t count, uint32_t level,
                   uint32_t max_depth, uint32_t budget, LevelCounters *counters, cudaStream_t stream);

// One bottom-up level from the frontier bitmap (exactly the vertices at depth level) to next_bits
// (exactly those at level + 1, every word written); sets their depth and parent. counters must be
// zero on entry.
void pull_level(const BfsArrays &a, const uint32_t *frontier_bits, uint32_t *next_bits, uint32_t level,
                LevelCounters *counters, cudaStream_t stream);

// Frontier form changes: a queue into a bitmap of vertices (all other bits cleared), and a bitmap
// into a queue (in no particular order; tail must be zero on entry and receives the size).
void queue_to_bits(const vid_t *queue, vid_t count, uint32_t *bits, vid_t vertices, cudaStream_t stream);
void bits_to_queue(const uint32_t *bits, vid_t vertices, vid_t *queue, uint32_t *tail, cudaStream_t stream);

} // namespace grail::cuda::bfs
