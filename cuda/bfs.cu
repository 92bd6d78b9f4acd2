// GPU BFS: level-synchronous, one frontier operator per level (Gunrock's loop), with three
// regimes chosen per level from the frontier's size:
//   - narrow frontiers (paths, grids, the first levels of anything) run many levels inside one
//     single-block kernel, because a launch and a host round trip per level would dominate;
//   - wide frontiers advance top-down with degree binning, then compact;
//   - when the frontier holds a large share of the unexplored edges, levels run bottom-up over
//     the in-edges (Beamer's direction optimisation), built on the device the first time.
// Parents are then chosen by one edge pass (smallest u at depth - 1, by atomicMin) and the rows
// sorted by (depth, vertex), so that the result equals the CPU bfs() exactly.
#include "error.hpp"
#include "frontier_impl.cuh"
#include "gpu.hpp"
#include "host_util.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include <chrono>
#include <memory>
#include <string>

namespace grail {

using namespace cuda;

namespace {

constexpr uint32_t kUnreached = 0xFFFFFFFFu;

// The narrow regime: frontiers of up to kNarrowCapacity vertices and kNarrowEdges edges stay in
// shared memory; kNarrowLevels bounds one launch so that cancellation is polled every few ms.
constexpr int kNarrowThreads = 256;
constexpr vid_t kNarrowCapacity = 2048;
constexpr eid_t kNarrowEdges = 16384;
constexpr uint32_t kNarrowLevels = 1u << 14;

// Beamer's thresholds: go bottom-up when the frontier's edges exceed 1/alpha of the unexplored
// edges, back top-down when the frontier falls under 1/beta of the vertices and shrinks.
constexpr eid_t kAlpha = 14;
constexpr vid_t kBeta = 24;
constexpr size_t kPullAheadDegree = 8;

enum NarrowExit : uint32_t { narrow_done, narrow_budget, narrow_too_wide };

struct NarrowState {
	uint32_t level;
	vid_t count;
	uint32_t exit;
};

struct VisitOp {
	Bitmap visited;
	uint32_t *depth;
	uint32_t next_level;
	__device__ bool
	operator()(vid_t, vid_t w) const {
		if (!visited.try_set(w))
			return false;
		depth[w] = next_level;
		return true;
	}
};

struct ParentOp {
	const uint32_t *depth;
	vid_t *parent;
	__device__ bool
	operator()(vid_t u, vid_t w) const {
		if (depth[w] == depth[u] + 1)
			atomicMin(&parent[w], u);
		return false;
	}
};

__global__ void
seed_source(vid_t source, Bitmap visited, uint32_t *depth, vid_t *frontier) {
	visited.words[source >> 5] |= 1u << (source & 31);
	depth[source] = 0;
	frontier[0] = source;
}

// Runs levels while the frontier is narrow. frontier[0 .. state.count) is the frontier of
// state.level on entry and on exit; a next frontier larger than shared memory spills to it.
// Each level needs two barriers: the block's counters rotate over three slots, so the slot that
// thread 0 clears was last read two levels ago.
__global__ void
__launch_bounds__(kNarrowThreads)
    narrow_levels(CsrView g, Bitmap visited, uint32_t *depth, vid_t *frontier, NarrowState *state, uint32_t max_depth) {
	__shared__ vid_t queue[2][kNarrowCapacity];
	__shared__ vid_t next_count[3];
	__shared__ unsigned long long edges[3];
	uint32_t level = state->level;
	vid_t count = state->count;
	for (vid_t i = threadIdx.x; i < count; i += blockDim.x)
		queue[0][i] = frontier[i];
	if (threadIdx.x == 0) {
		next_count[0] = 0;
		edges[0] = 0;
	}
	__syncthreads();
	int cur = 0;
	uint32_t exit = narrow_budget;
	for (uint32_t step = 0; step < kNarrowLevels; step++) {
		if (count == 0 || level >= max_depth) {
			exit = narrow_done;
			break;
		}
		if (count > kNarrowCapacity) {
			exit = narrow_too_wide;
			break;
		}
		int slot = step % 3, spare = (step + 1) % 3;
		if (threadIdx.x == 0) {
			next_count[spare] = 0;
			edges[spare] = 0;
		}
		eid_t mine = 0;
		for (vid_t i = threadIdx.x; i < count; i += blockDim.x) {
			vid_t u = queue[cur][i];
			mine += g.offsets[u + 1] - g.offsets[u];
		}
		if (mine)
			atomicAdd(&edges[slot], (unsigned long long)mine);
		__syncthreads();
		if (edges[slot] > kNarrowEdges) {
			exit = narrow_too_wide;
			break;
		}
		for (vid_t i = threadIdx.x; i < count; i += blockDim.x) {
			vid_t u = queue[cur][i];
			for (eid_t e = g.offsets[u]; e < g.offsets[u + 1]; e++) {
				vid_t w = g.targets[e];
				if (!visited.try_set(w))
					continue;
				depth[w] = level + 1;
				vid_t at = atomicAdd(&next_count[slot], 1u);
				if (at < kNarrowCapacity)
					queue[cur ^ 1][at] = w;
				else
					frontier[at] = w;
			}
		}
		__syncthreads();
		count = next_count[slot];
		level++;
		cur ^= 1;
	}
	vid_t kept = count < kNarrowCapacity ? count : kNarrowCapacity;
	for (vid_t i = threadIdx.x; i < kept; i += blockDim.x)
		frontier[i] = queue[cur][i];
	if (threadIdx.x == 0)
		*state = {level, count, exit};
}

// key = depth << 32 | vertex for reached vertices, so that sorting the keys gives the row order.
__global__ void
make_keys(const uint32_t *depth, vid_t vertices, uint64_t *keys) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v < vertices)
		keys[v] = depth[v] == kUnreached ? ~uint64_t(0) : (uint64_t(depth[v]) << 32) | v;
}

