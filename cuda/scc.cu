// GPU strongly connected components: the FB-Trim hybrid of Chen et al. 2017
// (papers/gpu-scc-hybrid.txt).
//   - One status byte of bit flags per vertex (removed, forward-visited, backward-visited) and a
//     color per vertex: vertices of different colors lie in different subgraphs, so an edge
//     between them is ignored. Colors are vertex ids (the elected pivot of the subgraph), so they
//     never grow or overflow however deep the recursion goes.
//   - Trim removes vertices with no in- or no out-neighbour inside their subgraph (self-loops do
//     not count), repeated while it pays.
//   - Phase 1: one pivot (largest in-degree x out-degree) per subgraph; forward and backward
//     reachability with the shared frontier operators (advance / compact) on wide frontiers and a
//     single-block kernel running many levels on narrow ones; FW and BW intersect in the pivot's
//     SCC; FW-only, BW-only and the rest become three new subgraphs. Phase 1 ends once an SCC of
//     more than 1% of the vertices was found (the giant SCC).
//   - Then Trim2 (size-2 SCCs) and weakly connected components (FWcc) make every WCC its own
//     subgraph, so that phase 2 runs one pivot per WCC at once, in the same loop; FWcc runs again
//     every phase-2 round, as the splits leave subgraphs in disconnected pieces.
// The result is a label per vertex (some vertex of its SCC); the smallest vertex per component
// comes from an atomicMin pass, and the topological numbering from level-synchronous Kahn on the
// device (on the host when the condensation is too deep for a launch per level to pay).
#include "error.hpp"
#include "frontier_impl.cuh"
#include "gpu.hpp"
#include "host_util.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

namespace grail {

using namespace cuda;

namespace {

constexpr uint8_t kRemoved = 1, kForward = 2, kBackward = 4;
constexpr vid_t kMany = 0xFFFFFFFEu; // Trim2: more than one distinct neighbour

// The narrow regime of reachability: frontiers up to this many vertices run level after level
// inside one block (a long path or cycle would otherwise pay a launch and a host round trip per
// level); kNarrowLevels bounds one launch so that cancellation is polled. The block's 16 warps
// take a frontier vertex each in turn, so a frontier near the capacity costs a level tens of
// vertices long per warp: past about a thousand vertices the wide operators are faster, despite
// their launches and round trip per level (H100, scc_bench cycles 200000 50000: phase 2 took
// 34.7 ms with capacity 512, 32.0 with 1024, 43.0 with 4096, 69.3 with 16384).
constexpr int kNarrowThreads = 512;
constexpr vid_t kNarrowCapacity = 1024;
constexpr uint32_t kNarrowLevels = 1u << 16;

// Phase 1 looks for the giant SCC; a graph without one would run it with few pivots for many
// rounds, so it also ends after this many rounds.
constexpr uint32_t kPhase1MaxRounds = 4;

// Phase 2 splits each subgraph into three per round, but the pieces are often disconnected (the
// FW set of a pivot in a tree of small SCCs holds all its child subtrees), and one pivot per
// subgraph then takes them one round at a time (50,000 chained small cycles took 1,400 rounds).
// So FWcc runs again every kWccRounds rounds, giving each weakly connected piece its own pivot.
// Every round pays: a pass is a few sweeps over the edges, cheaper than the round it saves (H100,
// scc_bench cycles 200000 50000: every round, 16 rounds and 30.9 ms; every 2, 19 and 32.9 ms;
// every 4, 26 and 43.0 ms).
constexpr uint32_t kWccRounds = 1;

// Trim is repeated while a pass removes at least 1/kTrimStop of the graph's vertices: a pass costs
// a sweep over all edges, and the long tails it leaves (a path peels two vertices a pass) are
// cheaper for FB, which splits them in halves.
constexpr uint64_t kTrimStop = 1000;

// Pivot and color election keys: in-degree x out-degree of the input graph in the high word (the
// paper's heuristic for hitting the giant SCC first), a bijective mix of the vertex id in the low
// word, so that ties are broken pseudo-randomly (a chain of equal-degree vertices is split near
// the middle, not at an end) yet deterministically.
constexpr uint32_t kMixFactor = 0x9E3779B1u;
constexpr uint32_t
inverse_of(uint32_t a) {
	uint32_t x = a; // Newton's iteration doubles the correct low bits each step: 3, 6, 12, 24, 48
	for (int i = 0; i < 4; i++)
		x *= 2u - a * x;
	return x;
}
constexpr uint32_t kMixInverse = inverse_of(kMixFactor);
static_assert(kMixFactor * kMixInverse == 1u, "the vertex mix must be invertible");

__device__ __forceinline__ uint32_t
mix(vid_t v) {
	uint32_t x = v * kMixFactor;
	return x ^ (x >> 16);
}
__device__ __forceinline__ vid_t
unmix(uint32_t x) {
	return (x ^ (x >> 16)) * kMixInverse;
}
__device__ __forceinline__ unsigned long long
election_key(CsrView out, CsrView in, vid_t v) {
	unsigned long long product = (unsigned long long)(out.offsets[v + 1] - out.offsets[v]) *
	                             (unsigned long long)(in.offsets[v + 1] - in.offsets[v]);
	if (product > 0xFFFFFFFFull)
		product = 0xFFFFFFFFull;
	return (product << 32) | mix(v);
}
__device__ __forceinline__ vid_t
elected(unsigned long long key) {
	return unmix(uint32_t(key));
}

// Sets flag in v's status byte; true for the one caller that set it. There are no byte atomics:
// the atomic goes to the aligned word holding the byte (the status array is padded to words).
__device__ __forceinline__ bool
try_flag(uint8_t *status, vid_t v, uint8_t flag) {
	if (status[v] & flag)
		return false;
	uint32_t *word = reinterpret_cast<uint32_t *>(status + (v & ~3u));
	uint32_t bit = uint32_t(flag) << ((v & 3u) * 8);
	return !(atomicOr(word, bit) & bit);
}

struct SccView {
	CsrView out, in;
	uint8_t *status;
	vid_t *color;
	vid_t *label; // a vertex of the SCC, once removed
};

__device__ __forceinline__ bool
live_in(const SccView &s, vid_t w, vid_t c) {
	return !(s.status[w] & kRemoved) && s.color[w] == c;
}

__device__ bool
has_neighbour(const SccView &s, CsrView g, vid_t v, vid_t c) {
	for (eid_t e = g.offsets[v]; e < g.offsets[v + 1]; e++) {
		vid_t w = g.targets[e];
		if (w != v && live_in(s, w, c))
			return true;
	}
	return false;
}

// One Trim pass. Removals in the same pass may enable others early; that is still right, since a
// vertex removed by Trim is an SCC of its own, so neighbours it leaves without edges are too.
__global__ void
trim_kernel(SccView s, unsigned long long *removed) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= s.out.vertices)
		return;
	vid_t v = vid_t(index);
	if (s.status[v] & kRemoved)
		return;
	vid_t c = s.color[v];
	if (has_neighbour(s, s.out, v, c) && has_neighbour(s, s.in, v, c))
		return;
	s.status[v] = kRemoved;
	s.label[v] = v;
	atomicAdd(removed, 1ull);
}

