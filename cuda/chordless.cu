// GPU chordless cycles: the two stages of Jradi et al. (papers/gpu-chordless-cycles.txt §4) on
// the undirected simple view, vertices renumbered by the CPU's degree labelling so that the GPU
// finds exactly the cycles the CPU search finds:
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
// expand_step), so any graph within the bitmap limit completes within the budget.
//
// Enumeration: the thread that closes a cycle walks it (the cycle is induced, so each of its
// vertices has exactly two neighbours in it) from its smallest input vertex towards the smaller
// neighbour, and appends it to a cycle buffer of fixed size, which the host downloads whenever it
// is full. A step whose cycles do not fit is forgotten and redone after the download, so the
// buffer bounds the memory however many cycles there are, and the search is resumable between
// downloads (LIMIT in SQL stops it). A cycle is stored compactly, as its first vertex and then
// each next vertex's position in the previous one's row (2 bits each on a grid): the transfer
// to the host is what limits enumeration, and the host decodes a vertex with one lookup.
#include "check.cuh"
#include "chordless.hpp"
#include "device_csr.cuh"
#include "error.hpp"
#include "gpu.hpp"
#include "host_util.hpp"
#include "launch.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace grail {

using namespace cuda;
using cuda_host::mib;
using cuda_host::now_ms;

