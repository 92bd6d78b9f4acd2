// GPU chordless cycles: the two stages of Jradi et al. (papers/gpu-chordless-cycles.txt §4) on
// the undirected simple view, vertices renumbered by the CPU's degree labelling so that the GPU
// finds exactly the cycles the CPU search finds:
//   - stage 1: every initial triplet <x, u, y> (u < x < y, x and y neighbours of u) in parallel,
//     one thread per (u, x); adjacent x, y close a triangle, the others become chordless paths;
//   - stage 2: every chordless path is expanded in parallel, one thread per path, a path being
//     the paper's bitmap of its vertices plus its first (x), second (u) and last vertex. A
//     neighbour v > u of the last vertex that is not on the path and whose only path neighbours
//     are the last vertex (and possibly x) extends the path, or closes a cycle if it is adjacent
//     to x. The tests are word operations on the rows of an adjacency bitmap (neighbours of v AND
//     the path), held in registers when the graph has at most 256 vertices.
// Beyond the paper, the path set lives in a fixed device-memory budget: a stack of paths, in
// segments of one length each, always expanding the top (longest) segment, in chunks as large as
// the free room allows and one path at a time when it is tight. One path at a time is a
// depth-first search, whose stack holds at most n + fanout paths above where it started (see
// plan_step), so any graph within the bitmap limit completes within the budget. The stack is two
// stacks in one buffer, growing towards each other: odd lengths in one, even in the other, so
// that a step reads the top of one and writes its new paths on the top of the other, with no
// copy and no hole.
//
// The steps run in one cooperative launch that decides each step's chunk on the device (thread 0
// between two grid barriers), so the host waits once per launch, not once per step.
//
// Enumeration: the thread that closes a cycle walks it (the cycle is induced, so each of its
// vertices has exactly two neighbours in it) from its smallest input vertex towards the smaller
// neighbour, and appends it to one of two cycle buffers. A launch ends once its buffer holds what
// the host asked for (or a step's cycles do not fit: that step is forgotten and redone in the
// next launch); the host then downloads that buffer while the next launch searches into the
// other one, so downloads overlap the search. Memory stays bounded however many cycles there are,
// and the search runs only as far as the host asks (LIMIT in SQL stops it). A cycle is stored
// compactly, as its first vertex and then each next vertex's position in the previous one's row
// (2 bits each on a grid): the transfer to the host is what limits enumeration, and the host
// decodes a vertex with one lookup.
#include "check.cuh"
#include "chordless.hpp"
#include "clock.hpp"
#include "device_csr.cuh"
#include "error.hpp"
#include "gpu.hpp"
#include "host_util.hpp"
#include "launch.cuh"
#include "primitives.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace grail {

using namespace cuda;
using cuda_host::mib;

