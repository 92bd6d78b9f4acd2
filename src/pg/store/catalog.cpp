#include "clock.hpp"
#include "error.hpp"
#include "index.hpp"
#include "parallel.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "store/activity.hpp"
#include "store/catalog.hpp"
#include "store/catalog_sql.hpp"
#include "store/pending_changes.hpp"
#include "store/watch.hpp"
#include "boundary/lz4_datum.hpp"
#include "boundary/pg_calls.hpp"
#include "boundary/settings.hpp"

extern "C" {
#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/toast_compression.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/indexing.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "parser/scansup.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/xid8.h"
#include "utils/syscache.h"
}

namespace grail::pg {

// Image bytes in one row of grail.index_chunk: the most that keeps a row (its 24-byte header,
// graph_id, seq and data's 4-byte header: 40 bytes) within one heap page (MaxHeapTupleSize, 8160
// bytes), where the table's toast_tuple_target of 8160 leaves it: no TOAST, whose 2 kB pieces
// would each be another heap tuple, another entry of the TOAST table's index and another WAL
// record. Images written with larger chunks (4 MB, before 0.7.0) are read all the same.
static constexpr size_t kChunkBytes = MaxHeapTupleSize - 40;
// The most image bytes one row takes compressed (a row takes as many as compress into one page).
static constexpr size_t kMaxRawChunk = 8 * kChunkBytes;
// Far above any index a build can make (the build memory limit caps the input long before).
static constexpr uint64_t kMaxIndexBytes = uint64_t(1) << 44;

struct ExtensionRow {
	bool found = false;
	Oid oid = InvalidOid, owner = InvalidOid, schema = InvalidOid;
	std::string version;
};

/*
 * pg_grail's row of pg_extension in this database, if it has one.
 */
static ExtensionRow
extension_row() {
	return guard([] {
		// One scan by name (not get_extension_oid's, then another by oid): every write statement on
		// a live graph's table comes here.
		ExtensionRow row;
		Relation rel = table_open(ExtensionRelationId, AccessShareLock);
		ScanKeyData key;
		ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ, CStringGetDatum("pg_grail"));
		SysScanDesc scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
		HeapTuple tuple = systable_getnext(scan);
		if (HeapTupleIsValid(tuple)) {
			bool null;
			Datum version = heap_getattr(tuple, Anum_pg_extension_extversion, RelationGetDescr(rel), &null);
			auto *extension = reinterpret_cast<Form_pg_extension>(GETSTRUCT(tuple));
			row.found = true;
			row.oid = extension->oid;
			row.owner = extension->extowner;
			row.schema = extension->extnamespace;
			row.version = null ? "?" : TextDatumGetCString(version);
		}
		systable_endscan(scan);
		table_close(rel, AccessShareLock);
		return row;
	});
}

bool
extension_schema(Oid schema) {
	ExtensionRow row = extension_row();
	// The extension's own schema (the control file's, which CREATE EXTENSION makes) is not a
	// member of it, as grail_internal is: pg_extension.extnamespace names it.
	return row.found && (row.schema == schema ||
	                     guard([&] { return getExtensionOfObject(NamespaceRelationId, schema); }) == row.oid);
}

bool
catalog_writer(Oid role) {
	if (guard([&] { return superuser_arg(role); }))
		return true;
	ExtensionRow row = extension_row();
	return row.found && row.owner == role;
}

bool
extension_in_step() {
	ExtensionRow row = extension_row();
	return row.found && row.version == GRAIL_EXTVERSION;
}

/*
 * The role that owns the extension (pg_extension.extowner), whose rights the catalog statements
 * use. Not the owner of the grail schema: the install script refuses a schema another role made.
 * Raises a clear error while the extension's SQL objects are of another version than this
 * library, whose statements would not fit their catalog.
 */
static Oid
extension_owner() {
	ExtensionRow row = extension_row();
	if (!row.found)
		raise(ERRCODE_UNDEFINED_OBJECT, "extension \"pg_grail\" does not exist");
	if (row.version != GRAIL_EXTVERSION)
		raise(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
		      format("pg_grail's SQL objects in this database are version %s, but its installed library is version %s",
		             row.version.c_str(), GRAIL_EXTVERSION),
		      "Run ALTER EXTENSION pg_grail UPDATE; graphs built before keep their indexes.");
	return row.owner;
}

CatalogRights::CatalogRights() : owner_(extension_owner(), SECURITY_LOCAL_USERID_CHANGE, true) {
}

int
execute(const char *sql, int nargs, Oid *types, Datum *values, int expected, bool read_only) {
	return guard([&] {
		int rc = SPI_execute_with_args(sql, nargs, types, values, NULL, read_only, 0);
		if (rc != expected)
			elog(ERROR, "pg_grail catalog statement failed (%s): %s", SPI_result_code_string(rc), sql);
		return int(SPI_processed);
	});
}

static int64_t
get_int64(int column, bool *isnull = nullptr) {
	bool null;
	Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, column, &null);
	if (isnull)
		*isnull = null;
	return null ? 0 : DatumGetInt64(d);
}

/*
 * Split a graph name into its parts (appended to *parts) as SplitIdentifierString() splits a
 * qualified name: double quotes, "" for a quote inside them, unquoted parts in lower case,
 * whitespace around the dots. Unlike it, a part longer than an identifier is truncated with
 * PostgreSQL's NOTICE, as the SQL scanner truncates one, not silently. Overwrites raw; false if
 * the name is malformed. PostgreSQL calls: run inside guard().
 */
static bool
split_graph_name(char *raw, List **parts) {
	char *next = raw;
	while (scanner_isspace(*next))
		next++;
	if (*next == '\0')
		return true; // empty
	for (;;) {
		char *part, *end;
		if (*next == '"') {
			part = next + 1;
			for (;;) {
				end = strchr(next + 1, '"');
				if (end == nullptr)
					return false; // no closing quote
				if (end[1] != '"')
					break;
				memmove(end, end + 1, strlen(end)); // "" is one quote
				next = end;
			}
			if (end == part)
				return false; // an empty quoted part, as SQL refuses a zero-length delimited identifier
			next = end + 1;
		} else {
			part = next;
			while (*next != '\0' && *next != '.' && !scanner_isspace(*next))
				next++;
			end = next;
			if (part == end)
				return false; // an empty unquoted part
			// Downcasing keeps the length (only single-byte characters change).
			char *lower = downcase_identifier(part, int(end - part), false, false);
			memcpy(part, lower, size_t(end - part));
			pfree(lower);
		}
		while (scanner_isspace(*next))
			next++;
		bool last = *next == '\0';
		if (!last) {
			if (*next != '.')
				return false;
			next++;
			while (scanner_isspace(*next))
				next++;
		}
		*end = '\0';
		truncate_identifier(part, int(strlen(part)), true);
		*parts = lappend(*parts, part);
		if (last)
			return true;
	}
}

GraphName
parse_graph_name(const char *text) {
	struct Parts {
		bool valid;
		int count;
		const char *schema; // nullptr when unqualified
		const char *name;
	};
	Parts parts = guard([&] {
		char *raw = pstrdup(text);
		List *list = NIL;
		bool valid = split_graph_name(raw, &list) && list_length(list) <= 2;
		if (!valid || list_length(list) == 0)
			return Parts{valid, list_length(list), nullptr, nullptr};
		return Parts{valid, list_length(list),
		             list_length(list) == 2 ? static_cast<const char *>(linitial(list)) : nullptr,
		             static_cast<const char *>(llast(list))};
	});
	if (!parts.valid)
		raise(ERRCODE_INVALID_NAME, format("invalid pg_grail graph name \"%s\"", text),
		      "A graph is named like a table: name or schema.name, unquoted parts in lower case, other names in "
		      "double quotes, as in '\"My Graph\"'.");
	if (parts.count == 0)
		raise(ERRCODE_INVALID_PARAMETER_VALUE, "a pg_grail graph name cannot be empty");
	const char *quoted_name = quoted_identifier(parts.name);
	const char *quoted_schema = parts.schema ? quoted_identifier(parts.schema) : nullptr;

	GraphName parsed;
	parsed.name = parts.name;
	parsed.display = parsed.name;
	parsed.quoted = quoted_name;
	if (parts.schema != nullptr) {
		parsed.schema = parts.schema;
		parsed.display = parsed.schema + "." + parsed.display;
		parsed.quoted = std::string(quoted_schema) + "." + parsed.quoted;
	}
	return parsed;
}

