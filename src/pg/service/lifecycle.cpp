// The graph lifecycle: create, rebuild (refresh, merge, background merge), alter, drop, and the
// build they share; the SQL functions (src/pg/entry/graph_functions.cpp) and the merge worker call it.
#include "build_delta.hpp"
#include "clock.hpp"
#include "error.hpp"
#include "index.hpp"

#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "store/activity.hpp"
#include "store/catalog.hpp"
#include "store/pending_changes.hpp"
#include "store/watch.hpp"
#include "store/edges.hpp"
#include "store/edge_filter.hpp"
#include "service/build_index.hpp"
#include "service/lifecycle.hpp"
#include "service/image_cache.hpp"
#include "service/open_graph.hpp"
#include "boundary/commit_log.hpp"
#include "boundary/pg_calls.hpp"
#include "boundary/run_as_role.hpp"
#include "boundary/settings.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "utils/snapmgr.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/resowner.h"
#include "utils/syscache.h"
#include "utils/lsyscache.h"
}

namespace grail::pg {

/*
 * The merge's line in the server log under grail.log_merge_min_duration (-1: none, 0: every merge),
 * as log_autovacuum_min_duration logs autovacuum: the graph (schema-qualified), the pending edge
 * changes it folded in, the rows it read, the index image bytes it wrote, and its duration from the
 * call (lock waits included) to the image written. Written when the merge's transaction commits:
 * a merge rolled back is not logged.
 */
static void
log_merge(const GraphRow &row, const GraphName &graph_name, MergeKind merge, int64_t folded, const StoredBuild &stored,
          const GraphRow &built, double ms) {
	int min_ms = settings.log_merge_min_duration_ms;
	if (min_ms < 0 || ms < double(min_ms))
		return;
	const char *schema = namespace_name(row.schema);
	std::string name = schema != nullptr ? std::string(schema) + "." + graph_name.name : graph_name.display;
	// A delta build writes its delta, not its image (the image's bytes are still said first).
	std::string delta = built.is_delta() ? format(", stored as a delta of %lld changes in %lld bytes from build %lld",
	                                              (long long)built.delta_changes, (long long)stored.written_bytes,
	                                              (long long)built.base_build)
	                                     : std::string();
	log_at_commit(format("pg_grail %s of graph \"%s\": %lld pending changes folded, %lld rows read, %lld index image "
	                     "bytes written, %.3f s%s",
	                     merge == MergeKind::background ? "background merge" : "merge_graph", name.c_str(),
	                     (long long)folded, (long long)stored.input_rows, (long long)stored.index_bytes, ms / 1e3,
	                     delta.c_str()));
}

// A merge stores a delta from the base build where it changes at most this share of the base's
// edges (a fiftieth), or this many edges and vertices on a small graph; past that, a full image
// (compaction: the next deltas are from it). refresh_graph and create_graph always store a full
// image.
static constexpr size_t kDeltaShareDivisor = 50;
static constexpr size_t kDeltaFloor = 64;

/*
 * The image of a build, opened for a merge's delta: in a subtransaction, so that an image whose
 * stored chunks are damaged or missing (an error: their checksum, their sizes) leaves the merge free
 * to store a full image instead, which a WARNING says; nullopt then. Any other error (a cancel, out
 * of memory) is raised. Its chunks are read in the latest snapshot, which sees what the graph's row
 * (read FOR UPDATE, latest) names: a READ COMMITTED merge that waited for another's lock has an
 * older one.
 */
static std::optional<OpenedIndex>
open_base(const GraphName &graph_name, const GraphRow &base_row) {
	MemoryContext context = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	guard([&] {
		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(context);
	});
	std::optional<OpenedIndex> opened;
	std::string damage;
	std::exception_ptr failed;
	try {
		guard([] { PushActiveSnapshot(GetLatestSnapshot()); });
		try {
			opened = open_index(base_row, graph_name.display.c_str());
		} catch (...) {
			PopActiveSnapshot();
			throw;
		}
		PopActiveSnapshot();
	} catch (const PgError &e) {
		if (e.data()->sqlerrcode == ERRCODE_DATA_CORRUPTED)
			damage = e.what();
		else
			failed = std::current_exception();
	} catch (const SqlError &e) { // raise()d damage: an impossible recorded size, say
		if (e.sqlstate() == ERRCODE_DATA_CORRUPTED)
			damage = e.what();
		else
			failed = std::current_exception();
	} catch (const grail::Error &e) {
		if (e.kind() == grail::ErrorKind::corrupt_index)
			damage = e.what();
		else
			failed = std::current_exception();
	} catch (...) {
		failed = std::current_exception();
	}
	bool fine = opened.has_value();
	// Ending the subtransaction cannot fail short of a broken transaction, which then says so.
	guard([&] {
		if (fine)
			ReleaseCurrentSubTransaction();
		else
			RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(context);
		CurrentResourceOwner = owner;
	});
	if (failed)
		std::rethrow_exception(failed);
	if (!fine)
		guard([&] {
			ereport(
			    WARNING,
			    (errcode(ERRCODE_DATA_CORRUPTED),
			     errmsg("pg_grail graph \"%s\": the stored image of build %lld cannot be read, so this merge stores "
			            "a full image instead of a delta from it",
			            graph_name.display.c_str(), (long long)base_row.build),
			     errdetail("%s", damage.c_str()),
			     errhint("The new build answers from the rows; if this recurs, check the storage under the "
			             "database.")));
		});
	return opened;
}

// A merge's delta from its graph's base build, and the image the two make.
struct DeltaBuild {
	grail::BuildDelta delta;
	std::vector<uint8_t> image;
	GraphRow base_row;
};

/*
 * A merge's build as its delta from the graph's base build (the current build, or the current
 * build's base where that is a delta already: deltas never chain), when the change is small: the
 * rows read are diffed against the base's edges (grail::diff_rows), then freed, and the image is
 * made from the base and the delta (grail::apply_delta), with stats filled: one build, not two.
 * Nullopt, with the rows left for a full build, where a full image must be stored: no build yet, a
 * change too large, keys of another kind, a base image that does not count its edges' rows or
 * cannot be read (open_base).
 */
static std::optional<DeltaBuild>
make_delta_build(const GraphName &graph_name, const GraphRow &row, GraphRows &rows, StoredBuild *stored) {
	if (row.build <= 0 || row.build_uuid.empty() || row.index_bytes <= 0)
		return std::nullopt;
	DeltaBuild made;
	made.base_row = row.is_delta() ? row.base_row() : row;
	std::optional<OpenedIndex> base = open_base(graph_name, made.base_row);
	if (!base)
		return std::nullopt;
	size_t base_edges = base->index.graph().out.edge_count();
	size_t limit = std::max(kDeltaFloor, base_edges / kDeltaShareDivisor);
	std::optional<grail::BuildDelta> delta = grail::diff_rows(base->index, rows.edges, rows.keys, limit);
	if (!delta)
		return std::nullopt;
	double start_ms = rows.start_ms;
	rows = GraphRows{}; // the base and the delta make the image: the rows' memory is free for it
	delta->labels = label_count(graph_name.display.c_str(), row);
	// The seeds of the image's hash tables, drawn as a full build draws them.
	uint64_t seeds[2] = {0, 0};
	if (!pg_strong_random(seeds, sizeof seeds))
		seeds[0] = seeds[1] = 0;
	delta->id_hash_seed = seeds[0] != 0 ? seeds[0] : 0x2545f4914f6cdd1dull;
	delta->key_seed = seeds[1] != 0 ? seeds[1] : 0x9e3779b97f4a7c15ull;
	uint64_t memory_limit = uint64_t(settings.build_memory_limit_mb) << 20;
	grail::BuildStats stats;
	try {
		made.image = grail::apply_delta(base->index, *delta, memory_limit, &stats);
	} catch (const grail::Error &e) {
		if (e.kind() != grail::ErrorKind::limit_exceeded)
			throw;
		throw grail::Error(e.kind(), "graph \"" + graph_name.display + "\": " + e.what(),
		                   "A superuser can raise grail.build_memory_limit (0 removes the limit).");
	}
	record_build_stats(stats, start_ms, stored);
	made.delta = std::move(*delta);
	return made;
}

/*
 * Stores a merge's delta build (make_delta_build), as its delta's bytes beside the base's chunks,
 * and leaves its image in the cache; built: the graph's row as the store leaves it.
 */
static void
store_delta_build(const GraphRow &row, DeltaBuild &made, StoredBuild *stored, MergeKind merge, GraphRow *built) {
	double start = grail::now_ms();
	std::vector<uint8_t> bytes = made.delta.serialize();
	stored->persist_ms = grail::ms_since(start);
	StoredDelta stored_delta;
	stored_delta.base_build = made.base_row.build;
	stored_delta.base_build_uuid = made.base_row.build_uuid;
	stored_delta.base_index_bytes = made.base_row.index_bytes;
	stored_delta.changes = int64_t(made.delta.changes());
	stored_delta.image_bytes = int64_t(made.image.size());
	*built = row;
	built->build =
	    store_index(row.id, grail::ImagePieces::of(bytes.data(), bytes.size()), stored, merge, &stored_delta);
	built->build_uuid = stored->build_uuid;
	built->index_bytes = int64_t(made.image.size());
	built->base_build = stored_delta.base_build;
	built->base_build_uuid = stored_delta.base_build_uuid;
	built->base_index_bytes = stored_delta.base_index_bytes;
	built->delta_changes = stored_delta.changes;
	built->delta_bytes = int64_t(bytes.size());
	cache_new_image(*built, made.image);
}

/*
 * Read the edge table of a graph, build its index and store it; returns the summary line. For a
 * live graph (merge), the read is in one snapshot, without blocking writers, and the pending
 * changes that snapshot sees, which the build has read, are deleted with it. A merge whose change
 * from the base build is small makes and stores a delta build instead of building the rows.
 */
static std::string
build_graph(const GraphName &graph_name, const GraphRow &row, BuildCommand command, double started) {
	double start = grail::now_ms();
	const char *name = graph_name.display.c_str();
	BuildProgress progress(command, row.id, row.schema, graph_name.name.c_str(), row.relid, row.source_attnum,
	                       row.target_attnum);
	MergeKind merge = command == BuildCommand::merge_graph        ? MergeKind::by_hand
	                  : command == BuildCommand::background_merge ? MergeKind::background
	                                                              : MergeKind::none;
	// A READ COMMITTED merge reads the latest snapshot, taken after the graph row's lock, so that it
	// sees a concurrent merge that held the lock (whose pending rows are gone). A REPEATABLE READ or
	// SERIALIZABLE one reads its transaction's snapshot, as its other queries do (the row lock would
	// have failed with a serialization error after a concurrent merge).
	// (A system catalog or a view is never built here: each statement reads it, statement_summary.)
	Snapshot snapshot = row.live ? guard([] {
		return RegisterSnapshot(IsolationUsesXactSnapshot() ? GetTransactionSnapshot() : GetLatestSnapshot());
	})
	                             : nullptr;
	StoredBuild stored;
	GraphRows rows = read_graph_rows(name, row, snapshot, &stored, merge != MergeKind::none);
	// Recorded with a merge's build: a reader's overlay of the last build that saw every change this
	// one takes in is kept across it (open_graph.cpp). Not with a refresh's: a refresh is what makes
	// a build read the rows again where they now make other edges than the build and the log say
	// (CREATE OR REPLACE of a function its filter calls, README, Filters); an overlay carried across
	// it would go on answering from the older build's edges.
	if (snapshot != nullptr && merge != MergeKind::none &&
	    !build_horizon(row.id, snapshot, &stored.snapshot_xmax, stored.snapshot_running)) {
		stored.snapshot_xmax = 0;
		stored.snapshot_running.clear();
	}
	std::optional<DeltaBuild> delta;
	if (merge != MergeKind::none)
		delta = make_delta_build(graph_name, row, rows, &stored);
	grail::Index index;
	if (!delta)
		index = build_graph_rows(name, row, std::move(rows), &stored, merge != MergeKind::none);
	// The edge changes this build took in (all of them, and no log, for a graph that is not live).
	int64_t folded = count_pending_edges(row.id, snapshot);
	progress_phase(BuildPhase::deleting_changes, folded);
	delete_pending_changes(row.id, snapshot);
	progress_done(folded);
	if (snapshot != nullptr)
		guard([&] { UnregisterSnapshot(snapshot); });
	GraphRow built = row;
	// (grail.explain_graph names a delta build's base and changes.)
	if (delta) {
		store_delta_build(row, *delta, &stored, merge, &built);
	} else {
		double serializing = grail::now_ms();
		// A merge (often the background worker's, beside readers of a busy table) leaves its image in
		// the cache: the first reader after it maps the file instead of reading and checking the chunks.
		// Otherwise the image is never made whole: its pieces are stored a stretch at a time.
		std::vector<uint8_t> bytes;
		if (merge != MergeKind::none)
			bytes = index.serialize();
		grail::ImagePieces pieces =
		    merge != MergeKind::none ? grail::ImagePieces::of(bytes.data(), bytes.size()) : index.image_pieces();
		stored.persist_ms = grail::ms_since(serializing);
		built.build = store_index(row.id, pieces, &stored, merge);
		built.build_uuid = stored.build_uuid;
		built.index_bytes = int64_t(pieces.size());
		built.base_build = 0;
		built.base_build_uuid.clear();
		if (merge != MergeKind::none)
			cache_new_image(built, bytes);
	}
	if (merge != MergeKind::none)
		log_merge(row, graph_name, merge, folded, stored, built, grail::ms_since(started));

	char sizes[256];
	snprintf(sizes, sizeof sizes,
	         "%lld vertices, %lld edges, %lld strongly connected components, DAG of %lld edges, %d labels, index "
	         "%.1f %s, built in %.2f s",
	         (long long)stored.vertices, (long long)stored.edges, (long long)stored.components,
	         (long long)stored.dag_edges, row.labels,
	         stored.index_bytes < 1000000 ? double(stored.index_bytes) / 1e3 : double(stored.index_bytes) / 1e6,
	         stored.index_bytes < 1000000 ? "kB" : "MB", grail::ms_since(start) / 1e3);
	std::string summary = std::string("graph \"") + name + "\": " + sizes;
	if (stored.null_rows > 0)
		summary += " (" + std::to_string(stored.null_rows) + " rows with a NULL endpoint skipped)";
	return summary;
}

static AttrNumber
column_attnum(Oid relid, const char *column, const char *what) {
	AttrNumber attnum = attribute_number(relid, column);
	if (attnum == InvalidAttrNumber)
		raise(ERRCODE_UNDEFINED_COLUMN,
		      format("column \"%s\" of relation \"%s\" does not exist", column, relation_name(relid)),
		      format("Name the %s column of the edge table: grail.create_graph(name, table, source_column, "
		             "target_column).",
		             what));
	if (attnum < 0)
		raise(ERRCODE_INVALID_PARAMETER_VALUE, format("system column \"%s\" cannot be an edge column", column));
	return attnum;
}

/*
 * The graph named name, or a clear error, if the current user owns it; lock_row as in find_graph.
 */
static GraphRow
existing_graph(const GraphName &name, bool lock_row) {
	GraphRow row;
	if (!find_graph(name, &row, lock_row))
		raise(ERRCODE_UNDEFINED_OBJECT, "pg_grail graph \"" + name.display + "\" does not exist",
		      "The view grail.graphs lists the graphs.");
	if (!has_privileges_of(GetUserId(), row.owner))
		raise(ERRCODE_INSUFFICIENT_PRIVILEGE, "must be owner of pg_grail graph \"" + name.display + "\"");
	return row;
}

/*
 * The schema a new graph goes into, as CREATE TABLE picks it: the named one, or the first schema
 * of the search_path; the caller needs CREATE on it. Temporary schemas are refused: a graph
 * would outlive the session that owns the schema.
 */
static Oid
creation_schema(const GraphName &name) {
	return guard([&] {
		List *names = name.schema.empty() ? list_make1(makeString(pstrdup(name.name.c_str())))
		                                  : list_make2(makeString(pstrdup(name.schema.c_str())),
		                                               makeString(pstrdup(name.name.c_str())));
		char *object;
		Oid schema = QualifiedNameGetCreationNamespace(names, &object);
		if (isAnyTempNamespace(schema))
			ereport(ERROR, (errcode(ERRCODE_INVALID_SCHEMA_DEFINITION),
			                errmsg("a pg_grail graph cannot be created in a temporary schema"),
			                errhint("Name a permanent schema, as in 'public.%s'.", name.name.c_str())));
		AclResult acl = pg_namespace_aclcheck(schema, GetUserId(), ACL_CREATE);
		if (acl != ACLCHECK_OK)
			aclcheck_error(acl, OBJECT_SCHEMA, get_namespace_name(schema));
		return schema;
	});
}

/*
 * A table of the edge table's family (edge_table, for messages) whose rows a graph can keep:
 * permanent (a temporary table ends with its session, and another table may later take its oid;
 * an unlogged one is emptied by crash recovery, which fires no trigger), and stored here (not a
 * foreign table, whose rows change elsewhere).
 */
static void
check_storage(Oid table, Oid edge_table) {
	char persistence = relation_persistence(table);
	const char *name = relation_name(table);
	const char *what = table == edge_table ? "the edge table" : "a table of the edge table's inheritance family";
	if (persistence == RELPERSISTENCE_TEMP)
		raise(ERRCODE_FEATURE_NOT_SUPPORTED,
		      format("%s \"%s\" is temporary, so a pg_grail graph cannot be built over it", what, name),
		      "Build the graph over a permanent table.",
		      "A graph is a permanent catalog object; a temporary table ends with its session.");
	if (persistence == RELPERSISTENCE_UNLOGGED)
		raise(ERRCODE_FEATURE_NOT_SUPPORTED,
		      format("%s \"%s\" is unlogged, so a pg_grail graph cannot be built over it", what, name),
		      format("Make it logged first: ALTER TABLE %s SET LOGGED.", name),
		      "Crash recovery empties an unlogged table without firing the triggers that keep a graph in step with "
		      "its rows.");
	if (relation_kind(table) == RELKIND_FOREIGN_TABLE)
		raise(ERRCODE_WRONG_OBJECT_TYPE,
		      format("%s \"%s\" is a foreign table, whose rows pg_grail can neither read nor watch", what, name),
		      "Copy its edges into a local table.");
}

/*
 * What a build needs of the edge table, checked at every create and refresh: it exists and the
 * caller may read it (schema, policies), and may lock and keep triggers on it and on the rest of
 * its inheritance family (ancestors, whose writes can reach its rows; descendants, which a build
 * reads as SELECT does).
 */
static void
check_buildable(Oid relid) {
	check_table_access(relid);
	// A system catalog or a view keeps no trigger and is read in each statement's snapshot, as the
	// querying role: reading it (the edge columns, checked next) is all a graph over it needs.
	if (statement_source(relid)) {
		// A temporary view ends with its session, with no event to drop its graphs.
		if (view_source(relid))
			check_storage(relid, relid);
		return;
	}
	TableFamily family = table_family(relid);
	for (const std::vector<Oid> *tables : {&family.ancestors, &family.descendants})
		for (Oid table : *tables) {
			check_storage(table, relid);
			check_build_rights(table);
		}
}

/*
 * The kinds of relation a graph reads: a table, a partitioned table, a materialized view; a clear
 * error for any other.
 */
static void
check_source_kind(Oid relid, char relkind) {
	const char *name = relation_name(relid);
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE && relkind != RELKIND_MATVIEW &&
	    relkind != RELKIND_VIEW)
		raise(ERRCODE_WRONG_OBJECT_TYPE, format("\"%s\" is not a table", name),
		      "pg_grail reads edges from a table, a partitioned table, a materialized view or a view; copy the "
		      "edges of a foreign table into a table.");
}

