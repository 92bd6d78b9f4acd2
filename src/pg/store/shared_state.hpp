// pg_grail's shared memory, set aside at server start when the library is preloaded: the activity
// segment (build progress slots, the merge launcher's per-database counters,
// src/pg/store/activity.hpp) and the image cache's counters (src/pg/store/image_stats.hpp),
// requested and attached by one pair of hooks, as pg_stat_statements does with its one.
#pragma once

namespace grail::pg {

// Installs the shared-memory request and startup hooks; from _PG_init while the library is being
// preloaded.
void install_shared_state_hooks();

} // namespace grail::pg