// The only live neighbour w != v in v's subgraph, kInvalid when none, kMany when several
// (duplicate edges to w count once).
__device__ vid_t
only_neighbour(const SccView &s, CsrView g, vid_t v, vid_t c) {
	vid_t found = kInvalid;
	for (eid_t e = g.offsets[v]; e < g.offsets[v + 1]; e++) {
		vid_t w = g.targets[e];
		if (w == v || w == found || !live_in(s, w, c))
			continue;
		if (found != kInvalid)
			return kMany;
		found = w;
	}
	return found;
}

__global__ void
only_neighbours(SccView s, vid_t *only_out, vid_t *only_in) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= s.out.vertices)
		return;
	vid_t v = vid_t(index);
	if (s.status[v] & kRemoved) {
		only_out[v] = only_in[v] = kInvalid;
		return;
	}
	vid_t c = s.color[v];
	only_out[v] = only_neighbour(s, s.out, v, c);
	only_in[v] = only_neighbour(s, s.in, v, c);
}

// Trim2: when v's only out-neighbour is w and w's only out-neighbour is v (or the same with
// in-neighbours), every cycle through v runs through w alone, so {v, w} is an SCC. The smaller
// vertex of the pair writes both.
__global__ void
trim2_kernel(SccView s, const vid_t *only_out, const vid_t *only_in) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= s.out.vertices)
		return;
	vid_t v = vid_t(index);
	vid_t w = only_out[v];
	if (!(w < kMany && w > v && only_out[w] == v)) {
		w = only_in[v];
		if (!(w < kMany && w > v && only_in[w] == v))
			return;
	}
	s.status[v] = s.status[w] = kRemoved;
	s.label[v] = s.label[w] = v;
}

// Weakly connected components of the live subgraphs by hooking roots (parent ids only decrease,
// so there are no cycles) and pointer jumping.
__device__ __forceinline__ vid_t
root_of(const vid_t *parent, vid_t v) {
	vid_t p = parent[v];
	while (p != v) {
		v = p;
		p = parent[v];
	}
	return v;
}

__global__ void
wcc_init(SccView s, vid_t *parent) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index < s.out.vertices)
		parent[index] = vid_t(index);
}

__global__ void
wcc_hook(SccView s, vid_t *parent, uint32_t *changed) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= s.out.vertices)
		return;
	vid_t u = vid_t(index);
	if (s.status[u] & kRemoved)
		return;
	vid_t c = s.color[u];
	for (eid_t e = s.out.offsets[u]; e < s.out.offsets[u + 1]; e++) {
		vid_t w = s.out.targets[e];
		if (w == u || !live_in(s, w, c))
			continue;
		vid_t ru = root_of(parent, u), rw = root_of(parent, w);
		if (ru == rw)
			continue;
		// If the larger root was hooked meanwhile, the next iteration sees the edge again.
		atomicMin(&parent[ru > rw ? ru : rw], ru < rw ? ru : rw);
		*changed = 1;
	}
}