namespace {

constexpr size_t kDefaultBudget = size_t(512) << 20;
// The cycle buffer: an eighth of the budget, at most this much (its download is what takes
// time; a larger one only means fewer, larger downloads), at least one path's cycles.
constexpr size_t kMaxCycleBuffer = size_t(16) << 20;

// A path record: kHeader words, then the bitmap of its vertices (one bit per search vertex).
// Records are arrays of 32-bit words so that the bitmap width can follow the graph's size.
enum Field : uint32_t { f_first, f_second, f_last, f_length, kHeader };

// Cycles leave the device as records of 16-bit words: the length, the first search vertex, then
// the length - 1 steps of the walk packed code_bits to a word part (see record_words). Lengths,
// vertices and row positions fit since n <= kGpuChordlessMaxVertices.
using CycleWord = uint16_t;
static_assert(kGpuChordlessMaxVertices <= 0xFFFF, "cycle records hold vertex indexes in 16 bits");

namespace cg = cooperative_groups;

// atomicAdd(counter, count) for the active threads of a warp at once (they must all add to the
// same counter): one atomic instead of up to 32, since millions of paths and cycles go through
// one counter. Returns the counter's value before this thread's share, as atomicAdd does.
__device__ unsigned long long
warp_add(unsigned long long *counter, unsigned long long count) {
	cg::coalesced_group group = cg::coalesced_threads();
	unsigned long long before = cg::exclusive_scan(group, count);
	unsigned long long base = 0;
	if (group.thread_rank() == group.size() - 1)
		base = atomicAdd(counter, before + count);
	return group.shfl(base, group.size() - 1) + before;
}

// Words of a cycle record; code_bits is 1, 2, 4, 8 or 16, so that no step straddles two words.
__host__ __device__ inline uint32_t
record_words(uint32_t length, uint32_t code_bits) {
	return 2 + ((length - 1) * code_bits + 15) / 16;
}

// Counters the host reads after each step, one copy each way.
enum Counter : uint32_t { c_paths, c_cycle_words, kCounters };

// Where closed cycles go; cycles == nullptr when only counting.
struct CycleSink {
	CycleWord *cycles;
	unsigned long long *used; // words claimed; may run past capacity, then the host redoes the step
	unsigned long long capacity;
	const vid_t *original; // search vertex -> input vertex
	uint32_t min_length;
	uint32_t code_bits; // bits of a row position: the longest row has at most 2^code_bits entries
};

// The search kernels stride over their items: a grid capped at this many blocks still covers them.
constexpr unsigned kSearchBlocks = 4096;

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

// Appends the record of a chordless cycle of `length` vertices, given as a membership test, walked
// from `start` (its smallest input vertex) towards the smaller of start's two neighbours on it. A
// record that does not fit is dropped, but its words are still claimed: the host sees the
// overflow and redoes the step after a download.
template <typename OnCycle>
__device__ void
emit_cycle(CsrView g, const CycleSink &sink, vid_t start, uint32_t length, OnCycle on_cycle) {
	const unsigned long long words = record_words(length, sink.code_bits);
	unsigned long long at = warp_add(sink.used, words);
	if (at + words > sink.capacity)
		return;
	CycleWord *out = sink.cycles + at;
	out[0] = CycleWord(length);
	out[1] = CycleWord(start);
	const eid_t row = g.offsets[start];
	eid_t a = row, b = row;
	bool found_a = false;
	for (eid_t e = row; e < g.offsets[start + 1]; e++)
		if (on_cycle(g.targets[e])) {
			if (!found_a) {
				a = e;
				found_a = true;
			} else {
				b = e;
				break;
			}
		}
	const eid_t first = sink.original[g.targets[a]] < sink.original[g.targets[b]] ? a : b;
	CycleWord *codes = out + 2;
	uint32_t packed = 0, filled = 0;
	auto put = [&](eid_t code) {
		packed |= uint32_t(code) << filled;
		filled += sink.code_bits;
		if (filled == 16) {
			*codes++ = CycleWord(packed);
			packed = 0;
			filled = 0;
		}
	};
	put(first - row);
	vid_t previous = start, current = g.targets[first];
	for (uint32_t k = 2; k < length; k++) {
		const eid_t r = g.offsets[current];
		for (eid_t e = r; e < g.offsets[current + 1]; e++) {
			vid_t w = g.targets[e];
			if (w != previous && on_cycle(w)) {
				put(e - r);
				previous = current;
				current = w;
				break;
			}
		}
	}
	if (filled)
		*codes = CycleWord(packed);
}

__device__ void
emit_triangle(CsrView g, const CycleSink &sink, vid_t x, vid_t u, vid_t y) {
	vid_t start = x;
	if (sink.original[u] < sink.original[start])
		start = u;
	if (sink.original[y] < sink.original[start])
		start = y;
	emit_cycle(g, sink, start, 3, [&](vid_t w) { return w == x || w == u || w == y; });
}

// The cycle of the path `bits` closed by `closing`.
__device__ void
emit_closed_path(CsrView g, const CycleSink &sink, const uint32_t *bits, uint32_t words, vid_t closing,
                 uint32_t length) {
	vid_t start = closing, lowest = sink.original[closing];
	for (uint32_t k = 0; k < words; k++)
		for (uint32_t w = bits[k]; w; w &= w - 1) {
			vid_t v = k * 32 + __ffs(int(w)) - 1;
			if (sink.original[v] < lowest) {
				lowest = sink.original[v];
				start = v;
			}
		}
	emit_cycle(g, sink, start, length, [&](vid_t w) { return w == closing || has_bit(bits, w); });
}

// Stage 1 over seed units [unit_begin, unit_end): a unit is the position in u's row of a
// neighbour x > u, and yields the triplets <x, u, y> for the neighbours y after x in that row.
// Triangles are counted into counts[3] (when counts) and sent to the sink; the other triplets
// become paths of length 3 (when `extend`) at out[0 ..), their number in counters[c_paths].
__global__ void
seed_triplets(CsrView g, const vid_t *unit_u, const eid_t *unit_pos, size_t unit_begin, size_t unit_end, bool extend,
              uint32_t words, uint32_t *out, unsigned long long *counters, unsigned long long *counts, CycleSink sink) {
	const uint32_t record = kHeader + words;
	const bool emit = sink.cycles && sink.min_length <= 3;
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
				if (emit)
					emit_triangle(g, sink, x, u, y);
				continue;
			}
			if (!extend)
				continue;
			uint32_t *p = out + warp_add(&counters[c_paths], 1) * record;
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
	if (triangles && counts)
		warp_add(&counts[3], triangles);
}

