// Graph lifecycle (create_graph, refresh_graph, drop_graph) and what other glue reuses of it.
#pragma once

#include <cstdint>

#include "guard.hpp"

namespace grail::pg {

// Drops graph id over table relid: its staleness trigger (if the table still exists), its
// catalog row and index chunks, and this backend's cached copy. No privilege check.
void drop_graph(int64_t id, Oid relid);

} // namespace grail::pg
