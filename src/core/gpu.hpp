// The GPU implementations of the engine's algorithms. Declared in every build, so that callers
// need no #ifdef: without CUDA they throw Error(invalid_input) saying so.
#pragma once
#include "cpp_only.hpp"
#include "bfs.hpp"
#include "chordless.hpp"
#include "grail_labels.hpp"
#include "index.hpp"
#include "scc.hpp"

#include <memory>
#include <vector>

namespace grail {

// One step of the GPU BFS's level loop, as the timings record it.
struct GpuBfsStep {
	const char *kind;  // "narrow", "push", "pull", "to bits", "to queue", or "chains" (the chain index
	                   // built, or the chains' depths filled in after the levels)
	uint32_t level;    // the level it started from
	uint32_t vertices; // the frontier it started from
	uint64_t edges;    // and that frontier's out-edges
	double ms = 0;     // device time to the next step's start (launches, wait, the host's choice)
};

// Where the time of one GPU BFS went, for benchmarks (device events: a run without timings
// records none).
struct GpuBfsTimings {
	double upload_ms = 0;   // host -> device copy of the graph
	double in_edges_ms = 0; // in-edges built on the device before the traversal (dense graphs)
	double traverse_ms = 0; // the levels: depths (the chains' too), and the parents of bottom-up levels
	double rows_ms = 0;     // the other parents and the rows' order
	double compute_ms = 0;  // traverse_ms + rows_ms
	double download_ms = 0; // rows to the host
	uint32_t levels = 0;    // the level the traversal ended at
	uint32_t bottom_up_levels = 0;
	uint32_t chain_vertices = 0; // chain vertices of the chain index, when the traversal built one
	std::vector<GpuBfsStep> steps;
};

// Same rows as bfs() (same order, depths and smallest parents). Throws Error(limit_exceeded)
// when the graph does not fit in free device memory, polls for cancellation between levels.
BfsResult bfs_gpu(const Csr &graph, vid_t source, uint32_t max_depth = std::numeric_limits<uint32_t>::max(),
                  GpuBfsTimings *timings = nullptr);

// A graph's CSR uploaded to the device once and kept there for many searches (the GPU service's
// resident images): its in-edges are built on the device by the first search that wants them (a
// search against edge direction, or a bottom-up level) and kept too, so that neither direction
// needs a reversed CSR on the host. Holds device memory until destroyed. Not for use by two
// threads at once.
class GpuGraph {
public:
	// Uploads graph (its vectors are read only here). Throws Error(limit_exceeded) when it does not
	// fit in free device memory.
	explicit GpuGraph(const Csr &graph);
	~GpuGraph();
	GpuGraph(const GpuGraph &) = delete;
	GpuGraph &operator=(const GpuGraph &) = delete;

	// bfs_gpu()'s rows over the graph (reverse: over its in-edges, the rows of bfs_gpu over
	// graph.reversed()), without an upload. Same errors as bfs_gpu().
	BfsResult bfs(vid_t source, uint32_t max_depth = std::numeric_limits<uint32_t>::max(), bool reverse = false,
	              GpuBfsTimings *timings = nullptr);
	// Device memory held: the CSR, and the in-edges once built.
	size_t device_bytes() const noexcept;
	bool has_in_edges() const noexcept;

