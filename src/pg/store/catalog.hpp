// The extension's catalog (grail.graph, grail.index_chunk), read and written through SPI with the
// privileges of the extension's owner: users never touch these tables directly, and the functions
// check the caller's privileges on the edge table before calling in here.
//
// Every SQL text run here runs with CatalogRights, so the caller's search_path never reaches it,
// and names each operator, function and type with its schema as well (OPERATOR(pg_catalog.=)):
// a function or operator that a caller put in a schema of their search_path would otherwise run
// with the extension owner's rights.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "boundary/guard.hpp"
#include "boundary/run_as_role.hpp"

extern "C" {
#include "access/attnum.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"
}

namespace grail {
class ImagePieces;
}

namespace grail::pg {

struct GraphRow {
	int64_t id = 0;
	Oid schema = InvalidOid; // the graph's schema (grail.graph.namespace)
	Oid relid = InvalidOid;
	// The edge columns' numbers, found by the names the catalog records (0: no such column now).
	AttrNumber source_attnum = 0;
	AttrNumber target_attnum = 0;
	Oid owner = InvalidOid;
	int labels = 0;
	bool skip_nulls = false;
	int64_t build = 0;    // 0 before the first build
	int64_t built_at = 0; // grail.graph.built_at as a TimestampTz (0 before the first build)
	bool stale = false;
	bool live = false; // grail.graph.live: writes are logged to grail.pending_change
	int64_t index_bytes = 0;
	// The graph's triggers are in place on the tables its build recorded, which are still the edge
	// table's inheritance family (grail_internal._watched): otherwise a change could go unseen.
	bool watched = false;
	// The build's identity, never reused (build numbers restart with the extension).
	std::string build_uuid;
	// Where the build was made (grail.graph.built_in, build_scope()): empty before the first build.
	std::string built_in;
	// The graph's filter in its stored form (store/edge_filter.hpp); empty: every row is an edge.
	std::string filter;
	// The columns it reads, by name (grail.graph.filter_columns), written by insert_graph.
	std::vector<std::string> filter_columns;
	// A delta build (a merge that wrote only what changed: core/build_delta.hpp): its base build,
	// whose image is the graph's chunks from seq 0, and its delta, the chunks from seq -1 down;
	// index_bytes is then the size of the image the two make. base_build 0: a full build.
	int64_t base_build = 0;
	std::string base_build_uuid;
	int64_t base_index_bytes = 0;
	int64_t delta_changes = 0;
	int64_t delta_bytes = 0;
	// What the build's snapshot counted as ended (build_horizon, pending_changes.hpp): its xmax and
	// the transactions it counted as in progress, full ids, sorted; build_xmax 0: not recorded.
	uint64_t build_xmax = 0;
	std::vector<uint64_t> build_running;
	bool
	is_delta() const noexcept {
		return base_build > 0 && !base_build_uuid.empty();
	}
	// The row of the base build, as open_index opens a full build.
	GraphRow
	base_row() const {
		GraphRow base = *this;
		base.build = base_build;
		base.build_uuid = base_build_uuid;
		base.index_bytes = base_index_bytes;
		base.base_build = 0;
		base.base_build_uuid.clear();
		base.base_index_bytes = base.delta_changes = base.delta_bytes = 0;
		return base;
	}
};

// The identity of the place a build over relid is made in: the cluster's system identifier, the
// database's oid and relid as a number. grail.graph.relid is a regclass, so a restore (into
// another cluster or database, or with --clean into this one) resolves it to a new table, whose
// number differs from the one recorded here: a build keyed by oids (roles, relations, ...), which
// a restore renumbers, is then known to be of objects that are no longer these.
std::string build_scope(Oid relid);

// Runs the enclosing scope as the extension's owner (SECURITY_LOCAL_USERID_CHANGE, as
// PostgreSQL's own RI triggers do) with search_path = pg_catalog, pg_temp (as a SECURITY DEFINER
// function with SET search_path would). A transaction abort restores the caller's too.
class CatalogRights {
public:
	CatalogRights();

private:
	RunAsRole owner_;
};

// A graph name as SQL reads a table name: "deps", "app.deps", "\"My Graph\"" (unquoted parts fold
// to lower case). schema is empty when the name is unqualified.
struct GraphName {
	std::string schema;
	std::string name;
	std::string display; // schema.name or name, unquoted, for messages (as PostgreSQL names a table)
	std::string quoted;  // the name as SQL text would spell it, for hints
};
// Raises a clear error for a name that is empty, malformed or has more than two parts.
GraphName parse_graph_name(const char *text);

// Each of these connects to SPI, runs with CatalogRights, and disconnects.
// find_graph: the graph a name means, found as PostgreSQL finds a table: in the named schema (which
// needs USAGE) or the first schema of the search_path that has one; false if there is none. A
// query reads the row in its statement's snapshot, so that the row and the index chunks it loads
// next agree; for_change reads the latest committed row and locks it FOR UPDATE, and with
// skip_locked passes over a row that another transaction has locked (false, as if there were none)
// instead of waiting for it.
bool find_graph(const GraphName &name, GraphRow *row, bool for_change = false, bool skip_locked = false);
// The same in the first of the count schemas that has a graph of that name.
bool find_graph_in(const Oid *schemas, int count, const char *name, GraphRow *row, bool for_change,
                   bool skip_locked = false);
// Serialises create_graph calls for one name until the end of the transaction, so the second of
// two concurrent calls sees the first's graph and fails with a clear error.
void lock_graph_name(Oid schema, const char *name);
int64_t insert_graph(const char *name, const GraphRow &row);
// Drops the graph's catalog row (its chunks go with it) and its triggers.
void delete_graph(int64_t id);
// Puts the graph's staleness triggers on its edge table's family and records it (grail_internal._watch).
void watch_graph(int64_t id);

struct StoredBuild {
	int64_t input_rows, null_rows, vertices, edges, components, dag_edges, index_bytes;
	double read_ms, graph_ms, scc_ms, label_ms;
	double persist_ms;      // the image's serialisation or checksum (its caller's) and store_index's writing
	double build_ms;        // read to labels, wall clock
	std::string build_uuid; // the new build's, set by store_index
	int64_t written_bytes;  // to grail.index_chunk: the image's, or a delta build's delta's
	// What the build's snapshot counted as ended (GraphRow::build_xmax); 0: none recorded.
	uint64_t snapshot_xmax = 0;
	std::vector<uint64_t> snapshot_running;
};
// Whether a build is a merge, and which: store_index counts merges in the graph's row
// (grail.graphs: last_merge, merge_count, last_background_merge, background_merge_count), in the
// build's transaction, so that a merge that rolls back is not counted and the counts survive a
// restart, a dump and a standby's promotion.
enum class MergeKind { none = 0, by_hand = 1, background = 2 };
// A build stored as a delta from a base build (store_index's bytes are then the delta's).
struct StoredDelta {
	int64_t base_build = 0;
	std::string base_build_uuid;
	int64_t base_index_bytes = 0;
	int64_t changes = 0;     // of edges and vertices
	int64_t image_bytes = 0; // of the image base and delta make
};
// Replaces the graph's chunks with bytes and records the build (and the merge); returns the new
// build number. The bytes are copied a stretch at a time as they are compressed and written: an
// image in pieces (Index::image_pieces()) is never made whole. With delta, bytes are a delta's
// (ImagePieces::of its buffer): they replace only the last delta's chunks, and the base's stay.
int64_t store_index(int64_t id, const grail::ImagePieces &bytes, StoredBuild *stats, MergeKind merge = MergeKind::none,
                    const StoredDelta *delta = nullptr);
// A delta build's delta bytes, read from its chunks (row.delta_bytes of them).
std::vector<uint8_t> load_delta(const GraphRow &row);
// A clear error if the recorded size of the graph's index is impossible (it decides allocations).
void check_index_size(const GraphRow &row);
// The bytes the graph's full image chunks hold (seq >= 0), uncompressed: what a load would read.
int64_t stored_index_bytes(const GraphRow &row);
// The graph's index image, read from its chunks into image (row.index_bytes bytes).
void load_index(const GraphRow &row, uint8_t *image);

// The valid index of one of pg_grail's catalog tables whose key columns are exactly `columns`, found
// by its columns rather than its name, which a restore or an upgrade may have chosen; an error
// naming the columns (`what`) without one. PostgreSQL calls: inside guard().
Oid index_on(Relation rel, std::initializer_list<AttrNumber> columns, const char *what);

// Marks the graph stale (a write its graph cannot follow), as the extension's owner.
void mark_graph_stale(int64_t graph_id);

// The number of grail.graph's column named name in its descriptor (PostgreSQL calls: inside
// guard()); an error without one.
AttrNumber graph_column(TupleDesc desc, const char *name);

// What a background merge needs to know of a graph before it looks it up by name as its owner.
struct GraphIdentity {
	Oid schema = InvalidOid;
	std::string name;
	Oid owner = InvalidOid;
	bool live = false;
	bool stale = false;
};
bool graph_identity(int64_t id, GraphIdentity *graph);

// Whether pg_grail is installed in this database at this library's version (hooks skip quietly
// where it is not; the functions raise a clear error instead).
bool extension_in_step();
// Whether schema is one of pg_grail's in this database: its own or a member of it (grail_internal).
bool extension_schema(Oid schema);
// Whether role may write pg_grail's catalog tables: a superuser, or the extension's owner, whose
// rights pg_grail's own statements take (CatalogRights).
bool catalog_writer(Oid role);

// The graphs that any of roles owns, locked FOR UPDATE; name is schema-qualified and quoted.
struct OwnedGraph {
	int64_t id;
	std::string name;
};
std::vector<OwnedGraph> graphs_owned_by(const std::vector<Oid> &roles);
// Makes new_owner the owner of every graph that any of roles owns (REASSIGN OWNED).
void reassign_graphs(const std::vector<Oid> &roles, Oid new_owner);
// pg_grail's objects (grail_internal._objects(): its members and schema) and the extension itself
// that any of roles owns, each as pg_identify_object names it ("function grail.reachable(...)").
std::vector<std::string> extension_objects_owned_by(const std::vector<Oid> &roles);
// Makes new_owner the owner of the graphs over relation relid that old_owner owns (ALTER TABLE
// ... OWNER TO, which hands a table's indexes over as well).
void hand_over_relation_graphs(Oid relid, Oid old_owner, Oid new_owner);
// The graphs that hand_over_relation_graphs would give new_owner in a schema where new_owner has no
// CREATE (name schema-qualified and quoted).
std::vector<OwnedGraph> graphs_new_owner_cannot_create(Oid relid, Oid old_owner, Oid new_owner);

} // namespace grail::pg
