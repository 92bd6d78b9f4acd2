// GPU chordless-cycle counting: the two stages of Jradi et al. (papers/gpu-chordless-cycles.txt
// §4) on the undirected simple view, vertices renumbered by the CPU's degree labelling so that
// the GPU counts exactly the cycles the CPU search finds:
//   - stage 1: every initial triplet <x, u, y> (u < x < y, x and y neighbours of u) in parallel,
//     one thread per (u, x); adjacent x, y close a triangle, the others become chordless paths;
//   - stage 2: every chordless path is expanded in parallel, one thread per path, a path being
//     the paper's bitmap of its vertices plus its first (x), second (u) and last vertex. A
//     neighbour v > u of the last vertex that is not on the path and whose only path neighbours
//     are the last vertex (and possibly x) extends the path, or closes a cycle if it is adjacent
//     to x.
// Beyond the paper, the path set lives in a fixed device-memory budget: one stack of paths, in
// segments of one length each, always expanding the top (longest) segment, in chunks as large as
// the free room allows and one path at a time when it is tight. One path at a time is a
// depth-first search, whose stack holds at most n paths above where it started (see
// PathStack::choose_chunk), so any graph within the bitmap limit completes within the budget.
#include "check.cuh"
#include "chordless.hpp"
#include "device_csr.cuh"
#include "error.hpp"
#include "gpu.hpp"
#include "host_util.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace grail {

using namespace cuda;

namespace {

constexpr int kThreads = 256;
constexpr size_t kDefaultBudget = size_t(512) << 20;

// A path record: kHeader words, then the bitmap of its vertices (one bit per search vertex).
// Records are arrays of 32-bit words so that the bitmap width can follow the graph's size.
enum Field : uint32_t { f_first, f_second, f_last, f_length, kHeader };

unsigned
blocks_for(size_t items) {
	// Grid-stride loops below: a capped grid still covers every item.
	return unsigned(std::min<size_t>((items + kThreads - 1) / kThreads, 4096));
}

__device__ bool
has_bit(const uint32_t *bitmap, vid_t v) {
	return bitmap[v >> 5] >> (v & 31) & 1u;
}

// Whether x - y is an edge: binary search of x's sorted row.
__device__ bool
adjacent(CsrView g, vid_t x, vid_t y) {
	eid_t lo = g.offsets[x], hi = g.offsets[x + 1];
	while (lo < hi) {
		eid_t mid = lo + (hi - lo) / 2;
		vid_t w = g.targets[mid];
		if (w == y)
			return true;
		if (w < y)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

// Stage 1 over seed units [unit_begin, unit_end): a unit is the position in u's row of a
// neighbour x > u, and yields the triplets <x, u, y> for the neighbours y after x in that row.
// Triangles are counted into counts[3]; the other triplets become paths of length 3 (when
// `extend`) at out[0 ..), their number in *out_count.
__global__ void
seed_triplets(CsrView g, const vid_t *unit_u, const eid_t *unit_pos, size_t unit_begin, size_t unit_end, bool extend,
              uint32_t words, uint32_t *out, unsigned long long *out_count, unsigned long long *counts) {
	const uint32_t record = kHeader + words;
	unsigned long long triangles = 0;
	for (size_t i = unit_begin + size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < unit_end;
	     i += size_t(gridDim.x) * blockDim.x) {
		vid_t u = unit_u[i];
		eid_t pos = unit_pos[i];
		vid_t x = g.targets[pos];
		for (eid_t e = pos + 1; e < g.offsets[u + 1]; e++) {
			vid_t y = g.targets[e];
			if (adjacent(g, x, y)) {
				triangles++;
				continue;
			}
			if (!extend)
				continue;
			uint32_t *p = out + atomicAdd(out_count, 1ull) * record;
			p[f_first] = x;
			p[f_second] = u;
			p[f_last] = y;
			p[f_length] = 3;
			uint32_t *bits = p + kHeader;
			for (uint32_t k = 0; k < words; k++)
				bits[k] = 0;
			// Atomics-free: the record is this thread's alone.
			bits[x >> 5] |= 1u << (x & 31);
			bits[u >> 5] |= 1u << (u & 31);
			bits[y >> 5] |= 1u << (y & 31);
		}
	}
	if (triangles)
		atomicAdd(&counts[3], triangles);
}

// Stage 2 over `paths` paths of one length t at in[0 ..): cycles of length t + 1 are counted
// into counts[t + 1]; when `extend`, the chordless paths of length t + 1 go to out[0 ..), their
// number in *out_count.
__global__ void
expand_paths(CsrView g, const uint32_t *in, size_t paths, uint32_t length, bool extend, uint32_t words, uint32_t *out,
             unsigned long long *out_count, unsigned long long *counts) {
	const uint32_t record = kHeader + words;
	unsigned long long closed = 0;
	for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < paths; i += size_t(gridDim.x) * blockDim.x) {
		const uint32_t *p = in + i * record;
		const uint32_t *bits = p + kHeader;
		vid_t x = p[f_first], u = p[f_second], last = p[f_last];
		for (eid_t e = g.offsets[last]; e < g.offsets[last + 1]; e++) {
			vid_t v = g.targets[e];
			// u is the cycle's smallest label; a vertex on the path would not give a cycle.
			if (v <= u || has_bit(bits, v))
				continue;
			// v's path neighbours besides `last` may only be x: any other (u included) is a chord.
			bool near_first = false, chord = false;
			for (eid_t f = g.offsets[v]; f < g.offsets[v + 1] && !chord; f++) {
				vid_t w = g.targets[f];
				if (w == last)
					continue;
				if (w == x)
					near_first = true;
				else
					chord = has_bit(bits, w);
			}
			if (chord)
				continue;
			if (near_first) {
				closed++;
				continue;
			}
			if (!extend)
				continue;
			uint32_t *q = out + atomicAdd(out_count, 1ull) * record;
			q[f_first] = x;
			q[f_second] = u;
			q[f_last] = v;
			q[f_length] = length + 1;
			for (uint32_t k = 0; k < words; k++)
				q[kHeader + k] = bits[k];
			q[kHeader + (v >> 5)] |= 1u << (v & 31);
		}
	}
	if (closed)
		atomicAdd(&counts[length + 1], closed);
}

using cuda_host::mib;

// The host's view of the path stack: segments of paths of one length each, lengths increasing
// towards the top.
struct Segment {
	uint32_t length;
	size_t paths;
};

} // namespace

std::vector<uint64_t>
count_chordless_cycles_gpu(const Csr &graph, uint32_t max_length, size_t path_budget_bytes) {
	if (max_length < 3)
		throw Error(ErrorKind::invalid_input, "chordless cycles: max_length must be at least 3");
	const size_t n = graph.vertex_count();
	if (n > kGpuChordlessMaxVertices)
		throw Error(ErrorKind::limit_exceeded,
		            "GPU chordless cycles: the graph has " + std::to_string(n) + " vertices, the GPU search keeps " +
		                "each path as a bitmap of at most " + std::to_string(kGpuChordlessMaxVertices) + " vertices",
		            "count the cycles on the CPU");
	int devices = 0;
	if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
		cudaGetLastError();
		throw Error(ErrorKind::invalid_input, "no usable CUDA device for GPU chordless cycles");
	}
	if (n < 3)
		return {};