// Each live vertex's subgraph becomes its WCC, named by the WCC's smallest vertex.
__global__ void
wcc_colors(SccView s, const vid_t *parent) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= s.out.vertices)
		return;
	vid_t v = vid_t(index);
	if (!(s.status[v] & kRemoved))
		s.color[v] = root_of(parent, v);
}

// New subgraphs after a round: FW-only, BW-only and the rest of each old one. Each class elects a
// member, whose id becomes its color. slots holds 3 arrays of n keys, indexed by old color.
__device__ __forceinline__ unsigned
class_of(uint8_t status) {
	return (status & kForward) ? 0u : (status & kBackward) ? 1u : 2u;
}

__global__ void
split_elect(SccView s, unsigned long long *slots) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= s.out.vertices)
		return;
	vid_t v = vid_t(index);
	uint8_t st = s.status[v];
	if (st & kRemoved)
		return;
	atomicMax(&slots[size_t(class_of(st)) * s.out.vertices + s.color[v]], election_key(s.out, s.in, v));
}

__global__ void
split_assign(SccView s, const unsigned long long *slots) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= s.out.vertices)
		return;
	vid_t v = vid_t(index);
	uint8_t st = s.status[v];
	if (st & kRemoved)
		return;
	s.color[v] = elected(slots[size_t(class_of(st)) * s.out.vertices + s.color[v]]);
	s.status[v] = 0;
}

// Pivots: one per subgraph, the largest key; the subgraph is then renamed after its pivot, so
// that an SCC found from it is labelled by a vertex inside it.
__global__ void
pivot_elect(SccView s, unsigned long long *slots) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= s.out.vertices)
		return;
	vid_t v = vid_t(index);
	if (!(s.status[v] & kRemoved))
		atomicMax(&slots[s.color[v]], election_key(s.out, s.in, v));
}

__global__ void
pivot_mark(SccView s, const unsigned long long *slots, vid_t *pivots, uint32_t *pivot_count) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= s.out.vertices)
		return;
	vid_t v = vid_t(index);
	if (s.status[v] & kRemoved)
		return;
	vid_t p = elected(slots[s.color[v]]);
	s.color[v] = p;
	if (p == v) {
		s.status[v] = kForward | kBackward;
		pivots[atomicAdd(pivot_count, 1u)] = v;
	}
}

// FW and BW intersect in the pivot's SCC. big is set when one of them passes threshold vertices.
__global__ void
update_kernel(SccView s, uint32_t *size, uint32_t threshold, uint32_t *big) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= s.out.vertices)
		return;
	vid_t v = vid_t(index);
	if (s.status[v] != (kForward | kBackward))
		return;
	vid_t c = s.color[v];
	s.status[v] = kRemoved;
	s.label[v] = c;
	if (atomicAdd(&size[c], 1u) + 1 == threshold)
		*big = 1;
}

struct ReachOp {
	SccView s;
	uint8_t flag;
	__device__ bool
	operator()(vid_t u, vid_t w) const {
		return live_in(s, w, s.color[u]) && try_flag(s.status, w, flag);
	}
};

struct NarrowState {
	vid_t count;
	uint32_t levels;
	uint32_t swapped; // the frontier ended in the second buffer
};

// Levels of one reachability while the frontier stays narrow: a warp per frontier vertex, its
// lanes over the edges (a hub's edges are spread, a path's single vertex costs one warp). The
// block's counters rotate over three slots, so the one thread 0 clears was last read two levels
// ago, behind a barrier.
__global__ void
__launch_bounds__(kNarrowThreads)
    narrow_reach(SccView s, CsrView g, uint8_t flag, vid_t *a, vid_t *b, NarrowState *state) {
	__shared__ vid_t next_count[3];
	vid_t count = state->count;
	vid_t *cur = a, *next = b;
	uint32_t levels = 0, swapped = 0;
	if (threadIdx.x == 0)
		next_count[0] = 0;
	__syncthreads();
	unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
	for (uint32_t step = 0; step < kNarrowLevels && count > 0 && count <= kNarrowCapacity; step++) {
		unsigned slot = step % 3;
		if (threadIdx.x == 0)
			next_count[(step + 1) % 3] = 0;
		for (vid_t i = warp; i < count; i += warps) {
			vid_t u = cur[i];
			vid_t c = s.color[u];
			for (eid_t e = g.offsets[u] + lane; e < g.offsets[u + 1]; e += 32) {
				vid_t w = g.targets[e];
				if (live_in(s, w, c) && try_flag(s.status, w, flag))
					next[atomicAdd(&next_count[slot], 1u)] = w;
			}
		}
		__syncthreads();
		count = next_count[slot];
		vid_t *t = cur;
		cur = next;
		next = t;
		swapped ^= 1;
		levels++;
	}
	if (threadIdx.x == 0)
		*state = {count, levels, swapped};
}

using cuda_host::now_ms;

