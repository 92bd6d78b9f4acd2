// What the log trigger (src/pg/entry/change_log.cpp) reads of pg_grail's catalog on every write
// statement on a graph's tables: the graph's row, and where grail.pending_change is. Read by index
// scans, with no SQL to plan, and the tables' columns and index looked up once per backend,
// forgotten when either table's relcache entry is invalidated.
#pragma once

#include <cstdint>

#include "boundary/guard.hpp"

namespace grail::pg {

// What the trigger needs of the graph's row, read in the latest snapshot: a change of `live` by
// grail.alter_graph commits under a SHARE lock on the edge table, before this writer's lock, so
// even a REPEATABLE READ writer whose snapshot is older logs or marks stale as the graph now says.
struct GraphState {
	bool exists = false;
	bool live = false;
	bool stale = false;
	const char *name = nullptr; // palloc'd
	Oid relid = InvalidOid;     // the edge table
	NameData source_column, target_column;
	Oid owner = InvalidOid;
	const char *filter = nullptr; // the graph's filter (store/edge_filter.hpp), palloc'd; nullptr: none
};
// The graph's row, by an index scan of grail.graph in the latest snapshot, as find_graph_in reads
// it.
GraphState graph_state(int64_t graph_id);

// The oid of grail.pending_change (PostgreSQL calls: inside guard()).
Oid log_table();

} // namespace grail::pg
