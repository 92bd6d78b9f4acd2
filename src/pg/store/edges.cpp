#include "graph.hpp"
#include "index.hpp"
#include "keys.hpp"

#include "store/activity.hpp"
#include "store/edges.hpp"
#include "store/edge_filter.hpp"
#include "boundary/key_datums.hpp"
#include "boundary/pg_calls.hpp"

extern "C" {
#include "access/detoast.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_inherits.h"
#include "access/tableam.h"
#include "catalog/pg_attribute.h"
#include "catalog/catalog.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "optimizer/plancat.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/uuid.h"
}

namespace grail::pg {

void
check_table_access(Oid relid) {
	const char *relname = relation_name(relid);
	if (relname == nullptr)
		raise(ERRCODE_UNDEFINED_TABLE, format("the edge table (oid %u) no longer exists", relid),
		      "Drop the graph with grail.drop_graph().");
	bool row_security = guard([&] {
		Oid schema = get_rel_namespace(relid);
		AclResult acl = pg_namespace_aclcheck(schema, GetUserId(), ACL_USAGE);
		if (acl != ACLCHECK_OK)
			aclcheck_error(acl, OBJECT_SCHEMA, get_namespace_name(schema));
		return check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED;
	});
	// A graph holds every row of its table, whatever policy would hide from the caller.
	if (row_security)
		raise(ERRCODE_INSUFFICIENT_PRIVILEGE,
		      format("row-level security of table \"%s\" applies to role \"%s\", so it cannot build or query a "
		             "pg_grail graph over it",
		             relname, role_name(GetUserId())),
		      {},
		      "A graph holds every row of its table; only roles that bypass the table's policies (its owner unless "
		      "FORCE ROW LEVEL SECURITY, superusers, roles with BYPASSRLS) may use it.");
}

void
check_build_rights(Oid relid) {
	bool allowed = guard([&] {
		Oid user = GetUserId();
		if (pg_class_ownercheck(relid, user))
			return true;
		return pg_class_aclcheck(relid, user, ACL_TRIGGER) == ACLCHECK_OK &&
		       pg_class_aclmask(relid, user, ACL_UPDATE | ACL_DELETE | ACL_TRUNCATE, ACLMASK_ANY) != 0;
	});
	if (!allowed)
		raise(ERRCODE_INSUFFICIENT_PRIVILEGE,
		      format("permission denied to build a pg_grail graph over table \"%s\"", relation_name(relid)),
		      "Ask the table's owner to build the graph, or to GRANT TRIGGER, UPDATE ON it.",
		      "A build locks the table in SHARE mode and keeps a trigger on it, so it needs ownership of the table, "
		      "or the TRIGGER privilege together with UPDATE, DELETE or TRUNCATE (what LOCK TABLE ... IN SHARE MODE "
		      "needs).");
}

bool
catalog_source(Oid relid) {
	return IsCatalogRelationOid(relid);
}

void
check_edge_column(Oid relid, AttrNumber attnum, const char *what) {
	struct Column {
		const char *relname;
		const char *attname; // null: no such column now
		Oid type;
		bool keyable;  // of a type pg_grail keys vertices by
		bool readable; // by the current role
	};
	Column column = guard([&] {
		Column c{get_rel_name(relid), nullptr, InvalidOid, false, false};
		// A dropped column keeps its pg_attribute row (named ........pg.dropped.N........, type 0).
		HeapTuple attribute = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(attnum));
		bool live = HeapTupleIsValid(attribute) && !((Form_pg_attribute)GETSTRUCT(attribute))->attisdropped;
		if (HeapTupleIsValid(attribute))
			ReleaseSysCache(attribute);
		c.attname = live ? get_attname(relid, attnum, false) : NULL;
		if (c.attname == NULL)
			return c;
		c.type = get_atttype(relid, attnum);
		grail::KeyKind kind;
		c.keyable = key_kind_of(c.type, &kind);
		if (c.keyable)
			c.readable = pg_attribute_aclcheck(relid, attnum, GetUserId(), ACL_SELECT) == ACLCHECK_OK ||
			             pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
		return c;
	});
	if (column.attname == nullptr)
		raise(ERRCODE_UNDEFINED_COLUMN,
		      format("the %s column of edge table \"%s\" no longer exists", what, column.relname),
		      "Drop the graph with grail.drop_graph() and create it again.");
	if (!column.keyable)
		raise(ERRCODE_DATATYPE_MISMATCH,
		      format("%s column \"%s\" of table \"%s\" has type %s, which pg_grail cannot key vertices by", what,
		             column.attname, column.relname, type_name(column.type)),
		      "Use a smallint, integer, bigint, oid, regrole, regclass, regnamespace, regproc, regprocedure, regtype, "
		      "text, varchar or uuid column; for other types, copy the edges into a "
		      "table with columns of one of those.");
	if (!column.readable)
		raise(ERRCODE_INSUFFICIENT_PRIVILEGE,
		      format("permission denied for column \"%s\" of table \"%s\"", column.attname, column.relname), {},
		      "A pg_grail graph may be built and queried only by roles that can read its edge columns.");
}