/*
 * What create_graph, refresh_graph and merge_graph say of a graph over a view or a system catalog,
 * which stores no build (every statement reads the rows; for a view, what one role's read would
 * hold is no answer for another): the graph of the rows the calling role reads now (in the
 * statement's snapshot, which also checks that it can), and how it answers.
 */
static std::string
statement_summary(const GraphName &graph_name, const GraphRow &row) {
	StoredBuild stats;
	Snapshot snapshot = guard([] { return ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot(); });
	grail::Index index = build_index(graph_name.display.c_str(), row, snapshot, &stats);
	std::string summary =
	    format("graph \"%s\": over %s \"%s\", read as the querying role in every statement, "
	           "nothing stored (as role \"%s\" now: %lld vertices, %lld edges)",
	           graph_name.display.c_str(), view_source(row.relid) ? "view" : "system catalog", relation_name(row.relid),
	           role_name(GetUserId()), (long long)stats.vertices, (long long)stats.edges);
	if (stats.null_rows > 0)
		summary += " (" + std::to_string(stats.null_rows) + " rows with a NULL endpoint skipped)";
	return summary;
}

std::string
create_graph(const GraphName &graph_name, GraphRow row, const char *source, const char *target, const char *filter) {
	if (row.labels < 1 || row.labels > int(grail::kMaxLabels))
		raise(ERRCODE_INVALID_PARAMETER_VALUE,
		      format("labels must be between 1 and %u, not %d", grail::kMaxLabels, row.labels),
		      "2 labels (the default) suit the graphs measured; more make the build longer and the index larger, and "
		      "rarely a query faster.");
	const char *table = relation_name(row.relid);
	if (table == nullptr)
		raise(ERRCODE_UNDEFINED_TABLE, format("relation with OID %u does not exist", row.relid));
	// Tables fire the triggers that mark their graphs stale; a materialized view changes only by
	// REFRESH MATERIALIZED VIEW, which an event trigger sees; views and foreign tables hold rows
	// pg_grail cannot watch.
	char relkind = relation_kind(row.relid);
	check_source_kind(row.relid, relkind);
	if (relkind == RELKIND_MATVIEW && row.live)
		raise(ERRCODE_FEATURE_NOT_SUPPORTED,
		      format("\"%s\" is a materialized view, so a pg_grail graph over it cannot be live", table),
		      "Create the graph with live => false: REFRESH MATERIALIZED VIEW then makes it stale until "
		      "grail.refresh_graph() rebuilds it.",
		      "A live graph logs each write to its table through triggers; a materialized view fires none, and its "
		      "rows change only all at once, by REFRESH MATERIALIZED VIEW.");
	row.schema = creation_schema(graph_name);
	check_buildable(row.relid);
	row.source_attnum = column_attnum(row.relid, source, "source");
	row.target_attnum = column_attnum(row.relid, target, "target");
	if (row.source_attnum == row.target_attnum)
		raise(ERRCODE_INVALID_PARAMETER_VALUE,
		      format("the source and target columns of a graph must differ, not both \"%s\"", source),
		      "Name the edge table's two columns: grail.create_graph(name, table, source_column, target_column).");
	check_edge_columns(row.relid, row.source_attnum, row.target_attnum);
	// A view's own WHERE clause is its filter; a second one would run the graph owner's
	// expression as each querying role.
	if (filter != nullptr && relkind == RELKIND_VIEW)
		raise(ERRCODE_FEATURE_NOT_SUPPORTED, format("a pg_grail graph over view \"%s\" takes no filter", table),
		      "Put the condition in the view (CREATE OR REPLACE VIEW ... WHERE ...), or create another view with it.",
		      "A graph over a view reads the view's query as each querying role; its rows are what the view gives "
		      "that role.");
	if (filter != nullptr) {
		CheckedFilter checked = check_new_filter(row.relid, filter);
		row.filter = checked.sql;
		row.filter_columns = checked.columns;
	}

	lock_graph_name(row.schema, graph_name.name.c_str());
	GraphRow existing;
	if (find_graph_in(&row.schema, 1, graph_name.name.c_str(), &existing, true))
		raise(ERRCODE_DUPLICATE_OBJECT,
		      format("pg_grail graph \"%s\" already exists in schema \"%s\"", graph_name.name.c_str(),
		             namespace_name(row.schema)),
		      "Rebuild it with grail.refresh_graph(), or drop it with grail.drop_graph().");
	// A graph over a system catalog or a view logs nothing (no trigger can be put on a catalog; a
	// view's rows change with everything under it), whatever live asked: every query reads it in
	// its own snapshot as its own role (open_graph.cpp).
	bool per_statement = statement_source(row.relid);
	if (per_statement)
		row.live = false;
	row.id = insert_graph(graph_name.name.c_str(), row);
	// Nor does it store a build, which no query would use.
	if (per_statement)
		return statement_summary(graph_name, row);

	watch_graph(row.id);
	// The first build reads the table under the lock that making the triggers took (no writer can
	// come between), like a graph that is not live; from its commit on, writes are logged.
	GraphRow building = row;
	building.live = false;
	return build_graph(graph_name, building, BuildCommand::create_graph, grail::now_ms());
}