/*
 * The schemas to look for an unqualified graph name in: the caller's search_path, as PostgreSQL
 * searches it for a table (only the schemas the caller has USAGE on), temporary schemas left out
 * (graphs are never created there).
 */
static std::vector<Oid>
search_path_schemas() {
	List *path = guard([] { return fetch_search_path(false); });
	std::vector<Oid> schemas;
	ListCell *cell;
	foreach (cell, path) {
		Oid schema = lfirst_oid(cell);
		if (!guard([&] { return isAnyTempNamespace(schema); }))
			schemas.push_back(schema);
	}
	guard([&] { list_free(path); });
	return schemas;
}

/*
 * The schemas a graph name can mean: its schema if qualified (which must exist and allow the
 * caller USAGE, as for a table), the search path otherwise.
 */
static std::vector<Oid>
candidate_schemas(const GraphName &name) {
	if (name.schema.empty())
		return search_path_schemas();
	Oid schema = guard([&] {
		Oid oid = get_namespace_oid(name.schema.c_str(), true);
		if (OidIsValid(oid)) {
			AclResult acl = pg_namespace_aclcheck(oid, GetUserId(), ACL_USAGE);
			if (acl != ACLCHECK_OK)
				aclcheck_error(acl, OBJECT_SCHEMA, name.schema.c_str());
		}
		return oid;
	});
	if (!OidIsValid(schema))
		return {};
	return {schema};
}

bool
find_graph(const GraphName &name, GraphRow *row, bool for_change, bool skip_locked) {
	std::vector<Oid> schemas = candidate_schemas(name);
	return find_graph_in(schemas.data(), int(schemas.size()), name.name.c_str(), row, for_change, skip_locked);
}

/*
 * A grail.graph row decoded by column name, so that the scan of find_graph_in and the locking
 * SELECT share it. Plain PostgreSQL calls: runs inside guard(). watched_tables is copied into the
 * current memory context, since the tuple goes with its scan.
 */
struct DecodedGraphRow {
	GraphRow row;
	Datum watched_tables;
};

AttrNumber
graph_column(TupleDesc desc, const char *name) {
	for (int i = 0; i < desc->natts; i++)
		if (!TupleDescAttr(desc, i)->attisdropped && strcmp(NameStr(TupleDescAttr(desc, i)->attname), name) == 0)
			return AttrNumber(i + 1);
	elog(ERROR, "pg_grail catalog table grail.graph has no column \"%s\"", name);
}

// alloc: where watched_tables is copied to (SPI_palloc when the tuple is SPI's).
static void
decode_graph_row(HeapTuple tuple, TupleDesc desc, void *(*alloc)(Size), DecodedGraphRow *out) {
	auto column = [&](const char *name, bool *null) {
		return heap_getattr(tuple, graph_column(desc, name), desc, null);
	};
	bool null;
	GraphRow &row = out->row;
	row.id = DatumGetInt64(column("id", &null));
	row.relid = DatumGetObjectId(column("relid", &null));
	// By name: 0 when the column is gone (get_attnum skips dropped columns).
	row.source_attnum = get_attnum(row.relid, NameStr(*DatumGetName(column("source_column", &null))));
	row.target_attnum = get_attnum(row.relid, NameStr(*DatumGetName(column("target_column", &null))));
	row.owner = DatumGetObjectId(column("owner", &null));
	row.labels = DatumGetInt32(column("labels", &null));
	row.skip_nulls = DatumGetBool(column("skip_nulls", &null));
	Datum build = column("build", &null);
	row.build = null ? 0 : DatumGetInt64(build);
	Datum built_at = column("built_at", &null);
	row.built_at = null ? 0 : DatumGetTimestampTz(built_at);
	row.stale = DatumGetBool(column("stale", &null));
	row.live = DatumGetBool(column("live", &null));
	Datum bytes = column("index_bytes", &null);
	row.index_bytes = null ? 0 : DatumGetInt64(bytes);
	row.schema = DatumGetObjectId(column("namespace", &null));
	Datum uuid = column("build_uuid", &null);
	row.build_uuid = null ? "" : DatumGetCString(DirectFunctionCall1(uuid_out, uuid));
	Datum built_in = column("built_in", &null);
	row.built_in = null ? "" : TextDatumGetCString(built_in);
	Datum base_build = column("base_build", &null);
	row.base_build = null ? 0 : DatumGetInt64(base_build);
	Datum base_uuid = column("base_build_uuid", &null);
	row.base_build_uuid = null ? "" : DatumGetCString(DirectFunctionCall1(uuid_out, base_uuid));
	Datum base_bytes = column("base_index_bytes", &null);
	row.base_index_bytes = null ? 0 : DatumGetInt64(base_bytes);
	Datum delta_changes = column("delta_changes", &null);
	row.delta_changes = null ? 0 : DatumGetInt64(delta_changes);
	Datum delta_bytes = column("delta_bytes", &null);
	row.delta_bytes = null ? 0 : DatumGetInt64(delta_bytes);
	Datum build_xmax = column("build_xmax", &null);
	row.build_xmax = null ? 0 : U64FromFullTransactionId(DatumGetFullTransactionId(build_xmax));
	row.build_running.clear();
	Datum build_running = column("build_running", &null);
	if (row.build_xmax != 0 && !null) {
		ArrayType *array = DatumGetArrayTypeP(build_running);
		Datum *xids;
		bool *xid_nulls;
		int count;
		deconstruct_array(array, XID8OID, sizeof(FullTransactionId), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &xids,
		                  &xid_nulls, &count);
		for (int i = 0; i < count; i++)
			if (!xid_nulls[i])
				row.build_running.push_back(U64FromFullTransactionId(DatumGetFullTransactionId(xids[i])));
		std::sort(row.build_running.begin(), row.build_running.end());
	} else {
		row.build_xmax = 0; // a snapshot's in-progress list missing: none recorded
	}
	Datum filter = column("filter", &null);
	row.filter = null ? "" : TextDatumGetCString(filter);
	struct varlena *watched = PG_DETOAST_DATUM(column("watched_tables", &null));
	void *copy = alloc(VARSIZE(watched));
	memcpy(copy, watched, VARSIZE(watched));
	out->watched_tables = PointerGetDatum(copy);
}

static Oid
index_access_method(Oid index) {
	HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(index));
	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	Oid am = ((Form_pg_class)GETSTRUCT(tuple))->relam;
	ReleaseSysCache(tuple);
	return am;
}

