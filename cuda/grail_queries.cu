// Batched GPU reachability search (papers/gpu-grail-reachability.txt section 5, Algorithm 7).
// The queries of a group are the bits of a few status words per vertex (64 queries a word): bit q of
// status[v] says that v is on query q's frontier, bit q of visited[v] that query q has seen v.
// Each level is one top-down step of the shared frontier object (Frontier::push); an edge u -> c
// carries the bits of u's status whose query the labels do not rule out at c, the
// same pruning as ReachabilityQuery::search. A query is done when its target is reached or a
// vertex whose DFS-tree interval holds the target is (a certain "yes"); a group ends when no
// frontier is left. The targets' records are gathered per group into one small array that every
// thread reads, so it stays in L1.
#include "clock.hpp"
#include "error.hpp"
#include "frontier_push.cuh"
#include "gpu.hpp"
#include "pruning.hpp"

#include <algorithm>

namespace grail {

using namespace cuda;

namespace {

struct Group {
	const uint32_t *records; // DAG vertex records, width words each (GrailLabels' layout)
	const BloomRecord *bloom;
	unsigned width, labels, words;
	const vid_t *target;             // per query
	const uint32_t *target_records;  // per query, width words
	const BloomRecord *target_bloom; // per query
	const uint64_t *status;          // this level's frontier bits
	uint64_t *next_status, *visited, *done;
	Bitmap in_next;
};

// What the search does at vertex c (records rc, bc), not query q's target, about that target: the
// CPU search's rule (pruning.hpp), after the topological order's test.
__device__ pruning::Step
step_for(const Group &g, vid_t c, const uint32_t *rc, const BloomRecord &bc, size_t q) {
	if (c > g.target[q]) // components are numbered topologically
		return pruning::Step::prune;
	return pruning::step(bc, rc, g.target_bloom[q], g.target_records + q * g.width, g.labels);
}

struct ExpandOp {
	Group g;
	__device__ bool
	operator()(vid_t u, vid_t c) const {
		const uint32_t *rc = g.records + size_t(c) * g.width;
		const BloomRecord &bc = g.bloom[c];
		bool entered = false;
		for (unsigned j = 0; j < g.words; j++) {
			uint64_t bits = g.status[size_t(u) * g.words + j];
			if (bits == 0)
				continue;
			bits &= ~g.done[j];
			uint64_t carry = 0, reached = 0;
			while (bits != 0) {
				int b = __ffsll(static_cast<long long>(bits)) - 1;
				bits &= bits - 1;
				uint64_t bit = uint64_t(1) << b;
				size_t q = size_t(j) * 64 + size_t(b);
				pruning::Step step = c == g.target[q] ? pruning::Step::reached : step_for(g, c, rc, bc, q);
				if (step == pruning::Step::reached)
					reached |= bit;
				else if (step == pruning::Step::expand)
					carry |= bit;
			}
			if (reached != 0)
				atomicOr(reinterpret_cast<unsigned long long *>(&g.done[j]), reached);
			if (carry != 0) {
				size_t slot = size_t(c) * g.words + j;
				uint64_t seen = atomicOr(reinterpret_cast<unsigned long long *>(&g.visited[slot]), carry);
				uint64_t fresh = carry & ~seen;
				if (fresh != 0) {
					atomicOr(reinterpret_cast<unsigned long long *>(&g.next_status[slot]), fresh);
					entered = true;
				}
			}
		}
		return entered && g.in_next.try_set(c);
	}
};

__global__ void
gather_targets(const vid_t *target, size_t count, const uint32_t *records, const BloomRecord *bloom, unsigned width,
               uint32_t *target_records, BloomRecord *target_bloom) {
	size_t q = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (q >= count)
		return;
	vid_t t = target[q];
	for (unsigned k = 0; k < width; k++)
		target_records[q * width + k] = records[size_t(t) * width + k];
	target_bloom[q] = bloom[t];
}

// Puts every query's source on the first frontier (appended to `queue`), once per vertex.
__global__ void
seed_sources(CsrView dag, const vid_t *source, size_t count, unsigned words, uint64_t *status, uint64_t *visited,
             Bitmap in_next, vid_t *queue, LevelCounters *counters) {
	size_t q = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (q >= count)
		return;
	vid_t s = source[q];
	size_t slot = size_t(s) * words + q / 64;
	uint64_t bit = uint64_t(1) << (q % 64);
	atomicOr(reinterpret_cast<unsigned long long *>(&status[slot]), bit);
	atomicOr(reinterpret_cast<unsigned long long *>(&visited[slot]), bit);
	if (in_next.try_set(s)) {
		atomicAdd(&counters->edges, (unsigned long long)degree(dag, s));
		queue[warp_reserve(cooperative_groups::coalesced_threads(), &counters->count)] = s;
	}
}

__global__ void
clear_status(const vid_t *frontier, vid_t count, unsigned words, uint64_t *status) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count)
		for (unsigned j = 0; j < words; j++)
			status[size_t(frontier[i]) * words + j] = 0;
}

} // namespace