	// The search graph of the CPU (ChordlessCycleEnumerator::Search): the undirected simple view
	// renumbered by degree label, so that "smaller label" is "smaller index".
	Csr simple = undirected_simple(graph);
	std::vector<vid_t> label = degree_labelling(simple);
	Csr adj = relabelled(std::move(simple), label);

	// Seed units (stage 1) and how many triplets each can yield; the longest row bounds how
	// many paths one path can extend to (its last vertex's other neighbours).
	std::vector<vid_t> unit_u;
	std::vector<eid_t> unit_pos;
	std::vector<size_t> unit_yield;
	size_t max_degree = 0;
	for (vid_t u = 0; u < n; u++) {
		max_degree = std::max<size_t>(max_degree, adj.end(u) - adj.begin(u));
		const vid_t *above = std::upper_bound(adj.begin(u), adj.end(u), u);
		for (const vid_t *x = above; x + 1 < adj.end(u); x++) {
			unit_u.push_back(u);
			unit_pos.push_back(eid_t(x - adj.targets.data()));
			unit_yield.push_back(size_t(adj.end(u) - x - 1));
		}
	}
	if (unit_u.empty())
		return {}; // no vertex has two neighbours above it: no cycle
	const uint32_t top_length = uint32_t(std::min<size_t>(max_length, n));
	const size_t fanout = std::max<size_t>(max_degree, 1);

	// Path memory: the stack and the output of one step. The stack keeps `reserve` records free
	// for a depth-first run (n paths at most, see below) plus one step's output.
	const uint32_t words = uint32_t((n + 31) / 32);
	const size_t record = kHeader + words, record_bytes = record * sizeof(uint32_t);
	const size_t reserve = n + fanout;
	size_t budget = path_budget_bytes ? path_budget_bytes : kDefaultBudget;
	size_t free_bytes = 0, total_bytes = 0;
	CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
	if (!path_budget_bytes)
		budget = std::min(budget, free_bytes / 2);
	size_t out_capacity = std::max(fanout, budget / record_bytes / 5);
	size_t stack_capacity =
	    std::max(reserve + fanout, budget / record_bytes - std::min(budget / record_bytes, out_capacity));
	size_t need = (stack_capacity + out_capacity) * record_bytes + DeviceCsr::bytes_for(n, adj.edge_count()) +
	              unit_u.size() * (sizeof(vid_t) + sizeof(eid_t)) + (64 << 20);
	if (need > free_bytes)
		throw Error(ErrorKind::limit_exceeded,
		            "GPU chordless cycles need about " + mib(need) + " of GPU memory, " + mib(free_bytes) + " are free",
		            "count the cycles on the CPU");

