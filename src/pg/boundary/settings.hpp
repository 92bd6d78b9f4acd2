// pg_grail's settings (grail.*), defined once at module load; see README.md, Settings.
#pragma once

#include <cstdint>

namespace grail::pg {

enum DeviceSetting { DEVICE_AUTO, DEVICE_CPU, DEVICE_GPU };
enum StalePolicy { STALE_ERROR, STALE_WARN };
enum GpuServiceSetting { GPU_SERVICE_OFF, GPU_SERVICE_ON, GPU_SERVICE_CPU_STAND_IN };

struct Settings {
	int device = DEVICE_AUTO;
	int gpu_min_edges = 2000000;
	int stale_policy = STALE_ERROR;
	int build_memory_limit_mb = 8192;
	// Host memory a backend keeps of graphs between statements (open_graph.cpp); 0: no limit.
	int backend_memory_limit_mb = 8192;
	int shared_cache_size_mb = 1024;
	int merge_threshold = 10000;      // pending rows of a live graph that start a background merge; 0: never
	int merge_naptime_s = 10;         // how often the merge launcher looks for databases with new changes
	int max_merge_workers = 1;        // merge workers running at once, server-wide
	int gpu_service = GPU_SERVICE_ON; // the GPU service, when preloaded (server start)
	int gpu_memory_limit_mb = 0;      // device memory the service keeps images in; 0: 80% of the device's
	int gpu_service_wait_ms = 5000;   // under auto, the wait for the service's answer before the CPU's; 0: none
	// Merges (by hand or in the background) that take at least this long are logged; -1: none, 0: all.
	int log_merge_min_duration_ms = 600000;
	// Helper threads a build may run beside its backend's (the GRAIL traversals, the id hash, the
	// backward order); 0: none; -1: the process's default (build_helper_threads).
	int build_threads = -1;
	// The most helper threads any build takes, whatever build_threads asks (superuser, postgresql.conf).
	int max_build_threads = 4;
	// Helper threads a batch of reachable() pairs may search on beside its backend's; 0: none;
	// -1: search_helper_threads()'s default.
	int search_threads = -1;
	// The most helper threads any batch searches on, whatever search_threads asks (superuser).
	int max_search_threads = 4;
	// The nice value (Unix scheduling priority) a background merge worker takes at its start; 0: none.
	int merge_worker_nice = 0;
	// How long one background merge may run before it is cancelled (merge_worker.cpp); 0: no limit.
	int merge_timeout_ms = 600000;
	// bfs(), descendants() and ancestors() in FROM run as a Grail Traversal Scan (traversal_scan.cpp).
	bool traversal_scan = true;
	// reachable(graph, a, b) in a table scan's WHERE answered by batches (reachable_filter.cpp).
	bool reachable_batch = true;
};

extern Settings settings;

void define_settings();

// The helper threads a build runs: grail.build_threads, or where it is -1 the process's default
// (2 for a statement's build, as max_parallel_maintenance_workers gives CREATE INDEX; none for a
// background merge), capped by grail.max_build_threads.
unsigned build_helper_threads();
// The helper threads that compress an image's chunks while the backend writes them: the build's,
// and at least the process's default (one for a statement's build; none for a background merge)
// where grail.max_build_threads allows it.
unsigned store_helper_threads();
// The helper threads a batch of reachable() pairs decides and searches on: grail.search_threads,
// or where it is -1 two (as max_parallel_workers_per_gather gives a query), no more than the
// machine's CPUs less one; capped by grail.max_search_threads.
unsigned search_helper_threads();
// This process's builds are background merges, beside the tables' readers and writers: no helper
// threads by default, for the build or its store (the merge worker).
void set_background_builds();

} // namespace grail::pg
