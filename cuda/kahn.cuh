// Kahn's algorithm by levels on the device, once for the two DAGs the engine orders: GRAIL's input
// DAG (every vertex a node; its later passes walk the levels, so they need where each begins) and
// SCC's condensation (the nodes are the components, named by their smallest vertex; deeper than a
// level budget, the host numbers it instead). See kahn.cu for the method.
#pragma once
#include "device_csr.cuh"

#include <cstdint>
#include <vector>

namespace grail::cuda {

// What the Kahn kernel counts and leaves for the host.
struct KahnCounters {
	uint32_t count[3];     // nodes reaching each level, by level modulo 3
	uint32_t big[3];       // nodes of each level with many out-edges, by level modulo 3
	uint32_t levels;       // levels placed
	uint32_t placed;       // nodes placed
	uint32_t too_deep;     // the level budget ran out with nodes left
	unsigned long long ns; // the kernel's device time, for benchmarks
};

// The DAG: node v's out-edges are targets[offsets[v] .. offsets[v + 1]), repeated edges allowed.
// Offset is eid_t for a graph's CSR, uint32_t for the condensation SCC builds.
template <class Offset> struct KahnDag {
	const Offset *offsets; // vertices + 1 entries
	const vid_t *targets;
	vid_t vertices;
	const vid_t *label; // null: every vertex is a node; else the nodes are the v with label[v] == v
};

// Where the kernel works and what it leaves.
struct KahnBuffers {
	uint32_t *in_degree;    // in: every node's in-degree (repeated edges counted); consumed
	uint32_t *level;        // out: every placed node's level (the longest path to it from a source)
	vid_t *order;           // out: the placed nodes level by level, in any order within a level
	uint32_t *level_start;  // null, or out: level l is order[level_start[l] .. level_start[l + 1])
	vid_t *big;             // scratch, room for every node
	KahnCounters *counters; // out; cleared by the launch
};

// Queues Kahn's levels of dag on the stream, all in one cooperative launch, and stops after
// max_levels levels (too_deep set) if nodes are left. Nothing is read back: the counters are ready
// once the stream reaches them, so a caller can fold their read into its next wait.
template <class Offset>
void launch_kahn(const KahnDag<Offset> &dag, const KahnBuffers &buffers, uint32_t max_levels, cudaStream_t stream);

// GRAIL's levels of the DAG out (in its transpose): order receives the vertices by level,
// level[v] each vertex's level, level_start the start of every level in order and then the
// vertices placed. Waits for the stream. Returns the number of vertices placed, fewer than all
// when the graph has a cycle. in_degree: n words of scratch.
vid_t topological_levels(CsrView out, CsrView in, vid_t *order, uint32_t *level, uint32_t *in_degree,
                         std::vector<size_t> &level_start, cudaStream_t stream);

} // namespace grail::cuda
