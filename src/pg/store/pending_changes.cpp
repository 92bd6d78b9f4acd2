// The pending changes of a live graph that a query's snapshot sees (grail.pending_change): read by
// an index scan in the active snapshot, as find_graph_in reads grail.graph, with no SQL to plan.
#include "store/catalog.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "catalog/pg_type.h"
}

namespace grail::pg {

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
	SysScanDesc scan = systable_beginscan(rel, index_on(rel, {1}, "graph_id"), true, snapshot, 1, &key);
	while (HeapTuple tuple = systable_getnext(scan)) {
		CHECK_FOR_INTERRUPTS();
		visit(tuple, RelationGetDescr(rel));
	}
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
			// grail.pending_change (graph_id, change, source[], target[], source_key[], target_key[]):
			// each edge of the arrays changed by change; arrays NULL: a TRUNCATE's marker.
			Datum values[6];
			bool nulls[6];
			heap_deform_tuple(tuple, descriptor, values, nulls);
			int change = DatumGetInt32(values[1]);
			bool integer = !nulls[2];
			int s = integer ? 2 : 4, t = integer ? 3 : 5;
			if (nulls[s] || nulls[t]) {
				PendingRow marker;
				marker.change = change;
				rows.push_back(std::move(marker));
				return;
			}
			Oid element = integer ? INT8OID : TEXTOID;
			int16 length = integer ? 8 : -1;
			char align = integer ? TYPALIGN_DOUBLE : TYPALIGN_INT;
			Datum *sources, *targets;
			bool *source_nulls, *target_nulls;
			int ns, nt;
			ArrayType *source_array = DatumGetArrayTypeP(values[s]), *target_array = DatumGetArrayTypeP(values[t]);
			deconstruct_array(source_array, element, length, integer, align, &sources, &source_nulls, &ns);
			deconstruct_array(target_array, element, length, integer, align, &targets, &target_nulls, &nt);
			if (ns != nt)
				elog(ERROR, "pg_grail: a row of grail.pending_change of graph %lld has %d sources and %d targets",
				     (long long)graph_id, ns, nt);
			for (int i = 0; i < ns; i++) {
				// Keys detoasted first: no PostgreSQL call (which may longjmp over it) once row exists.
				text *source_key = integer || source_nulls[i] ? nullptr : DatumGetTextPP(sources[i]);
				text *target_key = integer || target_nulls[i] ? nullptr : DatumGetTextPP(targets[i]);
				PendingRow row;
				row.change = change;
				row.integer = integer;
				row.has_source = !source_nulls[i];
				row.has_target = !target_nulls[i];
				if (integer) {
					row.source = source_nulls[i] ? 0 : DatumGetInt64(sources[i]);
					row.target = target_nulls[i] ? 0 : DatumGetInt64(targets[i]);
				} else {
					if (source_key != nullptr)
						row.source_key.assign(VARDATA_ANY(source_key), VARSIZE_ANY_EXHDR(source_key));
					if (target_key != nullptr)
						row.target_key.assign(VARDATA_ANY(target_key), VARSIZE_ANY_EXHDR(target_key));
				}
				rows.push_back(std::move(row));
			}
			pfree(sources);
			pfree(targets);
			pfree(source_nulls);
			pfree(target_nulls);
			if (DatumGetPointer(values[s]) != reinterpret_cast<Pointer>(source_array))
				pfree(source_array);
			if (DatumGetPointer(values[t]) != reinterpret_cast<Pointer>(target_array))
				pfree(target_array);
		});
	});
	return rows;
}

} // namespace grail::pg
