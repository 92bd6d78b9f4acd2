#include <algorithm>
#include <climits>

#include <unistd.h>

#include "boundary/settings.hpp"

#include "boundary/guard.hpp"

extern "C" {
#include "miscadmin.h"
#include "utils/guc.h"
}

namespace grail::pg {

Settings settings;

static const struct config_enum_entry device_options[] = {
    {"auto", DEVICE_AUTO, false}, {"cpu", DEVICE_CPU, false}, {"gpu", DEVICE_GPU, false}, {NULL, 0, false}};

static const struct config_enum_entry stale_policy_options[] = {
    {"error", STALE_ERROR, false}, {"warn", STALE_WARN, false}, {NULL, 0, false}};

static const struct config_enum_entry gpu_service_options[] = {{"off", GPU_SERVICE_OFF, false},
                                                               {"on", GPU_SERVICE_ON, false},
                                                               {"cpu_stand_in", GPU_SERVICE_CPU_STAND_IN, false},
                                                               {NULL, 0, false}};

static void define_gpu_service_settings();

/*
 * Define the grail.* settings and reserve the prefix.
 */
void
define_settings() {
	DefineCustomEnumVariable("grail.device", "Where pg_grail runs its algorithms: auto, cpu or gpu.",
	                         "auto uses the GPU when one is usable and the graph has at least grail.gpu_min_edges "
	                         "edges; gpu makes a missing GPU an error.",
	                         &settings.device, DEVICE_AUTO, device_options, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("grail.gpu_min_edges",
	                        "Smallest graph, in edges, that grail.device = auto sends to the GPU.",
	                        "Below it, copying the graph to the GPU costs more than the CPU needs for the whole run.",
	                        &settings.gpu_min_edges, 2000000, 0, INT_MAX, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("grail.stale_policy", "What a query on a stale graph does: error or warn.",
	                         "warn answers from the last build with a WARNING; error (the default) refuses.",
	                         &settings.stale_policy, STALE_ERROR, stale_policy_options, PGC_USERSET, 0, NULL, NULL,
	                         NULL);
	// 8GB: a 268M-row graph built on the GPU (R-MAT 24-16: 8.8M vertices, 263M edges) is
	// estimated at 7.5GB, its index's peak; 4GB refused anything above 54M rows on either device.
	DefineCustomIntVariable("grail.build_memory_limit", "Host memory a graph build may use.",
	                        "A build estimated to need more fails before it allocates; 0 means no limit.",
	                        &settings.build_memory_limit_mb, 8192, 0, INT_MAX, PGC_SUSET, GUC_UNIT_MB, NULL, NULL,
	                        NULL);
	// As much as one build may take: any graph that builds can be kept alone (a live graph's
	// snapshot rebuild is a build), and a backend keeps no more than that across its graphs.
	DefineCustomIntVariable(
	    "grail.backend_memory_limit", "Host memory a backend keeps of graphs between statements, all graphs together.",
	    "Loaded private images, live graphs' snapshot rebuilds and overlays, reversed edges: "
	    "past it, those of the graphs least recently used that no statement or cursor holds "
	    "are dropped, to be made again when needed. 0 means no limit.",
	    &settings.backend_memory_limit_mb, 8192, 0, INT_MAX, PGC_SUSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomBoolVariable("grail.traversal_scan",
	                         "Runs bfs(), descendants() and ancestors() in FROM as a Grail Traversal Scan.",
	                         "The scan hands the search's rows to the plan one at a time; off leaves the calls to "
	                         "FunctionScan, which copies them into a tuplestore first.",
	                         &settings.traversal_scan, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("grail.reachable_batch",
	                         "Answers reachable(graph, source, target) in a table's WHERE by batches of rows.",
	                         "A Grail Reachability Filter over the table's sequential scan takes the rows that pass "
	                         "the other conditions in batches and asks the array form of reachable() once per "
	                         "batch; off leaves the condition to the scan, row by row.",
	                         &settings.reachable_batch, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("grail.build_threads", "Helper threads a graph build may run beside its backend.",
	                        "They make the GRAIL labels' traversals, the id hash table and the lookup records' "
	                        "order at once, the same index byte for byte; 0 computes on the backend's thread "
	                        "alone; -1 (the default): 2 for a statement's build, as max_parallel_maintenance_workers "
	                        "gives CREATE INDEX, none for a background merge. The store compresses on one helper "
	                        "unless grail.max_build_threads is 0 or the build is a background merge.",
	                        &settings.build_threads, -1, -1, 16, PGC_USERSET, 0, NULL, NULL, NULL);
	// Threads are not a pool the server hands out (as parallel workers are): without a cap any role
	// could have each of its sessions' builds run 17 threads. SUSET, as max_parallel_workers is
	// SIGHUP-or-superuser: postgresql.conf sets it for everyone, a superuser may raise it for a role
	// (ALTER ROLE ... SET). 4: what one build may take beside its backend without a setting, as
	// max_parallel_workers_per_gather (2) plus max_parallel_maintenance_workers (2) lets a session.
	DefineCustomIntVariable("grail.max_build_threads", "The most helper threads any graph build runs.",
	                        "A build runs min(grail.build_threads, grail.max_build_threads) helpers; only a "
	                        "superuser may raise it.",
	                        &settings.max_build_threads, 4, 0, 16, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("grail.search_threads",
	                        "Helper threads a batch of reachable() pairs may decide and search on beside its backend.",
	                        "An array of pairs (or a batch of a table's rows, by the Grail Reachability Filter) is "
	                        "split among them and the backend, the same answers; 0 answers on the backend's thread "
	                        "alone; -1 (the default): 2, no more than the machine's CPUs less one.",
	                        &settings.search_threads, -1, -1, 16, PGC_USERSET, 0, NULL, NULL, NULL);
	// SUSET, as grail.max_build_threads: without a cap any role could have each of its sessions'
	// batches run 17 threads.
	DefineCustomIntVariable("grail.max_search_threads", "The most helper threads any batch of reachable() pairs runs.",
	                        "A batch runs min(grail.search_threads, grail.max_search_threads) helpers; only a "
	                        "superuser may raise it.",
	                        &settings.max_search_threads, 4, 0, 16, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable(
	    "grail.shared_cache_size", "Disk and page-cache space for the index image files that all backends share.",
	    "Least recently used images are removed beyond it; 0 keeps a private copy in each backend.",
	    &settings.shared_cache_size_mb, 1024, 0, INT_MAX, PGC_SIGHUP, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable(
	    "grail.merge_threshold",
	    "Pending edge changes (edges in grail.pending_change) of a live graph at which a background "
	    "worker merges it.",
	    "Needs pg_grail in shared_preload_libraries; 0 never merges in the background.", &settings.merge_threshold,
	    10000, 0, INT_MAX, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("grail.merge_naptime",
	                        "How often the merge launcher looks for databases with new pending changes.",
	                        "A database that passes grail.merge_threshold wakes it at once.", &settings.merge_naptime_s,
	                        10, 1, 86400, PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("grail.max_merge_workers", "Background merge workers that may run at once.",
	                        "Each takes one of max_worker_processes while it runs; 0 starts none.",
	                        &settings.max_merge_workers, 1, 0, 64, PGC_SIGHUP, 0, NULL, NULL, NULL);
	// A merge worker builds for seconds beside the backends that read and write the graph; at the
	// same priority it takes a CPU from them (on a 2-core machine, half the machine), and a reader's
	// statement may wait for one. As autovacuum's cost delay yields to the queries, a worker at a
	// higher nice value yields the CPU to them and still takes what is idle. 0 (the server's
	// priority) by default: bench/live_pgbench.sh on a 2-core machine loaded by other work showed
	// no difference in the reader's latencies at 10 (the machine's load, not the merge, was what the
	// reader waited for), and a default that changes how merges run wants a measured gain.
	DefineCustomIntVariable("grail.merge_worker_nice",
	                        "The nice value (Unix scheduling priority) a background merge worker runs at.",
	                        "Higher yields more of the CPU to the queries while a merge builds; 0 runs at the "
	                        "server's priority. Taken by workers started after a change.",
	                        &settings.merge_worker_nice, 0, 0, 19, PGC_SIGHUP, 0, NULL, NULL, NULL);
	// A graph's owner decides what its merge runs: its filter's functions, which can sleep, wait for
	// an advisory lock or loop. One worker serves every database by default and merges one graph
	// after another, so without a limit one such graph held up the merges of every other graph of
	// every database for as long as its merge ran. 10min, as grail.log_merge_min_duration, which
	// counts a merge of minutes as long; a graph whose merges take longer needs it raised (the LOG
	// line of a cancelled merge says so), or merge_graph() by hand, which it does not limit.
	DefineCustomIntVariable("grail.merge_timeout",
	                        "How long one background merge may run before it is cancelled and the worker goes on "
	                        "with the next graph.",
	                        "The cancelled merge rolls back and is tried again later; 0 sets no limit.",
	                        &settings.merge_timeout_ms, 600000, 0, INT_MAX, PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	// 10min, as log_autovacuum_min_duration since PostgreSQL 15: a table that takes a steady stream
	// of writes merges every few seconds, and a line for each would drown the log; a merge that
	// takes minutes is worth a line. 0 logs every merge, -1 none. SUSET, as log_min_duration_statement:
	// postgresql.conf (reload) sets it for the background merges, a superuser may set it for a session.
	DefineCustomIntVariable("grail.log_merge_min_duration",
	                        "Logs each merge of a live graph (merge_graph() or a background merge) that takes at least "
	                        "this long.",
	                        "0 logs every merge, -1 none; the line gives the graph, the pending changes folded, the "
	                        "duration, the rows read and the image bytes written.",
	                        &settings.log_merge_min_duration_ms, 600000, -1, INT_MAX, PGC_SUSET, GUC_UNIT_MS, NULL,
	                        NULL, NULL);
	// A backend's wait for the GPU service under auto: past it the CPU answers, so that one user's
	// long request in the service delays nobody else's call by more than this.
	DefineCustomIntVariable(
	    "grail.gpu_service_wait", "How long a call under grail.device = auto waits for the GPU service's answer.",
	    "Past it the request is cancelled and the CPU answers, with a NOTICE; under "
	    "grail.device = gpu the call waits on (a cancel or statement_timeout ends it). 0 waits "
	    "without limit.",
	    &settings.gpu_service_wait_ms, 5000, 0, INT_MAX, PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	// Server-start settings exist only when preloaded (PostgreSQL refuses to make them later); without
	// the preload there is no service.
	if (process_shared_preload_libraries_in_progress) {
		define_gpu_service_settings();
	}
	MarkGUCPrefixReserved("grail");
}

// The process's defaults (set_background_builds); grail.max_build_threads still caps them.
static unsigned build_default_helpers = 2, store_default_helpers = 1;

void
set_background_builds() {
	build_default_helpers = 0;
	store_default_helpers = 0;
}

unsigned
build_helper_threads() {
	int asked = settings.build_threads >= 0 ? settings.build_threads : int(build_default_helpers);
	return unsigned(std::clamp(std::min(asked, settings.max_build_threads), 0, 16));
}

unsigned
store_helper_threads() {
	return std::max(build_helper_threads(),
	                std::min(unsigned(std::max(settings.max_build_threads, 0)), store_default_helpers));
}

unsigned
search_helper_threads() {
	int asked = settings.search_threads;
	if (asked < 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		asked = int(std::clamp(cpus - 1, 0L, 2L));
	}
	return unsigned(std::clamp(std::min(asked, settings.max_search_threads), 0, 16));
}

static void
define_gpu_service_settings() {
	DefineCustomEnumVariable(
	    "grail.gpu_service", "Whether the GPU service runs: on, off or cpu_stand_in.",
	    "Needs pg_grail in shared_preload_libraries. on starts it when a GPU is usable; cpu_stand_in runs the "
	    "same service on the CPU (for tests).",
	    &settings.gpu_service, GPU_SERVICE_ON, gpu_service_options, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("grail.gpu_memory_limit", "Device memory the GPU service keeps graphs resident in.",
	                        "Least recently used graphs leave the device beyond it; 0 means 80% of the device's "
	                        "memory.",
	                        &settings.gpu_memory_limit_mb, 0, 0, INT_MAX, PGC_POSTMASTER, GUC_UNIT_MB, NULL, NULL,
	                        NULL);
}

} // namespace grail::pg