// Stage 2 over `paths` paths of one length t at in[0 ..): cycles of length t + 1 are counted
// into counts[t + 1] (when counts) and sent to the sink; when `extend`, the chordless paths of
// length t + 1 go to out[0 ..), their number in counters[c_paths].
__global__ void
expand_paths(CsrView g, const uint32_t *in, size_t paths, uint32_t length, bool extend, uint32_t words, uint32_t *out,
             unsigned long long *counters, unsigned long long *counts, CycleSink sink) {
	const uint32_t record = kHeader + words;
	const bool emit = sink.cycles && length + 1 >= sink.min_length;
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
				if (emit)
					emit_closed_path(g, sink, bits, words, v, length + 1);
				continue;
			}
			if (!extend)
				continue;
			uint32_t *q = out + warp_add(&counters[c_paths], 1) * record;
			q[f_first] = x;
			q[f_second] = u;
			q[f_last] = v;
			q[f_length] = length + 1;
			for (uint32_t k = 0; k < words; k++)
				q[kHeader + k] = bits[k];
			q[kHeader + (v >> 5)] |= 1u << (v & 31);
		}
	}
	if (closed && counts)
		warp_add(&counts[length + 1], closed);
}

// The host's view of the path stack: segments of paths of one length each, lengths increasing
// towards the top.
struct Segment {
	uint32_t length;
	size_t paths;
};

// Adds the time from construction to destruction to a timing field.
class Stopwatch {
public:
	explicit Stopwatch(double &into) : into_(into), start_(now_ms()) {
	}
	~Stopwatch() {
		into_ += now_ms() - start_;
	}

private:
	double &into_;
	double start_;
};

// Refuses what the GPU search cannot take, before any device work.
void
check_gpu_search(const Csr &graph) {
	const size_t n = graph.vertex_count();
	if (n > kGpuChordlessMaxVertices)
		throw Error(ErrorKind::limit_exceeded,
		            "GPU chordless cycles: the graph has " + std::to_string(n) +
		                " vertices, the GPU search keeps each path as a bitmap of at most " +
		                std::to_string(kGpuChordlessMaxVertices) + " vertices",
		            "Use the CPU for this graph (grail.device = auto or cpu).");
	require_device("GPU chordless cycles");
}

} // namespace

// The resumable two-stage search, shared by counting (no cycle buffer) and enumeration.
class GpuChordlessCycleEnumerator::Search {
public:
	Search(const Csr &graph, uint32_t min_length, uint32_t max_length, size_t budget_bytes, bool enumerate)
	    : min_length_(min_length) {
		const size_t n = graph.vertex_count();
		double started = now_ms();
		// The search graph of the CPU (ChordlessCycleEnumerator::Search): the undirected simple
		// view renumbered by degree label, so that "smaller label" is "smaller index".
		Csr simple = undirected_simple(graph);
		std::vector<vid_t> label = degree_labelling(simple);
		original_.resize(n);
		for (vid_t v = 0; v < n; v++)
			original_[label[v]] = v;
		adj_ = relabelled(std::move(simple), label);

		// Seed units (stage 1) and how many triplets each can yield; the longest row bounds how
		// many paths one path can extend to (its last vertex's other neighbours).
		size_t max_degree = 0;
		for (vid_t u = 0; u < n; u++) {
			max_degree = std::max<size_t>(max_degree, adj_.end(u) - adj_.begin(u));
			const vid_t *above = std::upper_bound(adj_.begin(u), adj_.end(u), u);
			for (const vid_t *x = above; x + 1 < adj_.end(u); x++) {
				unit_u_.push_back(u);
				unit_pos_.push_back(eid_t(x - adj_.targets.data()));
				unit_yield_.push_back(size_t(adj_.end(u) - x - 1));
			}
		}
		timings.prepare_ms = now_ms() - started;
		if (unit_u_.empty()) {
			done_ = true; // no vertex has two neighbours above it: no cycle, nothing to allocate
			return;
		}
		top_length_ = uint32_t(std::min<size_t>(max_length, n));
		fanout_ = std::max<size_t>(max_degree, 1);
		allocate(n, budget_bytes, enumerate);
		timings.setup_ms = now_ms() - started - timings.prepare_ms;
	}

