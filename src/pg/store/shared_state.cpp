#include "store/shared_state.hpp"

#include "store/activity.hpp"
#include "store/image_stats.hpp"

extern "C" {
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
}

namespace grail::pg {

namespace {

shmem_request_hook_type prev_shmem_request_hook = nullptr;
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

void
request_shmem() {
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	request_image_stats_shmem();
	request_activity_shmem();
}

void
startup_shmem() {
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	attach_image_stats_shmem();
	attach_activity_shmem();
	LWLockRelease(AddinShmemInitLock);
}

} // namespace

void
install_shared_state_hooks() {
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = request_shmem;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = startup_shmem;
}

} // namespace grail::pg
