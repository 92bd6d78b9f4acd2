// pg_grail's shared memory, set aside at server start when the library is preloaded: the activity
// segment (build progress slots, the merge launcher's per-database counters,
// src/pg/store/activity.hpp) and the image cache's counters (src/pg/store/image_stats.hpp),
// requested and attached together from one pair of hooks (src/pg/entry/module.cpp), as
// pg_stat_statements does with its one.
#pragma once

namespace grail::pg {

// Asks for every segment and its lock; from the shared-memory request hook.
void request_shared_state();

// Attaches every segment, making it the first time; from the shared-memory startup hook.
void attach_shared_state();

} // namespace grail::pg
