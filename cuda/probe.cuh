// Device-clock timing for benchmarks that costs the production path nothing: with no timings
// asked for, no event exists and mark() does nothing; with them, events are recorded on the
// stream (no synchronisation) and read only after the caller's own final wait.
#pragma once
#include "buffer.cuh"

#include <memory>
#include <vector>

namespace grail::cuda {

class TimingProbe {
public:
	TimingProbe(bool enabled, size_t marks, cudaStream_t stream) : stream_(stream) {
		if (enabled)
			events_.resize(marks);
		for (auto &event : events_)
			event = std::make_unique<Event>();
	}
	void
	mark(size_t k) {
		if (k < events_.size())
			events_[k]->record(stream_);
	}
	// Milliseconds between two marks; both recorded and completed.
	double
	between(size_t from, size_t to) const {
		return events_.empty() ? 0 : events_[to]->since(*events_[from]);
	}

private:
	cudaStream_t stream_;
	std::vector<std::unique_ptr<Event>> events_;
};

} // namespace grail::cuda