/*
 * Takes the ACCESS SHARE locks that a build's read of the tables needs, on relid and its
 * descendants, if no other transaction holds a lock that conflicts (false, holding what it took
 * until the end of the transaction, if one does).
 */
static bool
lock_tables_at_once(Oid relid) {
	TableFamily family = table_family(relid);
	return guard([&] {
		for (Oid table : family.descendants)
			if (!ConditionalLockRelationOid(table, AccessShareLock))
				return false;
		return true;
	});
}

/*
 * refresh_graph, merge_graph and a background merge. A graph that is not live is rebuilt under SHARE locks on its
 * tables (its triggers mark it stale: no write may come between the read and the commit). A live
 * graph's writers are not blocked: the build reads one snapshot and takes in the pending changes
 * that snapshot sees; the others stay pending. A stale live graph (a write through an ancestor,
 * a trigger disabled meanwhile) is rebuilt as a graph that is not live, so that it ends in step.
 */
static std::string
rebuild(const GraphName &name, BuildCommand command, int64_t background_id, bool *merged, bool *busy) {
	double started = grail::now_ms();
	GraphRow row = existing_graph(name, false);
	// A background merge never blocks writers: it leaves a graph alone that would need the SHARE
	// lock (no longer live, stale, triggers gone), or that is not the one it was asked to merge.
	bool background = background_id != 0;
	if (background && (row.id != background_id || !row.live || row.stale || !row.watched))
		return std::string();
	// A background merge waits for no lock: one worker serves every database by default, and a
	// transaction that holds a lock on one of the graph's tables that a read waits for (its owner's
	// LOCK TABLE, left idle) would stall every merge. Taken before the checks: reading the stored
	// filter back opens the table. The graph's row is locked after, as below.
	if (background && !lock_tables_at_once(row.relid)) {
		*busy = true;
		return std::string();
	}
	check_buildable(row.relid);
	check_edge_columns(row.relid, row.source_attnum, row.target_attnum);
	if (!row.filter.empty())
		check_stored_filter(row.relid, row.filter, name.display.c_str(), row.owner);
	// A view's or a catalog's graph has no build to make nor changes to merge: it says what a read
	// gives now.
	if (statement_source(row.relid))
		return statement_summary(name, row);
	// Table lock first, then the graph row: a writer of the table holds its lock while its
	// trigger waits for the row, so the other order could deadlock with it.
	bool blocking = !row.live || row.stale || !row.watched;
	if (blocking)
		lock_relation(row.relid, ShareLock);
	// Nor for the graph's row (its owner's merge_graph(), left idle): it leaves such a graph and
	// tells its worker to come back later (busy); a graph dropped meanwhile, whose row is gone,
	// looks the same, and the next look finds it gone.
	if (background && !find_graph(name, &row, true, true)) {
		*busy = true;
		return std::string();
	}
	// A graph given away meanwhile, or no longer one it may merge, is no error for a background
	// merge, which leaves it.
	if (background && (row.id != background_id || !row.live || row.stale || !row.watched ||
	                   !has_privileges_of(GetUserId(), row.owner)))
		return std::string();
	if (!background)
		row = existing_graph(name, true);
	if (row.live && (row.stale || !row.watched) && !blocking) {
		lock_relation(row.relid, ShareLock);
		blocking = true;
	}
	// Re-making the triggers (CREATE OR REPLACE TRIGGER) takes a SHARE ROW EXCLUSIVE lock on the
	// tables, held to the commit: a merge of a live graph whose triggers are all in place (what
	// it checked) leaves them, so that writers are not blocked during its build.
	if (blocking)
		watch_graph(row.id);
	GraphRow building = row;
	building.live = row.live && !blocking;
	std::string summary = build_graph(name, building, command, started);
	if (merged != nullptr)
		*merged = true;
	return summary;
}

