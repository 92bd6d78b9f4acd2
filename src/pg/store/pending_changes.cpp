// grail.pending_change (src/pg/store/pending_changes.hpp): its rows read by an index scan in the
// active snapshot, as find_graph_in reads grail.graph, with no SQL to plan; written through the
// table and index access methods; deleted and counted by SQL with the catalog's rights.
#include <algorithm>
#include <cstring>

#include "store/catalog.hpp"
#include "store/catalog_sql.hpp"
#include "store/pending_changes.hpp"

extern "C" {
#include "access/genam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/toast_compression.h"
#include "access/toast_internals.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/xid8.h"
}

namespace grail::pg {

namespace {

// The columns of grail.pending_change, by attribute number.
constexpr AttrNumber kGraphIdColumn = 1;
constexpr AttrNumber kChangeColumn = 2;
constexpr AttrNumber kSourceColumn = 3; // int8[]: integer keys
constexpr AttrNumber kTargetColumn = 4;
constexpr AttrNumber kSourceKeyColumn = 5; // text[]: the other kinds of key
constexpr AttrNumber kTargetKeyColumn = 6;
constexpr AttrNumber kXidColumn = 7; // xid8: the writer's top-level transaction
constexpr int kColumnCount = 7;

// The columns' names and types, in order.
constexpr struct {
	const char *name;
	Oid type;
} kColumns[kColumnCount] = {{"graph_id", INT8OID},    {"change", INT4OID},          {"source", INT8ARRAYOID},
                            {"target", INT8ARRAYOID}, {"source_key", TEXTARRAYOID}, {"target_key", TEXTARRAYOID},
                            {"xid", XID8OID}};

/*
 * Refuses a grail.pending_change whose row type is not the one this library reads and writes by
 * attribute number: the columns of kColumns first, in order, then only dropped ones (a column added
 * by hand and dropped again stays as a dropped attribute). A reader must check before it deforms a
 * row: a column added by hand would make heap_deform_tuple write past the row's arrays, a column
 * of another type would be read as this one.
 */
void
check_columns(TupleDesc desc) {
	bool fits = desc->natts >= kColumnCount;
	for (int i = 0; fits && i < desc->natts; i++) {
		Form_pg_attribute att = TupleDescAttr(desc, i);
		fits = i < kColumnCount ? !att->attisdropped && strcmp(NameStr(att->attname), kColumns[i].name) == 0 &&
		                              att->atttypid == kColumns[i].type
		                        : att->attisdropped;
	}
	if (!fits)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
		                errmsg("pg_grail catalog table grail.pending_change does not have the columns that "
		                       "pg_grail's library (version %s) reads and writes",
		                       GRAIL_EXTVERSION),
		                errdetail("It must have the columns graph_id, change, source, target, source_key, target_key "
		                          "and xid, in this order, of the types the extension made them, and no other."),
		                errhint("Run ALTER EXTENSION pg_grail UPDATE; a column added to it by hand must be dropped "
		                        "again.")));
}

/*
 * The row's first kColumnCount columns into values and nulls (check_columns() passed: any other
 * attributes are dropped ones).
 */
void
deform_row(HeapTuple tuple, TupleDesc desc, Datum *values, bool *nulls) {
	if (desc->natts == kColumnCount) {
		heap_deform_tuple(tuple, desc, values, nulls);
		return;
	}
	Datum *all = static_cast<Datum *>(palloc(sizeof(Datum) * size_t(desc->natts)));
	bool *all_nulls = static_cast<bool *>(palloc(sizeof(bool) * size_t(desc->natts)));
	heap_deform_tuple(tuple, desc, all, all_nulls);
	memcpy(values, all, sizeof(Datum) * kColumnCount);
	memcpy(nulls, all_nulls, sizeof(bool) * kColumnCount);
	pfree(all);
	pfree(all_nulls);
}

// The SQL that deletes a graph's rows.
constexpr const char *kDeleteSql = "DELETE FROM grail.pending_change WHERE graph_id OPERATOR(pg_catalog.=) $1";

} // namespace

Oid
pending_change_table() {
	return get_relname_relid("pending_change", get_namespace_oid("grail", false));
}

// Rows of the log by their xid: those of transaction xid (only), or of xid and later ones.
struct XidKey {
	uint64_t xid;
	bool only;
};