namespace {

constexpr size_t kDefaultBudget = size_t(512) << 20;
// Each of the two cycle buffers: a sixteenth of the budget, at most this much, at least what one
// step of one path can close. Small: the host's staging buffers are as large, and pinned host
// memory costs about a millisecond per few MiB to allocate, while a launch more costs tens of
// microseconds (grid 7x10: 2 x 16 MiB took 30 ms of allocations for 100 MB of cycles).
constexpr size_t kMaxCycleBuffer = size_t(4) << 20;
// The first launch of an enumeration stops at this many cycle words, so that the first rows come
// at once; each later launch asks for twice as many, up to three quarters of a buffer.
constexpr size_t kFirstDownloadWords = size_t(1) << 16;
// The smallest pinned staging buffer a search allocates (words): a first download's goal.
constexpr size_t kFirstStaging = kFirstDownloadWords;
// A launch returns to the host after this much device time, so that cancellation is polled.
constexpr uint64_t kLaunchNs = 20'000'000;
constexpr int kSearchThreads = 512;

// A path record: kHeader words, then the bitmap of its vertices (one bit per search vertex,
// `words` words, a power of two up to 8 when the bitmap fits in registers).
enum Field : uint32_t { f_ends, f_last, kHeader }; // f_ends: x | u << 16

// Cycles leave the device as records of 16-bit words: the length, the first search vertex, then
// the length - 1 steps of the walk packed code_bits to a word part (see record_words). Lengths,
// vertices and row positions fit since n <= kGpuChordlessMaxVertices.
using CycleWord = uint16_t;
static_assert(kGpuChordlessMaxVertices <= 0xFFFF, "records hold vertex indexes in 16 bits");

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

enum StepKind : uint32_t { k_exit, k_seed, k_expand };
enum ExitReason : uint32_t { r_done = 1, r_enough, r_full, r_time, r_stack_overflow, r_path_overflow };

// The search's state on the device, kept between launches, and the step being run. Thread 0
// plans and commits steps; the other threads read the step behind a grid barrier and add to
// the step's counters.
struct Control {
	// Step counters, added to by every thread.
	unsigned long long paths; // paths the step wrote
	unsigned long long words; // cycle words claimed in the buffer (may run past its capacity)
	unsigned long long step_cycles;
	// The step (plan_step).
	uint32_t kind, length, extend, out_down;
	unsigned long long begin, count, out_at; // input records [begin, begin + count); outputs from
	                                         // out_at, upwards or (out_down) downwards
	// The search.
	unsigned long long top[2];    // records on each of the two stacks
	unsigned long long next_unit; // first seed unit not yet run
	unsigned long long retry;     // most items of a step, halved after a step's cycles overflowed
	unsigned long long committed; // cycle words of the steps kept, in this launch's buffer
	unsigned long long cycles;    // their cycles
	unsigned long long steps, redone, peak;
	uint32_t segments;
	uint32_t reason; // why the last launch ended (ExitReason)
};

// Segment i (paths of length 3 + i) lives on stack i % 2: records [begin, begin + count) counted
// from that stack's base (record 0 for stack 0, the buffer's last record for stack 1, downwards).
struct Segment {
	unsigned long long begin, count;
};

struct SearchArgs {
	CsrView g;                             // the search graph: sorted rows, for the seeds and triangles
	const uint32_t *nbr;                   // n rows of `words` words: the adjacency bitmap
	uint32_t words, record;                // bitmap words, path record words (kHeader + words)
	const vid_t *unit_u;                   // seed units: u and x's position in u's row
	const eid_t *unit_pos;                 //
	const unsigned long long *unit_prefix; // triplets the units before each unit can yield
	unsigned long long units;
	uint32_t *stack;
	unsigned long long capacity, reserve, fanout; // stack records; room kept for a depth-first run
	uint32_t top_length, min_length;
	unsigned long long *counts;              // per cycle length (counting), else null
	CycleWord *cycles;                       // this launch's cycle buffer (enumerating), else null
	unsigned long long cycle_capacity, goal; // words; the launch ends once `goal` are kept
	const vid_t *original;                   // search vertex -> input vertex
	uint32_t code_bits;
	Control *control;
	Segment *segments;
	float *yield;  // per path length: most cycle words a path has closed, a step's average
	uint2 *closed; // an expansion's closed cycles to emit: (path in the chunk, closing vertex)
	unsigned long long closed_capacity;
};

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

// Packs the steps of a cycle record, code_bits at a time.
struct CodeWriter {
	CycleWord *codes;
	uint32_t bits, packed = 0, filled = 0;
	__device__ void
	put(uint32_t code) {
		packed |= code << filled;
		filled += bits;
		if (filled == 16) {
			*codes++ = CycleWord(packed);
			packed = 0;
			filled = 0;
		}
	}
	__device__ void
	flush() {
		if (filled)
			*codes = CycleWord(packed);
	}
};

// Claims room for a cycle record of `length` vertices; null when it does not fit (its words
// are still claimed: the host sees the overflow and the step is redone into an empty buffer).
__device__ CycleWord *
claim_record(const SearchArgs &a, uint32_t length) {
	const unsigned long long words = record_words(length, a.code_bits);
	unsigned long long at = warp_add(&a.control->words, words);
	if (at + words > a.cycle_capacity)
		return nullptr;
	return a.cycles + at;
}

// A triangle's record, walked over the rows of the CSR.
__device__ void
emit_triangle(const SearchArgs &a, vid_t x, vid_t u, vid_t y) {
	CycleWord *out = claim_record(a, 3);
	if (!out)
		return;
	vid_t start = x;
	if (a.original[u] < a.original[start])
		start = u;
	if (a.original[y] < a.original[start])
		start = y;
	auto on_cycle = [&](vid_t w) { return w == x || w == u || w == y; };
	out[0] = 3;
	out[1] = CycleWord(start);
	CodeWriter codes{out + 2, a.code_bits};
	const eid_t row = a.g.offsets[start];
	eid_t first = row, second = row;
	bool found = false;
	for (eid_t e = row; e < a.g.offsets[start + 1]; e++)
		if (on_cycle(a.g.targets[e])) {
			if (!found) {
				first = e;
				found = true;
			} else {
				second = e;
				break;
			}
		}
	if (a.original[a.g.targets[second]] < a.original[a.g.targets[first]])
		first = second;
	codes.put(uint32_t(first - row));
	vid_t previous = start, current = a.g.targets[first];
	const eid_t r = a.g.offsets[current];
	for (eid_t e = r; e < a.g.offsets[current + 1]; e++) {
		vid_t w = a.g.targets[e];
		if (w != previous && on_cycle(w)) {
			codes.put(uint32_t(e - r));
			break;
		}
	}
	codes.flush();
}

// A path's vertex bitmap: in registers when W > 0 (W words), else read from its record.
template <int W> struct PathBits {
	uint32_t w[W];
	__device__ explicit PathBits(const uint32_t *bits, uint32_t) {
#pragma unroll
		for (int k = 0; k < W; k++)
			w[k] = fresh(bits + k);
	}
	__device__ __forceinline__ uint32_t
	operator[](uint32_t k) const {
		return w[k];
	}
};
template <> struct PathBits<0> {
	const uint32_t *bits;
	uint32_t words;
	__device__ explicit PathBits(const uint32_t *b, uint32_t n) : bits(b), words(n) {
	}
	__device__ __forceinline__ uint32_t
	operator[](uint32_t k) const {
		return fresh(bits + k);
	}
};

// Word k of the cycle's vertex set: the path and the closing vertex v.
template <int W>
__device__ __forceinline__ uint32_t
cycle_word(const PathBits<W> &bits, uint32_t k, vid_t v) {
	return bits[k] | (k == v >> 5 ? 1u << (v & 31) : 0u);
}

// The position of w in c's row: its rank among c's neighbours (rows are sorted).
__device__ __forceinline__ uint32_t
row_position(const uint32_t *row, vid_t w) {
	uint32_t rank = 0;
	for (uint32_t k = 0; k < (w >> 5); k++)
		rank += __popc(__ldg(row + k));
	return rank + __popc(__ldg(row + (w >> 5)) & ((1u << (w & 31)) - 1u));
}

// The one vertex of `row` AND the cycle, other than `previous` (and, at the start, than `other`).
template <int W>
__device__ __forceinline__ vid_t
next_on_cycle(const PathBits<W> &bits, uint32_t words, vid_t v, const uint32_t *row, vid_t previous) {
#pragma unroll
	for (uint32_t k = 0; k < words; k++) {
		uint32_t m = __ldg(row + k) & cycle_word(bits, k, v);
		if (k == previous >> 5)
			m &= ~(1u << (previous & 31));
		if (m)
			return k * 32 + __ffs(int(m)) - 1;
	}
	return 0; // unreachable: the cycle is induced
}

// The record of the cycle closed by v: from its smallest input vertex towards the smaller of that
// vertex's two neighbours on it.
template <int W>
__device__ __forceinline__ void
emit_closed_path(const SearchArgs &a, const PathBits<W> &bits, vid_t v, uint32_t length, CycleWord *out) {
	const uint32_t words = W > 0 ? uint32_t(W) : a.words;
	vid_t start = v, lowest = __ldg(a.original + v);
#pragma unroll
	for (uint32_t k = 0; k < words; k++)
		for (uint32_t m = bits[k]; m; m &= m - 1) {
			vid_t w = k * 32 + __ffs(int(m)) - 1;
			vid_t o = __ldg(a.original + w);
			if (o < lowest) {
				lowest = o;
				start = w;
			}
		}
	out[0] = CycleWord(length);
	out[1] = CycleWord(start);
	CodeWriter codes{out + 2, a.code_bits};
	const uint32_t *row = a.nbr + size_t(start) * words;
	// start's two neighbours on the cycle: the first found, and the next one after it.
	vid_t one = next_on_cycle(bits, words, v, row, start), other = one;
#pragma unroll
	for (uint32_t k = 0; k < words; k++) {
		if (k < one >> 5)
			continue;
		uint32_t m = __ldg(row + k) & cycle_word(bits, k, v);
		if (k == one >> 5)
			m &= ~((2u << (one & 31)) - 1u);
		if (m) {
			other = k * 32 + __ffs(int(m)) - 1;
			break;
		}
	}
	vid_t current = __ldg(a.original + other) < __ldg(a.original + one) ? other : one;
	codes.put(row_position(row, current));
	vid_t previous = start;
	for (uint32_t i = 2; i < length; i++) {
		row = a.nbr + size_t(current) * words;
		vid_t next = next_on_cycle(bits, words, v, row, previous);
		codes.put(row_position(row, next));
		previous = current;
		current = next;
	}
	codes.flush();
}

// Stage 1 on seed units [begin, end): a unit is the position in u's row of a neighbour x > u, and
// yields the triplets <x, u, y> for the neighbours y after x in that row. Triangles are counted or
// emitted; the other triplets become paths of length 3 (when extend) from out[0] on.
__device__ void
seed_units(const SearchArgs &a, unsigned long long begin, unsigned long long end, bool extend, uint32_t *out,
           size_t thread, size_t threads) {
	const bool emit = a.cycles && a.min_length <= 3;
	unsigned long long triangles = 0;
	for (unsigned long long i = begin + thread; i < end; i += threads) {
		vid_t u = a.unit_u[i];
		eid_t pos = a.unit_pos[i];
		vid_t x = a.g.targets[pos];
		for (eid_t e = pos + 1; e < a.g.offsets[u + 1]; e++) {
			vid_t y = a.g.targets[e];
			if (adjacent(a.g, x, y)) {
				triangles++;
				if (emit)
					emit_triangle(a, x, u, y);
				continue;
			}
			if (!extend)
				continue;
			uint32_t *p = out + warp_add(&a.control->paths, 1) * a.record;
			p[f_ends] = x | u << 16;
			p[f_last] = y;
			uint32_t *bits = p + kHeader;
			for (uint32_t k = 0; k < a.words; k++)
				bits[k] = 0;
			// Atomics-free: the record is this thread's alone.
			bits[x >> 5] |= 1u << (x & 31);
			bits[u >> 5] |= 1u << (u & 31);
			bits[y >> 5] |= 1u << (y & 31);
		}
	}
	if (triangles) {
		if (a.counts)
			warp_add(&a.counts[3], triangles);
		if (a.cycles && a.min_length <= 3)
			warp_add(&a.control->step_cycles, triangles);
	}
}

// Stage 2 on the `count` paths of length `length` at in[0 ..): cycles of length + 1 are counted
// or listed for emission; when extend, the chordless paths of length + 1 go to out[0 ..) (every
// out_step words). Two passes over each path's candidates, the first counting, so that a block
// reserves its outputs and cycle records with one atomic each (one counter takes every path of
// the step: per-warp atomics were millions on one address).
using BlockScan = cub::BlockScan<unsigned long long, kSearchThreads>;

template <int W>
__device__ void
expand_paths(const SearchArgs &a, const uint32_t *in, unsigned long long count, uint32_t length, bool extend,
             uint32_t *out, long long out_step, BlockScan::TempStorage &scan, unsigned long long *shared_base) {
	const bool emit = a.cycles && length + 1 >= a.min_length;
	const uint32_t words = W > 0 ? uint32_t(W) : a.words;
	const unsigned long long rw = record_words(length + 1, a.code_bits);
	const unsigned long long committed = fresh(&a.control->committed);
	for (unsigned long long first = (unsigned long long)blockIdx.x * blockDim.x; first < count;
	     first += (unsigned long long)gridDim.x * blockDim.x) {
		const unsigned long long i = first + threadIdx.x;
		const bool valid = i < count;
		const uint32_t *p = in + (valid ? i : 0) * a.record;
		const uint32_t ends = valid ? fresh(p + f_ends) : 0;
		const vid_t x = ends & 0xFFFF, u = ends >> 16, last = valid ? fresh(p + f_last) : 0;
		const PathBits<W> bits(p + kHeader, words);
		const uint32_t *last_row = a.nbr + size_t(last) * words;
		const uint32_t from = u >> 5;
		// visit(v, closes) for each candidate v that extends the path or closes a cycle.
		auto candidates = [&](auto visit) {
			if (!valid)
				return;
#pragma unroll
			for (uint32_t k = (W > 0 ? 0 : from); k < words; k++) {
				// Neighbours v > u of the last vertex, not on the path (u is the cycle's smallest
				// label).
				uint32_t m = __ldg(last_row + k) & ~bits[k];
				if (k < from)
					m = 0;
				else if (k == from)
					m &= ~((2u << (u & 31)) - 1u);
				while (m) {
					const vid_t v = k * 32 + __ffs(int(m)) - 1;
					m &= m - 1;
					// v's path neighbours besides `last` may only be x: any other (u included) is
					// a chord.
					const uint32_t *row = a.nbr + size_t(v) * words;
					bool chord = false;
#pragma unroll
					for (uint32_t j = 0; j < words; j++) {
						uint32_t t = __ldg(row + j) & bits[j];
						if (j == last >> 5)
							t &= ~(1u << (last & 31));
						if (j == x >> 5)
							t &= ~(1u << (x & 31));
						if (t) {
							chord = true;
							break;
						}
					}
					if (!chord)
						visit(v, (__ldg(row + (x >> 5)) >> (x & 31) & 1u) != 0);
				}
			}
		};
		uint32_t outs = 0, closed = 0;
		candidates([&](vid_t, bool closes) {
			if (closes)
				closed++;
			else if (extend)
				outs++;
		});
		unsigned long long before, total;
		BlockScan(scan).ExclusiveSum((unsigned long long)closed << 32 | outs, before, total);
		if (threadIdx.x == 0) {
			const unsigned long long block_outs = total & 0xFFFFFFFFu, block_closed = total >> 32;
			shared_base[0] = block_outs ? atomicAdd(&a.control->paths, block_outs) : 0;
			shared_base[1] = emit && block_closed ? atomicAdd(&a.control->words, block_closed * rw) : 0;
			if (a.counts && block_closed)
				atomicAdd(&a.counts[length + 1], block_closed);
		}
		__syncthreads();
		if (outs || (emit && closed)) {
			unsigned long long at = shared_base[0] + (before & 0xFFFFFFFFu);
			unsigned long long k = (shared_base[1] - committed) / rw + (before >> 32);
			candidates([&](vid_t v, bool closes) {
				if (closes) {
					if (emit && k < a.closed_capacity)
						a.closed[k] = make_uint2(uint32_t(i), v);
					k++;
					return;
				}
				if (!extend)
					return;
				uint32_t *q = out + (long long)(at++) * out_step;
				q[f_ends] = ends;
				q[f_last] = v;
#pragma unroll
				for (uint32_t j = 0; j < words; j++)
					q[kHeader + j] = bits[j] | (j == v >> 5 ? 1u << (v & 31) : 0u);
			});
		}
		__syncthreads(); // the scan's storage and shared_base are reused
	}
}

// The cycles an expansion listed, walked and written in the order of their records, a thread
// each (the walks diverge less than they would inside the expansion).
template <int W>
__device__ void
emit_listed(const SearchArgs &a, const uint32_t *in, uint32_t length, size_t thread, size_t threads) {
	const unsigned long long committed = fresh(&a.control->committed), words = fresh(&a.control->words);
	if (words > a.cycle_capacity)
		return; // the step overflowed: it is redone
	const unsigned long long rw = record_words(length + 1, a.code_bits);
	const unsigned long long listed = (words - committed) / rw;
	const uint32_t bitmap_words = W > 0 ? uint32_t(W) : a.words;
	for (unsigned long long k = thread; k < listed; k += threads) {
		const uint2 e = a.closed[k];
		const PathBits<W> bits(in + size_t(e.x) * a.record + kHeader, bitmap_words);
		emit_closed_path(a, bits, e.y, length + 1, a.cycles + committed + k * rw);
	}
}

// Thread 0: the next step, or the end of the launch. Chunks: as many paths of the top segment as
// keep both stacks, with the step's outputs, within capacity - reserve (else one), and, when
// enumerating, whose cycles should fit in the buffer (by the yield seen at that length). One at a
// time from a state within capacity - reserve is a depth-first search: the paths it leaves on the
// stacks at the successive lengths extend one path's successive prefixes, and are pairwise
// distinct vertices (a path of length j + 1 ends at a neighbour of the j-th vertex, which every
// longer path of the chain must not touch), so they number fewer than n, and one step's output
// adds at most `fanout`. Hence a reserve of n + fanout (twice that is kept).
__device__ void
plan_step(const SearchArgs &a, Control *c, uint64_t started, uint32_t steps_here) {
	c->paths = 0;
	c->words = c->committed;
	c->step_cycles = 0;
	const unsigned long long limit = a.capacity - a.reserve, used = c->top[0] + c->top[1];
	uint32_t reason = 0;
	if (c->segments == 0 && c->next_unit == a.units)
		reason = r_done;
	else if (a.cycles && c->committed >= a.goal)
		reason = r_enough;
	else if (steps_here > 0 && now_ns() - started > kLaunchNs)
		reason = r_time;
	if (reason) {
		c->kind = k_exit;
		c->reason = reason;
		return;
	}
	if (c->segments == 0) {
		const bool extend = a.top_length >= 4;
		const unsigned long long begin = c->next_unit;
		unsigned long long end = begin + min(a.units - begin, c->retry);
		if (extend) {
			// The last end whose triplets fit in the room (one unit at least: a unit yields fewer
			// than `fanout` triplets).
			unsigned long long lo = begin + 1, hi = end;
			while (lo < hi) {
				unsigned long long mid = hi - (hi - lo) / 2;
				if (a.unit_prefix[mid] - a.unit_prefix[begin] <= limit)
					lo = mid;
				else
					hi = mid - 1;
			}
			end = lo;
		}
		c->kind = k_seed;
		c->length = 3;
		c->extend = extend;
		c->begin = begin;
		c->count = end - begin;
		c->out_at = 0;
		c->out_down = 0;
		return;
	}
	const uint32_t top = c->segments - 1, stack = top % 2;
	const Segment seg = a.segments[top];
	const uint32_t length = 3 + top;
	const bool extend = length + 2 <= a.top_length;
	unsigned long long chunk = seg.count;
	if (extend) {
		unsigned long long room = limit > used ? (limit - used) / a.fanout : 0;
		chunk = max(min(room, seg.count), 1ull);
		if (used + chunk * a.fanout > a.capacity) {
			c->kind = k_exit; // cannot happen (see above); the host reports it
			c->reason = r_stack_overflow;
			return;
		}
	}
	chunk = min(chunk, c->retry);
	const float yield = a.cycles && length + 1 >= a.min_length ? a.yield[length] : 0.0f;
	if (yield > 0) {
		const float fit = float(a.cycle_capacity - min(c->committed, a.cycle_capacity)) / (yield * 1.125f);
		if (fit < float(chunk)) {
			if (c->committed > 0 && fit < float(chunk) / 4) {
				c->kind = k_exit; // little room left for this length: the next buffer
				c->reason = r_full;
				return;
			}
			chunk = max((unsigned long long)fit, 1ull);
		}
	}
	c->kind = k_expand;
	c->length = length;
	c->extend = extend;
	c->count = chunk;
	// The chunk: the top `chunk` records of the segment, contiguous on either stack.
	const unsigned long long first = seg.begin + seg.count - chunk;
	c->begin = stack == 0 ? first : a.capacity - first - chunk;
	// Outputs on the other stack's top.
	const unsigned long long other = c->top[stack ^ 1];
	c->out_down = stack == 0;
	c->out_at = stack == 0 ? a.capacity - 1 - other : other;
}

// Thread 0, after a step: keeps it, or forgets it when its cycles overflowed the buffer.
__device__ void
commit_step(const SearchArgs &a, Control *c) {
	const unsigned long long words = fresh(&c->words);
	const bool expand = c->kind == k_expand;
	if (a.cycles && expand && c->count > 0) {
		// The words claimed, kept or not, per path: what a chunk of this length will need.
		const float seen = float(words - c->committed) / float(c->count);
		if (seen > a.yield[c->length])
			a.yield[c->length] = seen;
	}
	if (a.cycles && words > a.cycle_capacity) {
		c->redone++;
		if (c->committed > 0) {
			c->kind = k_exit; // redone into the next, empty buffer
			c->reason = r_full;
		} else if (c->count == 1) {
			c->kind = k_exit; // cannot happen: the buffers take what one path closes
			c->reason = r_path_overflow;
		} else {
			c->retry = max(c->count / 2, 1ull);
		}
		return;
	}
	c->steps++;
	if (expand)
		c->cycles += (words - c->committed) / record_words(c->length + 1, a.code_bits);
	else
		c->cycles += fresh(&c->step_cycles);
	c->committed = words;
	c->retry = ~0ull;
	const unsigned long long got = fresh(&c->paths);
	if (c->kind == k_seed)
		c->next_unit = c->begin + c->count;
	else
		a.segments[c->segments - 1].count -= c->count;
	if (got > 0) {
		const uint32_t next = c->kind == k_seed ? 0 : c->segments;
		a.segments[next] = {c->kind == k_seed ? 0 : c->top[next % 2], got};
		c->segments = next + 1;
	}
	while (c->segments > 0 && a.segments[c->segments - 1].count == 0)
		c->segments--;
	// Each stack's top: its highest segment's end, the top segment's or the one below it.
	c->top[0] = c->top[1] = 0;
	for (uint32_t i = c->segments > 2 ? c->segments - 2 : 0; i < c->segments; i++)
		c->top[i % 2] = a.segments[i].begin + a.segments[i].count;
	c->peak = max(c->peak, c->top[0] + c->top[1]);
}

// The search, step after step, in one cooperative launch: thread 0 plans a step, every thread
// runs its share, thread 0 commits it.
template <int W>
__global__ void
__launch_bounds__(kSearchThreads) search_kernel(SearchArgs a) {
	__shared__ BlockScan::TempStorage scan;
	__shared__ unsigned long long shared_base[2];
	cg::grid_group grid = cg::this_grid();
	Control *c = a.control;
	const size_t thread = size_t(blockIdx.x) * blockDim.x + threadIdx.x, threads = size_t(gridDim.x) * blockDim.x;
	const bool leader = thread == 0;
	uint64_t started = 0;
	if (leader) {
		started = now_ns();
		c->committed = 0;
		c->cycles = 0;
		c->reason = 0;
	}
	for (uint32_t steps_here = 0;; steps_here++) {
		if (leader)
			plan_step(a, c, started, steps_here);
		grid.sync();
		const uint32_t kind = fresh(&c->kind);
		if (kind == k_exit)
			return;
		const unsigned long long begin = fresh(&c->begin), count = fresh(&c->count), out_at = fresh(&c->out_at);
		const bool extend = fresh(&c->extend) != 0;
		uint32_t *out = a.stack + out_at * a.record;
		const uint32_t length = fresh(&c->length);
		if (kind == k_seed) {
			seed_units(a, begin, begin + count, extend, out, thread, threads);
		} else {
			const uint32_t *in = a.stack + begin * a.record;
			expand_paths<W>(a, in, count, length, extend, out,
			                fresh(&c->out_down) ? -(long long)a.record : (long long)a.record, scan, shared_base);
			if (a.cycles && length + 1 >= a.min_length) {
				grid.sync();
				emit_listed<W>(a, in, length, thread, threads);
			}
		}
		grid.sync();
		if (leader)
			commit_step(a, c);
	}
}

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

// Bitmap words for n vertices: a power of two up to 8 (the bitmap in registers), else exact.
uint32_t
bitmap_words(size_t n) {
	uint32_t words = uint32_t((n + 31) / 32);
	if (words > 8)
		return words;
	uint32_t w = 1;
	while (w < words)
		w *= 2;
	return w;
}

const void *
search_kernel_for(uint32_t words) {
	switch (words) {
	case 1:
		return reinterpret_cast<const void *>(search_kernel<1>);
	case 2:
		return reinterpret_cast<const void *>(search_kernel<2>);
	case 4:
		return reinterpret_cast<const void *>(search_kernel<4>);
	case 8:
		return reinterpret_cast<const void *>(search_kernel<8>);
	default:
		return reinterpret_cast<const void *>(search_kernel<0>);
	}
}

// Pinned host buffers for the cycle downloads, kept by the process between enumerations:
// cudaMallocHost costs about 0.3 ms per MiB here and cudaFreeHost as much, more than a small
// graph's whole search. A search takes a buffer as large as its first download needs (128 KiB
// at least), the full cycle buffer once a download outgrows it, and gives its buffers back when
// it ends; the pool keeps the two largest of at most kMaxCycleBuffer bytes (8 MiB together) for
// the next search of the process and frees the rest.
class StagingPool {
public:
	struct Buffer {
		CycleWord *data = nullptr;
		size_t words = 0;
	};