Oid
index_on(Relation rel, std::initializer_list<AttrNumber> columns, const char *what) {
	List *indexes = RelationGetIndexList(rel);
	ListCell *cell;
	foreach (cell, indexes) {
		Oid index = lfirst_oid(cell);
		HeapTuple tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index));
		if (!HeapTupleIsValid(tuple))
			continue;
		Form_pg_index form = (Form_pg_index)GETSTRUCT(tuple);
		// A scan of the index must find every row of the key: a plain ascending btree of the
		// columns with their default operator classes, no WHERE clause (a partial index made by
		// hand would hide rows: changes missed, answers wrong) and no expressions.
		bool fits = form->indnkeyatts == int(columns.size()) && form->indisvalid && form->indisready &&
		            std::equal(columns.begin(), columns.end(), form->indkey.values) &&
		            heap_attisnull(tuple, Anum_pg_index_indpred, NULL) &&
		            heap_attisnull(tuple, Anum_pg_index_indexprs, NULL) && index_access_method(index) == BTREE_AM_OID;
		if (fits) {
			bool isnull;
			Datum classes = SysCacheGetAttr(INDEXRELID, tuple, Anum_pg_index_indclass, &isnull);
			Datum options = SysCacheGetAttr(INDEXRELID, tuple, Anum_pg_index_indoption, &isnull);
			auto *opclass = reinterpret_cast<oidvector *>(DatumGetPointer(classes));
			auto *option = reinterpret_cast<int2vector *>(DatumGetPointer(options));
			int k = 0;
			for (AttrNumber column : columns) {
				Oid type = TupleDescAttr(RelationGetDescr(rel), column - 1)->atttypid;
				if (opclass->values[k] != GetDefaultOpClass(type, BTREE_AM_OID) || option->values[k] != 0)
					fits = false;
				k++;
			}
		}
		ReleaseSysCache(tuple);
		if (fits)
			return index;
	}
	ereport(ERROR,
	        (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
	         errmsg("pg_grail catalog table grail.%s has no usable index on %s", RelationGetRelationName(rel), what),
	         errdetail("pg_grail reads the table through a valid btree index of exactly these columns, ascending, "
	                   "with their default operator classes, without a WHERE clause."),
	         errhint("Create it again as the extension made it: CREATE INDEX ON grail.%s %s;",
	                 RelationGetRelationName(rel), what)));
}

/*
 * What of the graph's row must be as of now, taken from the row as the catalog snapshot sees it
 * (the snapshot the catalog lookups use; a parallel worker may take it, unlike the latest
 * snapshot): the edge columns' numbers, since the columns are found by name in the catalog as it
 * is now (a rename that committed after a REPEATABLE READ transaction's snapshot updated the row,
 * renaming s to s_old, then u to s, say, and the snapshot's row would name the other column), and
 * the tables watched, which are checked against the family as it is now (a partition created after
 * the snapshot is in the family and in the latest row only). A family change after the snapshot
 * that moved rows (the graph stale since) or was followed by a rebuild leaves the snapshot's build
 * over another set of tables than the one its queries read: a serialization failure. Plain
 * PostgreSQL calls: runs inside guard().
 */
static void
take_state_as_now(Relation rel, TupleDesc desc, const char *name, DecodedGraphRow *found) {
	AttrNumber id_att = graph_column(desc, "id");
	ScanKeyData key;
	ScanKeyInit(&key, id_att, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(found->row.id));
	SysScanDesc scan = systable_beginscan(rel, index_on(rel, {id_att}, "(id)"), true, NULL, 1, &key);
	if (HeapTuple tuple = systable_getnext(scan); HeapTupleIsValid(tuple)) {
		DecodedGraphRow now;
		decode_graph_row(tuple, desc, palloc, &now);
		found->row.source_attnum = now.row.source_attnum;
		found->row.target_attnum = now.row.target_attnum;
		const varlena *then_watched = (const varlena *)DatumGetPointer(found->watched_tables);
		const varlena *now_watched = (const varlena *)DatumGetPointer(now.watched_tables);
		bool family_changed = VARSIZE(then_watched) != VARSIZE(now_watched) ||
		                      memcmp(then_watched, now_watched, VARSIZE(now_watched)) != 0;
		if (family_changed && !found->row.stale && (now.row.stale || now.row.build != found->row.build))
			ereport(ERROR,
			        (errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
			         errmsg("the tables of the edge table's inheritance family of pg_grail graph \"%s\" changed after "
			                "this transaction's snapshot was taken",
			                name),
			         errhint("Retry the transaction.")));
		found->watched_tables = now.watched_tables;
	}
	systable_endscan(scan);
}

bool
find_graph_in(const Oid *schemas, int count, const char *name, GraphRow *row, bool for_change, bool skip_locked) {
	if (count == 0)
		return false;
	DecodedGraphRow found;
	bool exists;
	if (for_change) {
		// A row lock, in a new snapshot (what a change must see): SQL.
		exists = with_spi([&] {
			Oid types[] = {TEXTOID, OIDARRAYOID};
			Datum values[] = {text_datum(name), oid_array(schemas, count)};
			// The first schema of the list that has a graph of that name wins, as for tables.
			const char *sql = skip_locked
			                      ? "SELECT g.* FROM grail.graph g WHERE g.name OPERATOR(pg_catalog.=) $1 "
			                        "AND g.namespace::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ($2) "
			                        "ORDER BY pg_catalog.array_position($2, g.namespace::pg_catalog.oid) LIMIT 1 "
			                        "FOR UPDATE OF g SKIP LOCKED"
			                      : "SELECT g.* FROM grail.graph g WHERE g.name OPERATOR(pg_catalog.=) $1 "
			                        "AND g.namespace::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ($2) "
			                        "ORDER BY pg_catalog.array_position($2, g.namespace::pg_catalog.oid) LIMIT 1 "
			                        "FOR UPDATE OF g";
			if (execute(sql, 2, types, values, SPI_OK_SELECT) == 0)
				return false;
			guard([&] { decode_graph_row(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, SPI_palloc, &found); });
			return true;
		});
	} else {
		// What every query does first: an index scan in the statement's snapshot, no SQL to parse
		// and plan (a new backend's first query would spend most of its time there).
		(void)extension_owner(); // refuses a catalog of another version
		exists = guard([&] {
			Oid relid = get_relname_relid("graph", get_namespace_oid("grail", false));
			Relation rel = table_open(relid, AccessShareLock);
			TupleDesc desc = RelationGetDescr(rel);
			AttrNumber namespace_att = graph_column(desc, "namespace"), name_att = graph_column(desc, "name");
			Oid index = index_on(rel, {namespace_att, name_att}, "(namespace, name)");
			Snapshot snapshot = ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot();
			Datum key_name = CStringGetTextDatum(name);
			bool any = false;
			for (int i = 0; i < count && !any; i++) {
				ScanKeyData keys[2];
				ScanKeyInit(&keys[0], namespace_att, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(schemas[i]));
				ScanKeyEntryInitialize(&keys[1], 0, name_att, BTEqualStrategyNumber, InvalidOid,
				                       TupleDescAttr(desc, name_att - 1)->attcollation, F_TEXTEQ, key_name);
				SysScanDesc scan = systable_beginscan(rel, index, true, snapshot, 2, keys);
				if (HeapTuple tuple = systable_getnext(scan); HeapTupleIsValid(tuple)) {
					decode_graph_row(tuple, desc, palloc, &found);
					any = true;
				}
				systable_endscan(scan);
			}
			if (any)
				take_state_as_now(rel, desc, name, &found);
			table_close(rel, AccessShareLock);
			return any;
		});
	}
	if (!exists)
		return false;
	*row = found.row;
	// The row is read in the snapshot, the table in the catalog as it is now: a DROP TABLE (which
	// drops the graph too) that committed after the snapshot leaves a row whose table is gone, and
	// every catalog lookup of it would fail with an internal error.
	if (!relation_exists(row->relid))
		raise(ERRCODE_T_R_SERIALIZATION_FAILURE,
		      format("the edge table of pg_grail graph \"%s\" was dropped after this transaction's snapshot was taken",
		             name),
		      "Retry the transaction.");
	row->watched = graph_watched(row->id, row->relid, found.watched_tables);
	return true;
}

/*
 * The name of column attnum of relid, as a name datum (NAMEDATALEN bytes, zero-padded).
 */
static Datum
column_name(Oid relid, AttrNumber attnum) {
	return guard([&] {
		NameData *name = static_cast<NameData *>(palloc0(NAMEDATALEN));
		namestrcpy(name, get_attname(relid, attnum, false));
		return NameGetDatum(name);
	});
}

/*
 * A text[] datum of the strings.
 */