	struct State; // cuda/bfs.cu

private:
	std::unique_ptr<State> state_;
};

// Where the time of one GPU SCC run went (device events, so that a run without timings pays no
// extra synchronisation), and how much work detection and numbering did.
struct GpuSccTimings {
	double upload_ms = 0;        // allocations and the CSR's host -> device copy
	double detect_ms = 0;        // edge list, Trim, propagation rounds: every vertex's smallest member
	double numbering_ms = 0;     // topological numbering of the components on the device
	double download_ms = 0;      // results to the host, and the host's numbering when the device declined
	double trim_ms = 0;          // of detect_ms: signatures, Trim and the first edge list (device clock)
	double propagate_ms = 0;     // of detect_ms: the propagation sweeps (device clock)
	double kahn_ms = 0;          // of numbering_ms: the Kahn levels (device clock)
	double cross_ms = 0;         // of numbering_ms: the edges between components listed and grouped
	double sync_ms = 0;          // of numbering_ms: Kahn, the components selected, and the host's one wait
	double order_ms = 0;         // of numbering_ms: the sort by level and the numbers
	uint32_t trim_passes = 0;    // 0 or 1: Trim runs when enough vertices have no out-edge
	uint64_t trimmed = 0;        // vertices Trim settled
	uint32_t rounds = 0;         // propagation rounds (each ends in an edge removal)
	uint32_t sweeps = 0;         // propagation sweeps over the edge list, over all rounds
	uint32_t levels = 0;         // Kahn levels of the condensation numbered on the device
	bool mixed_keys = false;     // detection started over with mixed keys (ids converged too slowly)
	bool host_numbering = false; // the condensation was too deep for the device's level budget
};

// The same partition as strongly_connected_components(), with the same smallest_vertex for every
// vertex's component, numbered in a topological order of the condensation (ties broken by
// smallest vertex, so the numbering is deterministic; it need not equal Tarjan's, which depends
// on its DFS). Throws Error(limit_exceeded) when the graph does not fit in free device memory,
// polls for cancellation between steps.
Components strongly_connected_components_gpu(const Csr &graph, GpuSccTimings *timings = nullptr);

// Where the time of one graph build on the device went (device events; a run without timings
// records none), and how much it held.
struct GpuGraphTimings {
	double upload_ms = 0;       // the rows to the device
	double ids_ms = 0;          // sorted unique ids, every endpoint's dense vertex
	double csr_ms = 0;          // the out-CSR: self-loops dropped, duplicates merged and counted
	double scc_ms = 0;          // detection and numbering (strongly_connected_components_gpu's)
	double condensation_ms = 0; // the DAG of components
	double download_ms = 0;     // every part to the host
	bool host_numbering = false;
	size_t device_bytes = 0; // the estimate it checked free device memory against
};

// Device memory that build_graph_gpu() needs at its peak for so many rows (the margin that
// require_device_memory adds not included): about 56 bytes per row.
size_t gpu_graph_build_bytes(size_t rows) noexcept;

// Where build_graph_gpu() downloads the parts it makes, when not into arrays of their own (the GPU
// service's result file: each part downloaded once, straight into its place there). place() is asked
// for each part in the order ids, CSR offsets, CSR targets, repeated edges, each vertex's component,
// each component's smallest vertex, DAG offsets, DAG targets, with its size in bytes, and returns
// where it goes; the part then borrows that room, which must outlive it.
class PartPlacer {
public:
	virtual ~PartPlacer() = default;
	virtual void *place(size_t bytes) = 0;
};

// The graph of rows (source[i], target[i]) (any int64 ids, self-loops and duplicates allowed), its
// components and its condensation, made on the device: the same ids, CSR and repeated edges as
// Graph::from_edges, components with the contract of strongly_connected_components_gpu() (the same
// numbering), and the DAG that condensation() makes of them. Only the finished parts come back to
// the host. Throws Error(limit_exceeded), allocating nothing, when free device memory is short of
// gpu_graph_build_bytes() (or rows >= 2^31); polls for cancellation between steps.
// With placer, every part lies where it placed them.
BuiltGraph build_graph_gpu(const int64_t *source, const int64_t *target, size_t rows,
                           GpuGraphTimings *timings = nullptr, PartPlacer *placer = nullptr);

// Where the time of one GPU GRAIL labelling went (device events, so that a run without timings
// pays no synchronisation; the paper's Figure 7 breakdown), and the device memory it held at its
// peak.
struct GpuLabelTimings {
	double upload_ms = 0;   // DAG copy, in-edges built on the device
	double levels_ms = 0;   // Kahn pass: vertices by topological level
	double tree_ms = 0;     // step 1, every label: DAG -> tree by smallest paths
	double sizes_ms = 0;    // step 2, every label: subtree sizes
	double post_ms = 0;     // step 3, every label: post-order ranks
	double min_post_ms = 0; // step 4, all labels in one pass: min-post intervals
	double download_ms = 0;
	uint32_t levels = 0;
	size_t device_bytes = 0;
};

// GRAIL labels of a DAG whose edges go from smaller to larger vertex (Index's condensation):
// exactly the labels of d DFS traversals in the keyed order of label_order.hpp (which is not
// GrailLabels::build's shuffled order, so the values differ from the CPU's; both are valid).
// Throws Error(limit_exceeded) when the DAG does not fit in free device memory, polls for
// cancellation between levels.
// With placer, the labels' data lies where it places them (asked once, after the parts
// build_graph_gpu placed: the result's last array).
GrailLabels grail_labels_gpu(const Csr &dag, unsigned d, uint64_t seed, GpuLabelTimings *timings = nullptr,
                             PartPlacer *placer = nullptr);

// Where the time of GpuReachability::search went.
struct GpuQueryTimings {
	double search_ms = 0; // every group: status set-up, expansion levels, read-back
	uint32_t groups = 0;  // passes of up to 64 * words queries
	uint64_t levels = 0;  // expansion levels over all groups
	uint64_t edges = 0;   // edges expanded over all levels
};

// Status words per vertex by default: a group searches 64 queries per word together (the paper's
// k = 64 is one word).
constexpr unsigned kGpuQueryWords = 16;

// Batched reachability search on the GPU (papers/gpu-grail-reachability.txt section 5): an index's
// DAG, labels and Bloom filters copied to the device once, then groups of queries explored
// together, level by level, with the same label pruning as the CPU's search. Holds device memory
// until destroyed. Throws Error(limit_exceeded) when the index does not fit in free device memory.
class GpuReachability {
public:
	explicit GpuReachability(const Index &index, unsigned words = kGpuQueryWords);
	~GpuReachability();
	GpuReachability(const GpuReachability &) = delete;
	GpuReachability &operator=(const GpuReachability &) = delete;

