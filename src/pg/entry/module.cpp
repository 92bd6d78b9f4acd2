// Module entry: PG_MODULE_MAGIC, _PG_init and the shared-memory hooks. No CUDA here: a CUDA
// context does not survive fork(), so the engine initialises the GPU lazily in the backend that
// uses it.
#include "error.hpp"

#include "store/shared_state.hpp"
#include "entry/depth_pushdown.hpp"
#include "entry/gpu_service_worker.hpp"
#include "entry/merge_worker.hpp"
#include "entry/owner_hooks.hpp"
#include "entry/reachable_filter.hpp"
#include "entry/traversal_scan.hpp"
#include "boundary/settings.hpp"
#include "boundary/guard.hpp"

extern "C" {
#include "storage/ipc.h"

PG_MODULE_MAGIC;

void _PG_init(void);
}

static shmem_request_hook_type prev_shmem_request_hook = nullptr;
static shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

/*
 * The shared-memory hooks: pg_grail's segments (src/pg/store/shared_state.hpp), after those of
 * the libraries loaded before it.
 */
static void
request_shmem(void) {
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	grail::pg::request_shared_state();
}

static void
startup_shmem(void) {
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	grail::pg::attach_shared_state();
}

/*
 * A pending cancel or termination request, reported to the engine without acting on it: the
 * engine unwinds, and grail::pg::call() then lets CHECK_FOR_INTERRUPTS raise the error.
 */
static bool
interrupt_pending() {
	return InterruptPending && (QueryCancelPending || ProcDiePending);
}

/*
 * Module load
 */
void
_PG_init(void) {
	grail::set_cancel_hook(interrupt_pending);
	grail::pg::define_settings();
	grail::pg::install_owner_hooks();
	grail::pg::install_depth_pushdown();
	grail::pg::install_traversal_scan();
	grail::pg::install_reachable_filter();
	if (process_shared_preload_libraries_in_progress) {
		prev_shmem_request_hook = shmem_request_hook;
		shmem_request_hook = request_shmem;
		prev_shmem_startup_hook = shmem_startup_hook;
		shmem_startup_hook = startup_shmem;
		grail::pg::register_merge_launcher();
		grail::pg::register_gpu_service();
	}
}
