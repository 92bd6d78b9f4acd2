#include "device.hpp"
#include "error.hpp"

#include <string>

#include "boundary/gpu_choice.hpp"
#include "boundary/settings.hpp"
#include "boundary/guard.hpp"

extern "C" {
#include "utils/builtins.h"
}

namespace grail::pg {

// Probed once per backend, on first need: the answer does not change while the backend lives.
static const GpuProbe &
gpu() {
	static GpuProbe probe = probe_gpu();
	return probe;
}

bool
use_gpu(uint64_t vertices, uint64_t edges) {
	switch (settings.device) {
	case DEVICE_CPU:
		return false;
	case DEVICE_GPU:
		if (!gpu().usable)
			throw Error(ErrorKind::invalid_input, "grail.device is gpu, but no GPU is usable: " + gpu().description,
			            "SET grail.device = auto (or cpu) to run on the CPU.");
		return true;
	default:
		return edges >= uint64_t(settings.gpu_min_edges) && edges >= 2 * vertices && gpu().usable;
	}
}

bool
gpu_fallback_allowed() {
	return settings.device == DEVICE_AUTO;
}

} // namespace grail::pg

/*
 * The GPU this backend would use, or why there is none.
 */
GRAIL_FUNCTION(grail_device_info) {
	const grail::GpuProbe &probe = grail::pg::gpu();
	std::string text = (probe.usable ? "GPU: " : "CPU only: ") + probe.description;
	return grail::pg::guard([&] { return CStringGetTextDatum(text.c_str()); });
}