/*
 * Calls visit(tuple, descriptor) for each row of grail.pending_change of the graph that the active
 * snapshot sees, in index order; with xids, only those each key names, key after key (PostgreSQL
 * calls: inside guard()).
 */
template <typename Visit>
static void
scan_visible_pending(int64_t graph_id, Visit &&visit, const std::vector<XidKey> *xids = nullptr) {
	Oid relid = pending_change_table();
	if (!OidIsValid(relid))
		elog(ERROR, "pg_grail catalog table grail.pending_change is missing");
	Relation rel = table_open(relid, AccessShareLock);
	check_columns(RelationGetDescr(rel));
	Snapshot snapshot = ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot();
	Oid index = index_on(rel, {kGraphIdColumn, kXidColumn}, "(graph_id, xid)");
	auto scan_with = [&](const XidKey *xid) {
		ScanKeyData keys[2];
		ScanKeyInit(&keys[0], kGraphIdColumn, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(graph_id));
		if (xid != nullptr)
			ScanKeyInit(&keys[1], kXidColumn, xid->only ? BTEqualStrategyNumber : BTGreaterEqualStrategyNumber,
			            xid->only ? F_XID8EQ : F_XID8GE, FullTransactionIdGetDatum(FullTransactionIdFromU64(xid->xid)));
		SysScanDesc scan = systable_beginscan(rel, index, true, snapshot, xid != nullptr ? 2 : 1, keys);
		while (HeapTuple tuple = systable_getnext(scan)) {
			CHECK_FOR_INTERRUPTS();
			visit(tuple, RelationGetDescr(rel));
		}
		systable_endscan(scan);
	};
	if (xids == nullptr)
		scan_with(nullptr);
	else
		for (const XidKey &xid : *xids)
			scan_with(&xid);
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

/*
 * The edges of one row of the log, deformed into values and nulls (PostgreSQL calls: inside guard()).
 */
static void
append_edges(int64_t graph_id, const Datum *values, const bool *nulls, std::vector<PendingRow> &rows) {
	int change = DatumGetInt32(values[kChangeColumn - 1]);
	bool integer = !nulls[kSourceColumn - 1];
	int s = (integer ? kSourceColumn : kSourceKeyColumn) - 1, t = (integer ? kTargetColumn : kTargetKeyColumn) - 1;
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
}

std::vector<PendingRow>
visible_pending_rows(int64_t graph_id) {
	std::vector<PendingRow> rows;
	guard([&] {
		scan_visible_pending(graph_id, [&](HeapTuple tuple, TupleDesc descriptor) {
			Datum values[kColumnCount];
			bool nulls[kColumnCount];
			deform_row(tuple, descriptor, values, nulls);
			append_edges(graph_id, values, nulls, rows);
		});
	});
	return rows;
}

namespace {

// The full transaction id of a transaction id of the active snapshot (at most 2^31 old).
bool
full_xid(TransactionId xid, uint64_t *full) {
	FullTransactionId next = ReadNextFullTransactionId();
	uint32 epoch = EpochFromFullTransactionId(next);
	if (!TransactionIdIsNormal(xid))
		return false;
	if (xid > XidFromFullTransactionId(next)) {
		if (epoch == 0)
			return false;
		epoch--;
	}
	*full = uint64_t(epoch) << 32 | xid;
	return true;
}

// What the active snapshot counts as ended (PendingLog): its xmax, and the transactions it counts as
// in progress (sorted) with this backend's own (which the snapshot leaves out of them, and whose
// rows it sees up to its command). false where an id is not a normal one.
bool
snapshot_horizon(uint64_t *xmax, std::vector<uint64_t> &running) {
	Snapshot snapshot = ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot();
	if (!full_xid(snapshot->xmax, xmax))
		return false;
	// A standby's snapshot lists the transactions in progress in subxip, subtransactions among them
	// (those past an overflow left out): every top-level one is there, and the log's xids are
	// top-level ones.
	const TransactionId *xids = snapshot->takenDuringRecovery ? snapshot->subxip : snapshot->xip;
	size_t count = snapshot->takenDuringRecovery ? size_t(std::max(snapshot->subxcnt, 0)) : size_t(snapshot->xcnt);
	running.clear();
	running.reserve(count + 1);
	for (size_t i = 0; i < count; i++) {
		uint64_t full;
		if (!full_xid(xids[i], &full))
			return false;
		running.push_back(full);
	}
	FullTransactionId own = GetTopFullTransactionIdIfAny();
	if (FullTransactionIdIsValid(own))
		running.push_back(U64FromFullTransactionId(own));
	std::sort(running.begin(), running.end());
	running.erase(std::unique(running.begin(), running.end()), running.end());
	return true;
}

PendingRowId
row_id(HeapTuple tuple) {
	PendingRowId id;
	id.block = ItemPointerGetBlockNumber(&tuple->t_self);
	id.offset = ItemPointerGetOffsetNumber(&tuple->t_self);
	id.xmin = HeapTupleHeaderGetRawXmin(tuple->t_data);
	return id;
}

// The row's xid, 0 where NULL (rows logged before the column was: ended before any snapshot).
uint64_t
row_xid(const Datum *values, const bool *nulls) {
	return nulls[kXidColumn - 1] ? 0 : U64FromFullTransactionId(DatumGetFullTransactionId(values[kXidColumn - 1]));
}

// Whether a snapshot that counted log's transactions as ended may have seen only part of xid's rows:
// xid was in progress for it, or at or past its xmax.
bool
open_for(const PendingLog &log, uint64_t xid) {
	return xid >= log.xmax || std::binary_search(log.running.begin(), log.running.end(), xid);
}

// A read of more than this many transactions' rows one by one reads from the oldest of them on.
constexpr size_t kMaxXidProbes = 32;

// The keys that scan the rows of log's running transactions and of those at or past its xmax.
std::vector<XidKey>
keys_since(const PendingLog &log) {
	std::vector<XidKey> keys;
	if (log.running.size() > kMaxXidProbes) {
		keys.push_back(XidKey{std::min(log.running.front(), log.xmax), false});
		return keys;
	}
	for (uint64_t xid : log.running)
		if (xid < log.xmax)
			keys.push_back(XidKey{xid, true});
	keys.push_back(XidKey{log.xmax, false});
	return keys;
}

} // namespace

void
read_pending_log(int64_t graph_id, std::vector<PendingRow> &edges, PendingLog &log) {
	log = PendingLog{};
	guard([&] {
		log.bounded = snapshot_horizon(&log.xmax, log.running);
		scan_visible_pending(graph_id, [&](HeapTuple tuple, TupleDesc descriptor) {
			Datum values[kColumnCount];
			bool nulls[kColumnCount];
			deform_row(tuple, descriptor, values, nulls);
			log.rows++;
			if (log.bounded && open_for(log, row_xid(values, nulls)))
				log.recent.push_back(row_id(tuple));
			append_edges(graph_id, values, nulls, edges);
		});
	});
	if (!log.bounded) {
		log.running.clear();
		log.recent.clear();
	}
	std::sort(log.recent.begin(), log.recent.end());
}

bool
read_pending_since(int64_t graph_id, const PendingLog &last, std::vector<PendingRow> &edges, PendingLog &next) {
	next = PendingLog{};
	if (!last.bounded)
		return false;
	size_t seen = 0;
	bool still = guard([&] {
		if (!snapshot_horizon(&next.xmax, next.running) || next.xmax < last.xmax)
			return false;
		// Every transaction that last counted as ended counts as ended here too.
		for (uint64_t xid : next.running)
			if (xid < last.xmax && !std::binary_search(last.running.begin(), last.running.end(), xid))
				return false;
		size_t known = 0;
		std::vector<XidKey> keys = keys_since(last);
		scan_visible_pending(
		    graph_id,
		    [&](HeapTuple tuple, TupleDesc descriptor) {
			    Datum values[kColumnCount];
			    bool nulls[kColumnCount];
			    deform_row(tuple, descriptor, values, nulls);
			    uint64_t xid = row_xid(values, nulls);
			    if (!open_for(last, xid))
				    return; // a range read from the oldest running transaction passes ended ones
			    seen++;
			    PendingRowId id = row_id(tuple);
			    if (open_for(next, xid))
				    next.recent.push_back(id);
			    if (std::binary_search(last.recent.begin(), last.recent.end(), id))
				    known++;
			    else
				    append_edges(graph_id, values, nulls, edges);
		    },
		    &keys);
		return known == last.recent.size();
	});
	if (!still)
		return false;
	next.bounded = true;
	next.rows = last.rows + (seen - last.recent.size());
	std::sort(next.recent.begin(), next.recent.end());
	return true;
}

bool
build_horizon(int64_t graph_id, Snapshot snapshot, uint64_t *xmax, std::vector<uint64_t> &running) {
	running.clear();
	return guard([&] {
		// A build's snapshot is never a standby's (builds write); its xip holds top-level ids.
		if (snapshot->takenDuringRecovery || !full_xid(snapshot->xmax, xmax))
			return false;
		// A merge has an id by now (it locked the graph's row before it took the snapshot), which may
		// be below xmax and is not in xip: it counts as in progress, as it does for readers while the
		// build runs, where the build deletes none of its rows (none that the snapshot sees).
		FullTransactionId own = GetTopFullTransactionIdIfAny();
		if (FullTransactionIdIsValid(own)) {
			bool logged = false;
			std::vector<XidKey> keys{XidKey{U64FromFullTransactionId(own), true}};
			PushActiveSnapshot(snapshot);
			scan_visible_pending(
			    graph_id, [&](HeapTuple, TupleDesc) { logged = true; }, &keys);
			PopActiveSnapshot();
			if (logged)
				return false;
			running.push_back(U64FromFullTransactionId(own));
		}
		running.reserve(running.size() + size_t(snapshot->xcnt));
		for (uint32 i = 0; i < snapshot->xcnt; i++) {
			uint64_t full;
			if (!full_xid(snapshot->xip[i], &full))
				return false;
			running.push_back(full);
		}
		std::sort(running.begin(), running.end());
		return true;
	});
}

bool
build_carries(const PendingLog &last, uint64_t build_xmax, const std::vector<uint64_t> &build_running) {
	if (!last.bounded || build_xmax > last.xmax)
		return false;
	for (uint64_t xid : last.running)
		if (xid < build_xmax && !std::binary_search(build_running.begin(), build_running.end(), xid))
			return false;
	return true;
}

void
delete_pending_changes(int64_t graph_id, Snapshot snapshot) {
	with_spi([&] {
		guard([&] {
			Oid types[] = {INT8OID};
			Datum values[] = {Int64GetDatum(graph_id)};
			SPIPlanPtr plan = SPI_prepare(kDeleteSql, 1, types);
			if (plan == NULL)
				elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
			int rc = snapshot != nullptr
			             ? SPI_execute_snapshot(plan, values, NULL, snapshot, InvalidSnapshot, false, false, 0)
			             : SPI_execute_plan(plan, values, NULL, false, 0);
			if (rc != SPI_OK_DELETE)
				elog(ERROR, "pg_grail could not delete the pending changes of graph %lld", (long long)graph_id);
			SPI_freeplan(plan);
		});
	});
}

int64_t
count_pending_edges(int64_t graph_id, Snapshot snapshot) {
	return with_spi([&] {
		return guard([&] {
			Oid types[] = {INT8OID};
			Datum values[] = {Int64GetDatum(graph_id)};
			SPIPlanPtr plan = SPI_prepare(
			    "SELECT COALESCE(pg_catalog.sum(COALESCE(pg_catalog.cardinality(p.source), "
			    "pg_catalog.cardinality(p.source_key), 1)), 0)::pg_catalog.int8 FROM grail.pending_change p "
			    "WHERE p.graph_id OPERATOR(pg_catalog.=) $1",
			    1, types);
			if (plan == NULL)
				elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
			int rc = snapshot != nullptr
			             ? SPI_execute_snapshot(plan, values, NULL, snapshot, InvalidSnapshot, false, false, 1)
			             : SPI_execute_plan(plan, values, NULL, false, 1);
			if (rc != SPI_OK_SELECT || SPI_processed != 1)
				elog(ERROR, "pg_grail could not count the pending changes of graph %lld", (long long)graph_id);
			bool isnull = false;
			int64_t edges = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
			SPI_freeplan(plan);
			return edges;
		});
	});
}

void
set_graph_live(int64_t graph_id, bool live) {
	with_spi([&] {
		Oid types[] = {INT8OID, BOOLOID};
		Datum values[] = {Int64GetDatum(graph_id), BoolGetDatum(live)};
		execute("UPDATE grail.graph SET live = $2, stale = stale OR (NOT $2 AND EXISTS "
		        "(SELECT 1 FROM grail.pending_change p WHERE p.graph_id OPERATOR(pg_catalog.=) $1)) "
		        "WHERE id OPERATOR(pg_catalog.=) $1",
		        2, types, values, SPI_OK_UPDATE);
		if (!live)
			execute(kDeleteSql, 1, types, values, SPI_OK_DELETE);
	});
}

std::vector<int64_t>
graphs_to_merge(int64_t threshold) {
	return with_spi([&] {
		Oid types[] = {INT8OID};
		Datum values[] = {Int64GetDatum(threshold)};
		// Edge changes, as grail.graphs counts them, of at most threshold rows of each graph (each
		// row holds at least one: the sum passes the threshold iff the graph's total does). The
		// smallest graphs first (a merge's time grows with its graph's edges): one whose merges take
		// long, or run past grail.merge_timeout, goes after the quick ones instead of holding them
		// back a whole merge_timeout every round.
		int n = execute("SELECT g.id FROM grail.graph g WHERE g.live AND NOT g.stale "
		                "AND (SELECT pg_catalog.sum(COALESCE(pg_catalog.cardinality(s.source), "
		                "pg_catalog.cardinality(s.source_key), 1)) FROM (SELECT p.source, p.source_key "
		                "FROM grail.pending_change p WHERE p.graph_id OPERATOR(pg_catalog.=) g.id LIMIT $1) s) "
		                "OPERATOR(pg_catalog.>=) $1 "
		                "ORDER BY COALESCE(g.edges, 0), g.id",
		                1, types, values, SPI_OK_SELECT);
		std::vector<int64_t> ids;
		for (int i = 0; i < n; i++)
			ids.push_back(guard([&] {
				bool null;
				return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &null));
			}));
		return ids;
	});
}

