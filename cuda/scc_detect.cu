// Which vertices share a strongly connected component, after the method of Alabandi, Sands, Biros
// and Burtscher (ECL-SCC, SC'23), written for this engine with minima instead of maxima:
//   - every vertex is a pivot at once: each carries a signature (the smallest key of a vertex that
//     reaches it, the smallest key of a vertex it reaches), propagated forward and backward over a
//     list of live edges until nothing changes. A vertex whose two minima agree lies in the
//     component of the vertex with that key.
//   - two vertices of one component reach and are reached by the same vertices, so they have the
//     same signature: an edge whose ends differ cannot lie inside a component and is removed, and
//     so are the edges of vertices already placed. The others restart from their own keys, and
//     rounds repeat until no edge is left.
//   - keys are the ids first: then a component's key is its smallest vertex, the id SQL reports,
//     and ids that follow the graph's structure (as sorted ids of real data often do) settle in
//     few rounds. But a cycle whose ids grow along its edges carries its smallest id backwards one
//     edge per sweep (10 million sweeps for a 10M-vertex cycle, minutes). So a round that needs
//     more than kIdSweeps sweeps starts detection over with mixed keys (a bijection of the ids),
//     under which every order looks random and the shortcuts through the minima's own signatures
//     converge in few sweeps; a last pass then turns each component's key into its smallest vertex.
//   - Trim first, where it pays: a vertex with no in- or no out-edge (self-loops aside) is a
//     component of its own, and its edges never enter the list. A pass costs about a sweep (a
//     scatter of flags over the edges, then a filtered copy), so it runs only when at least
//     1/kTrimWorth of the vertices have no out-edge at all (R-MAT with random directions: a
//     third; uniform random graphs: none worth it), and once (a second pass removed 0.2% of
//     R-MAT 22's vertices for the price of a sweep).
// Everything runs in one cooperative launch with grid barriers between sweeps and rounds: no host
// round trip per sweep or round (a graph of 500,000 chained small cycles needs dozens of sweeps).
#include "error.hpp"
#include "launch.cuh"
#include "primitives.cuh"
#include "scc.cuh"

#include <cooperative_groups.h>

#include <algorithm>

