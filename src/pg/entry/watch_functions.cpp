// The helpers that grail_internal._watch and the event triggers of sql/pg_grail.sql call: a table's
// inheritance family and whether a graph's triggers are in place on it (src/pg/store/watch.cpp).
#include "store/watch.hpp"
#include "boundary/pg_calls.hpp"

#include <vector>

using namespace grail::pg;

/*
 * grail_internal._watched(graph_id bigint, edge_table oid, watched_tables regclass[]), for the event
 * triggers.
 */
GRAIL_FUNCTION(grail_watched) {
	return BoolGetDatum(graph_watched(PG_GETARG_INT64(0), PG_GETARG_OID(1), PG_GETARG_DATUM(2)));
}

/*
 * grail_internal._ancestors(edge_table oid) and grail_internal._descendants(edge_table oid), for grail_internal._watch.
 */
GRAIL_FUNCTION(grail_ancestors) {
	std::vector<Oid> ancestors = table_family(PG_GETARG_OID(0)).ancestors;
	return oid_array(ancestors.data(), int(ancestors.size()));
}

GRAIL_FUNCTION(grail_descendants) {
	std::vector<Oid> descendants = table_family(PG_GETARG_OID(0)).descendants;
	return oid_array(descendants.data(), int(descendants.size()));
}
