#include "device_policy.hpp"

#include <algorithm>

namespace grail {

const GpuProbe &
process_gpu() {
	static GpuProbe probe = probe_gpu();
	return probe;
}

bool
DevicePolicy::use_gpu(uint64_t vertices, uint64_t edges, Probe probe) const {
	switch (mode) {
	case DeviceMode::cpu:
		return false;
	case DeviceMode::gpu:
		if (!probe().usable)
			throw Error(ErrorKind::invalid_input, "grail.device is gpu, but no GPU is usable: " + probe().description,
			            "SET grail.device = auto (or cpu) to run on the CPU.");
		return true;
	case DeviceMode::automatic:
		break;
	}
	return edges >= min_edges && edges >= 2 * vertices && probe().usable;
}

bool
SearchDeviceChoice::gpu_next() noexcept {
	trying_other_ = false;
	if (cost_[1] == 0)
		return true;
	if (cost_[0] == 0)
		return false;
	bool gpu_cheaper = cost_[1] < cost_[0];
	if (++batches_ > stretch_) {
		batches_ = 0;
		trying_other_ = true;
		return !gpu_cheaper;
	}
	return gpu_cheaper;
}

void
SearchDeviceChoice::record(bool gpu, size_t searches, double ms) noexcept {
	if (searches == 0 || !(ms >= 0))
		return;
	double per_search = ms / double(searches);
	if (trying_other_) {
		// The device that lost before, tried again: its cost is this batch's (not averaged with an
		// old one); where it loses again, it waits twice as long for its next try.
		trying_other_ = false;
		stretch_ = per_search < cost_[!gpu] ? kFirstStretch : std::min(stretch_ * 2, kLongestStretch);
		cost_[gpu] = per_search;
		return;
	}
	cost_[gpu] = cost_[gpu] == 0 ? per_search : 0.75 * cost_[gpu] + 0.25 * per_search;
}

} // namespace grail
