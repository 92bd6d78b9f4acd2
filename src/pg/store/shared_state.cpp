#include "store/shared_state.hpp"

#include "store/activity.hpp"
#include "store/image_stats.hpp"
#include "store/gpu_service_state.hpp"

extern "C" {
#include "storage/lwlock.h"
}

namespace grail::pg {

void
request_shared_state() {
	request_image_stats_shmem();
	request_activity_shmem();
	request_gpu_service_shmem();
}

void
attach_shared_state() {
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	attach_image_stats_shmem();
	attach_activity_shmem();
	attach_gpu_service_shmem();
	LWLockRelease(AddinShmemInitLock);
}

} // namespace grail::pg