namespace {

// An int8[] of n elements, nulls[i] for a NULL element (maybe_null: there may be some), built in
// place: what construct_md_array makes of them, without its per-element work (a batch is 8,192 of
// them per side).
Datum
integer_array(const Datum *values, const bool *nulls, int n, bool maybe_null) {
	int present = n;
	if (maybe_null)
		for (int i = 0; i < n; i++)
			present -= nulls[i] ? 1 : 0;
	bool any_null = present < n;
	Size offset = any_null ? ARR_OVERHEAD_WITHNULLS(1, n) : ARR_OVERHEAD_NONULLS(1);
	Size bytes = offset + sizeof(int64) * Size(present);
	auto *array = static_cast<ArrayType *>(palloc(bytes));
	memset(array, 0, offset);
	SET_VARSIZE(array, bytes);
	array->ndim = 1;
	array->dataoffset = any_null ? int32(offset) : 0;
	array->elemtype = INT8OID;
	ARR_DIMS(array)[0] = n;
	ARR_LBOUND(array)[0] = 1;
	auto *data = reinterpret_cast<int64 *>(ARR_DATA_PTR(array));
	if (!any_null) {
		for (int i = 0; i < n; i++)
			data[i] = DatumGetInt64(values[i]);
	} else {
		bits8 *bitmap = ARR_NULLBITMAP(array);
		for (int i = 0, j = 0; i < n; i++)
			if (!nulls[i]) {
				bitmap[i / 8] |= bits8(1 << (i % 8));
				data[j++] = DatumGetInt64(values[i]);
			}
	}
	return PointerGetDatum(array);
}

// An array of the endpoints of one side, as its column holds them.
Datum
endpoint_array(bool integer, const Datum *values, const bool *nulls, int n, bool maybe_null) {
	if (integer)
		return integer_array(values, nulls, n, maybe_null);
	int dims[] = {n}, lbs[] = {1};
	return PointerGetDatum(construct_md_array(const_cast<Datum *>(values), const_cast<bool *>(nulls), 1, dims, lbs,
	                                          TEXTOID, -1, false, TYPALIGN_INT));
}

} // namespace