static Datum
text_array(const std::vector<std::string> &strings) {
	std::vector<Datum> elements;
	for (const std::string &s : strings)
		elements.push_back(text_datum(s));
	return guard([&] {
		return PointerGetDatum(
		    construct_array(elements.data(), int(elements.size()), TEXTOID, -1, false, TYPALIGN_INT));
	});
}

int64_t
insert_graph(const char *name, const GraphRow &row) {
	return with_spi([&] {
		Oid types[] = {TEXTOID, OIDOID, NAMEOID, NAMEOID, OIDOID, INT4OID, BOOLOID, OIDOID, BOOLOID};
		Datum values[] = {text_datum(name),
		                  ObjectIdGetDatum(row.relid),
		                  column_name(row.relid, row.source_attnum),
		                  column_name(row.relid, row.target_attnum),
		                  ObjectIdGetDatum(row.owner),
		                  Int32GetDatum(row.labels),
		                  BoolGetDatum(row.skip_nulls),
		                  ObjectIdGetDatum(row.schema),
		                  BoolGetDatum(row.live)};
		execute("INSERT INTO grail.graph (name, relid, source_column, target_column, owner, labels, skip_nulls, "
		        "namespace, live) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
		        9, types, values, SPI_OK_INSERT_RETURNING);
		int64_t id = get_int64(1);
		if (!row.filter.empty()) {
			Oid filter_types[] = {INT8OID, TEXTOID, TEXTARRAYOID};
			Datum filter_values[] = {Int64GetDatum(id), text_datum(row.filter), text_array(row.filter_columns)};
			execute("UPDATE grail.graph SET filter = $2, filter_columns = $3::pg_catalog.name[] "
			        "WHERE id OPERATOR(pg_catalog.=) $1",
			        3, filter_types, filter_values, SPI_OK_UPDATE);
		}
		return id;
	});
}

void
delete_graph(int64_t id) {
	with_spi([&] {
		Oid types[] = {INT8OID};
		Datum values[] = {Int64GetDatum(id)};
		execute("SELECT grail_internal._drop_triggers(g.id, g.watched_tables) FROM grail.graph g "
		        "WHERE g.id OPERATOR(pg_catalog.=) $1",
		        1, types, values, SPI_OK_SELECT);
		execute("DELETE FROM grail.graph WHERE id OPERATOR(pg_catalog.=) $1", 1, types, values, SPI_OK_DELETE);
	});
	delete_pending_changes(id, nullptr);
}

// Plan kept for the backend's life (SPI_keepplan).
static SPIPlanPtr stale_plan;

// The graph's row is updated (not only read): concurrent writers wait for each other's row lock,
// so the UPDATE is SQL. Run by every write to a table of a graph that is not live: its plan is kept.
void
mark_graph_stale(int64_t graph_id) {
	CatalogRights rights;
	guard([&] {
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		if (stale_plan == nullptr) {
			Oid types[] = {INT8OID};
			const char *sql = "UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) $1 AND NOT stale";
			SPIPlanPtr plan = SPI_prepare(sql, 1, types);
			if (plan == nullptr)
				elog(ERROR, "SPI_prepare failed (%s): %s", SPI_result_code_string(SPI_result), sql);
			SPI_keepplan(plan);
			stale_plan = plan;
		}
		Datum values[] = {Int64GetDatum(graph_id)};
		if (SPI_execute_plan(stale_plan, values, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "pg_grail could not mark graph %lld stale", (long long)graph_id);
		SPI_finish();
	});
}

bool
graph_identity(int64_t id, GraphIdentity *graph) {
	return with_spi([&] {
		Oid types[] = {INT8OID};
		Datum values[] = {Int64GetDatum(id)};
		if (execute("SELECT g.namespace::pg_catalog.oid, g.name, g.owner::pg_catalog.oid, g.live, g.stale "
		            "FROM grail.graph g WHERE g.id OPERATOR(pg_catalog.=) $1",
		            1, types, values, SPI_OK_SELECT, true) == 0)
			return false;
		guard([&] {
			HeapTuple tuple = SPI_tuptable->vals[0];
			TupleDesc desc = SPI_tuptable->tupdesc;
			bool null;
			graph->schema = DatumGetObjectId(SPI_getbinval(tuple, desc, 1, &null));
			graph->name = TextDatumGetCString(SPI_getbinval(tuple, desc, 2, &null));
			graph->owner = DatumGetObjectId(SPI_getbinval(tuple, desc, 3, &null));
			graph->live = DatumGetBool(SPI_getbinval(tuple, desc, 4, &null));
			graph->stale = DatumGetBool(SPI_getbinval(tuple, desc, 5, &null));
		});
		return true;
	});
}

void
lock_graph_name(Oid schema, const char *name) {
	with_spi([&] {
		std::string key = std::to_string(schema) + "." + name;
		Oid types[] = {TEXTOID};
		Datum values[] = {text_datum(key)};
		execute("SELECT pg_catalog.pg_advisory_xact_lock(1735551340, pg_catalog.hashtext($1))", 1, types, values,
		        SPI_OK_SELECT);
	});
}

/*
 * The n rows (id, qualified name) of the last SPI query as OwnedGraphs.
 */
static std::vector<OwnedGraph>
owned_graph_rows(int n) {
	std::vector<OwnedGraph> graphs(static_cast<size_t>(n));
	for (int i = 0; i < n; i++) {
		HeapTuple tuple = SPI_tuptable->vals[i];
		graphs[i].id = DatumGetInt64(guard([&] {
			bool null;
			return SPI_getbinval(tuple, SPI_tuptable->tupdesc, 1, &null);
		}));
		graphs[i].name = guard([&] { return SPI_getvalue(tuple, SPI_tuptable->tupdesc, 2); });
	}
	return graphs;
}

std::vector<OwnedGraph>
graphs_owned_by(const std::vector<Oid> &roles) {
	return with_spi([&] {
		Oid types[] = {OIDARRAYOID};
		Datum values[] = {oid_array(roles.data(), int(roles.size()))};
		int n =
		    execute("SELECT g.id, (g.namespace::pg_catalog.text OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) "
		            "pg_catalog.quote_ident(g.name)) FROM grail.graph g "
		            "WHERE g.owner::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ($1) ORDER BY g.id FOR UPDATE OF g",
		            1, types, values, SPI_OK_SELECT);
		return owned_graph_rows(n);
	});
}

void
reassign_graphs(const std::vector<Oid> &roles, Oid new_owner) {
	with_spi([&] {
		Oid types[] = {OIDARRAYOID, OIDOID};
		Datum values[] = {oid_array(roles.data(), int(roles.size())), ObjectIdGetDatum(new_owner)};
		execute("UPDATE grail.graph g SET owner = $2::pg_catalog.regrole "
		        "WHERE g.owner::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ($1)",
		        2, types, values, SPI_OK_UPDATE);
	});
}

std::vector<std::string>
extension_objects_owned_by(const std::vector<Oid> &roles) {
	return with_spi([&] {
		Oid types[] = {OIDARRAYOID};
		Datum values[] = {oid_array(roles.data(), int(roles.size()))};
		int n = execute("WITH ours AS ("
		                " SELECT o.classid, o.objid FROM grail_internal._objects() o"
		                " UNION ALL"
		                " SELECT 'pg_catalog.pg_extension'::pg_catalog.regclass::pg_catalog.oid, e.oid FROM "
		                "pg_catalog.pg_extension e"
		                " WHERE e.extname OPERATOR(pg_catalog.=) 'pg_grail'),"
		                "owned AS ("
		                " SELECT o.classid, o.objid,"
		                "  COALESCE(p.proowner, c.relowner, n.nspowner, t.typowner, v.evtowner, x.extowner) AS owner"
		                " FROM ours o"
		                " LEFT JOIN pg_catalog.pg_proc p ON o.classid OPERATOR(pg_catalog.=) "
		                "'pg_catalog.pg_proc'::pg_catalog.regclass"
		                "  AND p.oid OPERATOR(pg_catalog.=) o.objid"
		                " LEFT JOIN pg_catalog.pg_class c ON o.classid OPERATOR(pg_catalog.=) "
		                "'pg_catalog.pg_class'::pg_catalog.regclass"
		                "  AND c.oid OPERATOR(pg_catalog.=) o.objid"
		                " LEFT JOIN pg_catalog.pg_namespace n"
		                "  ON o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass"
		                "  AND n.oid OPERATOR(pg_catalog.=) o.objid"
		                " LEFT JOIN pg_catalog.pg_type t ON o.classid OPERATOR(pg_catalog.=) "
		                "'pg_catalog.pg_type'::pg_catalog.regclass"
		                "  AND t.oid OPERATOR(pg_catalog.=) o.objid"
		                " LEFT JOIN pg_catalog.pg_event_trigger v"
		                "  ON o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_event_trigger'::pg_catalog.regclass"
		                "  AND v.oid OPERATOR(pg_catalog.=) o.objid"
		                " LEFT JOIN pg_catalog.pg_extension x"
		                "  ON o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass"
		                "  AND x.oid OPERATOR(pg_catalog.=) o.objid)"
		                "SELECT i.type OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) i.identity FROM owned w"
		                " CROSS JOIN LATERAL pg_catalog.pg_identify_object(w.classid, w.objid, 0) i"
		                " WHERE w.owner OPERATOR(pg_catalog.=) ANY ($1)"
		                " ORDER BY i.type OPERATOR(pg_catalog.<>) 'function', i.type, i.identity",
		                1, types, values, SPI_OK_SELECT);
		std::vector<std::string> objects(static_cast<size_t>(n));
		for (int i = 0; i < n; i++)
			objects[i] = guard([&] { return SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1); });
		return objects;
	});
}