/*
 * The "keys of one kind" error of two edge columns (PostgreSQL calls: inside guard()).
 */
static void
mixed_kinds_error(Oid relid, AttrNumber source, AttrNumber target) {
	ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
	                errmsg("the source column \"%s\" (%s) and the target column \"%s\" (%s) of a graph must hold keys "
	                       "of one kind",
	                       get_attname(relid, source, false), format_type_be(get_atttype(relid, source)),
	                       get_attname(relid, target, false), format_type_be(get_atttype(relid, target))),
	                errhint("Use integer columns (smallint, integer, bigint), text columns (text, varchar), uuid "
	                        "columns, or columns of one oid type (oid, regrole, regclass, ...) for both.")));
}

void
check_edge_columns(Oid relid, AttrNumber source, AttrNumber target) {
	check_edge_column(relid, source, "source");
	check_edge_column(relid, target, "target");
	check_edge_kinds(relid, source, target);
}

void
check_edge_kinds(Oid relid, AttrNumber source, AttrNumber target) {
	guard([&] {
		grail::KeyKind kinds[2];
		Oid types[2] = {get_atttype(relid, source), get_atttype(relid, target)};
		key_kind_of(types[0], &kinds[0]);
		key_kind_of(types[1], &kinds[1]);
		// oid and each reg* type keys vertices of its own: an oid is no bigint, a role no relation.
		if (kinds[0] != kinds[1] || key_type_of(types[0]) != key_type_of(types[1]))
			mixed_kinds_error(relid, source, target);
	});
}

bool
EdgeColumns::open(TupleDesc desc, AttrNumber source, AttrNumber target) {
	AttrNumber attnums[2] = {source, target};
	grail::KeyKind kinds[2];
	for (int end = 0; end < 2; end++) {
		if (attnums[end] < 1 || attnums[end] > desc->natts)
			return false;
		Form_pg_attribute attribute = TupleDescAttr(desc, attnums[end] - 1);
		if (attribute->attisdropped || !key_kind_of(attribute->atttypid, &kinds[end]))
			return false;
		attnums_[end] = attnums[end];
		types_[end] = attribute->atttypid;
	}
	kind_ = kinds[0];
	return kinds[0] == kinds[1] && key_type_of(types_[0]) == key_type_of(types_[1]);
}

int64_t
EdgeColumns::integer(int end, Datum d) const {
	switch (types_[end]) {
	case INT2OID:
		return DatumGetInt16(d);
	case INT4OID:
		return DatumGetInt32(d);
	case INT8OID:
		return DatumGetInt64(d);
	default:
		// oid and its reg* aliases: the unsigned value, 0 to 4294967295.
		return int64_t(DatumGetObjectId(d));
	}
}