	// Runs steps until the search is complete (returns false) or, when enumerating, until the
	// cycle buffer holds `enough` words or cannot take the next step (returns true: download).
	bool
	run(size_t enough) {
		Stopwatch watch(timings.search_ms);
		while (!done_) {
			poll_cancel();
			if (sink_.cycles && used_ >= enough)
				return true;
			if (!(segments_.empty() ? seed_step() : expand_step()))
				return true;
			done_ = segments_.empty() && next_unit_ == unit_u_.size();
		}
		return false;
	}

	// Copies the cycles found since the last download to host memory, and empties the buffer.
	void
	download() {
		Stopwatch watch(timings.download_ms);
		staged_words_ = 0;
		read_ = 0;
		if (used_ == 0)
			return;
		if (used_ > staged_capacity_) {
			// Pinned allocations are slow: grow by four.
			staged_.reset();
			staged_capacity_ = std::min<size_t>(std::max<size_t>(used_, 4 * staged_capacity_), sink_.capacity);
			staged_ = std::make_unique<PinnedBuffer<CycleWord>>(staged_capacity_);
		}
		CUDA_CHECK(cudaMemcpyAsync(staged_->data(), cycles_.data(), used_ * sizeof(CycleWord), cudaMemcpyDeviceToHost,
		                           stream_.get()));
		stream_.synchronize();
		staged_words_ = used_;
		used_ = 0;
		timings.downloads++;
	}

	bool
	done() const noexcept {
		return done_;
	}

	// Appends the next downloaded cycle's input vertices to `vertices`; false when all are read.
	bool
	next_cycle(std::vector<vid_t> &vertices) {
		if (read_ == staged_words_)
			return false;
		const CycleWord *r = staged_->data() + read_;
		const uint32_t length = r[0], bits = sink_.code_bits, mask = (1u << bits) - 1;
		read_ += record_words(length, bits);
		vid_t current = r[1];
		vertices.push_back(original_[current]);
		const CycleWord *codes = r + 2;
		for (uint32_t k = 1, shift = 0; k < length; k++) {
			current = adj_.targets[adj_.offsets[current] + (*codes >> shift & mask)];
			vertices.push_back(original_[current]);
			shift += bits;
			if (shift == 16) {
				codes++;
				shift = 0;
			}
		}
		return true;
	}

	// counts[k] = cycles of length k found, trailing zeros dropped (counting searches only).
	std::vector<uint64_t>
	counts() {
		if (counts_.size() == 0)
			return {};
		std::vector<unsigned long long> raw(counts_.size());
		CUDA_CHECK(cudaMemcpyAsync(raw.data(), counts_.data(), counts_.bytes(), cudaMemcpyDeviceToHost, stream_.get()));
		stream_.synchronize();
		std::vector<uint64_t> result(raw.begin(), raw.end());
		while (!result.empty() && result.back() == 0)
			result.pop_back();
		return result;
	}

	// Before the first download: a small one, so that the first cycles come at once.
	size_t
	first_download_words() const noexcept {
		return std::min<size_t>(size_t(1) << 16, sink_.capacity);
	}
	size_t
	cycle_capacity() const noexcept {
		return sink_.capacity;
	}

