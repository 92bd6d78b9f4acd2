// The GPU strongly connected components, split by concern:
//   scc_detect.cu  which vertices share a component (Trim, then rounds of minimum-id propagation
//                  forward and backward with edge removal, after Alabandi et al., SC'23);
//   scc_number.cu  the topological numbering of the components (Kahn levels of the condensation);
//   scc.cu         the entry point: memory, upload, the two steps, download, timings.
// Both steps run as cooperative kernels with grid barriers between their levels and rounds, so
// the host waits once per step, not once per level.
#pragma once
#include "buffer.cuh"
#include "device_csr.cuh"
#include "gpu.hpp"
#include "kahn.cuh"
#include "probe.cuh"

#include <cstdint>
#include <vector>

namespace grail::cuda::scc {

// What the kernels count and leave for the host, read back in one copy.
struct Progress {
	unsigned long long edges;   // the live edge list's size where a launch starts or ends
	unsigned long long kept[3]; // edges a sweep keeps for the next round, by sweep modulo 3
	unsigned long long sinks;   // vertices without out-edges, which decide whether Trim pays
	unsigned long long trimmed; // vertices Trim settled
	uint32_t initialised;       // the first worklist built (Trim done where it pays)
	uint32_t mixed;             // signatures hold mixed keys, not ids (scc_detect.cu)
	uint32_t current;           // which worklist buffer holds the live edges
	uint32_t rounds;            // propagation rounds finished
	uint32_t epoch;             // propagation sweeps so far, over all rounds and launches
	uint32_t last_change;       // the last epoch in which a sweep lowered a signature
	uint32_t trim_passes;
	uint32_t finished;                        // every vertex has its component
	unsigned long long trim_ns, propagate_ns; // device clock, for benchmarks
	unsigned long long cross;                 // edges between components
	// Numbering.
	uint32_t selected; // components listed for the sort
	KahnCounters kahn; // the condensation's Kahn levels
};

// Everything one run holds on the device, freed together on every path out.
struct SccDevice {
	SccDevice(const Csr &graph, cudaStream_t stream);
	// Over a graph already on the device, which it takes (and gives back as `graph`).
	SccDevice(DeviceCsr &&graph, cudaStream_t stream);
	static size_t bytes_for(size_t vertices, size_t edges);

	DeviceCsr graph;
	// Per vertex: (smallest key of a vertex that reaches it, smallest key of a vertex it reaches)
	// inside its live subgraph, keys being ids or mixed ids; once detection ends, both are the key
	// of one vertex of its component.
	DeviceBuffer<uint2> signature;
	// Live edges (source, target), read one, written the other; the numbering then keeps the
	// edges between components in them.
	DeviceBuffer<uint2> worklist[2];
	DeviceBuffer<uint8_t> has; // Trim's flags, two per vertex
	DeviceBuffer<vid_t> label; // the smallest vertex of each vertex's component
	// Numbering, indexed by component (its smallest vertex): the out-edges between components as
	// a CSR (n + 1 words each for counts and starts), in-degrees, Kahn levels; Kahn's order and
	// its list of big components, then the sort's buffers.
	DeviceBuffer<uint32_t> out_count, cross_start, in_degree, level;
	DeviceBuffer<vid_t> frontier[2], big;
	DeviceBuffer<Progress> progress;
	PinnedBuffer<Progress> host_progress;
	TempStorage temp;
};

// Leaves every vertex's component (its smallest vertex) in signature[v].x and .y. Polls for
// cancellation between launches; fills rounds, sweeps, trim passes and trimmed vertices of t.
void detect_components(SccDevice &d, cudaStream_t stream, GpuSccTimings &t);

// Where number_on_device() left its result.
struct DeviceNumbering {
	bool done = false;   // false: the condensation was deeper than the level budget
	uint32_t levels = 0; // Kahn levels numbered (the budget's worth when not done)
	double kahn_ms = 0;  // the Kahn kernel alone (device clock)
	uint32_t components = 0;
	const uint32_t *of_vertex = nullptr;    // n numbers, on the device
	const vid_t *smallest_vertex = nullptr; // components, in number order, on the device
};

// The numbering of the components that detect_components() found, in a topological order of the
// condensation: Kahn levels, each level's components by ascending smallest vertex. Synchronises
// once (to size the sort); the result is ready once the stream reaches the end of what it queued.
// Gives up (done false) when the condensation is deeper than the device's level budget; the caller
// then numbers on the host.
// probe: marks 0 (start), 1 (edges between components grouped), 2 (Kahn levels queued), 3 (after
// the one synchronisation); the sort and numbers end with the caller's next mark.
DeviceNumbering number_on_device(SccDevice &d, cudaStream_t stream, TimingProbe &probe);

// CUB temporary storage the numbering of n vertices needs at most: reserved with the other arrays,
// so that the numbering allocates and frees nothing (a cudaFree waits for the device).
size_t numbering_temp_bytes(vid_t n);

} // namespace grail::cuda::scc
