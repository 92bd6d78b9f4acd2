// Background merges of live graphs (src/pg/entry/merge_worker.cpp).
#pragma once

namespace grail::pg {

// Registers the merge launcher; from _PG_init while the library is being preloaded.
void register_merge_launcher();

} // namespace grail::pg