	static StagingPool &
	instance() {
		static StagingPool pool; // freed at exit, before the CUDA runtime's own teardown
		return pool;
	}

	// A buffer of at least `need` words: the smallest kept one that is large enough, else a new
	// one of `size` words (size >= need).
	Buffer
	take(size_t need, size_t size) {
		{
			std::lock_guard<std::mutex> lock(mutex_);
			auto best = kept_.end();
			for (auto k = kept_.begin(); k != kept_.end(); ++k)
				if (k->words >= need && (best == kept_.end() || k->words < best->words))
					best = k;
			if (best != kept_.end()) {
				Buffer b = *best;
				kept_.erase(best);
				return b;
			}
		}
		Buffer b;
		CUDA_CHECK(cudaMallocHost(&b.data, size * sizeof(CycleWord)));
		b.words = size;
		return b;
	}

	// Never throws: runs while an Error unwinds.
	void
	give(Buffer b) noexcept {
		if (!b.data)
			return;
		if (b.words * sizeof(CycleWord) > kMaxCycleBuffer) {
			cudaFreeHost(b.data); // a graph with very long rows: not kept
			return;
		}
		Buffer spare{};
		{
			std::lock_guard<std::mutex> lock(mutex_);
			kept_.push_back(b);
			if (kept_.size() > kKept) {
				auto smallest = std::min_element(kept_.begin(), kept_.end(),
				                                 [](const Buffer &x, const Buffer &y) { return x.words < y.words; });
				spare = *smallest;
				kept_.erase(smallest);
			}
		}
		if (spare.data)
			cudaFreeHost(spare.data);
	}