grail::KeyDictionaryBuilder::KeyRef
EdgeColumns::bytes(int end, Datum d, struct varlena **copy) const {
	*copy = nullptr;
	if (types_[end] == UUIDOID)
		return {DatumGetUUIDP(d)->data, UUID_LEN};
	struct varlena *key = reinterpret_cast<struct varlena *>(DatumGetPointer(d));
	if (VARATT_IS_EXTERNAL(key) || VARATT_IS_COMPRESSED(key))
		key = *copy = pg_detoast_datum_packed(key);
	return {VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key)};
}

uint64_t
EdgeColumns::length(int end, Datum d) const {
	if (types_[end] == UUIDOID)
		return UUID_LEN;
	return toast_raw_datum_size(d) - VARHDRSZ;
}

Datum
EdgeColumns::text(int end, Datum d) const {
	if (types_[end] == UUIDOID) {
		char *s = DatumGetCString(DirectFunctionCall1(uuid_out, d));
		Datum t = PointerGetDatum(cstring_to_text(s));
		pfree(s);
		return t;
	}
	struct varlena *copy;
	grail::KeyDictionaryBuilder::KeyRef key = bytes(end, d, &copy);
	Datum t = PointerGetDatum(cstring_to_text_with_len(static_cast<const char *>(key.bytes), int(key.length)));
	if (copy != nullptr)
		pfree(copy);
	return t;
}

/*
 * The keys of up to kBatchRows rows, copied out of their tuples (a tuple's bytes may go when the
 * scan leaves its page), for the builder to add in one batch, whose cache misses overlap: the
 * builder's hash slots and key records are spread over tens of MB.
 */
constexpr size_t kBatchRows = 128;
constexpr size_t kBatchBytes = 64 * 1024;

struct KeyBatch {
	grail::KeyDictionaryBuilder::KeyRef refs[2 * kBatchRows];
	int64_t ids[2 * kBatchRows];
	uint8_t bytes[kBatchBytes];
	size_t rows;
	size_t used;
};

/*
 * Adds the batch's keys and appends its rows' edges; false when memory runs out.
 */
static bool
flush_keys(KeyBatch *batch, grail::KeyDictionaryBuilder *keys, EdgeList *edges) {
	size_t rows = batch->rows;
	batch->rows = batch->used = 0;
	if (rows == 0)
		return true;
	if (!keys->add(batch->refs, 2 * rows, batch->ids))
		return false;
	for (size_t i = 0; i < rows; i++)
		if (!edges->append(batch->ids[2 * i], batch->ids[2 * i + 1]))
			return false;
	return true;
}

/*
 * One row's edge between two keys, added in the batch's order: into the batch, or, when the keys
 * are too long for it, directly after the rows before it. False when memory runs out.
 * PostgreSQL calls: run inside guard().
 */
static bool
add_key_row(KeyBatch *batch, grail::KeyDictionaryBuilder *keys, EdgeList *edges, const EdgeColumns &columns,
            Datum source, Datum target) {
	struct varlena *copies[2];
	grail::KeyDictionaryBuilder::KeyRef row[2] = {columns.bytes(0, source, &copies[0]),
	                                              columns.bytes(1, target, &copies[1])};
	bool ok = true;
	size_t length = row[0].length + row[1].length;
	if (length > kBatchBytes - batch->used || batch->rows == kBatchRows)
		ok = flush_keys(batch, keys, edges);
	if (ok && length > kBatchBytes) {
		int64_t ids[2];
		ok = keys->add(row, 2, ids) && edges->append(ids[0], ids[1]);
	} else if (ok) {
		for (size_t k = 0; k < 2; k++) {
			uint8_t *to = batch->bytes + batch->used;
			if (row[k].length)
				memcpy(to, row[k].bytes, row[k].length);
			batch->refs[2 * batch->rows + k] = {to, row[k].length};
			batch->used += row[k].length;
		}
		batch->rows++;
	}
	for (struct varlena *copy : copies)
		if (copy != nullptr)
			pfree(copy);
	return ok;
}

/*
 * Where the rows of a read go, whatever reads them (a heap scan of a table, a query over a view):
 * counts, the memory limit's checks, the edge list and the key dictionary. PostgreSQL calls: run
 * inside guard().
 */
