// The host driver of the GPU chordless cycle search (the search itself: chordless_search.cuh).
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
#include "chordless_search.cuh"
#include "clock.hpp"
#include "device_csr.cuh"
#include "error.hpp"
#include "gpu.hpp"
#include "host_util.hpp"
#include "launch.cuh"
#include "pinned_pool.cuh"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace grail {

using namespace cuda;
using namespace cuda::chordless;
using cuda_host::mib;

namespace {

constexpr size_t kDefaultBudget = size_t(512) << 20;
// Each of the two cycle buffers: a sixteenth of the budget, at most this much, at least what one
// step of one path can close. Small: the host's staging buffers are as large, and pinned host
// memory costs about a millisecond per few MiB to allocate, while a launch more costs tens of
// microseconds (grid 7x10: 2 x 16 MiB took 30 ms of allocations for 100 MB of cycles). The
// pinned pool keeps buffers of this size for the next search.
constexpr size_t kMaxCycleBuffer = PinnedPool::kLargestKept;
// The first launch of an enumeration stops at this many cycle words, so that the first rows come
// at once; each later launch asks for twice as many, up to three quarters of a buffer.
constexpr size_t kFirstDownloadWords = size_t(1) << 16;
// The smallest pinned staging buffer a search allocates (words): a first download's goal.
constexpr size_t kFirstStaging = kFirstDownloadWords;

// Refuses what the GPU search cannot take, before any device work.
void
check_gpu_search(const Csr &graph) {
	check_gpu_chordless_size(graph);
	require_device("GPU chordless cycles");
}

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
		for (PinnedPool::Buffer &b : staging_)
			PinnedPool::instance().give(b);
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
				staged_ = static_cast<const CycleWord *>(staging_[pending_buffer_].data);
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
		PinnedPool::Buffer &staging = staging_[buffer_];
		if (staging.bytes < launch_words_ * sizeof(CycleWord)) {
			// First as large as this download needs; once outgrown, the whole cycle buffer. The
			// buffer's last download is done: the launch that refilled it waited for it.
			const size_t size = staging.data ? cycle_capacity_ : std::max(launch_words_, kFirstStaging);
			PinnedPool::instance().give(staging);
			staging = {};
			staging = PinnedPool::instance().take(launch_words_ * sizeof(CycleWord),
			                                      std::min(size, cycle_capacity_) * sizeof(CycleWord));
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

	PinnedPool::Buffer staging_[2]; // downloaded cycles, pinned (from the process's pool)
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