void
hand_over_relation_graphs(Oid relid, Oid old_owner, Oid new_owner) {
	with_spi([&] {
		Oid types[] = {OIDOID, OIDOID, OIDOID};
		Datum values[] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(old_owner), ObjectIdGetDatum(new_owner)};
		execute("UPDATE grail.graph g SET owner = $3::pg_catalog.regrole "
		        "WHERE g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
		        "AND g.owner::pg_catalog.oid OPERATOR(pg_catalog.=) $2",
		        3, types, values, SPI_OK_UPDATE);
	});
}

std::vector<OwnedGraph>
graphs_new_owner_cannot_create(Oid relid, Oid old_owner, Oid new_owner) {
	return with_spi([&] {
		Oid types[] = {OIDOID, OIDOID, OIDOID};
		Datum values[] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(old_owner), ObjectIdGetDatum(new_owner)};
		int n =
		    execute("SELECT g.id, (g.namespace::pg_catalog.text OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) "
		            "pg_catalog.quote_ident(g.name)) FROM grail.graph g "
		            "WHERE g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
		            "AND g.owner::pg_catalog.oid OPERATOR(pg_catalog.=) $2 "
		            "AND NOT pg_catalog.has_schema_privilege($3, g.namespace::pg_catalog.oid, 'CREATE') "
		            "ORDER BY g.id",
		            3, types, values, SPI_OK_SELECT);
		return owned_graph_rows(n);
	});
}

void
watch_graph(int64_t id) {
	with_spi([&] {
		Oid types[] = {INT8OID};
		Datum values[] = {Int64GetDatum(id)};
		execute("SELECT grail_internal._watch($1)", 1, types, values, SPI_OK_SELECT);
	});
}

// The image's rows of grail.index_chunk for one stretch of its bytes (chunk_stretch): each row's
// data, a varlena (lz4-compressed or plain), at an 8-byte boundary of datums.
struct ChunkRows {
	std::vector<uint8_t> datums; // sized once for the longest stretch, reused
	std::vector<size_t> starts;  // each row's datum in datums
	std::vector<uint8_t> raw;    // the stretch's image bytes, where they lie in more than one piece
};

// Image bytes in a stretch, the unit that one thread makes into rows: a few hundred rows, whose
// last one may fill its page partly (about 1 row in 500 of a compressible image).
static constexpr size_t kStretchBytes = size_t(4) << 20;

static size_t
datum_room(size_t n) {
	return (n + 7) & ~size_t(7);
}

/*
 * The rows of bytes[0, n): each as many image bytes as compress into one page (lz4 as
 * toast_compress_datum makes it, when compress), else kChunkBytes plain. A row that does not
 * compress by a fifth (a CSR's targets, random ids) makes the next 1, 3, 7, ... 63 rows plain
 * without a try, until one compresses again. Plain C++ and liblz4: runs on a helper thread.
 */
static void
chunk_stretch(const uint8_t *bytes, size_t n, bool compress, ChunkRows *rows) {
	rows->starts.clear();
	// Every row but a stretch's last holds at least kChunkBytes, in at most VARHDRSZ + kChunkBytes.
	size_t room = (n / kChunkBytes + 2) * datum_room(VARHDRSZ + kChunkBytes);
	if (rows->datums.size() < room)
		rows->datums.resize(room);
	size_t at = 0;
	unsigned failures = 0, plain_left = 0;
	for (size_t offset = 0; offset < n;) {
		size_t left = n - offset, taken = 0, size = 0;
		uint8_t *out = rows->datums.data() + at;
		if (compress && plain_left == 0) {
			taken = lz4_datum_prefix(bytes + offset, std::min(left, kMaxRawChunk), out, VARHDRSZ + kChunkBytes, &size);
			// Worth a row where it holds a quarter more image bytes than a plain row would, or (the
			// stretch's tail) the same bytes in 4/5 of the room. Less is not worth compressing: an
			// R-MAT graph's CSR targets compress by 4%, in a third of the build's lz4 time.
			bool worth = taken == left ? size * 5 < (VARHDRSZ + left) * 4 : taken * 4 >= kChunkBytes * 5;
			if (worth) {
				failures = 0;
			} else {
				taken = 0;
				failures = std::min(failures + 1, 6u);
				plain_left = (1u << failures) - 1;
			}
		} else if (plain_left > 0) {
			plain_left--;
		}
		if (taken == 0) {
			taken = std::min(left, kChunkBytes);
			size = VARHDRSZ + taken;
			SET_VARSIZE(out, size);
			memcpy(out + VARHDRSZ, bytes + offset, taken);
		}
		rows->starts.push_back(at);
		at += datum_room(size);
		offset += taken;
	}
}

// grail.index_chunk opened for the rows of one image (open_chunk_table); PostgreSQL objects only.
struct ChunkTable {
	Relation rel;
	EState *estate;
	ResultRelInfo *result;
	SPIPlanPtr plan; // INSERT through SQL, where the table has a trigger of its own
	TupleTableSlot **slots;
	Datum *values;
	bool *nulls;
};

// Rows handed to heap_multi_insert at once, as COPY batches them.
static constexpr int kInsertBatch = 64;

/*
 * Whether trigger is one of pg_grail's that refuse other writers of its catalog: it calls
 * grail_internal._refuse_catalog_writes. PostgreSQL calls: run inside guard().
 */
static bool
catalog_writes_trigger(const Trigger &trigger) {
	char *function = get_func_name(trigger.tgfoid);
	return function != NULL && strcmp(function, "_refuse_catalog_writes") == 0 &&
	       get_func_namespace(trigger.tgfoid) == get_namespace_oid("grail_internal", true);
}

/*
 * grail.index_chunk, checked to have the columns this library writes. PostgreSQL calls: run inside
 * guard().
 */
