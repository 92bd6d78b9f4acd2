// The rows of bfs(), descendants() and ancestors() handed to a plan one at a time
// (traversal_scan.cpp) instead of written to a tuplestore: a call made with a TraversalCall as its
// fcinfo->context runs the search as any call does (the same checks, errors and snapshot) and
// keeps the result there; the caller then forms each row from it as the plan asks for it.
#pragma once

extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "nodes/extensible.h"
}

namespace grail::pg {

// A search's result and what its rows are formed with (bfs.cpp).
struct TraversalRows;

// fcinfo->context of a call whose rows the caller takes one at a time. An ExtensibleNode so that
// code reading the context by its tag sees a node that is none of the executor's.
struct TraversalCall {
	ExtensibleNode node; // extnodename: kTraversalCallName
	// The key column's attlen in the rows (8, 4 or 2 for integer keys by value, -1 or 16 for text
	// and uuid), set by the caller: an integer key's datum is formed as that width's.
	int16 key_length;
	// Whether the plan reads the vertex or parent column; when it reads neither (a count, the depths
	// alone) their keys are not formed and the columns are NULL.
	bool keys_read;
	// Set by the call: null where it gave no rows (a NULL graph or source).
	TraversalRows *rows;
};

extern const char *const kTraversalCallName;

// The TraversalCall of fcinfo, or null for an ordinary call.
TraversalCall *traversal_call(FunctionCallInfo fcinfo);

// The next row in values/nulls (as many as the function's columns: vertex, depth[, parent]);
// false after the last. A key's datum stays valid until the next call. Allocates, when at all, in
// CurrentMemoryContext (keys answered as text) or once for the scan's key buffers.
bool next_traversal_row(TraversalRows *rows, Datum *values, bool *nulls);

// The number of rows handed out before the next one (0: none yet), and a move to such a position
// (no more than the rows): a rescan whose arguments did not change goes back to 0, a backward step
// to a row before.
size_t traversal_row_position(const TraversalRows *rows);
void set_traversal_row_position(TraversalRows *rows, size_t position);

// Frees the result; null is fine.
void free_traversal_rows(TraversalRows *rows);

} // namespace grail::pg
