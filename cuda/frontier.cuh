// The primitives of the level-synchronous traversals (BFS, GRAIL queries): visited status as a
// bitmap and the frontier object with its top-down step (Kahn's levels are in kahn.cuh). push()
// is a template over the per-edge operation; its definition is in frontier_push.cuh, which only
// the .cu files that instantiate it include, to keep build time down.
#pragma once
#include "buffer.cuh"
#include "device_csr.cuh"
#include "launch.cuh"

namespace grail::cuda {

// No vertex (an unset parent); equal to grail::kNoVertex.
constexpr vid_t kInvalid = 0xFFFFFFFFu;

// Visited status, one bit per vertex: n/8 bytes, so it stays in L2 for graphs of tens of
// millions of vertices, unlike a per-vertex word.
struct Bitmap {
	uint32_t *words;

	__host__ __device__ static size_t
	words_for(size_t vertices) {
		return (vertices + 31) / 32;
	}
	__device__ bool
	test(vid_t v) const {
		return (words[v >> 5] >> (v & 31)) & 1u;
	}
	// True for the one caller that set the bit. The plain read first spares the atomic for the
	// common already-visited case; it may be stale, the atomic decides.
	__device__ bool
	try_set(vid_t v) const {
		uint32_t bit = 1u << (v & 31);
		if (words[v >> 5] & bit)
			return false;
		return !(atomicOr(&words[v >> 5], bit) & bit);
	}
};

// What a frontier step leaves for the host, read back in one copy after each launch.
struct LevelCounters {
	unsigned long long edges; // out-edges of the frontier the step produced
	uint32_t count;           // vertices of that frontier
	uint32_t level;           // steps that run several levels (BFS's narrow kernel): the level reached
	uint32_t exit;            // and why they stopped
};

// The frontier of a level-synchronous traversal, in the manner of Gunrock's and cuGraph's frontier
// objects: it owns the vertex queues (this level's and the next), the counters a step leaves and
// their read-back, and the top-down step, push(). A step appends the next level to next(), in no
// particular order, counting it and its out-edges on the device; the host then waits once, reads
// the counters and swaps the queues. Steps of other shapes (BFS's bottom-up and narrow kernels)
// write the queues and counters themselves.
class Frontier {
public:
	explicit Frontier(size_t vertices);
	static size_t bytes_for(size_t vertices);

	vid_t *
	current() const noexcept {
		return queue_[cur_].data();
	}
	vid_t *
	next() const noexcept {
		return queue_[cur_ ^ 1].data();
	}
	// Both queues, for a caller that needs the room once the traversal is over.
	vid_t *
	queue(int k) const noexcept {
		return queue_[k].data();
	}
	vid_t
	size() const noexcept {
		return size_;
	}
	eid_t
	edges() const noexcept {
		return edges_;
	}
	LevelCounters *
	counters() const noexcept {
		return counters_.data();
	}
	// Zeroes the counters on the stream, before a step that adds to them.
	void clear_counters(cudaStream_t stream);
	// Waits for the stream and returns the counters the last step left.
	LevelCounters read_counters(cudaStream_t stream);
	// current() holds size vertices with `edges` out-edges (a step rewrote it in place).
	void
	set(vid_t size, eid_t edges) noexcept {
		size_ = size;
		edges_ = edges;
	}
	// The step that appended to next() is done: next() becomes current(), sized by its counters.
	void advance(const LevelCounters &c) noexcept;

	// Top-down step over graph: op(u, w) -> bool runs on the device for every edge u -> w out of
	// current() (concurrently for one w), and w is appended to next() where it returns true, so
	// op must return true once per w (a visited bitmap's try_set()). Rows are expanded by a block,
	// a warp or a thread according to their length (Merrill, Garland & Grimshaw's gathering);
	// a frontier of few, long rows (a hub among a handful of vertices), whose edges would keep a
	// block or two busy while the others idle, is cut into equal chunks of edges instead.
	// Waits once; then next() is current(). Definition in frontier_push.cuh.
	template <class Op> LevelCounters push(CsrView graph, const Op &op, cudaStream_t stream);

private:
	// row_starts_[0 .. size_] = where each row of current() begins in the rows laid end to end,
	// then their total.
	void lay_rows_end_to_end(CsrView graph, cudaStream_t stream);

	DeviceBuffer<vid_t> queue_[2];
	DeviceBuffer<eid_t> row_starts_; // grown when a push first needs it
	TempStorage temp_;
	int cur_ = 0;
	vid_t size_ = 0;
	eid_t edges_ = 0;
	DeviceBuffer<LevelCounters> counters_;
	PinnedBuffer<LevelCounters> host_counters_;
};

} // namespace grail::cuda
