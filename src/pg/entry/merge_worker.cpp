// Background merges (README, Background merges): a launcher, registered at server start when
// pg_grail is preloaded, starts a worker per database whose live graphs may have passed
// grail.merge_threshold; the worker merges each such graph as grail.merge_graph() would, as the
// graph's owner, one transaction per graph. It waits for no other transaction's lock on a graph's
// row or tables (one worker serves every database by default): it leaves such a graph, and the
// launcher sends a worker back later.
//
// How the launcher learns of work without a catalog write per write statement: each transaction
// that logged pending changes adds their count, at commit, to its database's counter in shared
// memory (src/pg/store/activity.cpp), and wakes the launcher when the counter passes a multiple of the
// threshold. The launcher starts a worker for a database whose counter moved, at once when woken
// that way and otherwise at most once per grail.merge_naptime; at its start (the counters are not
// kept over a restart) and when a database found no counter slot, it looks at every database.
//
// This file runs outside any SQL function, so it is written as PostgreSQL's own background
// workers are: C-style, PostgreSQL errors handled with PG_TRY, and C++ code of the glue reached
// only through call_and_raise(), which turns its exceptions into PostgreSQL errors.
#include "index.hpp"

#include <cerrno>
#include <string>

#include <sys/resource.h>

#include "service/lifecycle.hpp"

#include "store/activity.hpp"
#include "store/catalog.hpp"
#include "store/pending_changes.hpp"
#include "entry/merge_worker.hpp"
#include "boundary/settings.hpp"

extern "C" {
#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "storage/lmgr.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timeout.h"
#include "utils/timestamp.h"

PGDLLEXPORT void grail_merge_launcher_main(Datum arg);
PGDLLEXPORT void grail_merge_worker_main(Datum arg);
}

using namespace grail::pg;

namespace {

// The launcher's view of one database.
struct DatabaseEntry {
	Oid database;    // hash key
	uint64_t logged; // the database's counter as last read
	uint64_t seen;   // the counter when its last worker started
	bool check;      // look at it once (launcher start, rescan, a worker that could not start)
	bool urgent;     // a multiple of the threshold was passed since its last worker started
	TimestampTz last_start;
	TimestampTz retry_at; // a merge failed: look again then (0: no)
	BackgroundWorkerHandle *worker;
};

HTAB *databases = nullptr;
int running_workers = 0;
bool warned_no_slot = false;

DatabaseEntry *
entry_of(Oid database) {
	bool found;
	auto *e = static_cast<DatabaseEntry *>(hash_search(databases, &database, HASH_ENTER, &found));
	if (!found) {
		e->logged = e->seen = 0;
		e->check = e->urgent = false;
		e->last_start = 0;
		e->retry_at = 0;
		e->worker = nullptr;
	}
	return e;
}

// Marks every database that accepts connections and is not a template to be looked at; frees the
// counter slots of databases that are gone.
void
scan_all_databases() {
	List *found = NIL;
	StartTransactionCommand();
	(void)GetTransactionSnapshot();
	Relation rel = table_open(DatabaseRelationId, AccessShareLock);
	TableScanDesc scan = table_beginscan_catalog(rel, 0, NULL);
	while (HeapTuple tuple = heap_getnext(scan, ForwardScanDirection)) {
		auto *form = (Form_pg_database)GETSTRUCT(tuple);
		if (form->datallowconn && !form->datistemplate && !database_is_invalid_form(form)) {
			MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
			found = lappend_oid(found, form->oid);
			MemoryContextSwitchTo(old);
		}
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();

	ListCell *cell;
	foreach (cell, found)
		entry_of(lfirst_oid(cell))->check = true;
	// Counter slots and entries of databases that are gone (or no longer take connections).
	HASH_SEQ_STATUS seq;
	hash_seq_init(&seq, databases);
	List *gone = NIL;
	while (auto *e = static_cast<DatabaseEntry *>(hash_seq_search(&seq)))
		if (!list_member_oid(found, e->database) && e->worker == nullptr)
			gone = lappend_oid(gone, e->database);
	foreach (cell, gone) {
		forget_database(lfirst_oid(cell));
		hash_search(databases, &lfirst_oid(cell), HASH_REMOVE, NULL);
	}
	list_free(gone);
	list_free(found);
}

// Whether a worker may connect to the database (it exists, accepts connections, is no template).
bool
mergeable_database(Oid database) {
	StartTransactionCommand();
	HeapTuple tuple = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(database));
	bool ok = false;
	if (HeapTupleIsValid(tuple)) {
		auto *form = (Form_pg_database)GETSTRUCT(tuple);
		ok = form->datallowconn && !form->datistemplate && !database_is_invalid_form(form);
		ReleaseSysCache(tuple);
	}
	CommitTransactionCommand();
	return ok;
}

// Starts a merge worker for the database; false if no background worker slot is free.
bool
start_worker(DatabaseEntry *e) {
	BackgroundWorker worker;
	memset(&worker, 0, sizeof worker);
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	strlcpy(worker.bgw_library_name, "pg_grail", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "grail_merge_worker_main", BGW_MAXLEN);
	snprintf(worker.bgw_name, BGW_MAXLEN, "pg_grail merge worker for database %u", e->database);
	strlcpy(worker.bgw_type, "pg_grail merge worker", BGW_MAXLEN);
	worker.bgw_main_arg = ObjectIdGetDatum(e->database);
	worker.bgw_notify_pid = MyProcPid;
	BackgroundWorkerHandle *handle;
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		return false;
	e->worker = handle;
	running_workers++;
	return true;
}

void
launcher_exit(int, Datum) {
	set_merge_launcher(false);
}

} // namespace

