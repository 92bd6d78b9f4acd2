// GPU BFS, direction-optimizing (Beamer et al.), with the rows equal to the CPU bfs()'s. The host
// runs the level loop and picks each step from the frontier's size and out-edges, which every step
// leaves on the device (one read-back per launch, not per kernel):
//   - narrow frontiers (paths, grids, the first and last levels of anything) run many levels in
//     one single-block launch (bfs_levels.cu), so long thin graphs pay no launch per level;
//   - wide frontiers go top-down (push) while their out-edges are a small share of the edges not
//     yet explored, bottom-up (pull) over the in-edges from then on, and top-down again once the
//     frontier is small and shrinking;
//   - where the narrow kernel has run many levels and most vertices lie on chains (one in-edge,
//     one out-edge: paths), a chain index lets it cross each chain in one step (bfs_chains.cuh);
//     the chains' depths are filled in after the levels.
// Then the parents the bottom-up levels and the chains did not give, and the row order
// (bfs_rows.cu).
#include "bfs_chains.cuh"
#include "bfs_levels.cuh"
#include "bfs_rows.cuh"
#include "clock.hpp"
#include "error.hpp"
#include "frontier_push.cuh"
#include "gpu.hpp"
#include "probe.cuh"

#include <algorithm>
#include <optional>
#include <utility>

namespace grail {

using namespace cuda;
using namespace cuda::bfs;

namespace {

// Beamer's thresholds: pull when the frontier's out-edges exceed 1/kAlpha of the edges not yet
// explored, push again when the frontier falls under 1/kBeta of the vertices and shrinks.
constexpr eid_t kAlpha = 14;
constexpr vid_t kBeta = 24;
// Graphs this dense almost always pull: their in-edges are built before the traversal (and timed
// apart from it, as graph preparation); sparser graphs build them only when a level wants to pull.
constexpr size_t kPullAheadDegree = 8;

enum Mark : size_t { mark_begin, mark_uploaded, mark_in_edges, mark_traversed, mark_ordered, mark_count };

// Everything one run holds on the device, freed together on every path out; the graph (out, and
// in once built) is borrowed: bfs_gpu's own upload, or a GpuGraph's resident copy.
struct BfsDevice {
	BfsDevice(DeviceCsr &out, DeviceCsr &in, size_t n)
	    : out(out), in(in), depth(n), parent(n),
	      visited(Bitmap::words_for(n)), bits{DeviceBuffer<uint32_t>(visited.size()),
	                                          DeviceBuffer<uint32_t>(visited.size())},
	      frontier(n), spare{DeviceBuffer<vid_t>(n), DeviceBuffer<vid_t>(n)}, row_count(1) {
	}
	// A run's own arrays, the graph not included.
	static size_t
	run_bytes_for(size_t n) {
		return Frontier::bytes_for(n) + 4 * n * sizeof(uint32_t) + 3 * Bitmap::words_for(n) * sizeof(uint32_t);
	}
	BfsArrays
	arrays() const {
		return {out.view(), in.view(), Bitmap{visited.data()}, depth.data(), parent.data()};
	}
	void
	build_in_edges(cudaStream_t stream) {
		out.transpose_into(in, transpose, temp, stream);
	}