std::string
rebuild_graph(const GraphName &name, BuildCommand command) {
	return rebuild(name, command, 0, nullptr, nullptr);
}

/*
 * A background merge of graph id (src/pg/entry/merge_worker.cpp): what its owner's merge_graph() would
 * do, run as the owner, so that it can do nothing the owner could not; skipped (false) unless the
 * graph is live, answering and still has its owner, and (false, with busy set) while another
 * transaction holds a lock that the merge would wait for.
 */
bool
background_merge(int64_t id, std::string *summary, bool *busy) {
	GraphIdentity graph;
	if (!graph_identity(id, &graph) || !graph.live || graph.stale)
		return false;
	bool owner_exists = guard([&] { return SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(graph.owner)); });
	const char *schema = namespace_name(graph.schema);
	// Said at each pass: DROP ROLE run in another database drops a role that owns graphs here (its
	// check sees only its own database), and then only the growing pending changes showed it.
	if (!owner_exists && schema != nullptr)
		guard([&] {
			ereport(WARNING,
			        (errcode(ERRCODE_UNDEFINED_OBJECT),
			         errmsg("pg_grail graph \"%s.%s\" is not merged in the background: its owner (role oid %u) no "
			                "longer exists",
			                schema, graph.name.c_str(), graph.owner),
			         errdetail("A DROP ROLE run in another database does not see the graphs of this one."),
			         errhint("A superuser can merge it with grail.merge_graph(), or drop it with grail.drop_graph() "
			                 "for its table's owner to create it again.")));
		});
	if (!owner_exists || schema == nullptr)
		return false;
	GraphName name;
	name.schema = schema;
	name.name = graph.name;
	name.display = name.schema + "." + name.name;
	name.quoted = name.display;
	// As VACUUM and REFRESH MATERIALIZED VIEW run a table owner's code.
	RunAsRole owner(graph.owner, SECURITY_RESTRICTED_OPERATION, false);
	bool merged = false;
	*summary = rebuild(name, BuildCommand::background_merge, id, &merged, busy);
	return merged;
}