	~StagingPool() {
		for (const Buffer &b : kept_)
			cudaFreeHost(b.data);
	}

private:
	static constexpr size_t kKept = 2;
	std::mutex mutex_;
	std::vector<Buffer> kept_;
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

} // namespace

// The resumable search, shared by counting (no cycle buffers) and enumeration.
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

		// Seed units (stage 1) and how many triplets the units before each can yield; the longest
		// row bounds how many paths one path can extend to (its last vertex's other neighbours).
		size_t max_degree = 0;
		unit_prefix_.push_back(0);
		for (vid_t u = 0; u < n; u++) {
			max_degree = std::max<size_t>(max_degree, adj_.end(u) - adj_.begin(u));
			const vid_t *above = std::upper_bound(adj_.begin(u), adj_.end(u), u);
			for (const vid_t *x = above; x + 1 < adj_.end(u); x++) {
				unit_u_.push_back(u);
				unit_pos_.push_back(eid_t(x - adj_.targets.data()));
				unit_prefix_.push_back(unit_prefix_.back() + (adj_.end(u) - x - 1));
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

	~Search() {
		// Nothing may still write into buffers being freed or handed on.
		cudaStreamSynchronize(stream_.get());
		cudaStreamSynchronize(copies_.get());
		for (StagingPool::Buffer &b : staging_)
			StagingPool::instance().give(b);
	}

	// Counting: launches until the search is complete.
	void
	run_to_end() {
		while (!done_) {
			poll_cancel();
			Stopwatch watch(timings.search_ms);
			launch();
			finish();
		}
	}

	// Enumeration: makes the next downloaded block of cycles the one next_cycle() reads; false
	// when every cycle has been read. The launch after a block's runs while the block downloads
	// and while the caller reads it.
	bool
	next_block() {
		staged_words_ = read_ = block_cycles_ = 0;
		for (;;) {
			poll_cancel();
			if (!launched_ && !done_) {
				Stopwatch watch(timings.search_ms);
				launch();
			}
			if (launched_) {
				{
					Stopwatch watch(timings.search_ms);
					finish();
				}
				if (launch_words_ > 0)
					start_download();
				buffer_ ^= 1;
				goal_ = std::max<size_t>(1, std::min(2 * goal_, cycle_capacity_ / 4 * 3));
				if (!done_) {
					Stopwatch watch(timings.search_ms);
					launch();
				}
			}
			if (pending_) {
				Stopwatch watch(timings.download_ms);
				CUDA_CHECK(cudaEventSynchronize(downloaded_[pending_buffer_].get()));
				pending_ = false;
				staged_ = staging_[pending_buffer_].data;
				staged_words_ = pending_words_;
				block_cycles_ = pending_cycles_;
				return true;
			}
			if (done_ && !launched_)
				return false;
		}
	}

	// Appends the next cycle of the current block's input vertices to `vertices`; false when the
	// block is read.
	bool
	next_cycle(std::vector<vid_t> &vertices) {
		if (read_ == staged_words_)
			return false;
		const CycleWord *r = staged_ + read_;
		const uint32_t length = r[0], bits = code_bits_, mask = (1u << bits) - 1;
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

	size_t
	block_cycles() const noexcept {
		return block_cycles_;
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

	GpuChordlessTimings timings;

private:
	// Path memory: the stack, which keeps `reserve_` records free for a depth-first run (2n paths
	// at most, see plan_step) plus one step's output. When enumerating, part of the budget is the
	// two cycle buffers, each of which takes at least what one path or one seed unit can close
	// (so that a step of one always fits an empty buffer).
	void
	allocate(size_t n, size_t budget_bytes, bool enumerate) {
		words_ = bitmap_words(n);
		record_ = kHeader + words_;
		const size_t record_bytes = record_ * sizeof(uint32_t);
		reserve_ = 2 * (n + fanout_);
		size_t budget = budget_bytes ? budget_bytes : kDefaultBudget;
		size_t free_bytes = 0, total_bytes = 0;
		CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
		if (!budget_bytes)
			budget = std::min(budget, free_bytes / 2);
		code_bits_ = 1;
		while (code_bits_ < 16 && (size_t(1) << code_bits_) < fanout_)
			code_bits_ *= 2;
		if (enumerate)
			cycle_capacity_ = std::max(fanout_ * record_words(std::max<uint32_t>(top_length_, 3), code_bits_),
			                           std::min(budget / 16, kMaxCycleBuffer) / sizeof(CycleWord));
		size_t path_bytes = budget - std::min(budget, 2 * cycle_capacity_ * sizeof(CycleWord));
		stack_capacity_ = std::max(reserve_ + fanout_, path_bytes / record_bytes);
		size_t need = stack_capacity_ * record_bytes + 2 * cycle_capacity_ * sizeof(CycleWord) +
		              (cycle_capacity_ / 3 + 1) * sizeof(uint2) + DeviceCsr::bytes_for(n, adj_.edge_count()) +
		              n * words_ * sizeof(uint32_t) +
		              unit_u_.size() * (sizeof(vid_t) + sizeof(eid_t) + sizeof(unsigned long long)) +
		              n * sizeof(vid_t) + (64 << 20);
		if (need > free_bytes)
			throw Error(ErrorKind::limit_exceeded,
			            "GPU chordless cycles need about " + mib(need) + " of GPU memory, " + mib(free_bytes) +
			                " are free",
			            "Use the CPU for this graph (grail.device = auto or cpu).");

		std::vector<uint32_t> nbr(n * words_, 0);
		for (vid_t v = 0; v < n; v++)
			for (const vid_t *w = adj_.begin(v); w != adj_.end(v); w++)
				nbr[size_t(v) * words_ + (*w >> 5)] |= 1u << (*w & 31);
		cudaStream_t s = stream_.get();
		dadj_ = DeviceCsr::upload(adj_, s);
		upload(nbr_, nbr, s);
		upload(unit_u_d_, unit_u_, s);
		upload(unit_pos_d_, unit_pos_, s);
		upload(unit_prefix_d_, unit_prefix_, s);
		upload(original_d_, original_, s);
		stack_.resize(stack_capacity_ * record_);
		segments_.resize(top_length_ + 1);
		yield_.resize(top_length_ + 2);
		CUDA_CHECK(cudaMemsetAsync(yield_.data(), 0, yield_.bytes(), s));
		control_.resize(1);
		Control initial{};
		initial.retry = ~0ull;
		CUDA_CHECK(cudaMemcpyAsync(control_.data(), &initial, sizeof(Control), cudaMemcpyHostToDevice, s));
		if (enumerate) {
			cycles_[0].resize(cycle_capacity_);
			cycles_[1].resize(cycle_capacity_);
			// A record takes 3 words at least: a step whose list would be longer overflows anyway.
			closed_.resize(cycle_capacity_ / 3 + 1);
			goal_ = std::max<size_t>(1, std::min(kFirstDownloadWords, cycle_capacity_ / 4 * 3));
		} else {
			counts_.resize(top_length_ + 1);
			CUDA_CHECK(cudaMemsetAsync(counts_.data(), 0, counts_.bytes(), s));
		}
		kernel_ = search_kernel_for(words_);
		blocks_ = resident_blocks(kernel_, kSearchThreads);
		// The host vectors must outlive the copies above.
		stream_.synchronize();
	}

	template <class T, class Host>
	static void
	upload(DeviceBuffer<T> &to, const Host &from, cudaStream_t s) {
		to.resize(from.size());
		if (from.size())
			CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), to.bytes(), cudaMemcpyHostToDevice, s));
	}

	// Queues one launch of the search (into the current cycle buffer, once its last download is
	// done) and the read-back of its state.
	void
	launch() {
		cudaStream_t s = stream_.get();
		const bool enumerate = cycle_capacity_ > 0;
		if (enumerate && downloads_queued_[buffer_])
			CUDA_CHECK(cudaStreamWaitEvent(s, downloaded_[buffer_].get(), 0));
		SearchArgs args{dadj_.view(),
		                nbr_.data(),
		                words_,
		                record_,
		                unit_u_d_.data(),
		                unit_pos_d_.data(),
		                unit_prefix_d_.data(),
		                unit_u_.size(),
		                stack_.data(),
		                stack_capacity_,
		                reserve_,
		                fanout_,
		                top_length_,
		                min_length_,
		                counts_.data(),
		                enumerate ? cycles_[buffer_].data() : nullptr,
		                cycle_capacity_,
		                goal_,
		                original_d_.data(),
		                code_bits_,
		                control_.data(),
		                segments_.data(),
		                yield_.data(),
		                closed_.data(),
		                closed_.size()};
		void *params[] = {&args};
		CUDA_CHECK(cudaLaunchCooperativeKernel(kernel_, blocks_, kSearchThreads, params, 0, s));
		CUDA_CHECK(cudaMemcpyAsync(host_control_.data(), control_.data(), sizeof(Control), cudaMemcpyDeviceToHost, s));
		launched_ = true;
		timings.launches++;
	}

	// Waits for the launch and reads where it left the search.
	void
	finish() {
		stream_.synchronize();
		launched_ = false;
		const Control &c = host_control_[0];
		if (c.reason == r_path_overflow)
			throw Error(ErrorKind::internal, "GPU chordless cycles: one path's cycles overflowed the cycle buffer");
		if (c.reason == r_stack_overflow)
			throw Error(ErrorKind::internal, "GPU chordless cycles: the path stack overflowed its bound");
		done_ = c.reason == r_done;
		launch_words_ = c.committed;
		launch_cycles_ = c.cycles;
		timings.steps = c.steps + c.redone;
		timings.peak_paths = c.peak;
	}

	// Queues the download of the buffer the last launch filled, on the copy stream.
	void
	start_download() {
		Stopwatch watch(timings.download_ms);
		StagingPool::Buffer &staging = staging_[buffer_];
		if (staging.words < launch_words_) {
			// First as large as this download needs; once outgrown, the whole cycle buffer. The
			// buffer's last download is done: the launch that refilled it waited for it.
			const size_t size = staging.data ? cycle_capacity_ : std::max(launch_words_, kFirstStaging);
			StagingPool::instance().give(staging);
			staging = {};
			staging = StagingPool::instance().take(launch_words_, std::min(size, cycle_capacity_));
		}
		cudaStream_t c = copies_.get();
		// After the launch that wrote the buffer.
		launch_done_.record(stream_.get());
		CUDA_CHECK(cudaStreamWaitEvent(c, launch_done_.get(), 0));
		CUDA_CHECK(cudaMemcpyAsync(staging.data, cycles_[buffer_].data(), launch_words_ * sizeof(CycleWord),
		                           cudaMemcpyDeviceToHost, c));
		downloaded_[buffer_].record(c);
		downloads_queued_[buffer_] = true;
		pending_ = true;
		pending_buffer_ = buffer_;
		pending_words_ = launch_words_;
		pending_cycles_ = launch_cycles_;
		timings.downloads++;
	}

	uint32_t min_length_;
	uint32_t top_length_ = 0;
	size_t fanout_ = 1;
	Csr adj_;
	std::vector<vid_t> original_;
	std::vector<vid_t> unit_u_;
	std::vector<eid_t> unit_pos_;
	std::vector<unsigned long long> unit_prefix_;

	uint32_t words_ = 0, record_ = 0, code_bits_ = 0;
	size_t reserve_ = 0, stack_capacity_ = 0, cycle_capacity_ = 0, goal_ = 0;
	const void *kernel_ = nullptr;
	unsigned blocks_ = 0;
	Stream stream_, copies_;
	DeviceCsr dadj_;
	DeviceBuffer<uint32_t> nbr_, stack_;
	DeviceBuffer<vid_t> unit_u_d_, original_d_;
	DeviceBuffer<eid_t> unit_pos_d_;
	DeviceBuffer<unsigned long long> unit_prefix_d_, counts_;
	DeviceBuffer<Control> control_;
	DeviceBuffer<Segment> segments_;
	DeviceBuffer<float> yield_;
	DeviceBuffer<uint2> closed_;
	DeviceBuffer<CycleWord> cycles_[2];
	PinnedBuffer<Control> host_control_{1};
	Event launch_done_, downloaded_[2];
	bool downloads_queued_[2] = {false, false};

	bool launched_ = false, done_ = false;
	unsigned buffer_ = 0; // the cycle buffer the next launch fills
	size_t launch_words_ = 0, launch_cycles_ = 0;
	bool pending_ = false; // a download queued and not yet handed out
	unsigned pending_buffer_ = 0;
	size_t pending_words_ = 0, pending_cycles_ = 0;

	StagingPool::Buffer staging_[2]; // downloaded cycles, pinned (from the process's pool)
	const CycleWord *staged_ = nullptr;
	size_t staged_words_ = 0, read_ = 0, block_cycles_ = 0;
};

std::vector<uint64_t>
count_chordless_cycles_gpu(const Csr &graph, uint32_t max_length, size_t path_budget_bytes,
                           GpuChordlessTimings *timings) {
	if (max_length < 3)
		throw Error(ErrorKind::invalid_input, "chordless cycles: max_length must be at least 3");
	check_gpu_search(graph);
	GpuChordlessCycleEnumerator::Search search(graph, 3, max_length, path_budget_bytes, false);
	search.run_to_end();
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
		if (!search.next_block())
			return batch.size() > 0;
	}
}

size_t
GpuChordlessCycleEnumerator::next_block() {
	Search &search = *search_;
	while (search.next_block())
		if (search.block_cycles() > 0)
			return search.block_cycles();
	return 0;
}

const GpuChordlessTimings &
GpuChordlessCycleEnumerator::timings() const noexcept {
	return search_->timings;
}

} // namespace grail