	// reached[i] = whether component from[i] reaches component to[i] (from[i] < to[i], pairs the
	// labels leave undecided: ReachabilityQuery::PairSearch). Polls for cancellation between levels.
	void search(const std::vector<vid_t> &from, const std::vector<vid_t> &to, std::vector<uint8_t> &reached,
	            GpuQueryTimings *timings = nullptr);
	size_t device_bytes() const noexcept;

private:
	struct State;
	std::unique_ptr<State> state_;
};

// The GPU search keeps each path as a bitmap of the graph's vertices: graphs with more vertices
// than this are refused.
constexpr size_t kGpuChordlessMaxVertices = 4096;
// Throws Error(limit_exceeded) for a graph past kGpuChordlessMaxVertices: called before any device
// work, and by a backend before it asks the GPU service (whose refusal would come as its failure).
void check_gpu_chordless_size(const Csr &graph);

// Where the time of a GPU chordless-cycle search went (host clock), for benchmarks; an
// enumeration accumulates it over its batches.
struct GpuChordlessTimings {
	double prepare_ms = 0;  // undirected view, degree labelling, seed units (host)
	double setup_ms = 0;    // device allocations and uploads
	double search_ms = 0;   // host time spent launching and waiting for the search's launches
	double download_ms = 0; // host time spent waiting for cycle downloads (enumeration; most overlap the search)
	uint64_t steps = 0;     // search steps, redone ones included (device-planned, many per launch)
	uint64_t launches = 0;  // kernel launches, each one host wait
	uint64_t downloads = 0;
	size_t peak_paths = 0; // most paths on the stack at once
};

// Same counts as count_chordless_cycles(): counts[k] = the number of chordless cycles of length k
// of the undirected simple view (k <= max_length), trailing zeros dropped. The paths in flight
// stay within path_budget_bytes of device memory (0: 512 MiB or half the free memory, whichever
// is less; a budget below what one depth-first search needs is raised to that), however many
// there are. Throws Error(limit_exceeded) above kGpuChordlessMaxVertices vertices or when the
// memory is not free, polls for cancellation between steps.
std::vector<uint64_t> count_chordless_cycles_gpu(const Csr &graph, uint32_t max_length = kNoLengthLimit,
                                                 size_t path_budget_bytes = 0, GpuChordlessTimings *timings = nullptr);

// ChordlessCycleEnumerator on the GPU: the same cycles, each once, in the same canonical form
// (input vertex indexes, cycle order from the smallest towards its smaller neighbour); only the
// order of the cycles differs. Paths and found cycles stay within budget_bytes of device memory
// (0 as for count_chordless_cycles_gpu; two sixteenths of it, at most 16 MiB each, hold found
// cycles: the host downloads one while the search fills the other), pinned host memory within
// those two sixteenths (the process keeps up to two such buffers, 8 MiB at most, for its next
// search), however many cycles there are; the search runs only a little ahead of what next()
// asks. Same errors as count_chordless_cycles_gpu().
class GpuChordlessCycleEnumerator {
public:
	GpuChordlessCycleEnumerator(const Csr &graph, uint32_t min_length = 3, uint32_t max_length = kNoLengthLimit,
	                            size_t budget_bytes = 0);
	~GpuChordlessCycleEnumerator();
	GpuChordlessCycleEnumerator(const GpuChordlessCycleEnumerator &) = delete;
	GpuChordlessCycleEnumerator &operator=(const GpuChordlessCycleEnumerator &) = delete;

	// As ChordlessCycleEnumerator::next().
	bool next(CycleBatch &batch, size_t max_cycles, size_t max_vertices = std::numeric_limits<size_t>::max());
	// For benchmarks: brings the next block of cycles to host memory in the device's compact form
	// and skips it; returns its number of cycles, 0 once every cycle has been brought. Not to be
	// mixed with next().
	size_t next_block();
	const GpuChordlessTimings &timings() const noexcept;

	class Search; // the resumable device search (cuda/chordless.cu)

private:
	std::unique_ptr<Search> search_;
	size_t next_download_ = 0; // cycle words the search gathers before the next download
};

} // namespace grail
