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

// Device times of the steps of a loop that waits for the device after every step anyway (the BFS
// level loop): an event recorded as each step begins, read after the caller's final wait, so it
// adds no synchronisation. A step's time runs to the next step's start: its launches, and the
// host's wait and choice of the next step. Does nothing when disabled.
class StepProbe {
public:
	StepProbe(bool enabled, cudaStream_t stream) : enabled_(enabled), stream_(stream) {
	}
	bool
	enabled() const noexcept {
		return enabled_;
	}
	// A step begins, or (the last call) the last step has ended.
	void
	mark() {
		if (!enabled_)
			return;
		events_.push_back(std::make_unique<Event>());
		events_.back()->record(stream_);
	}
	// Milliseconds from mark k to mark k + 1; both recorded and completed.
	double
	step(size_t k) const {
		return events_[k + 1]->since(*events_[k]);
	}

private:
	bool enabled_;
	cudaStream_t stream_;
	std::vector<std::unique_ptr<Event>> events_;
};

} // namespace grail::cuda
