// The pending changes of a live graph that a query's snapshot sees (grail.pending_change): read by
// an index scan in the active snapshot, as find_graph_in reads grail.graph, with no SQL to plan.
#include "catalog.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_index.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
}

namespace grail::pg {

/*
 * The index of grail.pending_change on graph_id, found by its column rather than its name
 * (PostgreSQL calls: inside guard()).
 */
static Oid
graph_id_index(Relation rel) {
	List *indexes = RelationGetIndexList(rel);
	ListCell *cell;
	foreach (cell, indexes) {
		Oid index = lfirst_oid(cell);
		HeapTuple tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index));
		if (!HeapTupleIsValid(tuple))
			continue;
		Form_pg_index form = (Form_pg_index)GETSTRUCT(tuple);
		bool fits = form->indnkeyatts == 1 && form->indkey.values[0] == 1 && form->indisvalid;
		ReleaseSysCache(tuple);
		if (fits)
			return index;
	}
	elog(ERROR, "pg_grail catalog table grail.pending_change has no index on graph_id");
}

/*
 * Calls visit(tuple, descriptor) for each row of grail.pending_change of the graph that the active
 * snapshot sees, in index order (PostgreSQL calls: inside guard()).
 */
template <typename Visit>
static void
scan_visible_pending(int64_t graph_id, Visit &&visit) {
	Oid relid = get_relname_relid("pending_change", get_namespace_oid("grail", false));
	if (!OidIsValid(relid))
		elog(ERROR, "pg_grail catalog table grail.pending_change is missing");
	Relation rel = table_open(relid, AccessShareLock);
	Snapshot snapshot = ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot();
	ScanKeyData key;
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(graph_id));
	SysScanDesc scan = systable_beginscan(rel, graph_id_index(rel), true, snapshot, 1, &key);
	while (HeapTuple tuple = systable_getnext(scan))
		visit(tuple, RelationGetDescr(rel));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
}

PendingChanges
visible_pending_changes(int64_t graph_id) {
	return guard([&] {
		PendingChanges pending;
		// A row version is its place and the transaction that wrote it: a place freed by VACUUM and
		// reused holds a row of another transaction.
		uint64_t h = 0x9e3779b97f4a7c15ull;
		scan_visible_pending(graph_id, [&](HeapTuple tuple, TupleDesc) {
			uint64_t version = (uint64_t(ItemPointerGetBlockNumber(&tuple->t_self)) << 16 |
			                    ItemPointerGetOffsetNumber(&tuple->t_self)) ^
			                   (uint64_t(HeapTupleHeaderGetXmin(tuple->t_data)) << 40);
			h = (h ^ version) * 0x100000001b3ull;
			h ^= h >> 29;
			pending.rows++;
		});
		pending.fingerprint = h ^ pending.rows;
		return pending;
	});
}

std::vector<PendingRow>
visible_pending_rows(int64_t graph_id) {
	std::vector<PendingRow> rows;
	guard([&] {
		scan_visible_pending(graph_id, [&](HeapTuple tuple, TupleDesc descriptor) {
			// grail.pending_change (graph_id, change, source, target, source_key, target_key)
			Datum values[6];
			bool nulls[6];
			heap_deform_tuple(tuple, descriptor, values, nulls);
			PendingRow row;
			row.change = DatumGetInt32(values[1]);
			row.has_source = !nulls[2] || !nulls[4];
			row.has_target = !nulls[3] || !nulls[5];
			row.source = nulls[2] ? 0 : DatumGetInt64(values[2]);
			row.target = nulls[3] ? 0 : DatumGetInt64(values[3]);
			if (!nulls[4])
				row.source_key = TextDatumGetCString(values[4]);
			if (!nulls[5])
				row.target_key = TextDatumGetCString(values[5]);
			rows.push_back(std::move(row));
		});
	});
	return rows;
}

} // namespace grail::pg