class EdgeSink {
public:
	EdgeSink(grail::KeyKind kind, uint64_t memory_limit, const std::function<bool()> &rows_on_device, EdgeScan *counts,
	         EdgeList *edges, grail::service::RowsFile *rows_file, grail::KeyDictionaryBuilder *keys)
	    : kind_(kind), memory_limit_(memory_limit), rows_on_device_(rows_on_device), counts_(counts), edges_(edges),
	      rows_file_(rows_file), keys_(keys) {
		max_rows_ = memory_limit / grail::estimate_build_bytes(1, 0, 0);
		batch_ = keys ? static_cast<KeyBatch *>(palloc(sizeof(KeyBatch))) : nullptr;
		if (batch_)
			batch_->rows = batch_->used = 0;
	}
	EdgeSink(const EdgeSink &) = delete;
	EdgeSink &operator=(const EdgeSink &) = delete;

	/*
	 * Room for about `rows` more edges, asked for at once: grown a quarter at a time, the list would
	 * be copied (and its new pages faulted in) a dozen times on its way to millions of rows. Room
	 * the rows do not fill is never touched; an estimate past the rows the memory limit allows is
	 * cut to them.
	 */
	void
	expect(uint64_t rows) noexcept {
		if (rows_file_ != nullptr || edges_ == nullptr)
			return;
		if (memory_limit_ != 0)
			rows = std::min(rows, memory_limit_ / grail::estimate_build_bytes(1, 0, 0));
		try {
			edges_->reserve(edges_->size() + rows);
		} catch (...) {
			// Without the room, the list grows as the rows come.
		}
	}

	/*
	 * One more row read (before the filter): progress, interrupts and the row limit.
	 */
	void
	count(const char *relname) {
		if ((++counts_->rows & 0xffff) == 0) {
			progress_done(int64_t(counts_->rows));
			CHECK_FOR_INTERRUPTS();
		}
		if (counts_->rows > max_rows_ && max_rows_ != 0 && !on_device_ && rows_on_device_ && rows_on_device_()) {
			on_device_ = true;
			max_rows_ = memory_limit_ / grail::estimate_build_bytes(1, 0, 0, 0, 0, true);
		}
		if (counts_->rows > max_rows_ && max_rows_ != 0)
			ereport(
			    ERROR,
			    (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			     errmsg("building a graph over \"%s\" needs more memory than grail.build_memory_limit "
			            "allows: it has more than %llu rows, which need more than %llu MB",
			            relname, (unsigned long long)max_rows_,
			            (unsigned long long)(grail::estimate_build_bytes(counts_->rows, 0, 0, 0, 0, on_device_) >> 20)),
			     errhint("A superuser can raise grail.build_memory_limit (0 removes the limit).")));
	}

	/*
	 * The edge of a row that passed the filter (a NULL endpoint is counted, and no edge).
	 */
	void
	take(const char *relname, const EdgeColumns &columns, Datum source, bool source_null, Datum target,
	     bool target_null) {
		if (source_null || target_null) {
			counts_->null_source += source_null;
			counts_->null_target += target_null;
			return;
		}
		bool appended;
		if (kind_ == grail::KeyKind::integer) {
			int64_t s = columns.integer(0, source), t = columns.integer(1, target);
			appended = rows_file_ ? rows_file_->append(s, t) : edges_->append(s, t);
		} else {
			// The row's keys counted before they are copied (a key stored compressed or out of line
			// may be far larger than the table), as if both were new: the memory the dictionary
			// would hold with them, against the limit. The batch's keys count as new too.
			uint64_t key_bytes =
			    keys_->key_bytes() + batch_->used + columns.length(0, source) + columns.length(1, target);
			uint64_t needed =
			    grail::estimate_build_bytes(counts_->rows, 0, 0, keys_->size() + 2 * batch_->rows + 2, key_bytes);
			if (needed > memory_limit_ && memory_limit_ != 0)
				ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				                errmsg("building a graph over \"%s\" needs more memory than grail.build_memory_limit "
				                       "allows: after %llu rows its keys need about %llu MB, more than the limit of "
				                       "%llu MB",
				                       relname, (unsigned long long)counts_->rows, (unsigned long long)(needed >> 20),
				                       (unsigned long long)(memory_limit_ >> 20)),
				                errhint("A superuser can raise grail.build_memory_limit (0 removes the limit).")));
			appended = add_key_row(batch_, keys_, edges_, columns, source, target);
		}
		if (!appended)
			out_of_memory(relname);
	}

	/*
	 * The keys still in the batch added (once, after the last row).
	 */
	void
	finish(const char *relname) {
		if (batch_) {
			if (!flush_keys(batch_, keys_, edges_))
				out_of_memory(relname);
			pfree(batch_);
			batch_ = nullptr;
		}
	}