struct GpuReachability::State {
	State(const Index &index, unsigned words_, cudaStream_t s)
	    : n(index.dag().vertex_count()), width(unsigned(index.labels().record_width())),
	      labels(index.labels().label_count()), words(words_), group(64 * size_t(words)),
	      dag(DeviceCsr::upload(index.dag(), s)), records(width * n), bloom(n), status(n * words),
	      next_status(n * words), visited(n * words), in_next(Bitmap::words_for(n)), frontier(n), source(group),
	      target(group), target_records(width * group), target_bloom(group), done(words), host_done(words) {
		CUDA_CHECK(
		    cudaMemcpyAsync(records.data(), index.labels().data().data(), records.bytes(), cudaMemcpyHostToDevice, s));
		CUDA_CHECK(
		    cudaMemcpyAsync(bloom.data(), index.bloom().data().data(), bloom.bytes(), cudaMemcpyHostToDevice, s));
		CUDA_CHECK(cudaStreamSynchronize(s));
	}
	static size_t
	bytes_for(size_t n, size_t m, size_t width, unsigned words) {
		return DeviceCsr::bytes_for(n, m) + 4 * width * n + sizeof(BloomRecord) * n + Frontier::bytes_for(n) +
		       3 * 8 * size_t(words) * n + n / 8;
	}

	size_t n;
	unsigned width, labels, words;
	size_t group; // queries searched together
	DeviceCsr dag;
	DeviceBuffer<uint32_t> records;
	DeviceBuffer<BloomRecord> bloom;
	DeviceBuffer<uint64_t> status, next_status, visited;
	DeviceBuffer<uint32_t> in_next;
	Frontier frontier;
	DeviceBuffer<vid_t> source, target;
	DeviceBuffer<uint32_t> target_records;
	DeviceBuffer<BloomRecord> target_bloom;
	DeviceBuffer<uint64_t> done;
	PinnedBuffer<uint64_t> host_done;
	Stream stream;
	size_t device_bytes = 0;
};

GpuReachability::GpuReachability(const Index &index, unsigned words) {
	if (words < 1 || words > 64)
		throw Error(ErrorKind::invalid_input, "GPU reachability groups take 1 to 64 status words per vertex");
	require_device("GPU reachability queries");
	size_t n = index.dag().vertex_count(), m = index.dag().edge_count();
	size_t free_bytes = require_device_memory(State::bytes_for(n, m, index.labels().record_width(), words), "the index",
	                                          "batched queries", "answer the queries on the CPU")
	                        .free_bytes;
	Stream upload;
	state_ = std::make_unique<State>(index, words, upload.get());
	state_->device_bytes = device_bytes_since(free_bytes);
}

GpuReachability::~GpuReachability() = default;

size_t
GpuReachability::device_bytes() const noexcept {
	return state_ ? state_->device_bytes : 0;
}

