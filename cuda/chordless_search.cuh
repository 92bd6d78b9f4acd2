// The device side of the GPU chordless cycle search (chordless.cu drives it): the two stages of
// Jradi et al. (papers/gpu-chordless-cycles.txt §4) on the undirected simple view, vertices
// renumbered by the CPU's degree labelling so that the GPU finds exactly the cycles the CPU search
// finds:
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
// copy and no hole. The steps run in one cooperative launch (chordless.cu).
//
// This header is what the host driver and the search kernels share: the records, the search's
// state on the device and the kernel for a bitmap width. The kernels are in chordless_search.cu,
// the planner of the steps (run by thread 0 inside the launch) in chordless_plan.cuh.
#pragma once
#include "device_csr.cuh"
#include "gpu.hpp"

#include <cstdint>

namespace grail::cuda::chordless {

constexpr int kSearchThreads = 512;

// A path record: kHeader words, then the bitmap of its vertices (one bit per search vertex,
// `words` words, a power of two up to 8 when the bitmap fits in registers).
enum Field : uint32_t { f_ends, f_last, kHeader }; // f_ends: x | u << 16

// Cycles leave the device as records of 16-bit words: the length, the first search vertex, then
// the length - 1 steps of the walk packed code_bits to a word part (see record_words). Lengths,
// vertices and row positions fit since n <= kGpuChordlessMaxVertices.
using CycleWord = uint16_t;
static_assert(kGpuChordlessMaxVertices <= 0xFFFF, "records hold vertex indexes in 16 bits");

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

// Bitmap words for n vertices: a power of two up to 8 (the bitmap in registers), else exact.
uint32_t bitmap_words(size_t n);

// The search kernel for bitmaps of `words` words (bitmap_words), to launch cooperatively with
// kSearchThreads threads a block and one SearchArgs.
const void *search_kernel_for(uint32_t words);

} // namespace grail::cuda::chordless