private:
	void
	out_of_memory(const char *relname) {
		ereport(ERROR,
		        (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory reading the edges of \"%s\" after %llu rows",
		                                                relname, (unsigned long long)counts_->rows)));
	}

	grail::KeyKind kind_;
	uint64_t memory_limit_;
	const std::function<bool()> &rows_on_device_;
	EdgeScan *counts_;
	EdgeList *edges_;
	grail::service::RowsFile *rows_file_; // integer keys: the rows go here instead, where given
	grail::KeyDictionaryBuilder *keys_;
	KeyBatch *batch_;
	uint64_t max_rows_;
	bool on_device_ = false; // the limit counts the rows as the device's build holds them
};

/*
 * Append the edges of one relation to edges, their endpoints' keys to keys when the graph has
 * text or uuid keys (PostgreSQL calls: run inside guard()).
 */
static void
scan_relation(Relation rel, AttrNumber source, AttrNumber target, grail::KeyKind kind, Snapshot snapshot,
              uint64_t memory_limit, const std::function<bool()> &rows_on_device, EdgeScan *counts, EdgeList *edges,
              grail::service::RowsFile *rows_file, grail::KeyDictionaryBuilder *keys, const char *filter,
              Oid filter_owner) {
	// The family can have changed since a build checked it (a foreign table created or attached as
	// a partition): only a table with a table access method keeps its rows here to scan.
	if ((rel->rd_rel->relkind != RELKIND_RELATION && rel->rd_rel->relkind != RELKIND_MATVIEW) ||
	    rel->rd_tableam == nullptr)
		ereport(ERROR,
		        (errcode(ERRCODE_WRONG_OBJECT_TYPE),
		         errmsg("pg_grail cannot read the edges of \"%s\", a table of the edge table's inheritance "
		                "family: it is %s",
		                RelationGetRelationName(rel),
		                rel->rd_rel->relkind == RELKIND_FOREIGN_TABLE ? "a foreign table, whose rows are elsewhere"
		                                                              : "not a table that stores rows"),
		         errhint("Detach it from the family, or copy its edges into a local table.")));
	// A materialized view created WITH NO DATA has no rows to read, rather than none.
	if (!RelationIsScannable(rel))
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
		                errmsg("materialized view \"%s\" has not been populated", RelationGetRelationName(rel)),
		                errhint("Use the REFRESH MATERIALIZED VIEW command.")));
	// This relation's columns as its own tuple descriptor has them (a child's may differ from what
	// the catalog said of the edge table): no datum is read as a kind of key the build is not of.
	EdgeColumns columns;
	if (!columns.open(RelationGetDescr(rel), source, target) || columns.kind() != kind)
		ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
		                errmsg("the edge columns of table \"%s\" do not hold %s keys, as the graph's edge table "
		                       "does",
		                       RelationGetRelationName(rel), key_kind_name(kind)),
		                errhint("Give the table's edge columns the types of the edge table's, or drop the graph.")));
	// The graph's filter, parsed against this relation's own columns: a row it does not pass is no
	// edge, and is not counted (nor are its NULL endpoints).
	EdgeFilter rows;
	FilterSettings filter_settings;
	if (filter != nullptr)
		rows.open(rel, filter, nullptr, filter_owner);
	const char *relname = RelationGetRelationName(rel);
	EdgeSink sink(kind, memory_limit, rows_on_device, counts, edges, rows_file, keys);
	// The rows to expect, as the planner estimates them (its density when last counted times its
	// pages now, or from its rows' width where never counted), and a little more.
	BlockNumber pages;
	double tuples, all_visible;
	estimate_rel_size(rel, nullptr, &pages, &tuples, &all_visible);
	if (tuples > 0)
		sink.expect(uint64_t(tuples * 1.01) + 1024);
	TableScanDesc scan = table_beginscan(rel, snapshot, 0, NULL);
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	AttrNumber last = columns.last();
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
		sink.count(relname);
		if (rows.active() && !rows.passes(slot, filter_settings)) {
			counts->filtered++;
			continue;
		}
		slot_getsomeattrs(slot, last);
		sink.take(relname, columns, slot->tts_values[source - 1], slot->tts_isnull[source - 1],
		          slot->tts_values[target - 1], slot->tts_isnull[target - 1]);
	}
	sink.finish(relname);
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	rows.close();
}

