#include "error.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "catalog.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
}

namespace grail::pg {

// Chunk size of grail.index_chunk rows: large enough that a 1 GB index is a thousand rows,
// small enough that no row needs more than a few MB of memory to write or read.
static constexpr size_t kChunkBytes = 4 << 20;

/*
 * The owner of the grail schema, which is the extension's owner.
 */
static Oid
extension_owner() {
	return guard([] {
		Oid nsp = get_namespace_oid("grail", false);
		HeapTuple tuple = SearchSysCache1(NAMESPACEOID, ObjectIdGetDatum(nsp));
		if (!HeapTupleIsValid(tuple))
			elog(ERROR, "cache lookup failed for schema grail");
		Oid owner = ((Form_pg_namespace)GETSTRUCT(tuple))->nspowner;
		ReleaseSysCache(tuple);
		return owner;
	});
}

AsExtensionOwner::AsExtensionOwner() {
	GetUserIdAndSecContext(&saved_user_, &saved_context_);
	Oid owner = extension_owner();
	SetUserIdAndSecContext(owner, saved_context_ | SECURITY_LOCAL_USERID_CHANGE);
}

AsExtensionOwner::~AsExtensionOwner() {
	SetUserIdAndSecContext(saved_user_, saved_context_);
}

/*
 * Connect to SPI, run fn, disconnect; all as the extension owner. If fn throws, the error
 * aborts the transaction, which closes the SPI connection.
 */
template <typename Fn>
static auto
with_spi(Fn &&fn) -> decltype(fn()) {
	AsExtensionOwner owner;
	guard([] {
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
	});
	if constexpr (std::is_void_v<decltype(fn())>) {
		fn();
		guard([] { SPI_finish(); });
	} else {
		auto result = fn();
		guard([] { SPI_finish(); });
		return result;
	}
}

// read_only: run in the statement's snapshot (what a query sees); otherwise SPI takes a new one.
static int
execute(const char *sql, int nargs, Oid *types, Datum *values, int expected, bool read_only = false) {
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

bool
find_graph(const char *name, GraphRow *row, bool for_change) {
	return with_spi([&] {
		Oid types[] = {TEXTOID};
		Datum values[] = {guard([&] { return CStringGetTextDatum(name); })};
		std::string sql = "SELECT id, relid::int8, source_attnum::int8, target_attnum::int8, owner::int8, "
		                  "labels::int8, skip_nulls::int::int8, coalesce(build, 0), stale::int::int8, "
		                  "coalesce(index_bytes, 0), EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t "
		                  "WHERE t.tgrelid = relid AND t.tgname = 'grail_stale_' || id AND t.tgenabled IN ('O', 'A'))"
		                  "::int::int8 FROM grail.graph WHERE name = $1";
		if (for_change)
			sql += " FOR UPDATE";
		if (execute(sql.c_str(), 1, types, values, SPI_OK_SELECT, !for_change) == 0)
			return false;
		row->id = get_int64(1);
		row->relid = Oid(get_int64(2));
		row->source_attnum = AttrNumber(get_int64(3));
		row->target_attnum = AttrNumber(get_int64(4));
		row->owner = Oid(get_int64(5));
		row->labels = int(get_int64(6));
		row->skip_nulls = get_int64(7) != 0;
		row->build = get_int64(8);
		row->stale = get_int64(9) != 0;
		row->index_bytes = get_int64(10);
		row->watched = get_int64(11) != 0;
		return true;
	});
}

int64_t
insert_graph(const char *name, const GraphRow &row) {
	return with_spi([&] {
		Oid types[] = {TEXTOID, OIDOID, INT2OID, INT2OID, OIDOID, INT4OID, BOOLOID};
		Datum values[] = {guard([&] { return CStringGetTextDatum(name); }),
		                  ObjectIdGetDatum(row.relid),
		                  Int16GetDatum(row.source_attnum),
		                  Int16GetDatum(row.target_attnum),
		                  ObjectIdGetDatum(row.owner),
		                  Int32GetDatum(row.labels),
		                  BoolGetDatum(row.skip_nulls)};
		execute("INSERT INTO grail.graph (name, relid, source_attnum, target_attnum, owner, labels, skip_nulls) "
		        "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
		        7, types, values, SPI_OK_INSERT_RETURNING);
		return get_int64(1);
	});
}

void
delete_graph(int64_t id) {
	with_spi([&] {
		Oid types[] = {INT8OID};
		Datum values[] = {Int64GetDatum(id)};
		execute("DELETE FROM grail.graph WHERE id = $1", 1, types, values, SPI_OK_DELETE);
	});
}

void
lock_graph_name(const char *name) {
	with_spi([&] {
		Oid types[] = {TEXTOID};
		Datum values[] = {guard([&] { return CStringGetTextDatum(name); })};
		execute("SELECT pg_catalog.pg_advisory_xact_lock(1735551340, pg_catalog.hashtext($1))", 1, types, values,
		        SPI_OK_SELECT);
	});
}

void
execute_as_owner(const char *sql) {
	with_spi([&] { execute(sql, 0, nullptr, nullptr, SPI_OK_UTILITY); });
}

int64_t
store_index(int64_t id, const std::vector<uint8_t> &bytes, StoredBuild *stats) {
	auto start = std::chrono::steady_clock::now();
	return with_spi([&] {
		Oid id_type[] = {INT8OID};
		Datum id_value[] = {Int64GetDatum(id)};
		execute("DELETE FROM grail.index_chunk WHERE graph_id = $1", 1, id_type, id_value, SPI_OK_DELETE);

		guard([&] {
			Oid types[] = {INT8OID, INT4OID, BYTEAOID};
			SPIPlanPtr plan =
			    SPI_prepare("INSERT INTO grail.index_chunk (graph_id, seq, data) VALUES ($1, $2, $3)", 3, types);
			if (plan == NULL)
				elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
			bytea *chunk = (bytea *)palloc(VARHDRSZ + kChunkBytes);
			for (size_t offset = 0, seq = 0; offset < bytes.size(); offset += kChunkBytes, seq++) {
				size_t n = std::min(kChunkBytes, bytes.size() - offset);
				SET_VARSIZE(chunk, VARHDRSZ + n);
				memcpy(VARDATA(chunk), bytes.data() + offset, n);
				Datum values[] = {Int64GetDatum(id), Int32GetDatum(int32(seq)), PointerGetDatum(chunk)};
				if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT)
					elog(ERROR, "pg_grail could not store index chunk %zu", seq);
				CHECK_FOR_INTERRUPTS();
			}
			pfree(chunk);
			SPI_freeplan(plan);
		});

		stats->index_bytes = int64_t(bytes.size());
		stats->persist_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
		Oid types[] = {INT8OID, INT8OID,   INT8OID,   INT8OID,   INT8OID,   INT8OID,  INT8OID,
		               INT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID};
		Datum values[] = {Int64GetDatum(id),
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
		                  Float8GetDatum(stats->persist_ms)};
		execute("UPDATE grail.graph SET build = nextval('grail.build_seq'), stale = false, built_at = now(), "
		        "input_rows = $2, null_rows = $3, vertices = $4, edges = $5, components = $6, dag_edges = $7, "
		        "index_bytes = $8, read_ms = $9, graph_ms = $10, scc_ms = $11, label_ms = $12, persist_ms = $13 "
		        "WHERE id = $1 RETURNING build",
		        13, types, values, SPI_OK_UPDATE_RETURNING);
		return get_int64(1);
	});
}

std::vector<uint8_t>
load_index(const GraphRow &row) {
	std::vector<uint8_t> bytes(size_t(row.index_bytes));
	with_spi([&] {
		Oid types[] = {INT8OID};
		Datum values[] = {Int64GetDatum(row.id)};
		guard([&] {
			Portal portal = SPI_cursor_open_with_args(
			    NULL, "SELECT seq, data FROM grail.index_chunk WHERE graph_id = $1 ORDER BY seq", 1, types, values,
			    NULL, true, 0);
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
					bytea *chunk = DatumGetByteaPP(datum);
					size_t n = VARSIZE_ANY_EXHDR(chunk);
					if (seq != expected_seq++ || n > bytes.size() - offset)
						ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						                errmsg("the stored index of a pg_grail graph is damaged: chunk %d does not "
						                       "fit its recorded size of %zu bytes",
						                       seq, bytes.size()),
						                errhint("Rebuild it with grail.refresh_graph().")));
					memcpy(bytes.data() + offset, VARDATA_ANY(chunk), n);
					offset += n;
				}
				SPI_freetuptable(SPI_tuptable);
				CHECK_FOR_INTERRUPTS();
			}
			SPI_cursor_close(portal);
			if (offset != bytes.size())
				ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
				                errmsg("the stored index of a pg_grail graph is damaged: %zu of %zu bytes found",
				                       offset, bytes.size()),
				                errhint("Rebuild it with grail.refresh_graph().")));
		});
	});
	return bytes;
}

} // namespace grail::pg