// Everything one run holds on the device, freed together on every path out.
struct SccState {
	SccState(const Csr &graph, cudaStream_t stream)
	    : out(DeviceCsr::upload(graph, stream)), ws(vid_t(graph.vertex_count())),
	      status((graph.vertex_count() + 3) & ~size_t(3)), color(graph.vertex_count()), label(graph.vertex_count()),
	      slots(3 * graph.vertex_count()), size(graph.vertex_count()), pivots(graph.vertex_count()),
	      a(graph.vertex_count()), b(graph.vertex_count()), edges(graph.edge_count()), counters(4), host(4), narrow(1),
	      host_narrow(1) {
	}
	static size_t
	bytes_for(size_t n, size_t m) {
		// Two CSRs, the frontier workspace, status, 6 arrays of n words, 3n keys, an edge frontier.
		return 2 * DeviceCsr::bytes_for(n, m) + FrontierWorkspace::bytes_for(n) + n + 6 * n * sizeof(vid_t) +
		       3 * n * sizeof(unsigned long long) + m * sizeof(vid_t);
	}
	SccView
	view() const {
		return {out.view(), in.view(), status.data(), color.data(), label.data()};
	}

	DeviceCsr out, in;
	FrontierWorkspace ws;
	DeviceBuffer<uint8_t> status;
	DeviceBuffer<vid_t> color, label;
	DeviceBuffer<unsigned long long> slots;
	DeviceBuffer<uint32_t> size;
	DeviceBuffer<vid_t> pivots, a, b; // a and b: frontiers; Trim2's neighbours, WCC parents, minima
	DeviceBuffer<vid_t> edges;        // advance's edge frontier
	// 0: Trim's removed count (64 bits), 2: pivot count, 3: big SCC / WCC changed
	DeviceBuffer<uint32_t> counters;
	PinnedBuffer<uint32_t> host;
	DeviceBuffer<NarrowState> narrow;
	PinnedBuffer<NarrowState> host_narrow;
};

class SccRun {
public:
	SccRun(SccState &st, cudaStream_t stream, GpuSccTimings &t) : st_(st), s_(stream), t_(t) {
		n_ = st.out.vertex_count();
	}

	void
	run() {
		SccView v = st_.view();
		CUDA_CHECK(cudaMemsetAsync(st_.status.data(), 0, st_.status.bytes(), s_));
		CUDA_CHECK(cudaMemsetAsync(st_.color.data(), 0, st_.color.bytes(), s_));
		CUDA_CHECK(cudaMemsetAsync(st_.counters.data(), 0, st_.counters.bytes(), s_));
		// Sizes are counted per pivot, and a pivot's SCC is found once: no reset between rounds.
		CUDA_CHECK(cudaMemsetAsync(st_.size.data(), 0, st_.size.bytes(), s_));
		bool phase2 = false;
		for (;;) {
			poll_cancel();
			double t0 = now_ms();
			trim(v);
			t_.trim_ms += now_ms() - t0;
			double t1 = now_ms();
			if (!phase2 && (big_found_ || t_.phase1_rounds == kPhase1MaxRounds)) {
				phase2 = true;
				trim2(v);
				wcc(v);
				t_.trim2_wcc_ms += now_ms() - t1;
				t1 = now_ms();
			} else if (phase2 && t_.phase2_rounds > 0 && t_.phase2_rounds % kWccRounds == 0) {
				wcc(v);
			}
			uint32_t pivots = elect_pivots(v);
			if (pivots == 0)
				break;
			reach(v, st_.out.view(), kForward, pivots);
			reach(v, st_.in.view(), kBackward, pivots);
			update_kernel<<<blocks_for(n_), kBlockThreads, 0, s_>>>(v, st_.size.data(), uint32_t(n_ / 100 + 1),
			                                                        st_.counters.data() + 3);
			CUDA_CHECK_LAUNCH();
			split(v);
			CUDA_CHECK(cudaMemcpyAsync(st_.host.data(), st_.counters.data(), 4 * sizeof(uint32_t),
			                           cudaMemcpyDeviceToHost, s_));
			CUDA_CHECK(cudaStreamSynchronize(s_));
			big_found_ = big_found_ || st_.host[3] != 0;
			(phase2 ? t_.phase2_rounds : t_.phase1_rounds)++;
			(phase2 ? t_.phase2_ms : t_.phase1_ms) += now_ms() - t1;
		}
	}

private:
	void
	clear_counters() {
		CUDA_CHECK(cudaMemsetAsync(st_.counters.data(), 0, 3 * sizeof(uint32_t), s_));
	}

	void
	trim(const SccView &v) {
		auto *removed = reinterpret_cast<unsigned long long *>(st_.counters.data());
		for (;;) {
			clear_counters();
			trim_kernel<<<blocks_for(n_), kBlockThreads, 0, s_>>>(v, removed);
			CUDA_CHECK_LAUNCH();
			CUDA_CHECK(
			    cudaMemcpyAsync(st_.host.data(), removed, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s_));
			CUDA_CHECK(cudaStreamSynchronize(s_));
			uint64_t count = *reinterpret_cast<const unsigned long long *>(st_.host.data());
			t_.trim_passes++;
			if (count == 0 || count * kTrimStop < n_)
				return;
			poll_cancel();
		}
	}