	GpuChordlessTimings timings;

private:
	// Path memory: the stack and the output of one step. The stack keeps `reserve_` records free
	// for a depth-first run (n paths at most, see expand_step) plus one step's output. When
	// enumerating, part of the budget is the cycle buffer (kMaxCycleBuffer), which takes at least
	// what one path or one seed unit can close (so that a step of one always fits an empty buffer).
	void
	allocate(size_t n, size_t budget_bytes, bool enumerate) {
		words_ = uint32_t((n + 31) / 32);
		record_ = kHeader + words_;
		const size_t record_bytes = record_ * sizeof(uint32_t);
		reserve_ = n + fanout_;
		size_t budget = budget_bytes ? budget_bytes : kDefaultBudget;
		size_t free_bytes = 0, total_bytes = 0;
		CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
		if (!budget_bytes)
			budget = std::min(budget, free_bytes / 2);
		code_bits_ = 1;
		while (code_bits_ < 16 && (size_t(1) << code_bits_) < fanout_)
			code_bits_ *= 2;
		size_t cycle_words = 0;
		if (enumerate)
			cycle_words = std::max(fanout_ * record_words(top_length_, code_bits_),
			                       std::min(budget / 8, kMaxCycleBuffer) / sizeof(CycleWord));
		size_t path_bytes = budget - std::min(budget, cycle_words * sizeof(CycleWord));
		// Half for one step's output: a step expands at most out_capacity_ / fanout_ paths, and
		// each step costs a round trip to the host (on grid 7x10, half instead of a fifth halves
		// the steps), while the stack needs little room unless paths are many and long.
		out_capacity_ = std::max(fanout_, path_bytes / record_bytes / 2);
		stack_capacity_ = std::max(reserve_ + fanout_,
		                           path_bytes / record_bytes - std::min(path_bytes / record_bytes, out_capacity_));
		size_t need = (stack_capacity_ + out_capacity_) * record_bytes + cycle_words * sizeof(CycleWord) +
		              DeviceCsr::bytes_for(n, adj_.edge_count()) + unit_u_.size() * (sizeof(vid_t) + sizeof(eid_t)) +
		              n * sizeof(vid_t) + (64 << 20);
		if (need > free_bytes)
			throw Error(ErrorKind::limit_exceeded,
			            "GPU chordless cycles need about " + mib(need) + " of GPU memory, " + mib(free_bytes) +
			                " are free",
			            "Use the CPU for this graph (grail.device = auto or cpu).");

		cudaStream_t s = stream_.get();
		dadj_ = DeviceCsr::upload(adj_, s);
		unit_u_d_.resize(unit_u_.size());
		unit_pos_d_.resize(unit_pos_.size());
		CUDA_CHECK(cudaMemcpyAsync(unit_u_d_.data(), unit_u_.data(), unit_u_d_.bytes(), cudaMemcpyHostToDevice, s));
		CUDA_CHECK(
		    cudaMemcpyAsync(unit_pos_d_.data(), unit_pos_.data(), unit_pos_d_.bytes(), cudaMemcpyHostToDevice, s));
		stack_.resize(stack_capacity_ * record_);
		out_.resize(out_capacity_ * record_);
		counters_.resize(kCounters);
		if (enumerate) {
			original_d_.resize(n);
			CUDA_CHECK(
			    cudaMemcpyAsync(original_d_.data(), original_.data(), original_d_.bytes(), cudaMemcpyHostToDevice, s));
			cycles_.resize(cycle_words);
		} else {
			counts_.resize(top_length_ + 1);
			CUDA_CHECK(cudaMemsetAsync(counts_.data(), 0, counts_.bytes(), s));
		}
		sink_ = {cycles_.data(), counters_.data() + c_cycle_words, cycle_words, original_d_.data(), min_length_,
		         code_bits_};
		// The host vectors must outlive the copies above.
		stream_.synchronize();
	}

	// Runs one kernel that appends paths to out_ and cycles to the sink; returns how many paths it
	// wrote, or SIZE_MAX when its cycles overflowed the buffer (it is then as if it never ran).
	template <typename Launch>
	size_t
	produced(size_t work, Launch launch) {
		cudaStream_t s = stream_.get();
		host_counters_[c_paths] = 0;
		host_counters_[c_cycle_words] = used_;
		CUDA_CHECK(cudaMemcpyAsync(counters_.data(), host_counters_.data(), kCounters * sizeof(unsigned long long),
		                           cudaMemcpyHostToDevice, s));
		launch(s);
		CUDA_CHECK_LAUNCH();
		CUDA_CHECK(cudaMemcpyAsync(host_counters_.data(), counters_.data(), kCounters * sizeof(unsigned long long),
		                           cudaMemcpyDeviceToHost, s));
		stream_.synchronize();
		timings.steps++;
		size_t used = host_counters_[c_cycle_words];
		if (used <= sink_.capacity) {
			used_ = used;
			retry_limit_ = std::numeric_limits<size_t>::max();
			return size_t(host_counters_[c_paths]);
		}
		// Redo after a download; if the buffer was empty already, with half the work.
		if (used_ == 0) {
			if (work == 1)
				throw Error(ErrorKind::internal, "GPU chordless cycles: one path's cycles overflowed the cycle buffer");
			retry_limit_ = std::max<size_t>(work / 2, 1);
		}
		return std::numeric_limits<size_t>::max();
	}

