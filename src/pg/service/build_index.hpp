// Reading a graph's edge table and building its index, shared by the lifecycle
// (service/lifecycle.cpp) and a live graph's snapshot rebuild (service/open_graph.cpp).
#pragma once

#include "index.hpp"

#include "store/catalog.hpp"

namespace grail::pg {

// Reads a graph's edge table and builds its index: in snapshot under ACCESS SHARE locks, or
// without one under SHARE locks in the latest snapshot (read_edges). Raises the build's errors
// (NULL endpoints unless skip_nulls, memory limit) as create_graph does; fills stats but
// persist_ms and index_bytes.
grail::Index build_index(const char *name, const GraphRow &row, Snapshot snapshot, StoredBuild *stats);

} // namespace grail::pg