namespace grail::cuda::scc {

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 512;
constexpr uint64_t kTrimWorth = 100;
constexpr uint32_t kIdSweeps = 64;
// A launch returns to the host (which polls for cancellation and launches again) at the first
// round boundary after this many sweeps; ordinary graphs finish in one launch.
constexpr uint32_t kSweepsPerLaunch = 1u << 12;
// Within a sweep, a block may repeat its slice of the edge list while it changes, up to this many
// passes (ECL-SCC's local iteration: values travel along chains inside a slice without a grid
// barrier). Measured on an H100 with 1 / 4 / 32 passes (device ms, before sweeps copied the next
// round's edges): R-MAT 22 17.3 / 18.0 / 18.0, uniform 4M x 10 7.3 / 7.5 / 7.6, cycles 2M + 500K
// 10.1 / 10.7 / 10.8, cycles 200K + 50K 1.96 / 1.81 / 1.86: a first sweep changes nearly every
// edge, so repeats mostly redo it. One pass.
constexpr int kLocalPasses = 1;

// Mixed keys: v * an odd constant is a bijection of 32-bit words, and so is x ^ (x >> 16).
constexpr uint32_t kMixFactor = 0x9E3779B1u;
constexpr uint32_t
inverse_of(uint32_t a) {
	uint32_t x = a; // Newton's iteration doubles the correct low bits each step: 3, 6, 12, 24, 48
	for (int i = 0; i < 4; i++)
		x *= 2u - a * x;
	return x;
}
constexpr uint32_t kMixInverse = inverse_of(kMixFactor);
static_assert(kMixFactor * kMixInverse == 1u, "the key mix must be invertible");

struct Keys {
	bool mixed;
	__device__ __forceinline__ uint32_t
	of(vid_t v) const {
		if (!mixed)
			return v;
		uint32_t x = v * kMixFactor;
		return x ^ (x >> 16);
	}
	__device__ __forceinline__ vid_t
	vertex(uint32_t key) const {
		return mixed ? (key ^ (key >> 16)) * kMixInverse : key;
	}
};

struct DetectArgs {
	CsrView g;
	uint2 *signature;
	uint2 *list[2];
	uint8_t *has; // Trim: 2v has an in-edge, 2v + 1 an out-edge (one sector, no read-modify-write)
	Progress *p;
};

__device__ __forceinline__ uint32_t *
in_min(uint2 *signature, vid_t v) {
	return reinterpret_cast<uint32_t *>(signature + v);
}

__device__ __forceinline__ uint32_t *
out_min(uint2 *signature, vid_t v) {
	return reinterpret_cast<uint32_t *>(signature + v) + 1;
}

// Lowers *slot to value when value is below seen (the last value read there), and says so: a sweep
// in which no thread found a value to lower changed nothing, so the signatures are a fixed point
// (values only fall, so the sweeps end).
__device__ __forceinline__ bool
lower(uint32_t *slot, uint32_t seen, uint32_t value) {
	if (value >= seen)
		return false;
	atomicMin(slot, value); // result unused: a reduction, no round trip
	return true;
}

__device__ __forceinline__ bool
lower_fresh(uint32_t *slot, uint32_t value) {
	return lower(slot, fresh(slot), value);
}

// One live edge u -> w. Everything that reaches u reaches w, everything w reaches u reaches. The
// minima are shortened through their own signatures (what reaches the vertex of in_min(u) reaches
// u), and pushed to the vertices they name: the vertex of in_min(u) reaches everything w reaches,
// and so on (a vertex's own minima never exceed its key, hence the tests before the loads). Every
// value written names a vertex that truly reaches (or is reached), so the fixed point is exact.
__device__ __forceinline__ bool
relax(uint2 *signature, uint2 edge, uint2 su, uint2 sw, Keys keys) {
	const vid_t u = edge.x, w = edge.y;
	uint32_t in = su.x, out = sw.y;
	if (in != keys.of(u))
		in = min(in, fresh(in_min(signature, keys.vertex(in))));
	if (out != keys.of(w))
		out = min(out, fresh(out_min(signature, keys.vertex(out))));
	bool changed = lower(in_min(signature, w), sw.x, in);
	changed |= lower(in_min(signature, u), su.x, in);
	changed |= lower(out_min(signature, u), su.y, out);
	changed |= lower(out_min(signature, w), sw.y, out);
	if (out < su.x)
		changed |= lower_fresh(out_min(signature, keys.vertex(su.x)), out);
	if (sw.x != su.x && out < sw.x)
		changed |= lower_fresh(out_min(signature, keys.vertex(sw.x)), out);
	if (in < su.y)
		changed |= lower_fresh(in_min(signature, keys.vertex(su.y)), in);
	if (sw.y != su.y && in < sw.y)
		changed |= lower_fresh(in_min(signature, keys.vertex(sw.y)), in);
	return changed;
}

struct Grid {
	size_t thread, threads, warp, warps;
	__device__
	Grid()
	    : thread(size_t(blockIdx.x) * blockDim.x + threadIdx.x), threads(size_t(gridDim.x) * blockDim.x),
	      warp(thread / 32), warps(threads / 32) {
	}
};

__device__ __forceinline__ bool
live(const DetectArgs &a, vid_t v) {
	return fresh(reinterpret_cast<const uint16_t *>(a.has) + v) == 0x0101u;
}

// Adds the number of the block's threads with flag set to *count, one atomic per block (the
// whole block calls it).
__device__ __forceinline__ void
block_count(unsigned long long *count, bool flag) {
	const int c = __syncthreads_count(flag);
	if (threadIdx.x == 0 && c > 0)
		atomicAdd(count, (unsigned long long)c);
}

// Signatures from the keys, Trim where it pays, and the first edge list (list[0], p->edges).
__device__ void
start(const DetectArgs &a, const Grid &t, cg::grid_group &grid, Keys keys) {
	Progress *p = a.p;
	const vid_t n = a.g.vertices;
	for (size_t first = size_t(blockIdx.x) * blockDim.x; first < n; first += t.threads) {
		const size_t v = first + threadIdx.x;
		bool sink = false;
		if (v < n) {
			const uint32_t key = keys.of(vid_t(v));
			a.signature[v] = make_uint2(key, key);
			reinterpret_cast<uint16_t *>(a.has)[v] = 0;
			sink = a.g.offsets[v + 1] == a.g.offsets[v];
		}
		block_count(&p->sinks, sink);
	}
	grid.sync();
	if (fresh(&p->sinks) * kTrimWorth < n) {
		// No Trim: every edge in place (a self-loop changes no signature and goes with its vertex).
		for_each_edge(a.g, t.warp, t.warps, [&](vid_t u, vid_t w, bool valid, eid_t e) {
			if (valid)
				a.list[0][e] = make_uint2(u, w);
		});
		if (t.thread == 0)
			p->edges = a.g.edges;
		grid.sync();
		return;
	}
	for_each_edge(a.g, t.warp, t.warps, [&](vid_t u, vid_t w, bool valid, eid_t) {
		if (valid && u != w) {
			a.has[2 * size_t(w)] = 1;
			a.has[2 * size_t(u) + 1] = 1;
		}
	});
	grid.sync();
	for (size_t first = size_t(blockIdx.x) * blockDim.x; first < n; first += t.threads) {
		const size_t v = first + threadIdx.x;
		block_count(&p->trimmed, v < n && !live(a, vid_t(v)));
	}
	compact_edges(
	    a.g, t.warp, t.warps, [&](vid_t u, vid_t w, bool valid) { return valid && u != w && live(a, u) && live(a, w); },
	    [](vid_t u, vid_t w) { return make_uint2(u, w); }, a.list[0], &p->edges);
	if (t.thread == 0)
		p->trim_passes = 1;
	grid.sync();
}

// What propagate() ends with.
struct Swept {
	bool settled;            // false: the round gave up after kIdSweeps sweeps under ids
	unsigned long long kept; // edges the last sweep copied to the next round's list
};

// Sweeps list[0 .. count) until a whole sweep changes no signature. Each sweep also copies the
// edges that the next round keeps to out, judged by the signatures it read: in the last sweep
// nothing changed, so those were final and the copy is the next round's list, with no pass of its
// own (an edge is kept when its ends share a signature whose two minima differ: inside a subgraph
// not yet placed). Each block takes a contiguous slice (neighbouring edges share vertices, so its
// local passes carry values along chains); the copy happens in its first pass only.
__device__ Swept
propagate(const DetectArgs &a, const uint2 *list, uint2 *out, eid_t count, uint32_t &epoch, cg::grid_group &grid,
          Keys keys, unsigned long long *scratch) {
	const eid_t per_block = (count + gridDim.x - 1) / gridDim.x;
	const eid_t begin = min(count, eid_t(blockIdx.x) * per_block), end = min(count, begin + per_block);
	for (uint32_t sweep = 1;; sweep++) {
		if (!keys.mixed && sweep > kIdSweeps)
			return {false, 0};
		epoch++;
		unsigned long long *kept = &a.p->kept[epoch % 3];
		bool changed = false;
		for (eid_t first = begin; first < end; first += blockDim.x) {
			const eid_t e = first + threadIdx.x;
			bool keep = false;
			uint2 edge = make_uint2(0, 0);
			if (e < end) {
				edge = fresh(list + e);
				const uint2 su = fresh(a.signature + edge.x), sw = fresh(a.signature + edge.y);
				changed |= relax(a.signature, edge, su, sw, keys);
				keep = su.x != su.y && su.x == sw.x && su.y == sw.y;
			}
			const unsigned long long slot = block_reserve(kept, (unsigned long long)keep, scratch);
			if (keep)
				out[slot] = edge;
		}
		bool block_changed = __syncthreads_or(changed);
		for (int pass = 1; block_changed && pass < kLocalPasses; pass++) {
			changed = false;
			for (eid_t e = begin + threadIdx.x; e < end; e += blockDim.x) {
				const uint2 edge = fresh(list + e);
				changed |= relax(a.signature, edge, fresh(a.signature + edge.x), fresh(a.signature + edge.y), keys);
			}
			if (!__syncthreads_or(changed))
				break;
		}
		if (threadIdx.x == 0) {
			if (block_changed)
				atomicMax(&a.p->last_change, epoch);
			// The counter of the sweep after next, last used three sweeps ago.
			if (blockIdx.x == 0)
				a.p->kept[(epoch + 1) % 3] = 0;
		}
		grid.sync();
		// A block that read a change may already have written a later epoch: at least this one
		// means another sweep, so that every block takes the same branch.
		if (fresh(&a.p->last_change) < epoch)
			return {true, fresh(kept)};
	}
}

__global__ void
__launch_bounds__(kThreads) detect_kernel(DetectArgs a) {
	__shared__ unsigned long long scratch[kThreads / 32];
	cg::grid_group grid = cg::this_grid();
	const Grid t;
	Progress *p = a.p;
	const vid_t n = a.g.vertices;
	uint32_t current = fresh(&p->current), round = fresh(&p->rounds), epoch = fresh(&p->epoch);
	Keys keys{fresh(&p->mixed) != 0};
	uint64_t clock = now_ns();
	if (!fresh(&p->initialised)) {
		start(a, t, grid, keys);
		current = 0;
		if (t.thread == 0) {
			p->initialised = 1;
			p->trim_ns += now_ns() - clock;
		}
	}
	eid_t count = fresh(&p->edges);
	const uint32_t last_epoch = epoch + kSweepsPerLaunch;
	for (;;) {
		if (t.thread == 0)
			clock = now_ns();
		const Swept swept = propagate(a, a.list[current], a.list[current ^ 1], count, epoch, grid, keys, scratch);
		if (t.thread == 0)
			p->propagate_ns += now_ns() - clock;
		if (!swept.settled) {
			// Start over with mixed keys: every signature and the edge list are rebuilt.
			if (t.thread == 0) {
				p->edges = p->sinks = p->trimmed = 0;
				p->mixed = 1;
				p->current = p->rounds = 0;
				p->epoch = epoch;
				p->initialised = 0;
			}
			return;
		}
		// Vertices not placed restart from their own keys; placed ones keep (c, c) for good.
		for (size_t v = t.thread; v < n; v += t.threads) {
			const uint2 s = fresh(a.signature + v);
			if (s.x != s.y) {
				const uint32_t key = keys.of(vid_t(v));
				a.signature[v] = make_uint2(key, key);
			}
		}
		count = swept.kept;
		current ^= 1;
		round++;
		if (count == 0 || epoch >= last_epoch) {
			if (t.thread == 0) {
				p->edges = count;
				p->current = current;
				p->rounds = round;
				p->epoch = epoch;
				p->finished = count == 0;
			}
			return;
		}
		grid.sync();
	}
}

// Under mixed keys: smallest[r] = the smallest vertex of the component whose key is r's (r being
// the vertex of the component's smallest key), one atomic per distinct component in a warp.
// smallest starts all ones.
__global__ void
smallest_members(const uint2 *signature, vid_t n, vid_t *smallest) {
	// No early return: the warp-wide match below needs every lane.
	const Keys keys{true};
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	bool valid = v < n;
	vid_t r = valid ? keys.vertex(__ldg(reinterpret_cast<const uint32_t *>(signature + v))) : 0;
	unsigned peers = __match_any_sync(kFullMask, valid ? r : kNone);
	if (valid && lane_id() == unsigned(__ffs(peers) - 1))
		atomicMin(&smallest[r], vid_t(v)); // lanes ascend, so the leader holds the group's least
}

__global__ void
component_labels(const uint2 *signature, vid_t n, const vid_t *smallest, bool mixed, vid_t *label) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v >= n)
		return;
	const uint32_t key = __ldg(reinterpret_cast<const uint32_t *>(signature + v));
	label[v] = mixed ? smallest[Keys{true}.vertex(key)] : key;
}

} // namespace

