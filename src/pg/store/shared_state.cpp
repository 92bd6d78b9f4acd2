#include "store/shared_state.hpp"

#include "store/activity.hpp"
#include "store/image_stats.hpp"

extern "C" {
#include "storage/lwlock.h"
}

namespace grail::pg {

void
request_shared_state() {
	request_image_stats_shmem();
	request_activity_shmem();
}

void
attach_shared_state() {
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	attach_image_stats_shmem();
	attach_activity_shmem();
	LWLockRelease(AddinShmemInitLock);
}

} // namespace grail::pg