static ChunkTable
open_chunk_table() {
	ChunkTable table{};
	table.rel = table_open(get_relname_relid("index_chunk", get_namespace_oid("grail", false)), RowExclusiveLock);
	TupleDesc desc = RelationGetDescr(table.rel);
	static constexpr struct {
		const char *name;
		Oid type;
	} kColumns[] = {{"graph_id", INT8OID}, {"seq", INT4OID}, {"data", BYTEAOID}};
	// The three columns first, in order; after them only dropped columns (a column added and
	// dropped again by hand stays in the row type as a dropped attribute, stored as NULL).
	bool fits = desc->natts >= 3;
	for (int i = 0; fits && i < desc->natts; i++) {
		Form_pg_attribute att = TupleDescAttr(desc, i);
		fits = i < 3 ? !att->attisdropped && strcmp(NameStr(att->attname), kColumns[i].name) == 0 &&
		                   att->atttypid == kColumns[i].type
		             : att->attisdropped;
	}
	if (!fits)
		ereport(ERROR,
		        (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
		         errmsg("pg_grail catalog table grail.index_chunk does not have the columns that "
		                "pg_grail's library (version %s) writes",
		                GRAIL_EXTVERSION),
		         errdetail("It must have the columns graph_id bigint, seq integer and data bytea, in this order, "
		                   "and no other."),
		         errhint("Run ALTER EXTENSION pg_grail UPDATE; a column added to it by hand must be dropped "
		                 "again.")));
	// A trigger someone put on the table (its foreign key's are internal) fires as for any INSERT:
	// then the rows go through SQL, uncompressed (an INSERT's executor stores a compressed parameter
	// decompressed).
	// pg_grail's own statement trigger, which refuses writers other than this one, is none of them.
	bool user_triggers = false;
	for (int i = 0; table.rel->trigdesc != NULL && i < table.rel->trigdesc->numtriggers; i++) {
		const Trigger &trigger = table.rel->trigdesc->triggers[i];
		user_triggers |= !trigger.tgisinternal && !catalog_writes_trigger(trigger);
	}
	if (user_triggers) {
		Oid types[] = {INT8OID, INT4OID, BYTEAOID};
		table.plan = SPI_prepare("INSERT INTO grail.index_chunk (graph_id, seq, data) VALUES ($1, $2, $3)", 3, types);
		if (table.plan == NULL)
			elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	}
	table.estate = CreateExecutorState();
	table.result = makeNode(ResultRelInfo);
	InitResultRelInfo(table.result, table.rel, 1, NULL, 0);
	ExecOpenIndices(table.result, false);
	table.slots = static_cast<TupleTableSlot **>(palloc(sizeof(TupleTableSlot *) * kInsertBatch));
	for (int i = 0; i < kInsertBatch; i++)
		table.slots[i] = MakeSingleTupleTableSlot(desc, &TTSOpsHeapTuple);
	// A row's values: the three columns', then NULL for each dropped column.
	table.values = static_cast<Datum *>(palloc0(sizeof(Datum) * size_t(desc->natts)));
	table.nulls = static_cast<bool *>(palloc(sizeof(bool) * size_t(desc->natts)));
	for (int i = 0; i < desc->natts; i++)
		table.nulls[i] = i >= 3;
	return table;
}

/*
 * Inserts rows as rows seq, seq + 1, ... of graph id (counting_down: -1 - seq, -2 - seq, ...), through
 * the table and index access methods as COPY writes them: heap_multi_insert, then the index
 * entries. PostgreSQL calls: run inside guard().
 */
static void
insert_chunk_rows(ChunkTable &table, int64_t id, const ChunkRows &rows, size_t seq, bool counting_down) {
	TupleDesc desc = RelationGetDescr(table.rel);
	CommandId command = GetCurrentCommandId(true);
	for (size_t first = 0; first < rows.starts.size(); first += kInsertBatch) {
		int count = int(std::min(rows.starts.size() - first, size_t(kInsertBatch)));
		for (int k = 0; k < count; k++) {
			size_t row = seq + first + size_t(k);
			table.values[0] = Int64GetDatum(id);
			table.values[1] = Int32GetDatum(counting_down ? -1 - int32(row) : int32(row));
			table.values[2] = PointerGetDatum(rows.datums.data() + rows.starts[first + size_t(k)]);
			if (table.plan != NULL) {
				// A BEFORE trigger that returns NULL skips the row: the build would commit an image that
				// no query can read.
				if (SPI_execute_plan(table.plan, table.values, NULL, false, 0) != SPI_OK_INSERT || SPI_processed != 1)
					ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					                errmsg("pg_grail could not store index chunk %zu: a trigger on "
					                       "grail.index_chunk skipped it",
					                       row),
					                errhint("Drop or disable the triggers on grail.index_chunk that change or "
					                        "skip its rows.")));
			} else {
				ExecStoreHeapTuple(heap_form_tuple(desc, table.values, table.nulls), table.slots[k], true);
			}
		}
		if (table.plan == NULL) {
			// No BulkInsertState: its ring of buffers would have this backend write the pages it filled
			// (and the WAL before them) as it goes, where an INSERT leaves them to the checkpointer.
			table_multi_insert(table.rel, table.slots, count, command, 0, NULL);
			for (int k = 0; k < count; k++) {
				if (table.result->ri_NumIndices > 0)
					(void)ExecInsertIndexTuples(table.result, table.slots[k], table.estate, false, false, NULL, NIL);
				ExecClearTuple(table.slots[k]);
			}
			ResetPerTupleExprContext(table.estate);
		}
		CHECK_FOR_INTERRUPTS();
	}
}

// PostgreSQL calls: run inside guard().
static void
close_chunk_table(ChunkTable &table) {
	if (table.plan != NULL)
		SPI_freeplan(table.plan);
	for (int i = 0; i < kInsertBatch; i++)
		ExecDropSingleTupleTableSlot(table.slots[i]);
	pfree(table.slots);
	pfree(table.values);
	pfree(table.nulls);
	ExecCloseIndices(table.result);
	FreeExecutorState(table.estate);
	table_close(table.rel, NoLock);
	CommandCounterIncrement();
}

/*
 * The image's chunks as rows of grail.index_chunk, written through the table and index access
 * methods as COPY writes them (no SQL: thousands of rows for a large image), each row within one
 * heap page: with PostgreSQL built with lz4, as many image bytes as compress into it (an image's
 * ids, CSR, labels and hash table compress to about half, its Bloom records not at all), else
 * kChunkBytes. Half the bytes to write to the heap and the WAL cost about what compressing them
 * does, and readers decompress as they detoast. The image is made into rows a stretch at a time:
 * with helper threads (store_helper_threads), the next stretches are compressed while this thread
 * inserts the last ones. counting_down: a delta's chunks, numbered -1, -2, ... (a full image's
 * from 0).
 */
static void
insert_chunks(int64_t id, const grail::ImagePieces &bytes, bool counting_down) {
	ChunkTable table = guard([] { return open_chunk_table(); });
	bool compress = table.plan == NULL && lz4_datums_supported();
	unsigned helpers = store_helper_threads();
	size_t stretches = (bytes.size() + kStretchBytes - 1) / kStretchBytes;
	// Stretches made at once: one per thread that makes them, at most 8 (two batches' rows, about
	// 70 MB, are held at once).
	size_t batch = std::clamp<size_t>(helpers, 1, 8);
	auto make = [&](std::vector<ChunkRows> &made, size_t first, unsigned threads) {
		size_t count = std::min(batch, stretches - first);
		grail::run_tasks(count, threads, [&](size_t k, unsigned) {
			size_t offset = (first + k) * kStretchBytes, n = std::min(kStretchBytes, bytes.size() - offset);
			const uint8_t *stretch = bytes.find(offset, n);
			if (stretch == nullptr) {
				made[k].raw.resize(kStretchBytes);
				bytes.copy(offset, n, made[k].raw.data());
				stretch = made[k].raw.data();
			}
			chunk_stretch(stretch, n, compress, &made[k]);
		});
	};
	std::vector<ChunkRows> ready(batch), next(batch);
	guard([&] {
		progress_phase(BuildPhase::storing, int64_t(bytes.size()));
		progress_done(0);
	});
	size_t seq = 0;
	{
		// Declared after the buffers it fills: destroyed (joined) first when an error unwinds.
		grail::Background making;
		if (stretches > 0)
			make(ready, 0, helpers > 0 ? helpers - 1 : 0);
		for (size_t first = 0; first < stretches; first += batch) {
			// With helpers, the next batch is made on them while this one is inserted (the helper that
			// runs the task and helpers - 1 more).
			bool more = first + batch < stretches;
			if (more)
				making.start(helpers > 0, [&, first] { make(next, first + batch, helpers > 0 ? helpers - 1 : 0); });
			guard([&] {
				for (size_t k = 0; k < batch && first + k < stretches; k++) {
					insert_chunk_rows(table, id, ready[k], seq, counting_down);
					seq += ready[k].starts.size();
				}
				progress_done(int64_t(std::min(bytes.size(), (first + batch) * kStretchBytes)));
			});
			if (more) {
				making.wait();
				std::swap(ready, next);
			}
		}
	}
	guard([&] { close_chunk_table(table); });
}