// Rows a view's query hands over at a time.
constexpr long kViewFetchRows = 8192;

/*
 * The edges of a view, read as the current role reads it: SELECT source, target FROM view, planned
 * and run by the executor through SPI in the snapshot, so that the view's own rules apply (its
 * owner's or, security_invoker, the caller's privileges on the tables under it; their row-level
 * security; security_barrier), and the caller needs SELECT on the view as any query does. The view
 * is locked first (ACCESS SHARE, as the query locks it), so that its name, which the query names it
 * by, cannot change between the check of its columns and the read. PostgreSQL calls: run inside
 * guard().
 */
static void
read_view(Oid relid, AttrNumber source, AttrNumber target, grail::KeyKind kind, Snapshot snapshot,
          uint64_t memory_limit, EdgeScan *counts, EdgeList *edges, grail::service::RowsFile *rows_file,
          grail::KeyDictionaryBuilder *keys) {
	const char *relname = get_rel_name(relid);
	StringInfoData query;
	initStringInfo(&query);
	appendStringInfo(&query, "SELECT %s, %s FROM %s", quote_identifier(get_attname(relid, source, false)),
	                 quote_identifier(get_attname(relid, target, false)),
	                 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), relname));
	progress_phase(BuildPhase::reading_rows, -1);
	progress_done(0);
	PushActiveSnapshot(snapshot);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	SPIPlanPtr plan = SPI_prepare(query.data, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", query.data, SPI_result_code_string(SPI_result));
	// Read-only: the query runs in the active snapshot (the one given), without a new command.
	Portal portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	std::function<bool()> no_device;
	EdgeSink sink(kind, memory_limit, no_device, counts, edges, rows_file, keys);
	EdgeColumns columns;
	bool opened = false;
	for (;;) {
		SPI_cursor_fetch(portal, true, kViewFetchRows);
		if (SPI_processed == 0)
			break;
		SPITupleTable *table = SPI_tuptable;
		// The query's columns, as the view gives them now, hold keys of the graph's kind.
		if (!opened && (!columns.open(table->tupdesc, 1, 2) || columns.kind() != kind))
			ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
			                errmsg("the edge columns of view \"%s\" do not hold %s keys, as when the graph was "
			                       "created",
			                       relname, key_kind_name(kind)),
			                errhint("Drop the graph and create it again over the view as it is now.")));
		opened = true;
		for (uint64 i = 0; i < SPI_processed; i++) {
			sink.count(relname);
			bool source_null, target_null;
			Datum source_key = heap_getattr(table->vals[i], 1, table->tupdesc, &source_null);
			Datum target_key = heap_getattr(table->vals[i], 2, table->tupdesc, &target_null);
			sink.take(relname, columns, source_key, source_null, target_key, target_null);
		}
		SPI_freetuptable(table);
	}
	sink.finish(relname);
	SPI_cursor_close(portal);
	SPI_finish();
	PopActiveSnapshot();
	pfree(query.data);
}

bool
view_source(Oid relid) {
	return guard([&] { return get_rel_relkind(relid) == RELKIND_VIEW; });
}