struct IsReached {
	__device__ bool
	operator()(uint64_t key) const {
		return key != ~uint64_t(0);
	}
};

__global__ void
split_keys(const uint64_t *keys, vid_t count, const vid_t *parent_of, vid_t *vertex, uint32_t *depth, vid_t *parent) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= count)
		return;
	vid_t v = vid_t(keys[i]);
	vertex[i] = v;
	if (depth)
		depth[i] = uint32_t(keys[i] >> 32);
	if (parent)
		parent[i] = parent_of[v];
}

using cuda_host::now_ms;

// Everything one run holds on the device, freed together on every path out.
struct BfsState {
	BfsState(const Csr &graph, cudaStream_t stream)
	    : out(DeviceCsr::upload(graph, stream)), ws(vid_t(graph.vertex_count())), depth(graph.vertex_count()),
	      parent(graph.vertex_count()), visited(Bitmap::words_for(graph.vertex_count())),
	      frontier(graph.vertex_count()), scratch(std::max(graph.vertex_count(), graph.edge_count())),
	      keys(graph.vertex_count()), sorted(graph.vertex_count()) {
	}
	static size_t
	bytes_for(size_t n, size_t m) {
		return DeviceCsr::bytes_for(n, m) + FrontierWorkspace::bytes_for(n) + 3 * n * sizeof(uint32_t) +
		       Bitmap::words_for(n) * sizeof(uint32_t) + std::max(n, m) * sizeof(vid_t) + 2 * n * sizeof(uint64_t);
	}

	DeviceCsr out;
	DeviceCsr in; // built on the first bottom-up level
	TransposeScratch transpose;
	FrontierWorkspace ws;
	DeviceBuffer<uint32_t> depth;
	DeviceBuffer<vid_t> parent;
	DeviceBuffer<uint32_t> visited;
	DeviceBuffer<vid_t> frontier;
	DeviceBuffer<vid_t> scratch; // the edge frontier, then the row order
	DeviceBuffer<uint64_t> keys, sorted;
};

} // namespace

