// The planner of the GPU chordless cycle search: thread 0 of the cooperative launch decides each
// step's chunk before a grid barrier (plan_step) and, after the step, keeps or forgets it
// (commit_step). Device code of chordless_search.cu's kernel: a header rather than a .cu of its
// own, since the kernels are built without separate device linking.
#pragma once
#include "chordless_search.cuh"
#include "primitives.cuh"

namespace grail::cuda::chordless {

// A launch returns to the host after this much device time, so that cancellation is polled.
constexpr uint64_t kLaunchNs = 20'000'000;

// Thread 0: the next step, or the end of the launch. Chunks: as many paths of the top segment as
// keep both stacks, with the step's outputs, within capacity - reserve (else one), and, when
// enumerating, whose cycles should fit in the buffer (by the yield seen at that length). One at a
// time from a state within capacity - reserve is a depth-first search: the paths it leaves on the
// stacks at the successive lengths extend one path's successive prefixes, and are pairwise
// distinct vertices (a path of length j + 1 ends at a neighbour of the j-th vertex, which every
// longer path of the chain must not touch), so they number fewer than n, and one step's output
// adds at most `fanout`. Hence a reserve of n + fanout (twice that is kept).
__device__ inline void
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
__device__ inline void
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

} // namespace grail::cuda::chordless