int64_t
store_index(int64_t id, const grail::ImagePieces &bytes, StoredBuild *stats, MergeKind merge,
            const StoredDelta *delta) {
	double start = grail::now_ms();
	return with_spi([&] {
		Oid id_type[] = {INT8OID};
		Datum id_value[] = {Int64GetDatum(id)};
		// A delta replaces the last delta's chunks (negative seq) and keeps its base's (seq from 0);
		// a full image replaces them all.
		execute(delta != nullptr ? "DELETE FROM grail.index_chunk WHERE graph_id OPERATOR(pg_catalog.=) $1 AND seq "
		                           "OPERATOR(pg_catalog.<) 0"
		                         : "DELETE FROM grail.index_chunk WHERE graph_id OPERATOR(pg_catalog.=) $1",
		        1, id_type, id_value, SPI_OK_DELETE);

		// A delta's chunks count down from -1.
		insert_chunks(id, bytes, delta != nullptr);

		// A delta build's image is the one its base and delta make (apply_delta), never stored.
		stats->index_bytes = delta != nullptr ? delta->image_bytes : int64_t(bytes.size());
		stats->written_bytes = int64_t(bytes.size());
		stats->persist_ms += grail::ms_since(start);
		Oid types[] = {INT8OID, INT8OID,   INT8OID,   INT8OID,   INT8OID,   INT8OID,   INT8OID,
		               INT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, INT4OID,
		               INT8OID, TEXTOID,   INT8OID,   INT8OID,   INT8OID,   TEXTOID,   TEXTOID};
		// The build's snapshot as xid8 text ('' where none is recorded: NULL).
		std::string running = "{";
		for (uint64_t xid : stats->snapshot_running)
			running += (running.size() > 1 ? "," : "") + std::to_string(xid);
		running += "}";
		std::string xmax = stats->snapshot_xmax != 0 ? std::to_string(stats->snapshot_xmax) : "";
		Datum values[] = {
		    Int64GetDatum(id),
		    Int64GetDatum(stats->input_rows),
		    Int64GetDatum(stats->null_rows),
		    Int64GetDatum(stats->vertices),
		    Int64GetDatum(stats->edges),
		    Int64GetDatum(stats->components),
		    Int64GetDatum(stats->dag_edges),
		    Int64GetDatum(stats->index_bytes),
		    Float8GetDatum(stats->read_ms),
		    Float8GetDatum(stats->graph_ms),
		    Float8GetDatum(stats->scc_ms),
		    Float8GetDatum(stats->label_ms),
		    Float8GetDatum(stats->persist_ms),
		    Int32GetDatum(int32(merge)),
		    Int64GetDatum(delta != nullptr ? delta->base_build : 0),
		    guard([&] { return CStringGetTextDatum(delta != nullptr ? delta->base_build_uuid.c_str() : ""); }),
		    Int64GetDatum(delta != nullptr ? delta->base_index_bytes : 0),
		    Int64GetDatum(delta != nullptr ? delta->changes : 0),
		    Int64GetDatum(delta != nullptr ? int64_t(bytes.size()) : 0),
		    guard([&] { return CStringGetTextDatum(xmax.c_str()); }),
		    guard([&] { return CStringGetTextDatum(running.c_str()); })};
		execute("UPDATE grail.graph SET build = pg_catalog.nextval('grail.build_seq'::pg_catalog.regclass), "
		        "build_uuid = pg_catalog.gen_random_uuid(), stale = false, built_at = pg_catalog.now(), "
		        "input_rows = $2, null_rows = $3, vertices = $4, edges = $5, components = $6, dag_edges = $7, "
		        "index_bytes = $8, read_ms = $9, graph_ms = $10, scc_ms = $11, label_ms = $12, persist_ms = $13, "
		        // 0 and '' (a full build): NULL.
		        "base_build = NULLIF($15, 0::pg_catalog.int8), base_build_uuid = NULLIF($16, "
		        "''::pg_catalog.text)::pg_catalog.uuid, "
		        "base_index_bytes = NULLIF($17, 0::pg_catalog.int8), delta_changes = NULLIF($18, 0::pg_catalog.int8), "
		        "delta_bytes = NULLIF($19, 0::pg_catalog.int8), "
		        "build_xmax = NULLIF($20, ''::pg_catalog.text)::pg_catalog.xid8, "
		        "build_running = CASE WHEN $20 OPERATOR(pg_catalog.=) ''::pg_catalog.text THEN NULL ELSE "
		        "$21::pg_catalog.xid8[] END, "
		        // A merge's time is when it wrote its build (as pg_stat_all_tables.last_autovacuum is
		        // when the vacuum ended), not its transaction's start.
		        "last_merge = CASE WHEN $14 OPERATOR(pg_catalog.=) 1 THEN pg_catalog.clock_timestamp() ELSE "
		        "last_merge END, "
		        "merge_count = merge_count OPERATOR(pg_catalog.+) (($14 OPERATOR(pg_catalog.=) 1)::pg_catalog.int4)"
		        "::pg_catalog.int8, "
		        "last_background_merge = CASE WHEN $14 OPERATOR(pg_catalog.=) 2 THEN pg_catalog.clock_timestamp() "
		        "ELSE last_background_merge END, "
		        "background_merge_count = background_merge_count OPERATOR(pg_catalog.+) (($14 "
		        "OPERATOR(pg_catalog.=) 2)::pg_catalog.int4)::pg_catalog.int8 "
		        "WHERE id OPERATOR(pg_catalog.=) $1 RETURNING build, build_uuid::pg_catalog.text",
		        21, types, values, SPI_OK_UPDATE_RETURNING);
		int64_t build = get_int64(1);
		stats->build_uuid = guard([&] {
			bool null;
			Datum uuid = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &null);
			return null ? std::string() : std::string(TextDatumGetCString(uuid));
		});
		// Where this build was made: a restore that renumbers the objects its oid keys name is
		// told apart by it (build_scope()).
		std::string scope = guard([&] {
			Oid relid = InvalidOid;
			if (SPI_execute_with_args(
			        "SELECT relid::pg_catalog.oid FROM grail.graph WHERE id OPERATOR(pg_catalog.=) $1", 1, id_type,
			        id_value, NULL, false, 1) == SPI_OK_SELECT &&
			    SPI_processed == 1) {
				bool null;
				relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &null));
			}
			return build_scope(relid);
		});
		Oid scope_types[] = {INT8OID, TEXTOID};
		Datum scope_values[] = {Int64GetDatum(id), guard([&] { return CStringGetTextDatum(scope.c_str()); })};
		execute("UPDATE grail.graph SET built_in = $2 WHERE id OPERATOR(pg_catalog.=) $1", 2, scope_types, scope_values,
		        SPI_OK_UPDATE);
		return build;
	});
}

std::string
build_scope(Oid relid) {
	return std::to_string((unsigned long long)GetSystemIdentifier()) + "/" + std::to_string(MyDatabaseId) + "/" +
	       std::to_string(relid);
}

