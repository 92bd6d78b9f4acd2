// Reading a graph's edges from its table: one direct heap scan, no SPI, no per-row allocation.
#pragma once

#include "graph.hpp"
#include "keys.hpp"

#include "guard.hpp"

extern "C" {
#include "access/attnum.h"
#include "utils/snapshot.h"
}

namespace grail::pg {

// Checks that relid exists, that the current user has USAGE on its schema, and that no
// row-level security policy of the table applies to the current user (a graph holds every row);
// raises a clear error otherwise. Run before check_edge_column, for every build and query.
void check_table_access(Oid relid);

// Checks that the current user may build a graph over relid: a build locks the table in SHARE
// mode and keeps a trigger on it, so it needs the table's ownership or the TRIGGER privilege
// with one of UPDATE, DELETE or TRUNCATE (what LOCK TABLE ... IN SHARE MODE needs).
void check_build_rights(Oid relid);

// Checks that attnum is a live column of relid of a type vertices can be keyed by (int2, int4,
// int8, text, varchar, uuid) that the current user may SELECT; raises a clear error otherwise.
// what: "source" or "target", for messages.
void check_edge_column(Oid relid, AttrNumber attnum, const char *what);

struct EdgeScan {
	uint64_t rows = 0;
	uint64_t null_source = 0;
	uint64_t null_target = 0;
};

// Reads all (source, target) pairs of the table and its inheritance descendants, as SELECT does.
// Without a snapshot: takes SHARE locks on them, held to the end of the transaction, so no write
// can slip between this read and the commit of the index built from it, and reads the latest
// snapshot. With one: reads what it sees, under ACCESS SHARE locks, as a query does (a live
// graph's queries and merges, whose pending changes account for the writes it does not see).
// Rows with a NULL endpoint are counted and skipped; the caller decides whether that is an error.
// More than max_rows rows (0: any number) is an error naming grail.build_memory_limit.
// keys: for text or uuid edge columns, collects the keys, and edges receives its provisional ids;
// nullptr for integer columns, whose values are the ids.
EdgeScan read_edges(Oid relid, AttrNumber source, AttrNumber target, uint64_t max_rows, EdgeList *edges,
                    grail::KeyDictionaryBuilder *keys, Snapshot snapshot = nullptr);

} // namespace grail::pg
