// What builds and merges are doing now (grail.activity), and which databases have new pending
// changes (for the merge launcher, src/pg/entry/merge_worker.cpp), in one segment of shared memory.
//
// The segment exists only when pg_grail is in shared_preload_libraries; without it every call
// here does nothing and grail.activity shows no progress. Each backend writes only its own
// progress slot (indexed by its backend id, under the slot's spinlock); the per-database counters
// are atomics. Nothing decides an answer from them: a lost update could only misreport, or start
// a merge worker that finds nothing to do.
#pragma once

#include <cstdint>

#include "boundary/guard.hpp"

extern "C" {
#include "access/attnum.h"
#include "datatype/timestamp.h"
}

namespace grail::pg {

// Asks for the segment and its lock, from the shared-memory request hook
// (src/pg/store/shared_state.cpp); attaches it (making it, the first time), from the startup hook
// under AddinShmemInitLock.
void request_activity_shmem();
void attach_activity_shmem();

// Whether the segment exists in this server.
bool activity_enabled();

// What a progress slot shows: a build or merge, or a long search over a graph's build.
enum class BuildCommand { create_graph, refresh_graph, merge_graph, background_merge, chordless_cycles };

// Every phase has a done (0 on entering it), which counts what the glue sees finish: rows read and
// bytes stored as they go; the engine's steps (graph, components, labels) report their total once
// they return.
enum class BuildPhase {
	starting,
	reading_rows,     // done: rows read; total: the tables' row estimate (pg_class.reltuples), if any
	building_graph,   // dense ids, CSR, key dictionary; total: rows read
	components,       // strongly connected components; total: vertices
	labels,           // GRAIL labels of the condensation (then Bloom labels, id hash); total: DAG vertices
	deleting_changes, // a merge deletes the pending changes its snapshot read; total: their edge changes
	storing,          // done and total: index bytes written to grail.index_chunk
	searching_cycles, // chordless_cycles(): done: start vertices whose cycles are all found; total: vertices
};

// This backend's build or merge of one graph (or search over one, chordless_cycles), shown by
// grail.activity while the object lives; one at a time per backend (a second one shows nothing,
// and while it lives the progress reported is its own: the first one's row stays as it was).
// Progress is reported through the free functions below, which do nothing without one. name: the
// graph's own name, without its schema (grail.activity shows the schema beside it).
class BuildProgress {
public:
	BuildProgress(BuildCommand command, int64_t graph_id, Oid schema, const char *name, Oid relid, AttrNumber source,
	              AttrNumber target);
	~BuildProgress();
	BuildProgress(const BuildProgress &) = delete;
	BuildProgress &operator=(const BuildProgress &) = delete;

	// Whether this object holds the backend's slot (progress_phase() and progress_done() write it).
	bool
	active() const noexcept {
		return active_;
	}

private:
	bool active_ = false;
	bool muting_ = false;
};

// A build or merge in progress, as grail.activity shows it.
struct BuildActivity {
	int pid;
	int64_t graph_id;
	Oid schema;
	char name[NAMEDATALEN];
	Oid relid;
	AttrNumber source, target;
	const char *command; // create_graph, refresh_graph, merge_graph or background merge
	const char *phase;
	const char *unit;    // of done and total, or null
	int64_t done, total; // -1: unknown
	TimestampTz started, phase_started;
};
// The builds and merges in progress in this database: count of them in a palloc'd array (null
// without the preload).
BuildActivity *builds_in_progress(int *count);

// Enters a phase (done 0); total < 0: unknown. Plain shared-memory writes, which cannot fail.
void progress_phase(BuildPhase phase, int64_t total = -1);
void progress_done(int64_t done);

// Counts edge changes that a change_log trigger wrote to grail.pending_change in this database, and wakes
// the merge launcher when they pass a multiple of grail.merge_threshold.
void note_pending_changes(uint64_t edges);

// Two-phase commit, from the ProcessUtility hook (src/pg/entry/owner_hooks.cpp): the name of the
// transaction that PREPARE TRANSACTION is about to prepare (its changes are kept under it), and a
// COMMIT PREPARED (committed) or ROLLBACK PREPARED that has finished it (its changes are counted,
// or forgotten).
void note_prepare_transaction(const char *gid);
void note_prepared_finished(const char *gid, bool committed);

// For the launcher (src/pg/entry/merge_worker.cpp), under no lock of its own.
struct DatabaseChanges {
	Oid database;
	uint64_t logged; // rows logged since the server started (a counter that only grows)
	bool urgent;     // a multiple of grail.merge_threshold was passed since the last call
	bool failed;     // a merge worker's merge failed or was cancelled since the last call
};
// From a merge worker whose merge failed: the launcher retries the database later.
void note_merge_failed();
// Registers the calling process as the launcher (its latch is set on urgent changes).
void set_merge_launcher(bool running);
// Fills up to max entries; returns how many. Clears the urgent flags it reports; *rescan: some
// database found no counter slot, so its changes are counted nowhere (the launcher must look at
// every database), cleared too.
int database_changes(DatabaseChanges *out, int max, bool *rescan);
// Frees the counter slot of a database that no longer exists.
void forget_database(Oid database);
// The number of counter slots.
int database_slots();

} // namespace grail::pg