/*
 * The launcher: one per server, connected to no database (it reads only pg_database, a shared
 * catalog). SIGTERM ends it (die: FATAL at the next CHECK_FOR_INTERRUPTS), SIGHUP rereads the
 * settings; the postmaster restarts it 10 s after it exits with an error.
 */
void
grail_merge_launcher_main(Datum) {
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("pg_grail merge launcher");

	HASHCTL ctl;
	memset(&ctl, 0, sizeof ctl);
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(DatabaseEntry);
	databases = hash_create("pg_grail merge launcher databases", 64, &ctl, HASH_ELEM | HASH_BLOBS);
	int slots = database_slots();
	auto *changes =
	    static_cast<DatabaseChanges *>(MemoryContextAlloc(TopMemoryContext, sizeof(DatabaseChanges) * slots));

	set_merge_launcher(true);
	before_shmem_exit(launcher_exit, 0);
	bool first = true;
	for (;;) {
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending) {
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		// Workers that ended.
		HASH_SEQ_STATUS seq;
		hash_seq_init(&seq, databases);
		while (auto *e = static_cast<DatabaseEntry *>(hash_seq_search(&seq))) {
			pid_t pid;
			if (e->worker != nullptr && GetBackgroundWorkerPid(e->worker, &pid) == BGWH_STOPPED) {
				pfree(e->worker);
				e->worker = nullptr;
				running_workers--;
			}
		}

		long timeout = long(settings.merge_naptime_s) * 1000L;
		bool rescan;
		int n = database_changes(changes, slots, &rescan);
		if (settings.merge_threshold > 0) {
			if (first || rescan)
				scan_all_databases();
			first = false;
			for (int i = 0; i < n; i++) {
				DatabaseEntry *e = entry_of(changes[i].database);
				e->logged = changes[i].logged;
				e->urgent |= changes[i].urgent;
			}
			TimestampTz now = GetCurrentTimestamp();
			// A failed or cancelled merge is tried again after a minute (or the naptime, if longer),
			// also when no new change comes.
			for (int i = 0; i < n; i++)
				if (changes[i].failed)
					entry_of(changes[i].database)->retry_at =
					    TimestampTzPlusMilliseconds(now, Max(60, settings.merge_naptime_s) * 1000L);
			// The databases due for a worker, collected first: starting one runs transactions, which
			// must not happen during a scan of the table.
			List *due = NIL;
			hash_seq_init(&seq, databases);
			while (auto *e = static_cast<DatabaseEntry *>(hash_seq_search(&seq))) {
				if (e->worker != nullptr)
					continue;
				bool changed = e->logged != e->seen;
				bool waited = TimestampDifferenceExceeds(e->last_start, now, settings.merge_naptime_s * 1000);
				if (e->retry_at != 0 && now >= e->retry_at) {
					e->check = true;
					e->retry_at = 0;
				}
				if (e->retry_at != 0)
					timeout = Min(timeout, Max(1000L, long((e->retry_at - now) / 1000)));
				if (!e->check && !(changed && (e->urgent || waited))) {
					if (changed) // due once the naptime has passed since its last worker
						timeout = Min(timeout, 1000L);
					continue;
				}
				due = lappend_oid(due, e->database);
			}
			ListCell *cell;
			foreach (cell, due) {
				auto *e = static_cast<DatabaseEntry *>(hash_search(databases, &lfirst_oid(cell), HASH_FIND, NULL));
				if (running_workers >= settings.max_merge_workers) {
					timeout = Min(timeout, 1000L);
					continue;
				}
				if (!mergeable_database(e->database)) {
					e->check = e->urgent = false;
					e->seen = e->logged;
					continue;
				}
				uint64_t logged = e->logged;
				if (!start_worker(e)) {
					if (!warned_no_slot)
						ereport(LOG,
						        (errmsg("pg_grail could not start a merge worker: no background worker slot is free"),
						         errhint("Raise max_worker_processes; the merge is retried meanwhile.")));
					warned_no_slot = true;
					e->check = true;
					timeout = Min(timeout, 1000L);
					continue;
				}
				warned_no_slot = false;
				e->seen = logged;
				e->check = e->urgent = false;
				e->last_start = now;
			}
			list_free(due);
		} else {
			first = true; // merges turned back on: look at every database again
		}
		(void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, timeout, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

namespace {

struct MergeCall {
	int64_t graph_id;
	bool gone; // pg_grail was dropped from the database, or is of another version than the library
	bool merged;
	bool busy; // another transaction holds a lock the merge would wait for
	char summary[512];
};

/*
 * Whether pg_grail is still in this database, now with a share lock on the extension, which DROP
 * EXTENSION takes before anything else and so waits for until this transaction ends.
 * Taken before the transaction's snapshot and any table of pg_grail: a DROP EXTENSION ... CASCADE
 * that began first makes the worker wait for it and then find the extension gone, one that comes
 * later waits for the merge, rather than each holding a lock that the other waits for (40P01).
 */
bool
lock_extension() {
	Oid extension = get_extension_oid("pg_grail", true);
	if (!OidIsValid(extension))
		return false;
	LockDatabaseObject(ExtensionRelationId, extension, 0, AccessShareLock);
	// The lock took in what committed while it waited: a DROP (and a new CREATE EXTENSION).
	return get_extension_oid("pg_grail", true) == extension;
}

void
merge_context(void *arg) {
	errcontext("background merge of pg_grail graph %lld", (long long)*static_cast<int64_t *>(arg));
}

// Ends the timer of grail.merge_timeout. A cancel it raised after the merge's last check for
// interrupts (during its commit) would otherwise cancel the next graph's merge.
void
stop_merge_timer() {
	disable_timeout(STATEMENT_TIMEOUT, false);
	if (get_timeout_indicator(STATEMENT_TIMEOUT, true))
		QueryCancelPending = false;
}

// Merges one graph in its own transaction, cancelled past grail.merge_timeout (the statement
// timeout's timer: the worker runs no statement of a client). An error (a failed or cancelled
// merge) is logged and rolled back with the transaction, which leaves the previous build and every
// pending change. False where pg_grail is gone from the database (or of another version): nothing
// is left to merge.
bool
merge_one(int64_t graph_id) {
	MemoryContext context = CurrentMemoryContext;
	MergeCall call{graph_id, false, false, false, {0}};
	volatile bool gone = false; // read after PG_END_TRY: set between the setjmp and a longjmp
	int timeout_ms = settings.merge_timeout_ms;
	TimestampTz started = GetCurrentTimestamp();
	if (timeout_ms > 0)
		enable_timeout_after(STATEMENT_TIMEOUT, timeout_ms);
	PG_TRY();
	{
		ErrorContextCallback callback;
		callback.callback = merge_context;
		callback.arg = &call.graph_id;
		callback.previous = error_context_stack;
		error_context_stack = &callback;
		StartTransactionCommand();
		call.gone = !lock_extension();
		PushActiveSnapshot(GetTransactionSnapshot());
		pgstat_report_activity(STATE_RUNNING, "pg_grail background merge");
		call_and_raise(
		    [](void *arg) {
			    auto *c = static_cast<MergeCall *>(arg);
			    c->gone = c->gone || !extension_in_step();
			    if (c->gone)
				    return;
			    std::string summary;
			    c->merged = background_merge(c->graph_id, &summary, &c->busy);
			    strlcpy(c->summary, summary.c_str(), sizeof c->summary);
		    },
		    &call);
		PopActiveSnapshot();
		CommitTransactionCommand();
		error_context_stack = callback.previous;
		pgstat_report_activity(STATE_IDLE, NULL);
		gone = call.gone;
		if (call.merged)
			ereport(DEBUG1, (errmsg("pg_grail background merge: %s", call.summary)));
		// The launcher starts a worker for this database again after a while, as after a failed
		// merge, also when no new change comes.
		if (call.busy) {
			ereport(LOG, (errmsg("pg_grail background merge of graph %lld skipped: another transaction holds a "
			                     "lock on its row or tables",
			                     (long long)graph_id),
			              errdetail("The merge is tried again later.")));
			note_merge_failed();
		}
	}
	PG_CATCH();
	{
		HOLD_INTERRUPTS();
		MemoryContextSwitchTo(context);
		EmitErrorReport();
		AbortOutOfAnyTransaction();
		FlushErrorState();
		note_merge_failed();
		RESUME_INTERRUPTS();
		pgstat_report_activity(STATE_IDLE, NULL);
		if (timeout_ms > 0 && TimestampDifferenceExceeds(started, GetCurrentTimestamp(), timeout_ms))
			ereport(LOG, (errmsg("pg_grail background merge of graph %lld cancelled after grail.merge_timeout (%d ms)",
			                     (long long)graph_id, timeout_ms),
			              errdetail("Its changes stay pending; the merge is tried again later."),
			              errhint("Raise grail.merge_timeout where a graph's merges take this long (merge_graph() by "
			                      "hand has no such limit). A merge runs its graph's filter functions as the graph's "
			                      "owner, and a slow one holds up the merges of the other graphs meanwhile.")));
	}
	PG_END_TRY();
	if (timeout_ms > 0)
		stop_merge_timer();
	return !gone;
}

struct ListCall {
	int64_t threshold;
	List *ids; // of int64 as Datum-sized pointers: an oid list would truncate them
	bool in_step;
};

} // namespace

/*
 * A merge worker: connects to its database as the bootstrap superuser, lists the live graphs
 * that passed grail.merge_threshold (SQL with qualified names, as the extension's owner) and merges
 * each as its owner (src/pg/service/lifecycle.cpp, background_merge). SIGTERM ends it (die), SIGINT
 * (pg_cancel_backend) cancels the current merge, which is rolled back; it then goes on with the
 * next graph.
 */
void
grail_merge_worker_main(Datum arg) {
	Oid database = DatumGetObjectId(arg);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	pqsignal(SIGINT, StatementCancelHandler);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(database, InvalidOid, 0);
	pgstat_report_appname("pg_grail merge worker");
	// Below the queries' priority (grail.merge_worker_nice): the build's helper threads, made after
	// this, take it too (Linux keeps a nice value per thread and a new thread inherits its maker's).
	// Only ever raised: a process may not take its priority back up, and this one ends after its merges.
	if (settings.merge_worker_nice > 0) {
		errno = 0;
		int current = getpriority(PRIO_PROCESS, 0);
		if (!(current == -1 && errno != 0) && current < settings.merge_worker_nice &&
		    setpriority(PRIO_PROCESS, 0, settings.merge_worker_nice) != 0)
			ereport(LOG, (errmsg("pg_grail merge worker could not set its nice value to %d: %m",
			                     settings.merge_worker_nice)));
	}
	// No helper threads unless grail.build_threads asks for them, neither the build's nor the
	// store's compression helper: the merges run back to back beside the table's readers and
	// writers, and a second thread took their CPU (the reader's 99th percentile beside a writer,
	// bench/live_pgbench.sh: 9.6-10.9x without the compression helper, 11.5-12.5x with it).
	set_background_builds();
	// Every SQL text of pg_grail qualifies its names; this keeps the rest out of reach too.
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);
	// A database (or role) read-only by default (ALTER DATABASE ... SET default_transaction_read_only
	// = on) still takes the writes of sessions that turn it off, and the log of those writes grows
	// until a merge stores it: every merge failed there, in its SELECT ... FOR UPDATE of the graph.
	SetConfigOption("default_transaction_read_only", "off", PGC_SUSET, PGC_S_OVERRIDE);

	ListCall list{settings.merge_threshold, NIL, false};
	if (list.threshold <= 0)
		proc_exit(0);
	StartTransactionCommand();
	bool present = lock_extension();
	PushActiveSnapshot(GetTransactionSnapshot());
	list.in_step = present;
	call_and_raise(
	    [](void *arg) {
		    auto *c = static_cast<ListCall *>(arg);
		    c->in_step = c->in_step && extension_in_step();
		    if (!c->in_step)
			    return;
		    std::vector<int64_t> ids = graphs_to_merge(c->threshold);
		    guard([&] {
			    MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
			    for (int64_t id : ids) {
				    int64_t *copy = static_cast<int64_t *>(palloc(sizeof(int64_t)));
				    *copy = id;
				    c->ids = lappend(c->ids, copy);
			    }
			    MemoryContextSwitchTo(old);
		    });
	    },
	    &list);
	PopActiveSnapshot();
	CommitTransactionCommand();

	ListCell *cell;
	foreach (cell, list.ids) {
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending) {
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			if (settings.merge_threshold <= 0)
				break;
		}
		// The extension dropped meanwhile: the other graphs went with it.
		if (!merge_one(*static_cast<int64_t *>(lfirst(cell))))
			break;
	}
	proc_exit(0);
}

namespace grail::pg {

/*
 * Registers the launcher; from _PG_init while the library is being preloaded.
 */
void
register_merge_launcher() {
	BackgroundWorker worker;
	memset(&worker, 0, sizeof worker);
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 10;
	strlcpy(worker.bgw_library_name, "pg_grail", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "grail_merge_launcher_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "pg_grail merge launcher", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "pg_grail merge launcher", BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

} // namespace grail::pg
