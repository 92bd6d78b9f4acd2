// Reading a graph's edges from its table: one direct heap scan, no SPI, no per-row allocation.
#pragma once
#include <functional>

#include "graph.hpp"
#include "keys.hpp"

#include "gpu_service/rows_file.hpp"

#include "boundary/guard.hpp"

extern "C" {
#include "access/attnum.h"
#include "access/tupdesc.h"
#include "utils/snapshot.h"
}

namespace grail::pg {

// Checks that relid exists, that the current user has USAGE on its schema, and that no
// row-level security policy of the table applies to the current user (a graph holds every row);
// raises a clear error otherwise. Run before check_edge_columns, for every build and query.
void check_table_access(Oid relid);

// Whether relid is a system catalog (pg_auth_members, pg_inherits, ...): no trigger may be put
// on one, so a graph over it is never watched; it is read in each statement's snapshot instead.
bool catalog_source(Oid relid);

// Whether relid is a plain view: its rows are what its query gives the role that reads it, so a
// graph over one is read in each statement's snapshot as the current role (read_edges runs the
// view's query through the executor), never kept beyond the statement.
bool view_source(Oid relid);

// Whether a graph over relid is read in each statement's snapshot rather than answered from a
// stored build: a system catalog or a view.
bool statement_source(Oid relid);

// Checks that the current user may build a graph over relid: a build locks the table in SHARE
// mode and keeps a trigger on it, so it needs the table's ownership or the TRIGGER privilege
// with one of UPDATE, DELETE or TRUNCATE (what LOCK TABLE ... IN SHARE MODE needs).
void check_build_rights(Oid relid);

// Checks that attnum is a live column of relid of a type vertices can be keyed by (int2, int4,
// int8, text, varchar, uuid) that the current user may SELECT; raises a clear error otherwise.
// what: "source" or "target", for messages.
void check_edge_column(Oid relid, AttrNumber attnum, const char *what);

// Checks both edge columns as check_edge_column does, and that they hold keys of one kind (what
// create_graph requires): a clear error otherwise. Run before every build and every query.
void check_edge_columns(Oid relid, AttrNumber source, AttrNumber target);

// The second half of check_edge_columns, for a caller that has checked each column already: that
// the two (each a key column) hold keys of one kind.
void check_edge_kinds(Oid relid, AttrNumber source, AttrNumber target);

// The two edge columns of one relation as its tuple descriptor has them now, and the one way
// pg_grail reads their datums: each through the type of its own column, never the other's. open()
// checks the columns (live, of a key type, both of one kind) before any datum is read.
// PostgreSQL calls: inside guard().
class EdgeColumns {
public:
	// False when either column is dropped or missing, is not of a key type, or the two hold keys
	// of different kinds; then nothing may be read.
	bool open(TupleDesc desc, AttrNumber source, AttrNumber target);
	grail::KeyKind
	kind() const {
		return kind_;
	}
	// 0: source, 1: target.
	AttrNumber
	attnum(int end) const {
		return attnums_[end];
	}
	// The larger of the two, for slot_getsomeattrs.
	AttrNumber
	last() const {
		return Max(attnums_[0], attnums_[1]);
	}
	// An integer key (kind() integer).
	int64_t integer(int end, Datum d) const;
	// A text or uuid key's bytes as the dictionary holds them (text bytes, a uuid's 16), without a
	// copy unless the datum is compressed or stored out of line (then *copy is the palloc'd copy,
	// to be freed).
	grail::KeyDictionaryBuilder::KeyRef bytes(int end, Datum d, struct varlena **copy) const;
	// The length of a text or uuid key's bytes, read from the datum's header: nothing is copied
	// or decompressed.
	uint64_t length(int end, Datum d) const;
	// A text or uuid key as a text datum with a 4-byte header (a uuid in its text form), palloc'd.
	Datum text(int end, Datum d) const;

private:
	AttrNumber attnums_[2] = {0, 0};
	Oid types_[2] = {InvalidOid, InvalidOid};
	grail::KeyKind kind_ = grail::KeyKind::integer;
};

struct EdgeScan {
	uint64_t rows = 0;
	uint64_t null_source = 0;
	uint64_t null_target = 0;
	uint64_t filtered = 0; // rows read that the graph's filter left out (counted in rows too)
};

// Reads all (source, target) pairs of the table and its inheritance descendants, as SELECT does.
// A view is read by its query, SELECT source, target FROM view, run through the executor as the
// current role in the snapshot given (else the active one), under the locks the query takes (the
// filter must be null: a view's graph takes none).
// Without a snapshot: takes SHARE locks on them, held to the end of the transaction, so no write
// can slip between this read and the commit of the index built from it, and reads the latest
// snapshot. With one: reads what it sees, under ACCESS SHARE locks, as a query does (a live
// graph's queries and merges, whose pending changes account for the writes it does not see).
// Rows with a NULL endpoint are counted and skipped; the caller decides whether that is an error.
// memory_limit (bytes, 0: none): more rows than the build's estimate allows, or text or uuid keys
// whose bytes would take the dictionary past it, are an error naming grail.build_memory_limit,
// raised before the keys are copied or decompressed.
// kind: the kind of key the build is of; the columns are checked under the locks
// (check_edge_columns, and each table's own columns) and must hold keys of that kind.
// keys: for text or uuid edge columns, collects the keys, and edges receives its provisional ids;
// nullptr for integer columns, whose values are the ids.
// rows_file: for integer columns only, where given, receives the rows instead of edges (a build
// through the GPU service: written once where the service reads them); nullptr otherwise.
// rows_on_device: for integer keys, asked (once per table, must not throw) when the rows pass what
// the host's steps may take under the limit: true if the GPU will make the graph from the rows,
// which then hold only the rows here (grail::estimate_build_bytes's rows_on_device), so that the
// limit allows more of them.
// filter: the graph's filter in its stored form (store/edge_filter.hpp), or nullptr: only rows it
// passes are read (a row it leaves out is counted in rows and filtered, and its NULLs are not);
// its functions run as filter_owner, the graph's owner.
EdgeScan read_edges(Oid relid, AttrNumber source, AttrNumber target, grail::KeyKind kind, uint64_t memory_limit,
                    EdgeList *edges, grail::service::RowsFile *rows_file, grail::KeyDictionaryBuilder *keys,
                    Snapshot snapshot = nullptr, const std::function<bool()> &rows_on_device = {},
                    const char *filter = nullptr, Oid filter_owner = InvalidOid);

} // namespace grail::pg