/*
 * alter_graph(name, live): under SHARE locks on the edge table and its descendants (as a build reads
 * them), so that every writer's trigger reads the graph's new mode (it reads the latest row after
 * taking its own lock) or has finished: a writer of a partition holds only ACCESS SHARE on the edge
 * table, so a lock on that alone let it log, unseen, into a graph turning not live. (A write through
 * an ancestor marks the graph stale whatever its mode.)
 */
void
alter_graph(const GraphName &name, bool live) {
	GraphRow row = existing_graph(name, false);
	if (view_source(row.relid))
		raise(ERRCODE_FEATURE_NOT_SUPPORTED,
		      format("pg_grail graph \"%s\" is over the view \"%s\": it is neither live nor static",
		             name.display.c_str(), relation_name(row.relid)),
		      "Nothing to change: every query reads the view in its own snapshot, as its own role, so the graph "
		      "always answers for the rows the query would see.");
	if (catalog_source(row.relid))
		raise(ERRCODE_FEATURE_NOT_SUPPORTED,
		      format("pg_grail graph \"%s\" is over the system catalog \"%s\", which takes no triggers: it is "
		             "neither live nor static",
		             name.display.c_str(), relation_name(row.relid)),
		      "Nothing to change: every query reads the catalog in its own snapshot, so the graph always answers for "
		      "the rows the query sees.");
	if (live && relation_kind(row.relid) == RELKIND_MATVIEW)
		raise(ERRCODE_FEATURE_NOT_SUPPORTED,
		      format("pg_grail graph \"%s\" is over a materialized view, so it cannot be live", name.display.c_str()),
		      "REFRESH MATERIALIZED VIEW makes it stale; grail.refresh_graph() rebuilds it.",
		      "A materialized view fires no triggers: its rows change only by REFRESH MATERIALIZED VIEW.");
	guard([&] { list_free(find_all_inheritors(row.relid, ShareLock, NULL)); });
	row = existing_graph(name, true);
	set_graph_live(row.id, live);
}

void
drop_graph(int64_t id) {
	delete_graph(id);
	forget_graph(id);
	forget_images(id);
}

void
drop_graph(const GraphName &name) {
	drop_graph(existing_graph(name, true).id);
}

} // namespace grail::pg