	void
	trim2(const SccView &v) {
		only_neighbours<<<blocks_for(n_), kBlockThreads, 0, s_>>>(v, st_.a.data(), st_.b.data());
		CUDA_CHECK_LAUNCH();
		trim2_kernel<<<blocks_for(n_), kBlockThreads, 0, s_>>>(v, st_.a.data(), st_.b.data());
		CUDA_CHECK_LAUNCH();
	}

	void
	wcc(const SccView &v) {
		vid_t *parent = st_.a.data();
		wcc_init<<<blocks_for(n_), kBlockThreads, 0, s_>>>(v, parent);
		CUDA_CHECK_LAUNCH();
		for (;;) {
			poll_cancel();
			CUDA_CHECK(cudaMemsetAsync(st_.counters.data() + 3, 0, sizeof(uint32_t), s_));
			wcc_hook<<<blocks_for(n_), kBlockThreads, 0, s_>>>(v, parent, st_.counters.data() + 3);
			CUDA_CHECK_LAUNCH();
			CUDA_CHECK(cudaMemcpyAsync(st_.host.data() + 3, st_.counters.data() + 3, sizeof(uint32_t),
			                           cudaMemcpyDeviceToHost, s_));
			CUDA_CHECK(cudaStreamSynchronize(s_));
			t_.wcc_iterations++;
			if (st_.host[3] == 0)
				break;
		}
		wcc_colors<<<blocks_for(n_), kBlockThreads, 0, s_>>>(v, parent);
		CUDA_CHECK_LAUNCH();
	}

	void
	split(const SccView &v) {
		CUDA_CHECK(cudaMemsetAsync(st_.slots.data(), 0, st_.slots.bytes(), s_));
		split_elect<<<blocks_for(n_), kBlockThreads, 0, s_>>>(v, st_.slots.data());
		CUDA_CHECK_LAUNCH();
		split_assign<<<blocks_for(n_), kBlockThreads, 0, s_>>>(v, st_.slots.data());
		CUDA_CHECK_LAUNCH();
	}

	// Marks one pivot per subgraph as visited both ways and lists them in st_.pivots.
	uint32_t
	elect_pivots(const SccView &v) {
		clear_counters();
		CUDA_CHECK(cudaMemsetAsync(st_.slots.data(), 0, n_ * sizeof(unsigned long long), s_));
		pivot_elect<<<blocks_for(n_), kBlockThreads, 0, s_>>>(v, st_.slots.data());
		CUDA_CHECK_LAUNCH();
		pivot_mark<<<blocks_for(n_), kBlockThreads, 0, s_>>>(v, st_.slots.data(), st_.pivots.data(),
		                                                     st_.counters.data() + 2);
		CUDA_CHECK_LAUNCH();
		CUDA_CHECK(cudaMemcpyAsync(st_.host.data() + 2, st_.counters.data() + 2, sizeof(uint32_t),
		                           cudaMemcpyDeviceToHost, s_));
		CUDA_CHECK(cudaStreamSynchronize(s_));
		return st_.host[2];
	}

	// Sets flag on every vertex its subgraph's pivot reaches along g.
	void
	reach(const SccView &v, CsrView g, uint8_t flag, vid_t count) {
		vid_t *cur = st_.a.data(), *next = st_.b.data();
		CUDA_CHECK(cudaMemcpyAsync(cur, st_.pivots.data(), count * sizeof(vid_t), cudaMemcpyDeviceToDevice, s_));
		ReachOp op{v, flag};
		while (count > 0) {
			poll_cancel();
			if (count <= kNarrowCapacity) {
				st_.host_narrow[0] = {count, 0, 0};
				CUDA_CHECK(cudaMemcpyAsync(st_.narrow.data(), st_.host_narrow.data(), sizeof(NarrowState),
				                           cudaMemcpyHostToDevice, s_));
				narrow_reach<<<1, kNarrowThreads, 0, s_>>>(v, g, flag, cur, next, st_.narrow.data());
				CUDA_CHECK_LAUNCH();
				CUDA_CHECK(cudaMemcpyAsync(st_.host_narrow.data(), st_.narrow.data(), sizeof(NarrowState),
				                           cudaMemcpyDeviceToHost, s_));
				CUDA_CHECK(cudaStreamSynchronize(s_));
				NarrowState r = st_.host_narrow[0];
				count = r.count;
				t_.reach_levels += r.levels;
				if (r.swapped)
					std::swap(cur, next);
				continue;
			}
			DegreeBins bins = bin_frontier(g, cur, count, st_.ws, s_);
			advance(g, cur, bins, st_.edges.data(), op, st_.ws, s_);
			count = compact(st_.edges.data(), bins.edges, next, st_.ws, s_);
			std::swap(cur, next);
			t_.reach_levels++;
		}
	}

	SccState &st_;
	cudaStream_t s_;
	GpuSccTimings &t_;
	size_t n_;
	bool big_found_ = false;
};

__global__ void
smallest_members(const vid_t *label, vid_t n, vid_t *smallest) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v < n)
		atomicMin(&smallest[label[v]], vid_t(v));
}

