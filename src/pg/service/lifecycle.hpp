// Graph lifecycle (create_graph, refresh_graph, drop_graph) and what other glue reuses of it.
#pragma once

#include "index.hpp"

#include <cstdint>
#include <string>

#include "store/catalog.hpp"

namespace grail::pg {

// Drops graph id: its staleness triggers, its catalog row and index chunks, its cached images and
// this backend's copy. No privilege check.
void drop_graph(int64_t id);

// Reads a graph's edge table and builds its index: in snapshot under ACCESS SHARE locks, or
// without one under SHARE locks in the latest snapshot (read_edges). Raises the build's errors
// (NULL endpoints unless skip_nulls, memory limit) as create_graph does; fills stats but
// persist_ms and index_bytes.
// Merges live graph id in the background (src/pg/entry/merge_worker.cpp) as grail.merge_graph() by its
// owner would, running as the owner; false, doing nothing, where that would block writers (the
// graph is no longer live, is stale, or lost a trigger) or the graph or its owner is gone; false
// with busy set, doing nothing, where it would wait for another transaction's lock on the graph's
// row or tables (the worker comes back later).
bool background_merge(int64_t id, std::string *summary, bool *busy);

grail::Index build_index(const char *name, const GraphRow &row, Snapshot snapshot, StoredBuild *stats);

} // namespace grail::pg
