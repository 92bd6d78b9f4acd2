#include "device.hpp"
#include "error.hpp"

#include <climits>
#include <string>

#include "device_setting.hpp"
#include "guard.hpp"

extern "C" {
#include "utils/builtins.h"
#include "utils/guc.h"
}

namespace grail::pg {

enum DeviceSetting { DEVICE_AUTO, DEVICE_CPU, DEVICE_GPU };

static const struct config_enum_entry device_options[] = {
    {"auto", DEVICE_AUTO, false}, {"cpu", DEVICE_CPU, false}, {"gpu", DEVICE_GPU, false}, {NULL, 0, false}};

static int device_setting = DEVICE_AUTO;
static int gpu_min_edges = 2000000;

void
define_device_settings() {
	DefineCustomEnumVariable("grail.device", "Where pg_grail runs its algorithms: auto, cpu or gpu.",
	                         "auto uses the GPU when one is usable and the graph has at least grail.gpu_min_edges "
	                         "edges; gpu makes a missing GPU an error.",
	                         &device_setting, DEVICE_AUTO, device_options, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("grail.gpu_min_edges", "Smallest graph, in edges, that grail.device = auto sends to the GPU.",
	                        "Below it, copying the graph to the GPU costs more than the CPU needs for the whole run.",
	                        &gpu_min_edges, 2000000, 0, INT_MAX, PGC_USERSET, 0, NULL, NULL, NULL);
}

// Probed once per backend, on first need: the answer does not change while the backend lives.
static const GpuProbe &
gpu() {
	static GpuProbe probe = probe_gpu();
	return probe;
}

bool
use_gpu(uint64_t edges) {
	switch (device_setting) {
	case DEVICE_CPU:
		return false;
	case DEVICE_GPU:
		if (!gpu().usable)
			throw Error(ErrorKind::invalid_input, "grail.device is gpu, but no GPU is usable: " + gpu().description,
			            "SET grail.device = auto (or cpu) to run on the CPU.");
		return true;
	default:
		return edges >= uint64_t(gpu_min_edges) && gpu().usable;
	}
}

bool
gpu_fallback_allowed() {
	return device_setting == DEVICE_AUTO;
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
