// grail.pending_change, the change log of live graphs: the one place that knows its rows,
// (graph_id, change, source int8[], target int8[], source_key text[], target_key text[], xid xid8). A row
// holds a batch of edges changed by one change value (an edge row written, change > 0, or removed,
// change < 0, |change| times): their endpoints in source and target for integer keys, in
// source_key and target_key as text otherwise (uuid in its text form); all four arrays NULL: a
// TRUNCATE's marker. The log trigger (src/pg/entry/change_log.cpp) writes it, a query reads what
// its snapshot sees of it, a build deletes what it took in. xid: the writer's top-level transaction,
// which orders the log for a reader that reads only what was logged since its last read (index
// (graph_id, xid)).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "boundary/guard.hpp"

extern "C" {
#include "nodes/execnodes.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"
}

namespace grail::pg {

// The changes to a live graph's edge table that the active snapshot sees: how many rows, and a
// fingerprint of which (their row versions), which differs between two snapshots that see
// different rows.
struct PendingChanges {
	uint64_t rows = 0;
	uint64_t fingerprint = 0;
};
PendingChanges visible_pending_changes(int64_t graph_id);

// One edge of those rows: an edge row written (change > 0) or removed (change < 0), |change|
// times; the endpoints as integers or as text (uuid in its text form), by the graph's kind of key;
// has_source or has_target false for a NULL endpoint; integer: the row holds integer keys (once
// the edge columns changed type, rows hold keys of another kind than the graph's build). A
// TRUNCATE's marker has neither endpoint.
struct PendingRow {
	int change = 0;
	bool integer = false;
	bool has_source = false, has_target = false;
	int64_t source = 0, target = 0;
	std::string source_key, target_key;
};
// The edges themselves, in index order (so in an order a fingerprint of them would follow).
std::vector<PendingRow> visible_pending_rows(int64_t graph_id);

// A row of the log, told apart from every other row a snapshot may see: its place and the
// transaction that wrote it (a place freed by VACUUM and reused holds a row of another one).
struct PendingRowId {
	uint32_t block = 0;
	uint32_t offset = 0;
	uint32_t xmin = 0;
	bool
	operator<(const PendingRowId &other) const noexcept {
		return block != other.block     ? block < other.block
		       : offset != other.offset ? offset < other.offset
		                                : xmin < other.xmin;
	}
	bool
	operator==(const PendingRowId &other) const noexcept {
		return block == other.block && offset == other.offset && xmin == other.xmin;
	}
};

// What a reader keeps of the log rows one snapshot saw, to read in a later snapshot of the same
// backend only the rows logged since (read_pending_since). A row's xid is its writer's top-level
// transaction (the log trigger, or the xid trigger for rows written by SQL, sets it). The snapshot
// counted every transaction below xmax and not in running as ended, so it saw every row of theirs
// that a later snapshot that counts them as ended too sees; running: the transactions it counted
// as in progress, and this backend's own, whose rows it may have seen in part; recent: the rows it
// saw of running transactions or of transactions at or past xmax (this backend's own). A later
// read looks only at the rows of running transactions and of those at or past xmax: a few under a
// steady stream of writes, however long another transaction (a merge) stays open, and whatever
// the log holds.
struct PendingLog {
	uint64_t rows = 0;                // rows seen (batches of edges)
	bool bounded = false;             // false: no later read may start from it (read_pending_log then)
	uint64_t xmax = 0;                // full transaction ids
	std::vector<uint64_t> running;    // sorted
	std::vector<PendingRowId> recent; // sorted
};

// The edges of every row of the log of the graph that the active snapshot sees (as
// visible_pending_rows), and what to read from next time (log).
void read_pending_log(int64_t graph_id, std::vector<PendingRow> &edges, PendingLog &log);

// The edges of the rows of the log that the active snapshot sees and last did not, where it sees
// every row that last saw: reads only the rows of last's running transactions and of those at or
// past last's xmax. false where that may not hold: last not bounded, the active snapshot counts as
// in progress a transaction that last counted as ended (an imported or older snapshot), or a row
// last saw that it does not see (a transaction of this backend that aborted, a subtransaction
// rolled back); then read_pending_log. next: what to read from after this snapshot.
bool read_pending_since(int64_t graph_id, const PendingLog &last, std::vector<PendingRow> &edges, PendingLog &next);

// What a build's snapshot counted as ended, recorded with the build (grail.graph.build_xmax,
// build_running) so that a reader's overlay of an older build can be carried across it
// (build_carries): its xmax and the transactions it counted as in progress, as full ids, sorted.
// false where none may be recorded: the build's own transaction logged rows of the graph that the
// snapshot sees, which the build deletes and no other snapshot saw (or an id is not a normal one).
bool build_horizon(int64_t graph_id, Snapshot snapshot, uint64_t *xmax, std::vector<uint64_t> &running);

// Whether every log row a build deleted was seen by the snapshot last was read in: every
// transaction the build's snapshot counted as ended (below build_xmax, not in build_running),
// last counted as ended too. Then the edge table now is what last's snapshot saw and the rows of
// the transactions it did not count as ended, none of which the build deleted: read_pending_since
// reads them from last as if no build had run.
bool build_carries(const PendingLog &last, uint64_t build_xmax, const std::vector<uint64_t> &build_running);

// Deletes the graph's rows that snapshot sees: the changes a build that read the edge table in
// that snapshot has taken in (all of them without a snapshot).
void delete_pending_changes(int64_t graph_id, Snapshot snapshot);

// The edge changes of the graph's rows of grail.pending_change that snapshot sees (the latest
// snapshot without one), counted as grail.graphs counts them (a TRUNCATE's marker as one): what a
// merge in that snapshot folds in.
int64_t count_pending_edges(int64_t graph_id, Snapshot snapshot);

// Sets grail.graph.live; a graph no longer live loses its log, and is stale if it had any.
void set_graph_live(int64_t graph_id, bool live);

// The live graphs that are not stale and have at least threshold edge changes logged (in a new
// snapshot), by id.
std::vector<int64_t> graphs_to_merge(int64_t threshold);

// The oid of grail.pending_change, InvalidOid if it is missing (PostgreSQL calls: inside guard()).
Oid pending_change_table();

// Writes rows of grail.pending_change through the table and index access methods, as an INSERT's
// executor would (toasting included): no SQL to plan. PostgreSQL calls only: inside guard(). An
// error aborts the transaction, which closes the table.
class PendingChangeInserter {
public:
	// Opens table (pending_change_table()) for inserts, its state allocated in context, and checks
	// that its columns are the ones this library writes.
	void open(Oid table, MemoryContext context);
	bool
	is_open() const {
		return rel_ != nullptr;
	}
	// One row of count edges of one change value: their endpoints as int8 datums (integer) or text
	// datums, NULL where source_nulls or target_nulls say (any_null: some may be). Its arrays are
	// made in CurrentMemoryContext.
	void insert_edges(int64_t graph_id, int change, bool integer, const Datum *sources, const bool *source_nulls,
	                  const Datum *targets, const bool *target_nulls, int count, bool any_null);
	// A TRUNCATE's marker: change 0, no endpoints.
	void insert_marker(int64_t graph_id);
	// Closes the table; later commands see the rows.
	void close();

private:
	void insert(int64_t graph_id, int change, int first, Datum source, Datum target, bool marker);

	Relation rel_ = nullptr;
	EState *estate_ = nullptr;
	ResultRelInfo *result_ = nullptr;
	TupleTableSlot *slot_ = nullptr;
};

} // namespace grail::pg
