// Which device runs an algorithm: a plain value that the host makes from its settings (the
// PostgreSQL glue from grail.device and grail.gpu_min_edges, whose names the messages use), and the
// rule that picks the GPU, or falls back to the CPU after a GPU failure the CPU can recover from.
#pragma once
#include "cpp_only.hpp"
#include "device.hpp"
#include "error.hpp"
#include "graph.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace grail {

enum class DeviceMode { cpu, gpu, automatic };

// The GPU of this process, probed once, on first need: the answer does not change while the
// process lives. Initialises CUDA in the process: never call it before a fork.
const GpuProbe &process_gpu();

// Tells the host that `what` runs on the CPU after all, and why (the GPU failure's message).
using DeviceFallback = std::function<void(const char *what, const std::string &reason)>;

struct DevicePolicy {
	DeviceMode mode = DeviceMode::automatic;
	// automatic: the fewest edges of a graph that the GPU traverses.
	uint64_t min_edges = 2000000;
	// automatic: the fewest label-undecided pairs of one reachability batch that the GPU searches: a
	// group of that many costs the GPU about a millisecond of per-level round trips, which the CPU's
	// searches (40-130 us each for negative pairs on the benchmark's DAGs) take well before 256.
	size_t min_searches = 256;

	using Probe = const GpuProbe &(*)();

	// True if the GPU should run a traversal of a graph: never under cpu; always under gpu (an
	// Error(invalid_input) if no GPU is usable); under automatic, when a GPU is usable, the graph
	// has at least min_edges edges and an average out-degree of at least 2. (Level-synchronous GPU
	// traversal pays one synchronisation per level: on long thin graphs, paths and chains, the CPU
	// wins by far.) Calls probe only when the answer depends on it.
	bool use_gpu(uint64_t vertices, uint64_t edges, Probe probe = process_gpu) const;

	// Whether a batch with this many searches may go to the GPU at all (use_gpu() decides then):
	// under gpu any search, under automatic min_searches of them; under cpu none. A batch over a
	// live graph's pending changes is never asked: it searches on the CPU whatever the mode, since
	// the GPU search knows only the build (reach.hpp).
	bool
	batch_may_use_gpu(size_t searches) const noexcept {
		return mode != DeviceMode::cpu && searches > 0 && searches >= (mode == DeviceMode::gpu ? 1 : min_searches);
	}

	// Under automatic, a GPU failure that the CPU can recover from (Error(limit_exceeded): the
	// graph does not fit in device memory) falls back to the CPU, which the host is told of; under
	// gpu it is the caller's error.
	bool
	falls_back(const Error &e) const noexcept {
		return mode == DeviceMode::automatic && e.kind() == ErrorKind::limit_exceeded;
	}
};

// Under automatic, the device that searches a graph's batches (the pairs their labels leave
// undecided): whichever has searched them faster so far. Which wins depends on the graph, its
// pairs and the machine: a GPU batch costs a round trip per level of its searches, the CPU's
// searches its threads' time, so a host with many cores can beat its GPU (the filter over 2M pairs
// of a 1M-vertex random DAG: 888 ms with the batches of 6,000 searches on the H200 against 610 on
// 16 CPU threads) where dense DAGs' long searches go 11x faster on the GPU than on one core. So
// both are measured on the graph's own batches: the first batches try the GPU, then the CPU; then
// each batch goes to the one cheaper per search so far, and the other is tried again after a
// stretch of batches that doubles each time it loses again (8 to 1,024), so that a change in what
// the batches ask (or in the machine's load) is noticed. Answers are the same either way.
class SearchDeviceChoice {
public:
	// Whether the next batch goes to the GPU (asked only under automatic, for a batch the policy
	// lets go there: batch_may_use_gpu() and use_gpu()).
	bool gpu_next() noexcept;
	// The searches of the batch just asked about took ms on the GPU (gpu) or the CPU.
	void record(bool gpu, size_t searches, double ms) noexcept;
	// ms a search on the GPU (gpu) or the CPU so far, a running average; 0 until one was measured.
	double
	cost(bool gpu) const noexcept {
		return cost_[gpu];
	}

	static constexpr uint64_t kFirstStretch = 8, kLongestStretch = 1024;

private:
	double cost_[2] = {0, 0};
	uint64_t batches_ = 0;             // batches on the cheaper device since the other was tried
	uint64_t stretch_ = kFirstStretch; // batches before the other is tried again
	bool trying_other_ = false;        // gpu_next() picked the device that is not the cheaper
};

// gpu() where the policy picks the GPU for graph, cpu() otherwise or after a GPU failure the policy
// falls back from, which fallback(what, reason) reports first.
template <typename Gpu, typename Cpu>
auto
run_on_device(const DevicePolicy &policy, const char *what, const Csr &graph, Gpu &&gpu, Cpu &&cpu,
              const DeviceFallback &fallback, DevicePolicy::Probe probe = process_gpu) -> decltype(cpu()) {
	if (policy.use_gpu(graph.vertex_count(), graph.edge_count(), probe)) {
		try {
			return gpu();
		} catch (const Error &e) {
			if (!policy.falls_back(e))
				throw;
			fallback(what, e.what());
		}
	}
	return cpu();
}

} // namespace grail