void
GpuReachability::search(const std::vector<vid_t> &from, const std::vector<vid_t> &to, std::vector<uint8_t> &reached,
                        GpuQueryTimings *timings) {
	GpuQueryTimings local;
	GpuQueryTimings &t = timings ? *timings : local;
	t = GpuQueryTimings{};
	double t0 = now_ms();
	State &st = *state_;
	cudaStream_t s = st.stream.get();
	const size_t count = from.size();
	reached.assign(count, 0);
	CsrView dag = st.dag.view();
	for (size_t begin = 0; begin < count; begin += st.group) {
		poll_cancel();
		const size_t q = std::min(st.group, count - begin);
		const unsigned words = unsigned((q + 63) / 64);
		const size_t status_bytes = st.n * words * sizeof(uint64_t);
		CUDA_CHECK(
		    cudaMemcpyAsync(st.source.data(), from.data() + begin, q * sizeof(vid_t), cudaMemcpyHostToDevice, s));
		CUDA_CHECK(cudaMemcpyAsync(st.target.data(), to.data() + begin, q * sizeof(vid_t), cudaMemcpyHostToDevice, s));
		CUDA_CHECK(cudaMemsetAsync(st.status.data(), 0, status_bytes, s));
		CUDA_CHECK(cudaMemsetAsync(st.next_status.data(), 0, status_bytes, s));
		CUDA_CHECK(cudaMemsetAsync(st.visited.data(), 0, status_bytes, s));
		CUDA_CHECK(cudaMemsetAsync(st.done.data(), 0, words * sizeof(uint64_t), s));
		CUDA_CHECK(cudaMemsetAsync(st.in_next.data(), 0, st.in_next.bytes(), s));
		gather_targets<<<blocks_for(q), kBlockThreads, 0, s>>>(st.target.data(), q, st.records.data(), st.bloom.data(),
		                                                       st.width, st.target_records.data(),
		                                                       st.target_bloom.data());
		CUDA_CHECK_LAUNCH();
		Frontier &f = st.frontier;
		f.clear_counters(s);
		seed_sources<<<blocks_for(q), kBlockThreads, 0, s>>>(dag, st.source.data(), q, words, st.status.data(),
		                                                     st.visited.data(), Bitmap{st.in_next.data()}, f.next(),
		                                                     f.counters());
		CUDA_CHECK_LAUNCH();
		f.advance(f.read_counters(s));
		uint64_t *status = st.status.data(), *next_status = st.next_status.data();
		while (f.size() > 0) {
			poll_cancel();
			CUDA_CHECK(cudaMemsetAsync(st.in_next.data(), 0, st.in_next.bytes(), s));
			Group g{st.records.data(),
			        st.bloom.data(),
			        st.width,
			        st.labels,
			        words,
			        st.target.data(),
			        st.target_records.data(),
			        st.target_bloom.data(),
			        status,
			        next_status,
			        st.visited.data(),
			        st.done.data(),
			        Bitmap{st.in_next.data()}};
			// The expanded level's queue is next() after the step, rewritten only by the next step.
			const vid_t *expanded = f.current();
			const vid_t expanded_size = f.size();
			t.edges += f.edges();
			f.push(dag, ExpandOp{g}, s);
			clear_status<<<blocks_for(expanded_size), kBlockThreads, 0, s>>>(expanded, expanded_size, words, status);
			CUDA_CHECK_LAUNCH();
			std::swap(status, next_status);
			t.levels++;
		}
		CUDA_CHECK(
		    cudaMemcpyAsync(st.host_done.data(), st.done.data(), words * sizeof(uint64_t), cudaMemcpyDeviceToHost, s));
		CUDA_CHECK(cudaStreamSynchronize(s));
		for (size_t k = 0; k < q; k++)
			reached[begin + k] = (st.host_done[k / 64] >> (k % 64)) & 1;
		t.groups++;
	}
	t.search_ms = now_ms() - t0;
}

} // namespace grail
