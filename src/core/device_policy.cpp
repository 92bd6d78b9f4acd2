#include "device_policy.hpp"

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

} // namespace grail