	Stream stream;
	cudaStream_t s = stream.get();
	DeviceCsr dadj = DeviceCsr::upload(adj, s);
	DeviceBuffer<vid_t> d_unit_u(unit_u.size());
	DeviceBuffer<eid_t> d_unit_pos(unit_pos.size());
	CUDA_CHECK(cudaMemcpyAsync(d_unit_u.data(), unit_u.data(), d_unit_u.bytes(), cudaMemcpyHostToDevice, s));
	CUDA_CHECK(cudaMemcpyAsync(d_unit_pos.data(), unit_pos.data(), d_unit_pos.bytes(), cudaMemcpyHostToDevice, s));
	DeviceBuffer<uint32_t> stack(stack_capacity * record), out(out_capacity * record);
	DeviceBuffer<unsigned long long> counts(top_length + 1), out_count(1);
	PinnedBuffer<unsigned long long> host_count(1);
	CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, counts.bytes(), s));
	CsrView g = dadj.view();

	// Runs one kernel that appends to `out`, and returns how many paths it wrote.
	auto produced = [&](auto launch) {
		CUDA_CHECK(cudaMemsetAsync(out_count.data(), 0, sizeof(unsigned long long), s));
		launch();
		CUDA_CHECK_LAUNCH();
		CUDA_CHECK(cudaMemcpyAsync(host_count.data(), out_count.data(), sizeof(unsigned long long),
		                           cudaMemcpyDeviceToHost, s));
		stream.synchronize();
		return size_t(host_count[0]);
	};

	std::vector<Segment> segments;
	size_t top = 0;       // records on the stack
	size_t next_unit = 0; // first seed unit not yet run
	for (;;) {
		poll_cancel();
		if (segments.empty()) {
			if (next_unit == unit_u.size())
				break;
			// Stage 1 on the units whose triplets fit in the room above the reserve (one at
			// least: a unit yields fewer than `fanout` triplets). Only when the stack is empty, so
			// that seeds are the bottom of a search whose depth-first part has its reserve.
			const bool extend = top_length >= 4;
			size_t end = next_unit, room = std::min(stack_capacity - reserve, out_capacity), yield = 0;
			while (end < unit_u.size() && (!extend || yield + unit_yield[end] <= room || end == next_unit))
				yield += unit_yield[end++];
			size_t got = produced([&] {
				seed_triplets<<<blocks_for(end - next_unit), kThreads, 0, s>>>(
				    g, d_unit_u.data(), d_unit_pos.data(), next_unit, end, extend, words, out.data(), out_count.data(),
				    counts.data());
			});
			next_unit = end;
			if (got > 0) {
				CUDA_CHECK(cudaMemcpyAsync(stack.data(), out.data(), got * record_bytes, cudaMemcpyDeviceToDevice, s));
				segments.push_back({3, got});
				top = got;
			}
			continue;
		}
		// Stage 2 on the top segment. How many of its paths to expand at once: as many as keep
		// the stack, after their outputs replace them, within capacity - reserve, else one. One
		// at a time from a state within capacity - reserve is a depth-first search: the paths it
		// leaves on the stack at the successive lengths extend one path's successive prefixes,
		// and are pairwise distinct vertices (a path of length j + 1 ends at a neighbour of the
		// j-th vertex, which every longer path of the chain must not touch), so they number fewer
		// than n; one step's output adds at most `fanout`. Hence the reserve of n + fanout.
		Segment &seg = segments.back();
		const bool extend = seg.length + 2 <= top_length;
		size_t chunk;
		if (!extend) {
			chunk = seg.paths; // closing only: no output
		} else {
			size_t limit = stack_capacity - reserve;
			chunk = 1;
			// Largest k <= seg.paths with top - k + k * fanout <= limit and k * fanout <= out.
			if (limit > top) {
				size_t k = fanout > 1 ? (limit - top) / (fanout - 1) : seg.paths;
				k = std::min({k, seg.paths, out_capacity / fanout});
				chunk = std::max<size_t>(k, 1);
			}
		}
		const uint32_t *in = stack.data() + (top - chunk) * record;
		const uint32_t length = seg.length;
		size_t got = produced([&] {
			expand_paths<<<blocks_for(chunk), kThreads, 0, s>>>(g, in, chunk, length, extend, words, out.data(),
			                                                    out_count.data(), counts.data());
		});
		top -= chunk;
		seg.paths -= chunk;
		if (seg.paths == 0)
			segments.pop_back();
		if (got > 0) {
			if (top + got > stack_capacity)
				throw Error(ErrorKind::internal, "GPU chordless cycles: the path stack overflowed its bound");
			CUDA_CHECK(cudaMemcpyAsync(stack.data() + top * record, out.data(), got * record_bytes,
			                           cudaMemcpyDeviceToDevice, s));
			segments.push_back({length + 1, got});
			top += got;
		}
	}

	std::vector<unsigned long long> raw(top_length + 1);
	CUDA_CHECK(cudaMemcpyAsync(raw.data(), counts.data(), counts.bytes(), cudaMemcpyDeviceToHost, s));
	stream.synchronize();
	std::vector<uint64_t> result(raw.begin(), raw.end());
	while (!result.empty() && result.back() == 0)
		result.pop_back();
	return result;
}

} // namespace grail