void
PendingChangeInserter::open(Oid table, MemoryContext context) {
	MemoryContext old = MemoryContextSwitchTo(context);
	Relation rel = table_open(table, RowExclusiveLock);
	TupleDesc desc = RelationGetDescr(rel);
	check_columns(desc);
	estate_ = CreateExecutorState();
	result_ = makeNode(ResultRelInfo);
	InitResultRelInfo(result_, rel, 1, NULL, 0);
	ExecOpenIndices(result_, false);
	slot_ = MakeSingleTupleTableSlot(desc, &TTSOpsHeapTuple);
	rel_ = rel;
	MemoryContextSwitchTo(old);
}

void
PendingChangeInserter::insert_edges(int64_t graph_id, int change, bool integer, const Datum *sources,
                                    const bool *source_nulls, const Datum *targets, const bool *target_nulls, int count,
                                    bool any_null) {
	Datum arrays[2] = {endpoint_array(integer, sources, source_nulls, count, any_null),
	                   endpoint_array(integer, targets, target_nulls, count, any_null)};
#ifdef USE_LZ4
	// A row that the toaster would store out of line (the columns are STORAGE EXTERNAL, so it
	// compresses nothing) goes out compressed by lz4: about half the bytes of toast and WAL for
	// ids below 2^32, for less CPU than writing those bytes takes (1M edges: lz4 10 ms, 20 ms
	// less toasting); pglz, several times slower, would cost more than it saves. Readers
	// detoast as before.
	if (VARSIZE(DatumGetPointer(arrays[0])) + VARSIZE(DatumGetPointer(arrays[1])) > TOAST_TUPLE_THRESHOLD)
		for (int i = 0; i < 2; i++) {
			Datum compressed = toast_compress_datum(arrays[i], TOAST_LZ4_COMPRESSION);
			if (DatumGetPointer(compressed) != nullptr)
				arrays[i] = compressed;
		}
#endif
	insert(graph_id, change, integer ? kSourceColumn : kSourceKeyColumn, arrays[0], arrays[1], false);
}