__global__ void
relabel(vid_t *label, vid_t n, const vid_t *smallest) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v < n)
		label[v] = smallest[label[v]];
}

// The numbering on the device. Components get dense indices in the order of their smallest
// vertices (a scan over the vertices that are their own label), and are then numbered by
// level-synchronous Kahn over the input graph's edges (duplicates count once each in the in-degree
// and once each in its decrements, so no condensed edge list is needed).
__global__ void
root_flags(const vid_t *label, vid_t n, uint32_t *flag) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v < n)
		flag[v] = label[v] == vid_t(v);
}

// roots_upto: inclusive prefix sum of root_flags, so a root's dense index is its count minus one.
// keys gets a copy of comp for the sort, which consumes its input buffers.
__global__ void
dense_components(const vid_t *label, const uint32_t *roots_upto, vid_t n, vid_t *comp, vid_t *keys, vid_t *iota) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v >= n)
		return;
	comp[v] = keys[v] = roots_upto[label[v]] - 1;
	iota[v] = vid_t(v);
}

// First position of each component in the vertices sorted by component.
__global__ void
component_starts(const vid_t *sorted, vid_t n, vid_t *first) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < n && (i == 0 || sorted[i] != sorted[i - 1]))
		first[sorted[i]] = vid_t(i);
}

__global__ void
count_indegrees(CsrView g, const vid_t *comp, uint32_t *indegree) {
	size_t index = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (index >= g.vertices)
		return;
	vid_t u = vid_t(index), c = comp[u];
	for (eid_t e = g.offsets[u]; e < g.offsets[u + 1]; e++) {
		vid_t d = comp[g.targets[e]];
		if (d != c)
			atomicAdd(&indegree[d], 1u);
	}
}

// Lists the components without in-edges, in any order (each level is sorted before numbering).
__global__ void
sources(const uint32_t *indegree, vid_t k, vid_t *frontier, uint32_t *count) {
	size_t c = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (c < k && indegree[c] == 0)
		frontier[atomicAdd(count, 1u)] = vid_t(c);
}

// Numbers one level's components (sorted ascending, so by smallest vertex) and lists their sizes.
__global__ void
number_level(const vid_t *frontier, vid_t count, uint32_t base, const vid_t *first, vid_t k, vid_t n, uint32_t *number,
             vid_t *size) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= count)
		return;
	vid_t c = frontier[i];
	number[c] = base + uint32_t(i);
	size[i] = (c + 1 < k ? first[c + 1] : n) - first[c];
}

// The members of one level's components, a thread per member, which finds its component by binary
// search over the inclusive ends of their sizes: a giant component is spread like the rest.
__global__ void
expand_level(const vid_t *frontier, const vid_t *ends, vid_t count, vid_t total, const vid_t *first,
             const vid_t *members, vid_t *out) {
	size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (j >= total)
		return;
	vid_t lo = 0, hi = count - 1;
	while (lo < hi) {
		vid_t mid = lo + (hi - lo) / 2;
		if (ends[mid] > j)
			hi = mid;
		else
			lo = mid + 1;
	}
	vid_t start = lo ? ends[lo - 1] : 0;
	out[j] = members[first[frontier[lo]] + (vid_t(j) - start)];
}

// Removes an edge between components from its target's in-degree; true for the one edge that
// brings it to zero, so each component enters the next level once.
struct ReleaseOp {
	const vid_t *comp;
	uint32_t *indegree;
	__device__ bool
	operator()(vid_t u, vid_t w) const {
		vid_t d = comp[w];
		return d != comp[u] && atomicSub(&indegree[d], 1u) == 1u;
	}
};

__global__ void
components_of(const vid_t *vertices, vid_t count, const vid_t *comp, vid_t *out) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count)
		out[i] = comp[vertices[i]];
}

__global__ void
vertex_numbers(const vid_t *comp, const uint32_t *number, vid_t n, uint32_t *out) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v < n)
		out[v] = number[comp[v]];
}

// The sort is stable over ascending vertex ids, so a component's first member is its smallest.
__global__ void
smallest_by_number(const vid_t *first, const vid_t *members, const uint32_t *number, vid_t k, vid_t *out) {
	size_t c = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (c < k)
		out[number[c]] = members[first[c]];
}

// Each device level costs a few launches and host round trips (tens of microseconds), the host's
// Kahn about a nanosecond per vertex or edge: a condensation deeper than this many levels (a long
// chain of small components) is numbered on the host, so that the wasted levels stay a small part
// of the host's cost.
constexpr size_t kMinDeviceLevels = 8;
constexpr size_t kItemsPerDeviceLevel = size_t(1) << 16;