	void
	push(uint32_t length, size_t got) {
		if (got == 0)
			return;
		if (top_ + got > stack_capacity_)
			throw Error(ErrorKind::internal, "GPU chordless cycles: the path stack overflowed its bound");
		CUDA_CHECK(cudaMemcpyAsync(stack_.data() + top_ * record_, out_.data(), got * record_ * sizeof(uint32_t),
		                           cudaMemcpyDeviceToDevice, stream_.get()));
		segments_.push_back({length, got});
		top_ += got;
		timings.peak_paths = std::max(timings.peak_paths, top_);
	}

	// Stage 1 on the next seed units whose triplets fit in the room above the reserve (one at
	// least: a unit yields fewer than `fanout_` triplets). Only when the stack is empty, so that
	// seeds are the bottom of a search whose depth-first part has its reserve.
	bool
	seed_step() {
		const bool extend = top_length_ >= 4;
		const size_t units = unit_u_.size();
		const size_t most = std::min(units - next_unit_, retry_limit_);
		size_t end = next_unit_, room = std::min(stack_capacity_ - reserve_, out_capacity_), yield = 0;
		while (end - next_unit_ < most && (!extend || yield + unit_yield_[end] <= room || end == next_unit_))
			yield += unit_yield_[end++];
		const size_t begin = next_unit_;
		size_t got = produced(end - begin, [&](cudaStream_t s) {
			seed_triplets<<<std::min(blocks_for(end - begin), kSearchBlocks), kBlockThreads, 0, s>>>(
			    dadj_.view(), unit_u_d_.data(), unit_pos_d_.data(), begin, end, extend, words_, out_.data(),
			    counters_.data(), counts_.data(), sink_);
		});
		if (got == std::numeric_limits<size_t>::max())
			return false;
		next_unit_ = end;
		push(3, got);
		return true;
	}

	// Stage 2 on the top segment. How many of its paths to expand at once: as many as keep the
	// stack, after their outputs replace them, within capacity - reserve, else one. One at a time
	// from a state within capacity - reserve is a depth-first search: the paths it leaves on the
	// stack at the successive lengths extend one path's successive prefixes, and are pairwise
	// distinct vertices (a path of length j + 1 ends at a neighbour of the j-th vertex, which
	// every longer path of the chain must not touch), so they number fewer than n; one step's
	// output adds at most `fanout_`. Hence the reserve of n + fanout.
	bool
	expand_step() {
		Segment &seg = segments_.back();
		const bool extend = seg.length + 2 <= top_length_;
		size_t chunk;
		if (!extend) {
			chunk = seg.paths; // closing only: no output
		} else {
			size_t limit = stack_capacity_ - reserve_;
			chunk = 1;
			// Largest k <= seg.paths with top - k + k * fanout <= limit and k * fanout <= out.
			if (limit > top_) {
				size_t k = fanout_ > 1 ? (limit - top_) / (fanout_ - 1) : seg.paths;
				k = std::min({k, seg.paths, out_capacity_ / fanout_});
				chunk = std::max<size_t>(k, 1);
			}
		}
		chunk = std::min(chunk, retry_limit_);
		const uint32_t *in = stack_.data() + (top_ - chunk) * record_;
		const uint32_t length = seg.length;
		size_t got = produced(chunk, [&](cudaStream_t s) {
			expand_paths<<<std::min(blocks_for(chunk), kSearchBlocks), kBlockThreads, 0, s>>>(
			    dadj_.view(), in, chunk, length, extend, words_, out_.data(), counters_.data(), counts_.data(), sink_);
		});
		if (got == std::numeric_limits<size_t>::max())
			return false;
		top_ -= chunk;
		seg.paths -= chunk;
		if (seg.paths == 0)
			segments_.pop_back();
		push(length + 1, got);
		return true;
	}