void
PendingChangeInserter::insert_marker(int64_t graph_id) {
	insert(graph_id, 0, kSourceColumn, Datum(0), Datum(0), true);
}

// One row: its heap tuple (toasted by the table access method) and its index entries, as an
// INSERT writes them; source and target go to columns first and first + 1.
void
PendingChangeInserter::insert(int64_t graph_id, int change, int first, Datum source, Datum target, bool marker) {
	Datum values[kColumnCount];
	bool nulls[kColumnCount];
	values[kGraphIdColumn - 1] = Int64GetDatum(graph_id);
	values[kChangeColumn - 1] = Int32GetDatum(change);
	nulls[kGraphIdColumn - 1] = nulls[kChangeColumn - 1] = false;
	for (AttrNumber column : {kSourceColumn, kTargetColumn, kSourceKeyColumn, kTargetKeyColumn})
		nulls[column - 1] = true;
	// The writer's top-level transaction (which an insert has), by which readers read what was
	// logged since their last read.
	values[kXidColumn - 1] = FullTransactionIdGetDatum(GetTopFullTransactionId());
	nulls[kXidColumn - 1] = false;
	if (!marker) {
		values[first - 1] = source;
		values[first] = target;
		nulls[first - 1] = nulls[first] = false;
	}
	// Formed here rather than in the slot's memory: a batch's row is as large as its arrays. Dropped
	// columns after the table's own (check_columns()) are NULL.
	TupleDesc desc = RelationGetDescr(rel_);
	if (desc->natts > kColumnCount) {
		Datum *all = static_cast<Datum *>(palloc0(sizeof(Datum) * size_t(desc->natts)));
		bool *all_nulls = static_cast<bool *>(palloc(sizeof(bool) * size_t(desc->natts)));
		memcpy(all, values, sizeof(values));
		memcpy(all_nulls, nulls, sizeof(nulls));
		for (int i = kColumnCount; i < desc->natts; i++)
			all_nulls[i] = true;
		ExecStoreHeapTuple(heap_form_tuple(desc, all, all_nulls), slot_, true);
		pfree(all);
		pfree(all_nulls);
	} else {
		ExecStoreHeapTuple(heap_form_tuple(desc, values, nulls), slot_, true);
	}
	table_tuple_insert(rel_, slot_, GetCurrentCommandId(true), 0, NULL);
	if (result_->ri_NumIndices > 0)
		(void)ExecInsertIndexTuples(result_, slot_, estate_, false, false, NULL, NIL);
	ResetPerTupleExprContext(estate_);
	ExecClearTuple(slot_);
}

void
PendingChangeInserter::close() {
	if (rel_ == nullptr)
		return;
	ExecDropSingleTupleTableSlot(slot_);
	ExecCloseIndices(result_);
	FreeExecutorState(estate_);
	table_close(rel_, NoLock);
	rel_ = nullptr;
	CommandCounterIncrement();
}

} // namespace grail::pg
