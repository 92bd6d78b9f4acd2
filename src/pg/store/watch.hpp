// A table's inheritance family, and whether a graph's staleness triggers are all in place on it
// (src/pg/store/watch.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "boundary/guard.hpp"

namespace grail::pg {

// The tables a graph over relid depends on: its descendants, relid first, which SELECT reads, and
// the ancestors of any of them outside that family (relid's inheritance or partition ancestors, a
// descendant's other parents), whose writes can reach its rows.
struct TableFamily {
	std::vector<Oid> ancestors;
	std::vector<Oid> descendants;
};
TableFamily table_family(Oid relid);

// Whether the graph's staleness triggers are all in place on the tables of its watched_tables
// (a regclass[] datum), which must still be edge_table's inheritance family.
bool graph_watched(int64_t graph_id, Oid edge_table, Datum watched_tables);

// Whether the table that a log trigger of graph graph_id (graph_name, over edge_table) fired on is
// the edge table or one of its descendants; otherwise a WARNING that names the trigger, the table
// and the graph, so that its writes are ignored rather than logged into an unrelated graph.
bool log_trigger_in_family(const char *trigger, Oid table, int64_t graph_id, const char *graph_name, Oid edge_table);

} // namespace grail::pg
