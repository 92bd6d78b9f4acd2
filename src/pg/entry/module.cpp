// Module entry: PG_MODULE_MAGIC and _PG_init. No CUDA here: a CUDA context does not survive
// fork(), so the engine initialises the GPU lazily in the backend that uses it.
#include "error.hpp"

#include "store/shared_state.hpp"
#include "entry/merge_worker.hpp"
#include "entry/owner_hooks.hpp"
#include "boundary/settings.hpp"
#include "boundary/guard.hpp"

extern "C" {
PG_MODULE_MAGIC;

void _PG_init(void);
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
	if (process_shared_preload_libraries_in_progress) {
		grail::pg::install_shared_state_hooks();
		grail::pg::register_merge_launcher();
	}
}