/*
 * The bytes of a stored chunk of an image or a delta (what: "index" or "delta"; left: the bytes of
 * it still to come), detoasted. A compressed chunk that a hand edit damaged is refused as a damaged
 * index with the hint to rebuild, before PostgreSQL decompresses it: a method this server does not
 * know or a raw size past what is left (PostgreSQL would raise an internal error, or allocate the
 * gigabyte the header claims); and a block that does not decompress, which PostgreSQL reports
 * without naming the graph or a remedy (lz4 blocks carry no checksum: a flipped byte may also
 * decompress, which the image's checksum then refuses). NULL data counts as a chunk longer than
 * left. PostgreSQL calls: inside guard().
 */
static bytea *
stored_chunk(Datum datum, bool null, int seq, size_t left, const char *what) {
	auto damaged = [&](const char *why) {
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
		                errmsg("the stored %s of a pg_grail graph is damaged: chunk %d %s", what, seq, why),
		                errhint("Rebuild it with grail.refresh_graph().")));
	};
	if (null)
		return nullptr;
	auto *value = reinterpret_cast<struct varlena *>(DatumGetPointer(datum));
	if (VARATT_IS_COMPRESSED(value)) {
		uint32 method = VARDATA_COMPRESSED_GET_COMPRESS_METHOD(value);
		if (method != TOAST_PGLZ_COMPRESSION_ID && method != TOAST_LZ4_COMPRESSION_ID)
			damaged("is compressed by no method PostgreSQL knows");
		if (VARDATA_COMPRESSED_GET_EXTSIZE(value) > left)
			damaged("claims more bytes than the rest of its recorded size");
	}
	MemoryContext context = CurrentMemoryContext;
	bytea *chunk = nullptr;
	PG_TRY();
	{ chunk = DatumGetByteaPP(datum); }
	PG_CATCH();
	{
		MemoryContextSwitchTo(context);
		ErrorData *error = CopyErrorData();
		if (error->sqlerrcode != ERRCODE_DATA_CORRUPTED)
			PG_RE_THROW();
		FlushErrorState();
		damaged(psprintf("does not decompress (%s)", error->message));
	}
	PG_END_TRY();
	return chunk;
}

void
check_index_size(const GraphRow &row) {
	// The recorded size decides the allocation: a damaged one must not ask for petabytes.
	if (row.index_bytes <= 0 || uint64_t(row.index_bytes) > kMaxIndexBytes)
		raise(ERRCODE_DATA_CORRUPTED,
		      format("the stored index of a pg_grail graph is damaged: its recorded size is %lld bytes",
		             (long long)row.index_bytes),
		      "Rebuild it with grail.refresh_graph().");
}

int64_t
stored_index_bytes(const GraphRow &row) {
	int64_t bytes = 0;
	// The uncompressed sizes (octet_length reads a compressed datum's header, not its data).
	with_spi([&] {
		Oid types[] = {INT8OID};
		Datum values[] = {Int64GetDatum(row.id)};
		execute("SELECT pg_catalog.sum(pg_catalog.octet_length(data))::pg_catalog.int8 FROM grail.index_chunk "
		        "WHERE graph_id OPERATOR(pg_catalog.=) $1 AND seq OPERATOR(pg_catalog.>=) 0",
		        1, types, values, SPI_OK_SELECT, true);
		guard([&] {
			bool null;
			Datum sum = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &null);
			bytes = null ? 0 : DatumGetInt64(sum);
		});
	});
	return bytes;
}

std::vector<uint8_t>
load_delta(const GraphRow &row) {
	if (row.delta_bytes <= 0 || uint64_t(row.delta_bytes) > kMaxIndexBytes)
		raise(ERRCODE_DATA_CORRUPTED,
		      format("the stored delta of a pg_grail graph is damaged: its recorded size is %lld bytes",
		             (long long)row.delta_bytes),
		      "Rebuild it with grail.refresh_graph().");
	size_t size = size_t(row.delta_bytes);
	// Filled as the chunks come, not allocated at the recorded size first: a size edited by hand
	// to a terabyte is then refused as a delta whose chunks do not make it, not "out of memory".
	std::vector<uint8_t> bytes;
	// Read only, in the active snapshot, as load_index reads: the one the row was read in (a merge
	// committed since has replaced these chunks).
	with_spi([&] {
		Oid types[] = {INT8OID};
		Datum values[] = {Int64GetDatum(row.id)};
		execute("SELECT seq, data FROM grail.index_chunk WHERE graph_id OPERATOR(pg_catalog.=) $1 "
		        "AND seq OPERATOR(pg_catalog.<) 0 ORDER BY seq DESC",
		        1, types, values, SPI_OK_SELECT, true);
		guard([&] {
			size_t offset = 0;
			for (uint64 i = 0; i < SPI_processed; i++) {
				bool null;
				int seq = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &null));
				Datum datum = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &null);
				// NULL data (the column's NOT NULL dropped by hand): no bytes, which the size check refuses.
				bytea *chunk = stored_chunk(datum, null, seq, size - offset, "delta");
				size_t n = null ? size + 1 : VARSIZE_ANY_EXHDR(chunk);
				if (seq != -1 - int(i) || n > size - offset)
					ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
					                errmsg("the stored delta of a pg_grail graph is damaged: chunk %d does not fit "
					                       "its recorded size of %zu bytes",
					                       seq, size),
					                errhint("Rebuild it with grail.refresh_graph().")));
				const auto *data = reinterpret_cast<const uint8_t *>(VARDATA_ANY(chunk));
				bytes.insert(bytes.end(), data, data + n);
				offset += n;
			}
			if (offset != size)
				ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
				                errmsg("the stored delta of a pg_grail graph is damaged: %zu of %zu bytes found",
				                       offset, size),
				                errhint("Rebuild it with grail.refresh_graph().")));
		});
	});
	return bytes;
}

void
load_index(const GraphRow &row, uint8_t *image) {
	size_t size = size_t(row.index_bytes);
	with_spi([&] {
		Oid types[] = {INT8OID};
		Datum values[] = {Int64GetDatum(row.id)};
		guard([&] {
			Portal portal = SPI_cursor_open_with_args(
			    NULL,
			    "SELECT seq, data FROM grail.index_chunk WHERE graph_id OPERATOR(pg_catalog.=) $1 "
			    "AND seq OPERATOR(pg_catalog.>=) 0 ORDER BY seq",
			    1, types, values, NULL, true, 0);
			size_t offset = 0;
			int expected_seq = 0;
			for (;;) {
				SPI_cursor_fetch(portal, true, 8);
				if (SPI_processed == 0)
					break;
				for (uint64 i = 0; i < SPI_processed; i++) {
					bool null;
					int seq = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &null));
					Datum datum = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &null);
					// NULL data (the column's NOT NULL dropped by hand): refused as a chunk that does not fit.
					bytea *chunk = stored_chunk(datum, null, seq, size - offset, "index");
					size_t n = null ? size + 1 : VARSIZE_ANY_EXHDR(chunk);
					if (seq != expected_seq++ || n > size - offset)
						ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						                errmsg("the stored index of a pg_grail graph is damaged: chunk %d does not "
						                       "fit its recorded size of %zu bytes",
						                       seq, size),
						                errhint("Rebuild it with grail.refresh_graph().")));
					memcpy(image + offset, VARDATA_ANY(chunk), n);
					offset += n;
					// The copy detoasting made, freed now rather than with the SPI context: kept, the
					// chunks of a whole image would be in this backend's memory at once.
					if (reinterpret_cast<Pointer>(chunk) != DatumGetPointer(datum))
						pfree(chunk);
				}
				SPI_freetuptable(SPI_tuptable);
				CHECK_FOR_INTERRUPTS();
			}
			SPI_cursor_close(portal);
			if (offset != size)
				ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
				                errmsg("the stored index of a pg_grail graph is damaged: %zu of %zu bytes found",
				                       offset, size),
				                errhint("Rebuild it with grail.refresh_graph().")));
		});
	});
}

} // namespace grail::pg
