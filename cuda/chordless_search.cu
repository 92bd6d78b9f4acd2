// The kernels of the GPU chordless cycle search (chordless_search.cuh says what it does): the
// seeds and expansions of a step, the cycle records, and the kernel that runs step after step.
#include "chordless_plan.cuh"
#include "chordless_search.cuh"
#include "primitives.cuh"

#include <cooperative_groups.h>

namespace grail::cuda::chordless {

namespace {

namespace cg = cooperative_groups;

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
	unsigned long long at = warp_reserve(cg::coalesced_threads(), &a.control->words, words);
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
			uint32_t *p = out + warp_reserve(cg::coalesced_threads(), &a.control->paths) * a.record;
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
			warp_reserve(cg::coalesced_threads(), &a.counts[3], triangles);
		if (a.cycles && a.min_length <= 3)
			warp_reserve(cg::coalesced_threads(), &a.control->step_cycles, triangles);
	}
}

// Stage 2 on the `count` paths of length `length` at in[0 ..): cycles of length + 1 are counted
// or listed for emission; when extend, the chordless paths of length + 1 go to out[0 ..) (every
// out_step words). Two passes over each path's candidates, the first counting, so that a block
// reserves its outputs and cycle records with one atomic each (one counter takes every path of
// the step: per-warp atomics were millions on one address). scratch: block_reserve's, 2 lists.
template <int W>
__device__ void
expand_paths(const SearchArgs &a, const uint32_t *in, unsigned long long count, uint32_t length, bool extend,
             uint32_t *out, long long out_step, unsigned long long *scratch) {
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
		// New paths go on the stack; closed cycles take record words (emitting), or are counted by
		// length (counting; a.counts is null when enumerating).
		unsigned long long *const lists[2] = {&a.control->paths,
		                                      emit || !a.counts ? &a.control->words : &a.counts[length + 1]};
		const unsigned long long wants[2] = {outs, emit ? closed * rw : a.counts ? closed : 0};
		unsigned long long slots[2];
		block_reserve(lists, wants, slots, scratch);
		if (outs || (emit && closed)) {
			unsigned long long at = slots[0];
			unsigned long long k = (slots[1] - committed) / rw; // every record of the step takes rw words
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

// The search, step after step, in one cooperative launch: thread 0 plans a step, every thread
// runs its share, thread 0 commits it.
template <int W>
__global__ void
__launch_bounds__(kSearchThreads) search_kernel(SearchArgs a) {
	__shared__ unsigned long long scratch[2 * kSearchThreads / 32];
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
			                fresh(&c->out_down) ? -(long long)a.record : (long long)a.record, scratch);
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

} // namespace

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

} // namespace grail::cuda::chordless