BfsResult
bfs_gpu(const Csr &graph, vid_t source, uint32_t max_depth, GpuBfsTimings *timings) {
	size_t n = graph.vertex_count(), m = graph.edge_count();
	if (source >= n)
		throw Error(ErrorKind::invalid_input, "BFS source is not a vertex of the graph");
	double t0 = now_ms();
	require_device("GPU BFS");
	DeviceMemory memory = require_device_memory(BfsState::bytes_for(n, m), "the graph", "BFS", "run BFS on the CPU");
	// Bottom-up levels need the in-edges too; without room for them every level runs top-down.
	bool may_pull = memory.need + DeviceCsr::transpose_peak_bytes(n, m) <= memory.free_bytes;

	Stream stream;
	cudaStream_t s = stream.get();
	BfsState st(graph, s);
	// Where bottom-up levels are likely (dense, low-diameter graphs), their in-edges are
	// allocated now, outside the traversal: allocation costs more than the transposition.
	if (may_pull && m >= kPullAheadDegree * n) {
		st.in.allocate(vid_t(n), m);
		st.transpose.reserve(m);
	}
	PinnedBuffer<NarrowState> narrow(1);
	DeviceBuffer<NarrowState> narrow_buffer(1);
	Event start, stop;
	stream.synchronize();
	double t1 = now_ms();
	start.record(s);

	Bitmap visited{st.visited.data()};
	CUDA_CHECK(cudaMemsetAsync(st.depth.data(), 0xFF, st.depth.bytes(), s));
	CUDA_CHECK(cudaMemsetAsync(st.parent.data(), 0xFF, st.parent.bytes(), s));
	CUDA_CHECK(cudaMemsetAsync(st.visited.data(), 0, st.visited.bytes(), s));
	seed_source<<<1, 1, 0, s>>>(source, visited, st.depth.data(), st.frontier.data());
	CUDA_CHECK_LAUNCH();

	CsrView g = st.out.view();
	uint32_t level = 0, bottom_up_levels = 0;
	vid_t count = 1;
	eid_t explored = 0; // edges out of vertices already expanded top-down
	bool force_wide = false, pulling = false, pulled = false;
	NarrowState *narrow_device = narrow_buffer.data();
	while (count > 0 && level < max_depth) {
		poll_cancel();
		if (!pulling && !force_wide && count <= kNarrowCapacity) {
			narrow[0] = {level, count, narrow_done};
			CUDA_CHECK(cudaMemcpyAsync(narrow_device, narrow.data(), sizeof(NarrowState), cudaMemcpyHostToDevice, s));
			narrow_levels<<<1, kNarrowThreads, 0, s>>>(g, visited, st.depth.data(), st.frontier.data(), narrow_device,
			                                           max_depth);
			CUDA_CHECK_LAUNCH();
			CUDA_CHECK(cudaMemcpyAsync(narrow.data(), narrow_device, sizeof(NarrowState), cudaMemcpyDeviceToHost, s));
			stream.synchronize();
			level = narrow[0].level;
			count = narrow[0].count;
			force_wide = narrow[0].exit == narrow_too_wide;
			continue;
		}
		force_wide = false;
		if (!pulling) {
			DegreeBins bins = bin_frontier(g, st.frontier.data(), count, st.ws, s);
			if (may_pull && !pulled && bins.edges > (m - explored) / kAlpha) {
				pulling = pulled = true;
				st.out.transpose_into(st.in, st.transpose, st.ws.temp, s);
			} else {
				advance(g, st.frontier.data(), bins, st.scratch.data(), VisitOp{visited, st.depth.data(), level + 1},
				        st.ws, s);
				explored += bins.edges;
				count = compact(st.scratch.data(), bins.edges, st.frontier.data(), st.ws, s);
				level++;
				continue;
			}
		}
		pull_step(st.in.view(), visited, st.depth.data(), level, st.scratch.data(), s);
		vid_t next = compact(st.scratch.data(), n, st.frontier.data(), st.ws, s);
		bottom_up_levels++;
		// Once the frontier is small again, top-down is cheaper for the rest (the tail of the
		// traversal). The in-edges stay: they give the parents cheaply at the end.
		if (next < n / kBeta && next < count)
			pulling = false;
		count = next;
		level++;
	}

	// The reached vertices in vertex order, as keys.
	uint64_t *key_buffer = st.keys.data(), *sorted = st.sorted.data();
	make_keys<<<blocks_for(n), kBlockThreads, 0, s>>>(st.depth.data(), vid_t(n), key_buffer);
	CUDA_CHECK_LAUNCH();
	size_t bytes = 0;
	CUDA_CHECK(
	    cub::DeviceSelect::If(nullptr, bytes, key_buffer, sorted, st.ws.counters.data(), int64_t(n), IsReached{}, s));
	CUDA_CHECK(cub::DeviceSelect::If(st.ws.temp.get(bytes), bytes, key_buffer, sorted, st.ws.counters.data(),
	                                 int64_t(n), IsReached{}, s));
	CUDA_CHECK(
	    cudaMemcpyAsync(st.ws.host_counters.data(), st.ws.counters.data(), sizeof(eid_t), cudaMemcpyDeviceToHost, s));
	stream.synchronize();
	vid_t reached = vid_t(st.ws.host_counters[0]);
	// Parents: from the in-edges when a bottom-up level built them (each vertex stops at its first
	// in-neighbour one level up, the smallest, as the rows are ascending); else by an edge pass
	// over the reached vertices, atomicMin keeping the smallest.
	if (pulled) {
		pull_parents(st.in.view(), st.depth.data(), st.parent.data(), s);
	} else {
		split_keys<<<blocks_for(reached), kBlockThreads, 0, s>>>(sorted, reached, nullptr, st.frontier.data(), nullptr,
		                                                         nullptr);
		CUDA_CHECK_LAUNCH();
		DegreeBins bins = bin_frontier(g, st.frontier.data(), reached, st.ws, s);
		advance(g, st.frontier.data(), bins, nullptr, ParentOp{st.depth.data(), st.parent.data()}, st.ws, s);
	}

	// Rows ordered by (depth, vertex): the keys compare that way.
	unsigned end_bit = 32;
	while (end_bit < 64 && (uint64_t(level) >> (end_bit - 32)) != 0)
		end_bit++;
	CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, sorted, key_buffer, int64_t(reached), 0, end_bit, s));
	CUDA_CHECK(cub::DeviceRadixSort::SortKeys(st.ws.temp.get(bytes), bytes, sorted, key_buffer, int64_t(reached), 0,
	                                          end_bit, s));
	vid_t *row_vertex = st.frontier.data();
	uint32_t *row_depth = st.ws.positions.data();
	vid_t *row_parent = st.scratch.data();
	split_keys<<<blocks_for(reached), kBlockThreads, 0, s>>>(key_buffer, reached, st.parent.data(), row_vertex,
	                                                         row_depth, row_parent);
	CUDA_CHECK_LAUNCH();
	stop.record(s);
	stream.synchronize();
	double t2 = now_ms();

	BfsResult result;
	result.vertex.resize(reached);
	result.depth.resize(reached);
	result.parent.resize(reached);
	CUDA_CHECK(cudaMemcpyAsync(result.vertex.data(), row_vertex, reached * sizeof(vid_t), cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(cudaMemcpyAsync(result.depth.data(), row_depth, reached * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(cudaMemcpyAsync(result.parent.data(), row_parent, reached * sizeof(vid_t), cudaMemcpyDeviceToHost, s));
	stream.synchronize();
	if (timings) {
		timings->upload_ms = t1 - t0;
		timings->compute_ms = stop.since(start);
		timings->download_ms = now_ms() - t2;
		timings->levels = level;
		timings->bottom_up_levels = bottom_up_levels;
	}
	return result;
}

} // namespace grail