void
detect_components(SccDevice &d, cudaStream_t stream, GpuSccTimings &t) {
	DetectArgs a{d.graph.view(),
	             d.signature.data(),
	             {d.worklist[0].data(), d.worklist[1].data()},
	             d.has.data(),
	             d.progress.data()};
	CUDA_CHECK(cudaMemsetAsync(d.progress.data(), 0, sizeof(Progress), stream));
	const void *kernel = reinterpret_cast<const void *>(detect_kernel);
	const unsigned blocks = resident_blocks(kernel, kThreads);
	void *args[] = {&a};
	for (;;) {
		CUDA_CHECK(cudaLaunchCooperativeKernel(kernel, blocks, kThreads, args, 0, stream));
		CUDA_CHECK(cudaMemcpyAsync(d.host_progress.data(), d.progress.data(), sizeof(Progress), cudaMemcpyDeviceToHost,
		                           stream));
		CUDA_CHECK(cudaStreamSynchronize(stream));
		if (d.host_progress[0].finished)
			break;
		poll_cancel();
	}
	const Progress &p = d.host_progress[0];
	const vid_t n = d.graph.vertex_count();
	vid_t *smallest = d.level.data(); // free until the numbering
	if (p.mixed) {
		CUDA_CHECK(cudaMemsetAsync(smallest, 0xFF, n * sizeof(vid_t), stream));
		smallest_members<<<blocks_for(n), kBlockThreads, 0, stream>>>(d.signature.data(), n, smallest);
		CUDA_CHECK_LAUNCH();
	}
	component_labels<<<blocks_for(n), kBlockThreads, 0, stream>>>(d.signature.data(), n, smallest, p.mixed != 0,
	                                                              d.label.data());
	CUDA_CHECK_LAUNCH();
	t.trim_ms = p.trim_ns / 1e6;
	t.propagate_ms = p.propagate_ns / 1e6;
	t.trim_passes = p.trim_passes;
	t.trimmed = p.trimmed;
	t.rounds = p.rounds;
	t.sweeps = p.epoch;
	t.mixed_keys = p.mixed != 0;
}

} // namespace grail::cuda::scc