	DeviceCsr &out;
	DeviceCsr &in; // empty until a level pulls or the graph is dense enough to pull
	TransposeScratch transpose;
	DeviceBuffer<uint32_t> depth;
	DeviceBuffer<vid_t> parent;
	DeviceBuffer<uint32_t> visited;
	DeviceBuffer<uint32_t> bits[2]; // bottom-up frontiers: the current one, the next one
	Frontier frontier;              // top-down frontiers
	DeviceBuffer<vid_t> spare[2];   // with the frontier's queues, the row-ordering buffers
	DeviceBuffer<unsigned long long> row_count;
	TempStorage temp;
};

// The top-down step's operation: the first visit of w sets its depth.
struct VisitOp {
	Bitmap visited;
	uint32_t *depth;
	uint32_t next_depth;
	__device__ bool
	operator()(vid_t, vid_t w) const {
		if (!visited.try_set(w))
			return false;
		depth[w] = next_depth;
		return true;
	}
};

// The narrow kernel's levels before the chain index is considered, and the share of chain
// vertices (1/kChainShare of all) that makes it worth building: the count costs one pass over the
// edges; the index, about log2(longest chain) passes over the chain vertices.
constexpr uint32_t kChainProbeLevels = 4096;
constexpr vid_t kChainShare = 4;

struct LevelLoop {
	uint32_t level = 0;
	uint32_t bottom_up_levels = 0;
	uint32_t deepest = 0; // the deepest depth reached, chains included
	uint32_t chain_vertices = 0;
	std::vector<GpuBfsStep> steps;
};

// Runs the levels from source; returns how deep they went.
LevelLoop
traverse(BfsDevice &d, vid_t source, eid_t source_edges, uint32_t max_depth, bool may_pull, StepProbe &probe,
         cudaStream_t s) {
	const vid_t n = d.out.vertex_count();
	const eid_t m = d.out.edge_count();
	Frontier &f = d.frontier;
	LevelLoop loop;
	eid_t explored = 0; // out-edges of the vertices whose level has run
	bool pulling = false, narrow_refused = false;
	std::optional<ChainIndex> chains;
	bool chains_considered = false;
	uint32_t narrow_run = 0; // levels the narrow kernel has run
	auto step = [&](const char *kind) {
		probe.mark();
		if (probe.enabled())
			loop.steps.push_back({kind, loop.level, f.size(), f.edges()});
	};
	CUDA_CHECK(cudaMemcpyAsync(f.current(), &source, sizeof source, cudaMemcpyHostToDevice, s));
	f.set(1, source_edges);
	while (f.size() > 0 && loop.level < max_depth) {
		poll_cancel();
		if (!pulling && !narrow_refused && f.size() <= kNarrowCapacity && f.edges() <= kNarrowEdges) {
			step("narrow");
			uint32_t budget = chains_considered ? kNarrowBudget : kChainProbeLevels - narrow_run;
			narrow_levels(d.arrays(), chains ? chains->view() : ChainView{}, f.current(), f.size(), loop.level,
			              max_depth, budget, f.counters(), s);
			LevelCounters c = f.read_counters(s);
			narrow_run += c.level - loop.level;
			loop.level = c.level;
			f.set(c.count, c.edges);
			narrow_refused = c.exit == narrow_too_wide;
			// Many narrow levels: a long thin graph, where chains may pay.
			if (!chains_considered && c.exit == narrow_budget) {
				chains_considered = true;
				step("chains");
				chains.emplace(d.out.view(), source, kChainShare, d.temp, s);
				if (chains->active())
					loop.chain_vertices = chains->chain_vertices();
				else
					chains.reset();
			}
			continue;
		}
		narrow_refused = false;
		if (!pulling) {
			if (may_pull && f.edges() > (m - explored) / kAlpha) {
				step("to bits");
				if (!d.in.view().offsets)
					d.build_in_edges(s);
				queue_to_bits(f.current(), f.size(), d.bits[0].data(), n, s);
				pulling = true;
				continue;
			}
			step("push");
			explored += f.edges();
			f.push(d.out.view(), VisitOp{Bitmap{d.visited.data()}, d.depth.data(), loop.level + 1}, s);
			loop.level++;
			continue;
		}
		step("pull");
		f.clear_counters(s);
		pull_level(d.arrays(), d.bits[0].data(), d.bits[1].data(), loop.level, f.counters(), s);
		LevelCounters c = f.read_counters(s);
		explored += f.edges();
		std::swap(d.bits[0], d.bits[1]);
		loop.bottom_up_levels++;
		loop.level++;
		bool shrinking = c.count < f.size();
		f.set(c.count, c.edges);
		// A small, shrinking frontier: the tail of the traversal is cheaper top-down.
		if (c.count > 0 && c.count < n / kBeta && shrinking) {
			step("to queue");
			f.clear_counters(s);
			bits_to_queue(d.bits[0].data(), n, f.current(), &f.counters()->count, s);
			pulling = false;
		}
	}
	loop.deepest = loop.level;
	if (chains) {
		step("chains");
		loop.deepest = chains->fill_depths(d.arrays(), max_depth, loop.level, s);
	}
	probe.mark();
	return loop;
}

// One search over out (in: its in-edges, or empty), which hold a graph of n vertices and m edges:
// bfs_gpu's with upload (then out is filled from it here, timed as the upload), or a GpuGraph's
// without. may_pull: whether bottom-up levels may build the in-edges (or they exist).
BfsResult
run_bfs(DeviceCsr &out, DeviceCsr &in, const Csr *upload, size_t n, size_t m, vid_t source, uint32_t max_depth,
        GpuBfsTimings *timings) {
	size_t graph_bytes = upload ? DeviceCsr::bytes_for(n, m) : 0;
	DeviceMemory memory =
	    require_device_memory(graph_bytes + BfsDevice::run_bytes_for(n), "the graph", "BFS", "run BFS on the CPU");
	// Bottom-up levels need the in-edges too; without room for them every level runs top-down.
	bool may_pull =
	    in.view().offsets != nullptr || memory.need + DeviceCsr::transpose_peak_bytes(n, m) <= memory.free_bytes;

	Stream stream;
	cudaStream_t s = stream.get();
	TimingProbe probe(timings != nullptr, mark_count, s);
	StepProbe steps(timings != nullptr, s);
	probe.mark(mark_begin);
	eid_t source_edges;
	if (upload) {
		out = DeviceCsr::upload(*upload, s);
		source_edges = upload->offsets[source + 1] - upload->offsets[source];
	} else {
		eid_t ends[2];
		CUDA_CHECK(cudaMemcpyAsync(ends, out.view().offsets + source, sizeof ends, cudaMemcpyDeviceToHost, s));
		stream.synchronize();
		source_edges = ends[1] - ends[0];
	}
	probe.mark(mark_uploaded);
	BfsDevice d(out, in, n);
	if (may_pull && m >= kPullAheadDegree * n && in.view().offsets == nullptr)
		d.build_in_edges(s);
	probe.mark(mark_in_edges);

	CUDA_CHECK(cudaMemsetAsync(d.depth.data(), 0xFF, d.depth.bytes(), s));
	CUDA_CHECK(cudaMemsetAsync(d.parent.data(), 0xFF, d.parent.bytes(), s));
	CUDA_CHECK(cudaMemsetAsync(d.visited.data(), 0, d.visited.bytes(), s));
	uint32_t zero = 0;
	CUDA_CHECK(cudaMemcpyAsync(d.depth.data() + source, &zero, sizeof zero, cudaMemcpyHostToDevice, s));
	// The source's bit, set from the host: a one-word copy, no kernel.
	uint32_t source_bit = 1u << (source & 31);
	CUDA_CHECK(
	    cudaMemcpyAsync(d.visited.data() + (source >> 5), &source_bit, sizeof source_bit, cudaMemcpyHostToDevice, s));
	LevelLoop loop = traverse(d, source, source_edges, max_depth, may_pull, steps, s);
	probe.mark(mark_traversed);

	complete_parents(d.arrays(), s);
	vid_t *buffers[4] = {d.frontier.queue(0), d.frontier.queue(1), d.spare[0].data(), d.spare[1].data()};
	Rows rows = order_rows(d.arrays(), loop.deepest + 1, buffers, d.temp, d.row_count.data(), s);
	probe.mark(mark_ordered);

	BfsResult result;
	result.vertex.resize(rows.count);
	result.depth.resize(rows.count);
	result.parent.resize(rows.count);
	size_t bytes = size_t(rows.count) * sizeof(vid_t);
	CUDA_CHECK(cudaMemcpyAsync(result.vertex.data(), rows.vertex, bytes, cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(cudaMemcpyAsync(result.depth.data(), rows.depth, bytes, cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(cudaMemcpyAsync(result.parent.data(), rows.parent, bytes, cudaMemcpyDeviceToHost, s));
	double download_start = now_ms();
	stream.synchronize();
	if (timings) {
		timings->upload_ms = probe.between(mark_begin, mark_uploaded);
		timings->in_edges_ms = probe.between(mark_uploaded, mark_in_edges);
		timings->traverse_ms = probe.between(mark_in_edges, mark_traversed);
		timings->rows_ms = probe.between(mark_traversed, mark_ordered);
		timings->compute_ms = timings->traverse_ms + timings->rows_ms;
		timings->download_ms = now_ms() - download_start;
		timings->levels = loop.level;
		timings->bottom_up_levels = loop.bottom_up_levels;
		timings->chain_vertices = loop.chain_vertices;
		for (size_t k = 0; k < loop.steps.size(); k++)
			loop.steps[k].ms = steps.step(k);
		timings->steps = std::move(loop.steps);
	}
	return result;
}

} // namespace

BfsResult
bfs_gpu(const Csr &graph, vid_t source, uint32_t max_depth, GpuBfsTimings *timings) {
	size_t n = graph.vertex_count(), m = graph.edge_count();
	if (source >= n)
		throw Error(ErrorKind::invalid_input, "BFS source is not a vertex of the graph");
	require_device("GPU BFS");
	DeviceCsr out, in;
	return run_bfs(out, in, &graph, n, m, source, max_depth, timings);
}

struct GpuGraph::State {
	DeviceCsr out;
	DeviceCsr in; // built on the device by the first search that wants it
	size_t n = 0, m = 0;
};

GpuGraph::GpuGraph(const Csr &graph) : state_(std::make_unique<State>()) {
	require_device("GPU BFS");
	state_->n = graph.vertex_count();
	state_->m = graph.edge_count();
	require_device_memory(DeviceCsr::bytes_for(state_->n, state_->m), "the graph", "its resident copy",
	                      "run BFS on the CPU");
	Stream stream;
	state_->out = DeviceCsr::upload(graph, stream.get());
	stream.synchronize(); // graph's vectors are not needed after this
}

GpuGraph::~GpuGraph() = default;

BfsResult
GpuGraph::bfs(vid_t source, uint32_t max_depth, bool reverse, GpuBfsTimings *timings) {
	State &g = *state_;
	if (source >= g.n)
		throw Error(ErrorKind::invalid_input, "BFS source is not a vertex of the graph");
	require_device("GPU BFS");
	if (reverse && g.in.view().offsets == nullptr) {
		// The in-edges once, on the device: kept for every later search either way.
		require_device_memory(DeviceCsr::transpose_peak_bytes(g.n, g.m), "the graph", "its in-edges",
		                      "run BFS on the CPU");
		Stream stream;
		TransposeScratch transpose;
		TempStorage temp;
		g.out.transpose_into(g.in, transpose, temp, stream.get());
		stream.synchronize();
	}
	// Against edge direction the in-edges are the graph searched, and the out-edges its in-edges.
	return reverse ? run_bfs(g.in, g.out, nullptr, g.n, g.m, source, max_depth, timings)
	               : run_bfs(g.out, g.in, nullptr, g.n, g.m, source, max_depth, timings);
}

size_t
GpuGraph::device_bytes() const noexcept {
	return DeviceCsr::bytes_for(state_->n, state_->m) * (has_in_edges() ? 2 : 1);
}

bool
GpuGraph::has_in_edges() const noexcept {
	return state_->in.view().offsets != nullptr;
}

} // namespace grail