bool
statement_source(Oid relid) {
	return catalog_source(relid) || view_source(relid);
}

EdgeScan
read_edges(Oid relid, AttrNumber source, AttrNumber target, grail::KeyKind kind, uint64_t memory_limit, EdgeList *edges,
           grail::service::RowsFile *rows_file, grail::KeyDictionaryBuilder *keys, Snapshot in_snapshot,
           const std::function<bool()> &rows_on_device, const char *filter, Oid filter_owner) {
	EdgeScan counts;
	// A view: its query, run as the current role in the snapshot (the statement's without one).
	if (view_source(relid)) {
		guard([&] { LockRelationOid(relid, AccessShareLock); });
		check_edge_columns(relid, source, target);
		guard([&] {
			read_view(relid, source, target, kind, in_snapshot ? in_snapshot : GetActiveSnapshot(), memory_limit,
			          &counts, edges, rows_file, keys);
		});
		return counts;
	}
	// The table and its inheritance descendants (partitions), as SELECT reads them; all locked first.
	List *tables = guard([&] { return find_all_inheritors(relid, in_snapshot ? AccessShareLock : ShareLock, NULL); });
	// The columns as they are under the locks, which keep them so: a change of type or a rename
	// committed after the caller looked them up comes before the read, not during it.
	check_edge_columns(relid, source, target);
	guard([&] {
		const char *source_name = get_attname(relid, source, false);
		const char *target_name = get_attname(relid, target, false);
		// Without a snapshot given, the latest, not the statement's: with the SHARE locks held it sees
		// every committed write, including one that committed while this statement waited for a lock.
		Snapshot snapshot = RegisterSnapshot(in_snapshot ? in_snapshot : GetLatestSnapshot());
		ListCell *cell;
		// grail.activity's total: the planner's row estimate of the tables, when each has one.
		double estimate = 0;
		foreach (cell, tables) {
			if (get_rel_relkind(lfirst_oid(cell)) == RELKIND_PARTITIONED_TABLE)
				continue;
			Relation rel = table_open(lfirst_oid(cell), NoLock);
			estimate = rel->rd_rel->reltuples < 0 || estimate < 0 ? -1 : estimate + rel->rd_rel->reltuples;
			table_close(rel, NoLock);
		}
		progress_phase(BuildPhase::reading_rows, int64_t(estimate));
		progress_done(0);
		// Integer keys: the rows' room at once from the planner's estimate, rather than grown a
		// quarter at a time (every growth copies the rows read so far). Untouched room is address
		// space, not memory, and it never passes what the limit allows at 16 bytes a row.
		if (kind == grail::KeyKind::integer && estimate > 0) {
			uint64_t room = uint64_t(estimate * 1.01) + 1024;
			if (memory_limit != 0 && room > memory_limit / 16)
				room = memory_limit / 16;
			try {
				if (rows_file != nullptr)
					(void)rows_file->reserve(room); // refused: the rows grow as they come
				else
					edges->reserve(room);
			} catch (...) {
				// no room at once: the rows grow as they come
			}
		}
		foreach (cell, tables) {
			if (get_rel_relkind(lfirst_oid(cell)) == RELKIND_PARTITIONED_TABLE)
				continue; // its rows are in its partitions
			Relation rel = table_open(lfirst_oid(cell), NoLock);
			// A child numbers its columns its own way; inheritance keeps their names and types.
			AttrNumber child_source = get_attnum(RelationGetRelid(rel), source_name);
			AttrNumber child_target = get_attnum(RelationGetRelid(rel), target_name);
			if (child_source == InvalidAttrNumber || child_target == InvalidAttrNumber)
				elog(ERROR, "inheritance child \"%s\" lacks an edge column", RelationGetRelationName(rel));
			scan_relation(rel, child_source, child_target, kind, snapshot, memory_limit, rows_on_device, &counts, edges,
			              rows_file, keys, filter, filter_owner);
			table_close(rel, NoLock);
		}
		UnregisterSnapshot(snapshot);
	});
	return counts;
}

} // namespace grail::pg
