// Graph lifecycle (create_graph, refresh_graph, drop_graph) and what other glue reuses of it.
#pragma once

#include <cstdint>

#include "guard.hpp"

namespace grail::pg {

// Drops graph id: its staleness triggers, its catalog row and index chunks, its cached images and
// this backend's copy. No privilege check.
void drop_graph(int64_t id);

} // namespace grail::pg
