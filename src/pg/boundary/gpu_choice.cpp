#include "device_policy.hpp"

#include <string>

#include "boundary/gpu_choice.hpp"
#include "boundary/settings.hpp"
#include "boundary/guard.hpp"

extern "C" {
#include "access/parallel.h"
#include "utils/builtins.h"
}

namespace grail::pg {

grail::DevicePolicy
device_policy() {
	grail::DevicePolicy policy;
	policy.mode = settings.device == DEVICE_CPU   ? grail::DeviceMode::cpu
	              : settings.device == DEVICE_GPU ? grail::DeviceMode::gpu
	                                              : grail::DeviceMode::automatic;
	policy.min_edges = uint64_t(settings.gpu_min_edges);
	return policy;
}

grail::DevicePolicy
in_process_device_policy() {
	grail::DevicePolicy policy = device_policy();
	if (policy.mode == grail::DeviceMode::automatic && IsParallelWorker())
		policy.mode = grail::DeviceMode::cpu;
	return policy;
}

void
notice_cpu_fallback(const char *what, const std::string &reason) {
	guard([&] { ereport(NOTICE, (errmsg("pg_grail: %s runs on the CPU: %s", what, reason.c_str()))); });
}

} // namespace grail::pg