// Numbers the components of label (each vertex's smallest SCC member) on the device: Kahn level by
// level, each level's components in ascending smallest vertex, so the numbering is deterministic.
// Returns false, label untouched, when the condensation is too deep.
bool
number_on_device(SccState &st, cudaStream_t s, Components &result) {
	size_t n = st.out.vertex_count(), m = st.out.edge_count();
	const size_t max_levels = kMinDeviceLevels + (n + m) / kItemsPerDeviceLevel;
	vid_t nv = vid_t(n);
	const vid_t *label = st.label.data();
	vid_t *comp = st.color.data();
	uint32_t *flags = st.size.data(), *indegree = st.size.data();
	vid_t *roots_upto = st.pivots.data(), *frontier = st.pivots.data();
	// slots holds 6n words: the per-component numbers, the sort's four buffers and the starts.
	vid_t *words = reinterpret_cast<vid_t *>(st.slots.data());
	uint32_t *number = words;
	cub::DoubleBuffer<vid_t> keys(words + n, words + 2 * n), values(words + 3 * n, words + 4 * n);
	vid_t *first = words + 5 * n;
	TempStorage &temp = st.ws.temp;

	root_flags<<<blocks_for(n), kBlockThreads, 0, s>>>(label, nv, flags);
	CUDA_CHECK_LAUNCH();
	size_t bytes = 0;
	CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, flags, roots_upto, int64_t(n), s));
	CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.get(bytes), bytes, flags, roots_upto, int64_t(n), s));
	dense_components<<<blocks_for(n), kBlockThreads, 0, s>>>(label, roots_upto, nv, comp, keys.Current(),
	                                                         values.Current());
	CUDA_CHECK_LAUNCH();
	CUDA_CHECK(cudaMemcpyAsync(st.host.data(), roots_upto + n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(cudaStreamSynchronize(s));
	const vid_t k = st.host[0];
	int bits = 1;
	while (bits < 32 && ((k - 1) >> bits) != 0)
		bits++;
	CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, int64_t(n), 0, bits, s));
	CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(bytes), bytes, keys, values, int64_t(n), 0, bits, s));
	const vid_t *members = values.Current();
	component_starts<<<blocks_for(n), kBlockThreads, 0, s>>>(keys.Current(), nv, first);
	CUDA_CHECK_LAUNCH();
	// Free from here on: the sorted keys and both sort alternates.
	vid_t *sorted_frontier = keys.Current(), *sizes = keys.Alternate(), *ends = values.Alternate();

	CUDA_CHECK(cudaMemsetAsync(indegree, 0, k * sizeof(uint32_t), s));
	count_indegrees<<<blocks_for(n), kBlockThreads, 0, s>>>(st.out.view(), comp, indegree);
	CUDA_CHECK_LAUNCH();
	CUDA_CHECK(cudaMemsetAsync(st.counters.data(), 0, sizeof(uint32_t), s));
	sources<<<blocks_for(k), kBlockThreads, 0, s>>>(indegree, k, frontier, st.counters.data());
	CUDA_CHECK_LAUNCH();
	CUDA_CHECK(cudaMemcpyAsync(st.host.data(), st.counters.data(), sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(cudaStreamSynchronize(s));
	vid_t count = st.host[0];
	uint32_t numbered = 0;
	CsrView g = st.out.view();
	ReleaseOp op{comp, indegree};
	for (size_t level = 0; count > 0; level++) {
		if (level == max_levels)
			return false;
		poll_cancel();
		cub::DoubleBuffer<vid_t> level_keys(frontier, sorted_frontier);
		CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, level_keys, int64_t(count), 0, bits, s));
		CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(bytes), bytes, level_keys, int64_t(count), 0, bits, s));
		const vid_t *sorted = level_keys.Current();
		number_level<<<blocks_for(count), kBlockThreads, 0, s>>>(sorted, count, numbered, first, k, nv, number, sizes);
		CUDA_CHECK_LAUNCH();
		CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, sizes, ends, int64_t(count), s));
		CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.get(bytes), bytes, sizes, ends, int64_t(count), s));
		CUDA_CHECK(cudaMemcpyAsync(st.host.data(), ends + count - 1, sizeof(vid_t), cudaMemcpyDeviceToHost, s));
		CUDA_CHECK(cudaStreamSynchronize(s));
		vid_t total = st.host[0];
		expand_level<<<blocks_for(total), kBlockThreads, 0, s>>>(sorted, ends, count, total, first, members,
		                                                         st.a.data());
		CUDA_CHECK_LAUNCH();
		numbered += count;
		// The sorted level is not read past this point, so the next one may overwrite frontier.
		DegreeBins bins = bin_frontier(g, st.a.data(), total, st.ws, s);
		advance(g, st.a.data(), bins, st.edges.data(), op, st.ws, s);
		count = compact(st.edges.data(), bins.edges, st.b.data(), st.ws, s);
		if (count == 0)
			break;
		components_of<<<blocks_for(count), kBlockThreads, 0, s>>>(st.b.data(), count, comp, frontier);
		CUDA_CHECK_LAUNCH();
	}
	if (numbered != k)
		throw Error(ErrorKind::internal, "GPU SCC: the components found do not form a DAG");

	vertex_numbers<<<blocks_for(n), kBlockThreads, 0, s>>>(comp, number, nv, st.a.data());
	CUDA_CHECK_LAUNCH();
	smallest_by_number<<<blocks_for(k), kBlockThreads, 0, s>>>(first, members, number, k, st.b.data());
	CUDA_CHECK_LAUNCH();
	result.of_vertex.resize(n);
	result.smallest_vertex.resize(k);
	CUDA_CHECK(cudaMemcpyAsync(result.of_vertex.data(), st.a.data(), n * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(
	    cudaMemcpyAsync(result.smallest_vertex.data(), st.b.data(), k * sizeof(vid_t), cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(cudaStreamSynchronize(s));
	return true;
}

// The host numbering, for condensations too deep for number_on_device(): Kahn's algorithm with the
// queue seeded in ascending smallest vertex, so the numbering is deterministic. Each component's
// out-edges are its members' edges, so no condensed CSR is built.
Components
number_components(const Csr &graph, const std::vector<vid_t> &smallest_of) {
	size_t n = graph.vertex_count();
	std::vector<uint32_t> index(n);
	std::vector<vid_t> smallest;
	for (size_t v = 0; v < n; v++)
		if (smallest_of[v] == v) {
			index[v] = uint32_t(smallest.size());
			smallest.push_back(vid_t(v));
		}
	size_t k = smallest.size();
	std::vector<uint32_t> comp(n);
	std::vector<eid_t> first(k + 1, 0);
	for (size_t v = 0; v < n; v++) {
		comp[v] = index[smallest_of[v]];
		first[comp[v] + 1]++;
	}
	for (size_t c = 0; c < k; c++)
		first[c + 1] += first[c];
	std::vector<vid_t> members(n);
	std::vector<eid_t> fill(first.begin(), first.end() - 1);
	std::vector<uint32_t> indegree(k, 0);
	for (size_t v = 0; v < n; v++) {
		members[fill[comp[v]]++] = vid_t(v);
		for (const vid_t *w = graph.begin(vid_t(v)); w != graph.end(vid_t(v)); w++)
			if (comp[*w] != comp[v])
				indegree[comp[*w]]++;
	}
	std::vector<uint32_t> queue;
	queue.reserve(k);
	for (size_t c = 0; c < k; c++)
		if (indegree[c] == 0)
			queue.push_back(uint32_t(c));
	std::vector<uint32_t> number(k);
	for (size_t head = 0; head < queue.size(); head++) {
		if ((head & 0xFFFF) == 0)
			poll_cancel();
		uint32_t c = queue[head];
		number[c] = uint32_t(head);
		for (eid_t i = first[c]; i < first[c + 1]; i++) {
			vid_t v = members[i];
			for (const vid_t *w = graph.begin(v); w != graph.end(v); w++)
				if (comp[*w] != c && --indegree[comp[*w]] == 0)
					queue.push_back(comp[*w]);
		}
	}
	if (queue.size() != k)
		throw Error(ErrorKind::internal, "GPU SCC: the components found do not form a DAG");
	Components result;
	result.of_vertex.resize(n);
	for (size_t v = 0; v < n; v++)
		result.of_vertex[v] = number[comp[v]];
	result.smallest_vertex.resize(k);
	for (size_t c = 0; c < k; c++)
		result.smallest_vertex[number[c]] = smallest[c];
	return result;
}

} // namespace

Components
strongly_connected_components_gpu(const Csr &graph, GpuSccTimings *timings) {
	size_t n = graph.vertex_count(), m = graph.edge_count();
	double t0 = now_ms();
	require_device("GPU SCC");
	GpuSccTimings local;
	GpuSccTimings &t = timings ? *timings : local;
	t = GpuSccTimings{};
	if (n == 0)
		return Components{};
	// The in-edges' transposition needs its scratch only while it runs, before the SCC arrays exist.
	require_device_memory(
	    std::max(SccState::bytes_for(n, m), 2 * DeviceCsr::bytes_for(n, m) + DeviceCsr::transpose_peak_bytes(n, m)),
	    "the graph", "SCC", "compute the components on the CPU");

	Stream stream;
	cudaStream_t s = stream.get();
	SccState st(graph, s);
	{
		TransposeScratch scratch;
		st.out.transpose_into(st.in, scratch, st.ws.temp, s);
		stream.synchronize();
	}
	t.upload_ms = now_ms() - t0;

	SccRun(st, s, t).run();

	double t1 = now_ms();
	vid_t *smallest = st.a.data();
	CUDA_CHECK(cudaMemsetAsync(smallest, 0xFF, n * sizeof(vid_t), s));
	smallest_members<<<blocks_for(n), kBlockThreads, 0, s>>>(st.label.data(), vid_t(n), smallest);
	CUDA_CHECK_LAUNCH();
	relabel<<<blocks_for(n), kBlockThreads, 0, s>>>(st.label.data(), vid_t(n), smallest);
	CUDA_CHECK_LAUNCH();
	Components result;
	if (!number_on_device(st, s, result)) {
		std::vector<vid_t> smallest_of(n);
		CUDA_CHECK(cudaMemcpyAsync(smallest_of.data(), st.label.data(), n * sizeof(vid_t), cudaMemcpyDeviceToHost, s));
		stream.synchronize();
		result = number_components(graph, smallest_of);
	}
	t.numbering_ms = now_ms() - t1;
	return result;
}

} // namespace grail
