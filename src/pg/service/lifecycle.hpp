// The graph lifecycle: create, rebuild (refresh, merge, background merge), alter and drop, over
// the build of service/build_index.hpp. The SQL functions (src/pg/entry/graph_functions.cpp), the merge worker and the
// owner hooks call it; each checks what its SQL function's documentation says it checks.
#pragma once

#include "index.hpp"

#include <cstdint>
#include <string>

#include "store/activity.hpp"
#include "store/catalog.hpp"

namespace grail::pg {

// grail.create_graph: row holds the edge table, labels, skip_nulls, live and owner; source and
// target name the edge columns. Checks the arguments and the caller's rights, records the graph,
// puts its triggers in place and builds it; returns the summary line.
// filter: the graph's filter as the caller wrote it (store/edge_filter.hpp), or nullptr.
std::string create_graph(const GraphName &name, GraphRow row, const char *source, const char *target,
                         const char *filter = nullptr);

// grail.refresh_graph and grail.merge_graph (command): rebuilds the graph the caller owns; returns
// the summary line.
std::string rebuild_graph(const GraphName &name, BuildCommand command);

// grail.alter_graph: makes the graph the caller owns live or not.
void alter_graph(const GraphName &name, bool live);

// grail.drop_graph: drops the graph the caller owns.
void drop_graph(const GraphName &name);

// Drops graph id: its staleness triggers, its catalog row and index chunks, its cached images and
// this backend's copy. No privilege check.
void drop_graph(int64_t id);

// Merges live graph id in the background (src/pg/entry/merge_worker.cpp) as grail.merge_graph() by its
// owner would, running as the owner; false, doing nothing, where that would block writers (the
// graph is no longer live, is stale, or lost a trigger) or the graph or its owner is gone; false
// with busy set, doing nothing, where it would wait for another transaction's lock on the graph's
// row or tables (the worker comes back later).
bool background_merge(int64_t id, std::string *summary, bool *busy);

} // namespace grail::pg
