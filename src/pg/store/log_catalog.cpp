// What the log trigger reads of pg_grail's catalog on every write statement
// (src/pg/store/log_catalog.hpp): by index scans, no SQL.
#include "store/catalog.hpp"
#include "store/log_catalog.hpp"
#include "store/pending_changes.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
}

namespace grail::pg {

namespace {

// Where grail.graph and grail.pending_change are, and grail.graph's columns and id index: looked up
// once per backend, forgotten when either table's relcache entry is invalidated (DROP EXTENSION,
// an ALTER EXTENSION UPDATE that alters them, an index made or dropped).
struct LogCatalog {
	bool valid = false;
	Oid graph = InvalidOid, pending = InvalidOid, graph_id_index = InvalidOid;
	AttrNumber id = 0, name = 0, relid = 0, live = 0, source_column = 0, target_column = 0, filter = 0, owner = 0,
	           stale = 0;
};
LogCatalog log_catalog;
// Invalidations of either table seen so far: a lookup that one interrupted is not kept.
uint64_t log_catalog_invalidations = 0;

void
forget_log_catalog(Datum, Oid relid) {
	if (relid == InvalidOid || relid == log_catalog.graph || relid == log_catalog.pending) {
		log_catalog.valid = false;
		log_catalog_invalidations++;
	}
}

// grail.graph, opened, with log_catalog valid for it (PostgreSQL calls: inside guard()). Taking the
// lock, or reading the catalogs, may bring an invalidation of the table (an ALTER EXTENSION UPDATE
// committed meanwhile): then its columns are looked up again, under the lock.
Relation
open_graph_table() {
	static bool callback = false;
	if (!callback) {
		CacheRegisterRelcacheCallback(forget_log_catalog, 0);
		callback = true;
	}
	for (;;) {
		if (!log_catalog.valid) {
			Oid schema = get_namespace_oid("grail", false);
			log_catalog.graph = get_relname_relid("graph", schema);
			log_catalog.pending = pending_change_table();
			if (!OidIsValid(log_catalog.graph) || !OidIsValid(log_catalog.pending))
				elog(ERROR, "pg_grail catalog table grail.graph or grail.pending_change is missing");
		}
		Relation rel = table_open(log_catalog.graph, AccessShareLock);
		if (log_catalog.valid)
			return rel;
		// Between installing a new library and ALTER EXTENSION UPDATE, grail.graph has the old
		// version's columns: every write to a graph's table says what to run, as queries do, rather
		// than fail on a column the old catalog lacks.
		if (!extension_in_step())
			ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			                errmsg("pg_grail's SQL objects in this database are of another version than its installed "
			                       "library %s: writes to the tables of its graphs cannot be logged",
			                       GRAIL_EXTVERSION),
			                errhint("Run ALTER EXTENSION pg_grail UPDATE; graphs built before keep their indexes.")));
		// Looked up whole before any of it is kept: a lookup that fails (a column missing) leaves
		// nothing half-known for the next write to use.
		uint64_t invalidations = log_catalog_invalidations;
		LogCatalog found = log_catalog;
		TupleDesc desc = RelationGetDescr(rel);
		found.id = graph_column(desc, "id");
		found.name = graph_column(desc, "name");
		found.relid = graph_column(desc, "relid");
		found.live = graph_column(desc, "live");
		found.source_column = graph_column(desc, "source_column");
		found.target_column = graph_column(desc, "target_column");
		found.filter = graph_column(desc, "filter");
		found.owner = graph_column(desc, "owner");
		found.stale = graph_column(desc, "stale");
		found.graph_id_index = index_on(rel, {found.id}, "id");
		table_close(rel, AccessShareLock);
		// Kept unless an invalidation came while the columns were read; then read again.
		if (invalidations == log_catalog_invalidations) {
			found.valid = true;
			log_catalog = found;
		}
	}
}

} // namespace

GraphState
graph_state(int64_t graph_id) {
	GraphState state;
	guard([&] {
		Relation rel = open_graph_table();
		TupleDesc desc = RelationGetDescr(rel);
		Snapshot snapshot = RegisterSnapshot(GetLatestSnapshot());
		ScanKeyData key;
		ScanKeyInit(&key, log_catalog.id, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(graph_id));
		SysScanDesc scan = systable_beginscan(rel, log_catalog.graph_id_index, true, snapshot, 1, &key);
		if (HeapTuple tuple = systable_getnext(scan); HeapTupleIsValid(tuple)) {
			bool null;
			state.exists = true;
			state.live = DatumGetBool(heap_getattr(tuple, log_catalog.live, desc, &null));
			state.name = TextDatumGetCString(heap_getattr(tuple, log_catalog.name, desc, &null));
			state.relid = DatumGetObjectId(heap_getattr(tuple, log_catalog.relid, desc, &null));
			state.source_column = *DatumGetName(heap_getattr(tuple, log_catalog.source_column, desc, &null));
			state.target_column = *DatumGetName(heap_getattr(tuple, log_catalog.target_column, desc, &null));
			Datum filter = heap_getattr(tuple, log_catalog.filter, desc, &null);
			state.filter = null ? nullptr : TextDatumGetCString(filter);
			state.owner = DatumGetObjectId(heap_getattr(tuple, log_catalog.owner, desc, &null));
			state.stale = DatumGetBool(heap_getattr(tuple, log_catalog.stale, desc, &null));
		}
		systable_endscan(scan);
		UnregisterSnapshot(snapshot);
		table_close(rel, AccessShareLock);
	});
	return state;
}

Oid
log_table() {
	if (!log_catalog.valid)
		table_close(open_graph_table(), AccessShareLock);
	return log_catalog.pending;
}

} // namespace grail::pg