	uint32_t min_length_;
	uint32_t top_length_ = 0;
	size_t fanout_ = 1;
	Csr adj_;
	std::vector<vid_t> original_;
	std::vector<vid_t> unit_u_;
	std::vector<eid_t> unit_pos_;
	std::vector<size_t> unit_yield_;

	uint32_t words_ = 0, record_ = 0;
	size_t reserve_ = 0, stack_capacity_ = 0, out_capacity_ = 0;
	Stream stream_;
	DeviceCsr dadj_;
	DeviceBuffer<vid_t> unit_u_d_, original_d_;
	DeviceBuffer<eid_t> unit_pos_d_;
	DeviceBuffer<uint32_t> stack_, out_;
	DeviceBuffer<unsigned long long> counters_, counts_;
	DeviceBuffer<CycleWord> cycles_;
	PinnedBuffer<unsigned long long> host_counters_{kCounters};
	CycleSink sink_{nullptr, nullptr, 0, nullptr, 0, 0};
	uint32_t code_bits_ = 0;

	std::vector<Segment> segments_;
	size_t top_ = 0;       // records on the stack
	size_t next_unit_ = 0; // first seed unit not yet run
	size_t used_ = 0;      // cycle words on the device
	size_t retry_limit_ = std::numeric_limits<size_t>::max();
	bool done_ = false;

	std::unique_ptr<PinnedBuffer<CycleWord>> staged_; // downloaded cycles
	size_t staged_capacity_ = 0, staged_words_ = 0, read_ = 0;
};

std::vector<uint64_t>
count_chordless_cycles_gpu(const Csr &graph, uint32_t max_length, size_t path_budget_bytes,
                           GpuChordlessTimings *timings) {
	if (max_length < 3)
		throw Error(ErrorKind::invalid_input, "chordless cycles: max_length must be at least 3");
	check_gpu_search(graph);
	GpuChordlessCycleEnumerator::Search search(graph, 3, max_length, path_budget_bytes, false);
	search.run(0);
	std::vector<uint64_t> counts = search.counts();
	if (timings)
		*timings = search.timings;
	return counts;
}

GpuChordlessCycleEnumerator::GpuChordlessCycleEnumerator(const Csr &graph, uint32_t min_length, uint32_t max_length,
                                                         size_t budget_bytes) {
	if (min_length < 3 || max_length < min_length)
		throw Error(ErrorKind::invalid_input, "chordless cycles: need 3 <= min_length <= max_length");
	check_gpu_search(graph);
	search_ = std::make_unique<Search>(graph, min_length, max_length, budget_bytes, true);
	next_download_ = search_->first_download_words();
}

GpuChordlessCycleEnumerator::~GpuChordlessCycleEnumerator() = default;

bool
GpuChordlessCycleEnumerator::next(CycleBatch &batch, size_t max_cycles, size_t max_vertices) {
	if (max_cycles == 0)
		throw Error(ErrorKind::invalid_input, "chordless cycles: a batch needs room for one cycle at least");
	batch.clear();
	Search &search = *search_;
	for (;;) {
		while (search.next_cycle(batch.vertices)) {
			batch.starts.push_back(batch.vertices.size());
			if (batch.size() >= max_cycles || batch.vertices.size() >= max_vertices)
				return true;
		}
		if (search.done())
			return batch.size() > 0; // run() has returned false, and its last cycles were read
		// Downloads grow from small to the whole buffer: first rows soon, then few transfers.
		search.run(next_download_);
		search.download();
		next_download_ = std::min(2 * next_download_, search.cycle_capacity());
	}
}

const GpuChordlessTimings &
GpuChordlessCycleEnumerator::timings() const noexcept {
	return search_->timings;
}

} // namespace grail
