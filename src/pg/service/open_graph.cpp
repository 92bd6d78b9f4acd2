#include "error.hpp"
#include "index.hpp"
#include "keys.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <unordered_map>

#include "store/catalog.hpp"
#include "store/pending_changes.hpp"
#include "store/watch.hpp"
#include "store/edges.hpp"
#include "store/edge_filter.hpp"
#include "service/build_index.hpp"
#include "service/image_cache.hpp"
#include "boundary/call_hints.hpp"
#include "boundary/key_datums.hpp"
#include "boundary/pg_calls.hpp"
#include "service/open_graph.hpp"
#include "boundary/settings.hpp"

extern "C" {
#include "access/parallel.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "storage/sinval.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/uuid.h"
}

namespace grail::pg {

// What this backend keeps of a live graph for one build and one set of pending changes (the
// rows' fingerprint), for the next statement that sees the same.
template <typename T> struct PendingKeyed {
	std::string build_uuid;
	PendingChanges pending;
	std::shared_ptr<T> value;
};

// A live graph's build and the pending changes a query's snapshot sees, which reachable() answers
// from without a rebuild (src/core/reach.hpp); reach is null where the overlay declined them.
struct LiveOverlay {
	std::shared_ptr<LoadedGraph> base;
	std::unique_ptr<grail::Reach> reach;
	// The overlay's own memory (its base's is the base's), within grail.backend_memory_limit.
	KeptBytes kept;
	// The graph's row when the overlay was made: the number, time, base and delta of base's build,
	// for explain_graph (an overlay carried across later builds answers from this one).
	GraphRow made_under;
};

// A live graph's overlay for reachable(), for the log rows one snapshot saw (log), which the next
// statement extends with the rows logged since where its snapshot sees all these and more.
struct KeptOverlay {
	// The graph's build it answers for: its base's, or a later one it was carried across.
	std::string build_uuid;
	bool carried = false;
	// The SQL type of its keys: with value->made_under (its edge table, columns, filter, owner), a
	// build of a graph defined otherwise never carries it.
	Oid key_type = InvalidOid;
	PendingLog log;
	// Null where the snapshot saw no pending change.
	std::shared_ptr<LiveOverlay> value;
	// The build's DAG transposed, which the last overlay of this build made: lent to the next one
	// (after a statement that saw no change too).
	std::shared_ptr<const grail::Csr> reversed_dag;
};

// What this backend keeps of one graph.
struct CachedGraph {
	// The last build loaded.
	std::shared_ptr<LoadedGraph> build;
	// A live graph's pending changes the overlay takes over its build, for reachable(); base and
	// reach null where the overlay declined them (components of the build split or joined, a
	// TRUNCATE, a NULL endpoint, an image that does not count the rows of an edge): then
	// reachable() uses the snapshot's own rebuild as the other functions do.
	KeptOverlay overlay;
	// A live graph as a snapshot sees it while changes are pending: the index of the rows it sees.
	PendingKeyed<LoadedGraph> rebuilt;
	// A graph over a system catalog or a view as the current statement read it (statement_read).
	std::shared_ptr<struct StatementRead> statement;
	// When a statement last opened it (use_clock), for keep_within_budget.
	uint64_t last_used = 0;
};

// Graph id -> what this backend keeps of it. Never destroyed: backends exit without running C++
// destructors over memory the OS takes back anyway.
static std::unordered_map<int64_t, CachedGraph> &
backend_cache() {
	static auto *cache = new std::unordered_map<int64_t, CachedGraph>();
	return *cache;
}

// What decides whether a call site's checks still hold: plpgsql keeps the call sites of simple
// expressions for a whole transaction, and evaluates each in a new snapshot. A catalog row read
// in one snapshot holds for another only if both see the same rows: same transaction, same
// command (no write of ours in between), same subtransaction (a rollback to a savepoint undoes
// writes without a new command id), and the same transactions in progress and the same bound
// (xmin, xmax, xip): a transaction that completed between the two, of any session, is in the
// first's xip or at or above its xmax, so it changes one of them (READ COMMITTED takes in other
// sessions' commits). Equal sets in another order only cost a recheck.
//
// The privilege checks hold for whom they were made: plpgsql shares a call site among all the
// callers of a function in the transaction, so an owner's SECURITY DEFINER function and another
// role may call the same invoker function in one snapshot. They depend on the current user, the
// security context (SECURITY_NOFORCE_RLS changes whether a policy applies to the table's owner)
// and row_security; the graph's name is looked up in the search_path. And a catalog change that
// this backend has taken in since (a GRANT or REVOKE, a role's membership, a policy, committed by
// another session under REPEATABLE READ, whose snapshot does not change) shows in the count of
// invalidation messages received.
struct CheckedSnapshot {
	LocalTransactionId transaction;
	SubTransactionId subtransaction;
	CommandId command;
	TransactionId xmin;
	TransactionId xmax;
	uint32 xcnt;
	uint32 capacity;    // of xip
	TransactionId *xip; // palloc'd in the call site's fn_mcxt
	Oid user;
	int security_context;
	bool row_security;
	uint64 invalidations;    // SharedInvalidMessageCounter
	char *search_path;       // palloc'd in the call site's fn_mcxt
	size_t search_path_size; // allocated, terminating zero included
};

/*
 * The search_path setting (never null: a GUC string without a value reads as empty).
 */
static const char *
current_search_path() {
	return namespace_search_path != nullptr ? namespace_search_path : "";
}

/*
 * Whether the active snapshot is the one checked, for the same role in the same security context
 * and settings (always false without an active snapshot).
 */
static bool
same_snapshot(const CheckedSnapshot &checked) {
	if (!ActiveSnapshotSet() || checked.transaction == InvalidLocalTransactionId)
		return false;
	Oid user;
	int security_context;
	GetUserIdAndSecContext(&user, &security_context);
	Snapshot now = GetActiveSnapshot();
	return checked.transaction == MyProc->lxid && checked.command == now->curcid &&
	       checked.subtransaction == GetCurrentSubTransactionId() && checked.xmin == now->xmin &&
	       checked.xmax == now->xmax && checked.xcnt == now->xcnt &&
	       (now->xcnt == 0 || memcmp(checked.xip, now->xip, sizeof(TransactionId) * now->xcnt) == 0) &&
	       checked.user == user && checked.security_context == security_context &&
	       checked.row_security == row_security && checked.invalidations == SharedInvalidMessageCounter &&
	       strcmp(checked.search_path, current_search_path()) == 0;
}

/*
 * Record the active snapshot, role, security context and settings as the ones checked (or none,
 * so that the next call checks again).
 */
static void
remember_snapshot(CheckedSnapshot *checked, MemoryContext context) {
	checked->transaction = InvalidLocalTransactionId;
	if (!ActiveSnapshotSet())
		return;
	Snapshot now = GetActiveSnapshot();
	if (now->xcnt > checked->capacity) {
		if (checked->xip != nullptr)
			pfree(checked->xip);
		checked->xip = static_cast<TransactionId *>(MemoryContextAlloc(context, sizeof(TransactionId) * now->xcnt));
		checked->capacity = now->xcnt;
	}
	const char *search_path = current_search_path();
	size_t search_path_size = strlen(search_path) + 1;
	if (search_path_size > checked->search_path_size) {
		if (checked->search_path != nullptr)
			pfree(checked->search_path);
		checked->search_path = static_cast<char *>(MemoryContextAlloc(context, search_path_size));
		checked->search_path_size = search_path_size;
	}
	memcpy(checked->search_path, search_path, search_path_size);
	if (now->xcnt > 0) // xip may be null then, which memcpy may not be given even for no bytes
		memcpy(checked->xip, now->xip, sizeof(TransactionId) * now->xcnt);
	checked->xcnt = now->xcnt;
	checked->xmin = now->xmin;
	checked->xmax = now->xmax;
	checked->command = now->curcid;
	checked->subtransaction = GetCurrentSubTransactionId();
	GetUserIdAndSecContext(&checked->user, &checked->security_context);
	checked->row_security = row_security;
	checked->invalidations = SharedInvalidMessageCounter;
	checked->transaction = MyProc->lxid;
}

// A graph over a system catalog or a view, read for one statement: the other calls of that statement
// (other call sites, explain_graph's two opens) take it rather than read again. It holds for the
// snapshot, role, security context and settings it was read in (CheckedSnapshot), and for that
// statement only (a later statement may see other rows through a view's volatile functions or
// settings, whatever its snapshot); it is let go at the end of the transaction.
struct StatementRead {
	CheckedSnapshot snapshot{}; // its xip and search_path in TopMemoryContext
	TimestampTz statement = 0;
	std::shared_ptr<LoadedGraph> graph;
	StatementRead() = default;
	StatementRead(const StatementRead &) = delete;
	StatementRead &operator=(const StatementRead &) = delete;
	~StatementRead() {
		if (snapshot.xip != nullptr)
			pfree(snapshot.xip);
		if (snapshot.search_path != nullptr)
			pfree(snapshot.search_path);
	}
};

/*
 * Lets go of every graph read for a statement, at the end of each transaction (PostgreSQL calls
 * it; nothing here raises).
 */
static void
release_statement_reads(XactEvent event, void *) {
	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT && event != XACT_EVENT_PARALLEL_COMMIT &&
	    event != XACT_EVENT_PARALLEL_ABORT && event != XACT_EVENT_PREPARE)
		return;
	for (auto &entry : backend_cache())
		if (entry.second.statement != nullptr) {
			entry.second.statement->graph.reset();
			entry.second.statement->snapshot.transaction = InvalidLocalTransactionId;
		}
}

// fn_extra of a call site: the graph name it was opened with, and a reference that keeps the
// loaded build alive while the statement runs, even if a newer build replaces it in the cache.
struct CallSite {
	text *name; // palloc'd in fn_mcxt
	// The snapshot the checks were made in.
	CheckedSnapshot snapshot;
	std::shared_ptr<LoadedGraph> *graph;
	std::shared_ptr<LiveOverlay> *overlay; // for reachable(): see open_reachability
	Oid key_type;                          // site_key_type(): fixed by the call's expression
	MemoryContextCallback release;
	const FmgrInfo *flinfo; // whose fn_extra this is: call_running() tells whether it is in a call
	// Its last call handed rows that point into the graph to a traversal scan, which reads them
	// after the call has returned.
	bool lends_rows;
	CallSite *next_site; // this backend's call sites (all_sites)
};

// Every call site of this backend, the last made first.
static CallSite *all_sites = nullptr;

static void
release_call_site(void *arg) {
	auto *site = static_cast<CallSite *>(arg);
	delete site->graph;
	site->graph = nullptr;
	delete site->overlay;
	site->overlay = nullptr;
	for (CallSite **at = &all_sites; *at != nullptr; at = &(*at)->next_site)
		if (*at == site) {
			*at = site->next_site;
			break;
		}
}

/*
 * The text argument without copying it when it is stored inline (the usual case).
 */
static text *
text_arg(FunctionCallInfo fcinfo, int arg) {
	Datum d = fcinfo->args[arg].value;
	if (!VARATT_IS_EXTENDED(DatumGetPointer(d)) || VARATT_IS_SHORT(DatumGetPointer(d)))
		return reinterpret_cast<text *>(DatumGetPointer(d));
	return guard([&] { return DatumGetTextPP(d); });
}

static bool
same_name(const text *a, const text *b) {
	size_t n = VARSIZE_ANY_EXHDR(a);
	return n == VARSIZE_ANY_EXHDR(b) && memcmp(VARDATA_ANY(a), VARDATA_ANY(b), n) == 0;
}

/*
 * Under grail.stale_policy = warn, whether this statement has warned about the graph already
 * (and if not, note that it does now): one warning per statement, not one per call site.
 */
static bool
warned_this_statement(int64_t graph_id) {
	static LocalTransactionId transaction = InvalidLocalTransactionId;
	static TimestampTz statement = 0;
	static int64_t graph = 0;
	bool warned = transaction == MyProc->lxid && statement == GetCurrentStatementStartTimestamp() && graph == graph_id;
	transaction = MyProc->lxid;
	statement = GetCurrentStatementStartTimestamp();
	graph = graph_id;
	return warned;
}

/*
 * The graph's keys are of the kind the calling function takes or returns (when it has one).
 */
static void
check_keys(const LoadedGraph &graph, const GraphName &name, std::optional<grail::KeyKind> keys) {
	grail::KeyKind actual = graph.index.keys().kind();
	if (keys && *keys != actual)
		raise(ERRCODE_DATATYPE_MISMATCH,
		      format("pg_grail graph \"%s\" has %s keys, not %s keys", name.display.c_str(), key_kind_name(actual),
		             key_kind_name(*keys)),
		      "Pass keys of the type of its edge columns.");
}

// The kept value for this build and these changes, or null; a value for others is freed first, so
// that a new value is never built beside an old one.
template <typename T>
static std::shared_ptr<T>
kept_for(PendingKeyed<T> &kept, const GraphRow &row, const PendingChanges &pending) {
	if (kept.value && kept.build_uuid == row.build_uuid && kept.pending.rows == pending.rows &&
	    kept.pending.fingerprint == pending.fingerprint)
		return kept.value;
	kept = PendingKeyed<T>{};
	return nullptr;
}

static uint64_t use_clock = 0; // counts the opens of graphs in this backend: CachedGraph::last_used

static double
megabytes(size_t bytes) {
	return double(bytes) / double(1 << 20);
}

// The setting that bounds what a backend keeps, with its value, for messages.
static std::string
backend_limit_text() {
	return format("grail.backend_memory_limit (%d MB)", settings.backend_memory_limit_mb);
}

// The setting that bounds a build, for the messages of a snapshot's rebuild (a build too).
static std::string
build_limit_text() {
	return format("grail.build_memory_limit (%d MB)", settings.build_memory_limit_mb);
}

/*
 * Drops what the backend keeps of one graph that nothing else holds: no call site of a statement
 * or cursor still running, no scan. Each is a cache, made again by the next statement that needs
 * it. The overlay goes first: it holds the build it is over.
 */
static void
drop_unheld(CachedGraph &cached) {
	if (cached.overlay.value.use_count() <= 1)
		cached.overlay = KeptOverlay{};
	if (cached.rebuilt.value.use_count() == 1)
		cached.rebuilt = PendingKeyed<LoadedGraph>{};
	if (cached.build.use_count() == 1)
		cached.build.reset();
	if (cached.statement != nullptr && cached.statement->graph.use_count() == 1) {
		cached.statement->graph.reset();
		cached.statement->snapshot.transaction = InvalidLocalTransactionId;
	}
}

/*
 * Makes room within grail.backend_memory_limit for `more` bytes that graph `graph`'s `what` (made,
 * or about to be kept) adds to what this backend keeps: drops what is kept of the graphs least
 * recently opened (drop_unheld), this one's last, until they fit. What statements and cursors
 * hold stays: where that and `more` pass the limit, the statement fails (53200) rather than let
 * the backend grow until the server's memory runs out (and the postmaster restarts every backend).
 */
static void
keep_within_budget(const std::string &graph, const char *what, size_t more) {
	uint64_t limit = uint64_t(settings.backend_memory_limit_mb) << 20;
	if (limit == 0 || kept_bytes_total() + more <= limit)
		return;
	std::vector<std::pair<uint64_t, int64_t>> by_use;
	for (const auto &entry : backend_cache())
		by_use.emplace_back(entry.second.last_used, entry.first);
	std::sort(by_use.begin(), by_use.end());
	auto drop_least_used = [&] {
		for (const auto &[used, id] : by_use) {
			size_t before = kept_bytes_total();
			drop_unheld(backend_cache()[id]);
			if (before != kept_bytes_total())
				guard([&] {
					ereport(DEBUG1, (errmsg_internal("pg_grail dropped %.1f MB kept of graph %lld for %s",
					                                 megabytes(before - kept_bytes_total()), (long long)id,
					                                 backend_limit_text().c_str())));
				});
			if (kept_bytes_total() + more <= limit)
				return true;
		}
		return false;
	};
	if (drop_least_used())
		return;
	// Then what call sites hold between their calls: PL/pgSQL keeps the call sites of simple
	// expressions (and so their graphs) for the whole transaction, though each statement has ended.
	// A site whose call has returned, and that lent no rows to a scan, opens its graph again at its
	// next call; a site in a call now (this one's, or one whose function runs the SQL that led here)
	// keeps it.
	bool released = false;
	for (CallSite *site = all_sites; site != nullptr; site = site->next_site)
		if (!site->lends_rows && !call_running(site->flinfo) &&
		    ((site->graph != nullptr && *site->graph) || (site->overlay != nullptr && *site->overlay))) {
			site->snapshot.transaction = InvalidLocalTransactionId;
			if (site->overlay != nullptr)
				site->overlay->reset();
			if (site->graph != nullptr)
				site->graph->reset();
			released = true;
		}
	if (released && drop_least_used())
		return;
	raise(ERRCODE_OUT_OF_MEMORY,
	      format("pg_grail graph \"%s\" needs %.1f MB for its %s, and what this backend's statements and "
	             "cursors hold of graphs (%.1f MB) leaves no room within %s",
	             graph.c_str(), megabytes(more), what, megabytes(kept_bytes_total()), backend_limit_text().c_str()),
	      "Close the cursors and end the statements that hold other graphs, or a superuser can raise "
	      "grail.backend_memory_limit (0 removes the limit).");
}

// The index of the rows the active snapshot sees.
static std::shared_ptr<LoadedGraph>
snapshot_build(const GraphName &name, const GraphRow &row, std::optional<grail::KeyKind> keys) {
	Snapshot snapshot = guard([] { return ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot(); });
	StoredBuild stats;
	MemoryPhase phase("rebuilding the index from the rows the snapshot sees", name.display, build_limit_text());
	HeapGrowth growth;
	grail::Index index = build_index(name.display.c_str(), row, snapshot, &stats);
	auto graph = std::make_shared<LoadedGraph>(row.build_uuid, std::move(index), nullptr);
	graph->name = name.display;
	// The heap's growth before any drop frees memory, and at least the index's arrays: a view's query
	// and a filter's functions run while the rows are read and may free what they like (a large
	// setting set to '', say), which left a rebuild counted as nothing.
	size_t made = std::max(growth.bytes(), graph->index.array_bytes());
	keep_within_budget(name.display, "index of the rows this snapshot sees", made);
	graph->kept.add(made);
	check_keys(*graph, name, keys);
	return graph;
}

/*
 * A graph over a system catalog or a view, read in the active snapshot as the current role: once
 * per statement, snapshot and role (StatementRead), whatever call site asks.
 */
static std::shared_ptr<LoadedGraph>
statement_read(const GraphName &name, const GraphRow &row, std::optional<grail::KeyKind> keys) {
	static bool callback_registered = false;
	if (!callback_registered) {
		guard([] { RegisterXactCallback(release_statement_reads, nullptr); });
		callback_registered = true;
	}
	CachedGraph &cached = backend_cache()[row.id];
	if (cached.statement == nullptr)
		cached.statement = std::make_shared<StatementRead>();
	// Held here, not only by the cache: reading a view runs its functions, and one that drops this
	// graph (grail.drop_graph) takes its entry out of the cache, which must not free what this
	// read still writes into.
	std::shared_ptr<StatementRead> held = cached.statement;
	StatementRead &read = *held;
	TimestampTz statement = guard([] { return GetCurrentStatementStartTimestamp(); });
	if (read.graph && read.statement == statement && same_snapshot(read.snapshot)) {
		check_keys(*read.graph, name, keys);
		return read.graph;
	}
	read.graph.reset(); // free the last read before the next
	read.snapshot.transaction = InvalidLocalTransactionId;
	// Read with any kind of key: the caller's kind is checked after it is kept.
	std::shared_ptr<LoadedGraph> graph = snapshot_build(name, row, std::nullopt);
	guard([&] { remember_snapshot(&read.snapshot, TopMemoryContext); });
	read.statement = statement;
	read.graph = graph;
	check_keys(*graph, name, keys);
	return graph;
}

static std::shared_ptr<LoadedGraph>
live_graph(const GraphName &name, const GraphRow &row, const PendingChanges &pending,
           std::optional<grail::KeyKind> keys) {
	PendingKeyed<LoadedGraph> &rebuilt = backend_cache()[row.id].rebuilt;
	if (std::shared_ptr<LoadedGraph> kept = kept_for(rebuilt, row, pending)) {
		check_keys(*kept, name, keys);
		return kept;
	}
	auto graph = snapshot_build(name, row, keys);
	backend_cache()[row.id].rebuilt = PendingKeyed<LoadedGraph>{row.build_uuid, pending, graph};
	return graph;
}

/*
 * In a parallel worker, whether the leader's transaction holds a lock on table that a write takes
 * (ROW EXCLUSIVE or stronger: what conflicts with SHARE), that is, whether it may have written the
 * table. A worker cannot see the leader's trigger queue, but it can see the leader's locks, which
 * a write holds to the end of the transaction. PostgreSQL calls: run inside guard().
 */
static bool
leader_may_have_written(Oid table) {
	PGPROC *leader = MyProc->lockGroupLeader;
	if (leader == nullptr || leader == MyProc)
		return true; // no leader to ask: read the rows
	LOCKTAG tag;
	SET_LOCKTAG_RELATION(tag, MyDatabaseId, table);
	VirtualTransactionId *holders = GetLockConflicts(&tag, ShareLock, NULL);
	bool written = false;
	for (VirtualTransactionId *holder = holders; VirtualTransactionIdIsValid(*holder); holder++)
		written = written || (holder->backendId == leader->backendId && holder->localTransactionId == leader->lxid);
	pfree(holders);
	return written;
}

/*
 * Whether a write statement on a table of the graph's family has run without its changes logged
 * yet: this backend holds AFTER trigger events on such a table that have not fired, the graph's
 * statement trigger among them, as while a user's AFTER ROW trigger (or an AFTER STATEMENT one that
 * fires first) queries the graph. Its rows are in the table, not yet in the log. (Also true while
 * other AFTER triggers of those tables wait, deferred ones until commit: then the rows are read, a
 * slower way to the same answer.)
 *
 * The trigger queue is the leader's own: a parallel worker's is empty, and PostgreSQL gives an
 * extension no way to pass the leader's state to the workers of a query that calls its functions.
 * So a worker reads the rows whenever the leader's transaction may have written one of the tables
 * (it holds a lock that a write takes): exact, and it costs a read of the table per worker only in
 * transactions that wrote the graph's tables. The other exact choice, labelling the functions
 * PARALLEL RESTRICTED, would keep every user's query that calls them out of parallel plans.
 */
static bool
unlogged_writes(const GraphRow &row) {
	return guard([&] {
		bool worker = IsParallelWorker();
		if (worker && RecoveryInProgress())
			return false; // a standby's transactions write nothing
		for (Oid table : table_family(row.relid).descendants)
			if (worker ? leader_may_have_written(table) : AfterTriggerPendingOnRel(table))
				return true;
		return false;
	});
}

static std::shared_ptr<LoadedGraph>
load_build(const GraphName &name, const GraphRow &row, std::optional<grail::KeyKind> keys) {
	std::shared_ptr<LoadedGraph> &build = backend_cache()[row.id].build;
	if (build && build->build_uuid == row.build_uuid && still_cached(build->image_file.get())) {
		check_keys(*build, name, keys);
		return build;
	}
	build.reset(); // free the old build before loading the new one
	std::shared_ptr<LoadedGraph> graph;
	try {
		MemoryPhase phase("loading the build", name.display, backend_limit_text());
		HeapGrowth growth;
		OpenedIndex opened = open_index(row, name.display.c_str());
		graph = std::make_shared<LoadedGraph>(row.build_uuid, std::move(opened.index), std::move(opened.file));
		graph->image_format = opened.format;
		graph->name = name.display;
		size_t made = growth.bytes();
		keep_within_budget(name.display, "build's index", made);
		graph->kept.add(made);
	} catch (const Error &e) {
		if (e.kind() != ErrorKind::corrupt_index)
			throw;
		throw Error(ErrorKind::corrupt_index, "pg_grail graph \"" + name.display + "\" cannot be loaded: " + e.what(),
		            "Rebuild it with grail.refresh_graph(); if this recurs, check the storage under the database.");
	}
	backend_cache()[row.id].build = graph;
	check_keys(*graph, name, keys);
	return graph;
}

/*
 * The bytes of a pending row's text key as the build's dictionary holds them: the text itself, or
 * a uuid's 16 bytes (the log keeps a uuid in its text form).
 */
static std::string
dictionary_bytes(grail::KeyKind kind, const std::string &key) {
	if (kind != grail::KeyKind::uuid)
		return key;
	return guard([&] {
		Datum uuid = DirectFunctionCall1(uuid_in, CStringGetDatum(key.c_str()));
		return std::string(reinterpret_cast<const char *>(DatumGetUUIDP(uuid)->data), UUID_LEN);
	});
}

/*
 * The pending rows as the engine's edge changes, keyed as the build's index keys them; false when
 * the overlay takes none of them: too many, a NULL endpoint (or a TRUNCATE's marker), or keys of
 * another kind (logged after the columns changed type): the rebuild reads the rows then.
 */
static bool
edge_changes(const grail::Index &index, const std::vector<PendingRow> &rows, std::vector<grail::EdgeChange> &changes) {
	if (!grail::OverlayChanges::takes(rows.size(), index))
		return false;
	grail::KeyKind kind = index.keys().kind();
	changes.reserve(rows.size());
	for (const PendingRow &row : rows) {
		if (!row.has_source || !row.has_target || row.integer != (kind == grail::KeyKind::integer))
			return false;
		grail::EdgeChange change;
		if (row.integer) {
			change.source = row.source;
			change.target = row.target;
		} else {
			change.source_key = dictionary_bytes(kind, row.source_key);
			change.target_key = dictionary_bytes(kind, row.target_key);
		}
		change.rows = row.change;
		changes.push_back(std::move(change));
	}
	return true;
}

/*
 * The overlay of the changes `rows` over the build.
 */
static std::shared_ptr<LiveOverlay>
make_overlay(std::shared_ptr<LoadedGraph> base, const std::vector<PendingRow> &rows,
             std::shared_ptr<const grail::Csr> reversed_dag) {
	auto live = std::make_shared<LiveOverlay>();
	MemoryPhase phase("making the overlay of the pending changes", base->name, backend_limit_text());
	HeapGrowth growth;
	std::vector<grail::EdgeChange> changes;
	if (!edge_changes(base->index, rows, changes))
		return live;
	std::optional<grail::OverlayChanges> net = grail::OverlayChanges::of(base->index, changes);
	if (net)
		live->reach = grail::Reach::with_changes(base->index, std::move(*net), std::move(reversed_dag));
	changes = {};
	if (live->reach) {
		size_t made = growth.bytes();
		keep_within_budget(base->name, "overlay of pending changes", made);
		live->kept.add(made);
		live->base = std::move(base);
	}
	return live;
}

/*
 * The kept overlay extended in place by the edges of rows logged since it was made (inserted,
 * deleted, or inserted and then deleted again): false where the overlay takes none of them (a NULL
 * endpoint, a TRUNCATE's marker, an edge of the build deleted and written again, a component
 * split, a new cycle: edge_changes, grail::Reach::extend), and then the overlay must be dropped.
 */
static bool
extend_overlay(LiveOverlay &live, const std::vector<PendingRow> &rows) {
	std::vector<grail::EdgeChange> changes;
	return live.reach && live.base && edge_changes(live.base->index, rows, changes) && live.reach->extend(changes);
}

/*
 * A live graph's overlay of the pending changes the active snapshot sees, or null where it sees
 * none. Where the last overlay kept is of the same build and this snapshot sees all the log rows
 * that its snapshot saw (read_pending_since), only the rows logged since are read, and the overlay
 * takes them in place (extend_overlay) where no call site holds it any more (a cursor's, answering
 * for its own snapshot, may); else the log is read whole and the overlay made again.
 */
// What live_overlay did, for its DEBUG1 line: how it came by the overlay and the log rows it read.
struct OverlayTrace {
	const char *how;
	size_t rows;
	double reading_cpu_ms; // of it, reading the log rows written since the kept overlay's
};
// Milliseconds this thread has run on a CPU.
static double
thread_cpu_ms() {
	struct timespec now;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
}
static OverlayTrace overlay_trace;
static std::string carried_trace; // overlay_trace.how's text for a carry, which names the build

static std::shared_ptr<LiveOverlay> kept_or_new_overlay(const GraphName &name, const GraphRow &row, Oid key_type,
                                                        std::optional<grail::KeyKind> keys);

/*
 * The overlay (kept_or_new_overlay), with a DEBUG1 line per statement that says how it came by it,
 * its time and its time on the CPU: a statement that waited for a CPU (beside a merge or a writer)
 * shows more time than CPU time, one that extended or made the overlay shows both.
 */
static std::shared_ptr<LiveOverlay>
live_overlay(const GraphName &name, const GraphRow &row, Oid key_type, std::optional<grail::KeyKind> keys) {
	if (!message_level_is_interesting(DEBUG1))
		return kept_or_new_overlay(name, row, key_type, keys);
	// The records the widening grows here: those of the kept overlay's counter since, or all of a
	// new overlay's.
	auto overlay_of = [](const std::shared_ptr<LiveOverlay> &live) {
		return live && live->reach ? live->reach->overlay() : nullptr;
	};
	// (A weak pointer: the kept overlay, dropped for a new one, must not pass for it at its address.)
	std::weak_ptr<LiveOverlay> was = backend_cache()[row.id].overlay.value;
	const grail::ReachabilityOverlay *was_overlay = overlay_of(was.lock());
	size_t grown_before = was_overlay ? was_overlay->records_grown() : 0;
	auto started = std::chrono::steady_clock::now();
	double cpu_started = thread_cpu_ms();
	overlay_trace = OverlayTrace{"none pending", 0, 0};
	std::shared_ptr<LiveOverlay> live = kept_or_new_overlay(name, row, key_type, keys);
	double cpu = thread_cpu_ms() - cpu_started;
	double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
	const grail::ReachabilityOverlay *now = overlay_of(live);
	size_t grown = now ? now->records_grown() - (was.lock() == live ? grown_before : 0) : 0;
	size_t unwidened = now ? now->unwidened() : 0, deferred = now ? now->deferred() : 0;
	guard([&] {
		ereport(DEBUG1,
		        (errmsg_internal("pg_grail overlay of graph %lld: %s, %zu log rows read, %.3f ms, %.3f ms on "
		                         "the CPU (%.3f reading the log), %zu records widened, %zu edges left unwidened, "
		                         "%zu deferred",
		                         (long long)row.id, overlay_trace.how, overlay_trace.rows, ms, cpu,
		                         overlay_trace.reading_cpu_ms, grown, unwidened, deferred)));
	});
	return live;
}

/*
 * Whether the kept overlay, of an older build of the graph, answers for the graph's build in row
 * too, extended by the rows read_pending_since reads: row's build took in only log rows that the
 * overlay's last snapshot saw (build_carries), and the graph is defined as it was (a refresh after
 * a change of filter, columns or owner reads the rows otherwise than the log did). An overlay
 * carried across builds grows with every row since its own build, and its searches with it (the
 * engine's reachable() p99 249 -> 615 us with 30,000 -> 150,000 changes held,
 * bench/overlay_stream_bench.cpp; a reader carried across every merge: median 1.33x, p99 14.4x
 * against 1.03x and 11.0x remade after each): past a quarter of what an overlay takes, the new
 * build's overlay is made afresh, of the rows written since that build's snapshot. Never for a
 * graph with a filter: a merge reads the rows through the filter's functions as they are now, and
 * one replaced since (CREATE OR REPLACE, which nothing here sees) makes other edges of the same rows
 * than the overlay's build took.
 */
static bool
carries_across(const KeptOverlay &last, const GraphRow &row, Oid key_type) {
	if (row.build_xmax == 0 || !row.filter.empty() || !last.value || !last.value->reach || !last.value->base ||
	    last.build_uuid.empty())
		return false;
	const GraphRow &was = last.value->made_under;
	const grail::OverlayChanges *held = last.value->reach->changes();
	return held != nullptr &&
	       grail::OverlayChanges::takes(4 * (held->inserted().size() + held->deleted().size()),
	                                    last.value->base->index) &&
	       was.id == row.id && was.relid == row.relid && was.source_attnum == row.source_attnum &&
	       was.target_attnum == row.target_attnum && was.owner == row.owner && was.skip_nulls == row.skip_nulls &&
	       was.filter == row.filter && was.filter_columns == row.filter_columns && was.built_in == row.built_in &&
	       last.key_type == key_type && build_carries(last.log, row.build_xmax, row.build_running);
}

static std::shared_ptr<LiveOverlay>
kept_or_new_overlay(const GraphName &name, const GraphRow &row, Oid key_type, std::optional<grail::KeyKind> keys) {
	KeptOverlay &last = backend_cache()[row.id].overlay;
	bool same_build = last.build_uuid == row.build_uuid && !last.build_uuid.empty();
	// A new build whose snapshot saw no log row that the overlay's last snapshot did not: the
	// overlay of the older build is kept across it, where a new one would read every row the
	// build did not take in (those written while it ran) and make the overlay of them again.
	bool carry = !same_build && carries_across(last, row, key_type);
	if (carry)
		carried_trace = "carried across build " + std::to_string(row.build);
	// Its build's image file is checked as load_build checks it (a truncated file is never read),
	// and the overlay is made again where an error (out of memory, a cancel) left it part-way in an
	// earlier statement's query (grail::Reach::intact()).
	if ((same_build || carry) &&
	    (!last.value || !last.value->base || still_cached(last.value->base->image_file.get())) &&
	    (!last.value || !last.value->reach || last.value->reach->intact())) {
		std::vector<PendingRow> rows;
		PendingLog next;
		double reading_started = thread_cpu_ms();
		bool read = read_pending_since(row.id, last.log, rows, next);
		overlay_trace.reading_cpu_ms = thread_cpu_ms() - reading_started;
		if (read) {
			if (next.rows == last.log.rows) {
				last.log = std::move(next);
				if (last.value && last.value->base)
					check_keys(*last.value->base, name, keys);
				overlay_trace.how = carry ? carried_trace.c_str() : "kept";
				last.build_uuid = row.build_uuid;
				last.carried = last.carried || carry;
				return last.value;
			}
			if (last.value && last.value.use_count() == 1) {
				// Unusable until the extension ends: an error (a cancel) may leave it part-way.
				last.build_uuid.clear();
				overlay_trace.how = "extension declined, made again";
				overlay_trace.rows = rows.size();
				HeapGrowth growth;
				if (extend_overlay(*last.value, rows)) {
					std::shared_ptr<LiveOverlay> held = last.value; // not dropped to make room for itself
					size_t made = growth.bytes();
					keep_within_budget(name.display, "overlay of pending changes", made);
					held->kept.add(made);
					if (carry)
						carried_trace += ", extended";
					overlay_trace.how = carry ? carried_trace.c_str() : "extended";
					last.build_uuid = row.build_uuid;
					last.carried = last.carried || carry;
					last.log = std::move(next);
					check_keys(*last.value->base, name, keys);
					return last.value;
				}
			}
		}
	}
	// The last overlay of the same build lends the new one its transpose of the build's DAG (kept
	// beyond the old overlay, which is freed first); a carried one's is of an older build.
	same_build = same_build && !last.carried;
	std::shared_ptr<const grail::Csr> reversed_dag;
	if (same_build)
		reversed_dag = last.value && last.value->reach && last.value->reach->reversed_dag()
		                   ? last.value->reach->reversed_dag()
		                   : last.reversed_dag;
	last = KeptOverlay{};
	std::vector<PendingRow> rows;
	PendingLog log;
	read_pending_log(row.id, rows, log);
	std::shared_ptr<LiveOverlay> live;
	if (log.rows > 0) {
		if (overlay_trace.rows == 0)
			overlay_trace.how = same_build ? "made again" : "made for a new build";
		overlay_trace.rows = rows.size();
		live = make_overlay(load_build(name, row, keys), rows, reversed_dag);
		live->made_under = row;
		if (!live->reach)
			overlay_trace.how = "declined: the snapshot's rows are read";
		if (live->reach && live->reach->reversed_dag())
			reversed_dag = live->reach->reversed_dag();
	}
	KeptOverlay &kept = backend_cache()[row.id].overlay;
	kept.build_uuid = row.build_uuid;
	kept.key_type = key_type;
	kept.log = std::move(log);
	kept.value = live;
	kept.reversed_dag = std::move(reversed_dag);
	return live;
}

/*
 * Whether the graph's row that the statement's snapshot sees is still the graph's latest row. The
 * row is read in that snapshot, but its triggers and the tables of its family in the latest
 * catalog snapshot: a drop (and re-create) of the graph committed since the statement began leaves
 * the row seen and takes the triggers away, which must not read as triggers dropped or disabled.
 */
static bool
graph_row_current(const GraphName &name, const GraphRow &row) {
	// PostgreSQL takes no latest snapshot in parallel mode: there the row counts as current, and the
	// caller's error is the general one (the leader, outside parallel mode, tells the two apart).
	if (guard([] { return IsInParallelMode(); }))
		return true;
	struct LatestSnapshot {
		LatestSnapshot() {
			guard([] { PushActiveSnapshot(GetLatestSnapshot()); });
		}
		~LatestSnapshot() {
			PopActiveSnapshot();
		}
	} latest_snapshot;
	GraphRow latest;
	return find_graph(name, &latest) && latest.id == row.id;
}

// What a call opens: the graph, and for reachable() the overlay of a live graph's pending changes.
// What the caller makes of a live graph's pending changes: answers from the rows its snapshot sees
// (rows), through the overlay where it takes them (overlay), or from the last build (ignored).
enum class PendingUse { rows, overlay, ignored };

struct Opened {
	std::shared_ptr<LoadedGraph> graph;
	std::shared_ptr<LiveOverlay> overlay;
	AnswerSource source = AnswerSource::build;
};

/*
 * The graph checked (exists, readable, not stale) and opened in the active snapshot. A live graph
 * whose snapshot sees pending changes opens as the overlay of those changes over its build when
 * the caller can use one (PendingUse::overlay) and the overlay takes them, else as the snapshot's
 * rebuild; PendingUse::ignored opens the last build whatever is pending.
 */
static Opened
open_checked(const char *text, std::optional<grail::KeyKind> keys, PendingUse use, GraphRow *opened_row = nullptr) {
	GraphName name = parse_graph_name(text);
	GraphRow row;
	if (!find_graph(name, &row))
		raise(ERRCODE_UNDEFINED_OBJECT, format("pg_grail graph \"%s\" does not exist", name.display.c_str()),
		      missing_graph_hint(text, "The view grail.graphs lists the graphs; grail.create_graph() makes one."));
	check_table_access(row.relid);
	check_edge_column(row.relid, row.source_attnum, "source");
	check_edge_column(row.relid, row.target_attnum, "target");
	// A system catalog takes no triggers: a graph over one is read in each statement's snapshot,
	// so that it answers for the rows the statement sees (a GRANT of a role included), whatever
	// its build holds. A view is read so too, as the querying role (its rows are what the view gives
	// that role), and has no build.
	bool per_statement = statement_source(row.relid);
	Oid key_type = guard(
	    [&] { return column_key_type(row.relid, row.source_attnum, attribute_type(row.relid, row.source_attnum)); });
	backend_cache()[row.id].last_used = ++use_clock;
	auto typed = [key_type, &name](Opened opened) {
		opened.graph->key_type = key_type;
		opened.graph->name = name.display;
		return opened;
	};
	if (per_statement) {
		// The planner's estimates (the only caller that opens the build whatever is pending) would
		// run a view's query, with its functions, at every plan: a view's graph gives none.
		if (use == PendingUse::ignored && view_source(row.relid))
			raise(
			    ERRCODE_FEATURE_NOT_SUPPORTED,
			    format("pg_grail graph \"%s\" is over a view: it has no build to estimate from", name.display.c_str()));
		if (!graph_row_current(name, row))
			raise(ERRCODE_UNDEFINED_OBJECT,
			      format("pg_grail graph \"%s\" was dropped after this statement's snapshot was taken",
			             name.display.c_str()),
			      "Run the statement again; under REPEATABLE READ or SERIALIZABLE, in a new transaction.");
		check_edge_kinds(row.relid, row.source_attnum, row.target_attnum);
		if (opened_row != nullptr)
			*opened_row = row;
		// Read in every statement's snapshot, kept for that statement only.
		return typed(Opened{statement_read(name, row, keys), nullptr,
		                    view_source(row.relid) ? AnswerSource::view_read : AnswerSource::rows_read});
	}
	// A build keyed by oids holds the numbers of objects where it was made: after a restore (which
	// renumbers roles, relations, ...; the edge table's reg* columns come back as names, renumbered
	// too) or in another database, its numbers name other objects or none. It never answers then.
	if (oid_key_type(key_type) && row.build > 0 && row.built_in != build_scope(row.relid))
		raise(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
		      format("pg_grail graph \"%s\" is keyed by %s, and its build was made before a restore or in another "
		             "database: the oids it holds may name other objects here",
		             name.display.c_str(), key_type_label(key_type)),
		      format("Rebuild it with SELECT grail.refresh_graph(%s);",
		             guard([&] { return quote_literal_cstr(name.quoted.c_str()); })));
	if (!row.stale && !row.watched && !graph_row_current(name, row))
		raise(
		    ERRCODE_UNDEFINED_OBJECT,
		    format("pg_grail graph \"%s\" was dropped after this statement's snapshot was taken", name.display.c_str()),
		    "Run the statement again; under REPEATABLE READ or SERIALIZABLE, in a new transaction.");
	if ((row.stale || !row.watched) && (settings.stale_policy == STALE_ERROR || !warned_this_statement(row.id)))
		guard([&] {
			const char *table = get_rel_name(row.relid);
			ereport(settings.stale_policy == STALE_WARN ? WARNING : ERROR,
			        (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			         row.stale ? errmsg("pg_grail graph \"%s\" is stale: its edge table \"%s\" changed, or its "
			                            "staleness triggers were disabled or dropped, after the last build",
			                            name.display.c_str(), table)
			                   : errmsg("pg_grail graph \"%s\" cannot tell whether its edge table \"%s\" changed: "
			                            "a trigger that watches its family was dropped or disabled, or a "
			                            "temporary, unlogged or foreign table joined the family",
			                            name.display.c_str(), table),
			         errhint("Rebuild the index with SELECT grail.refresh_graph(%s);",
			                 quote_literal_cstr(name.quoted.c_str()))));
		});
	// After the stale error: a graph whose columns no longer hold keys of one kind is stale too, and
	// under stale_policy = warn it answers nothing rather than read its rows as the wrong kind. (Each
	// column was checked above.)
	check_edge_kinds(row.relid, row.source_attnum, row.target_attnum);
	// The filter's columns are there, readable by the caller, and it still parses as it did.
	if (!row.filter.empty())
		check_stored_filter(row.relid, row.filter, name.display.c_str(), row.owner);
	if (opened_row != nullptr)
		*opened_row = row;

	if (row.live && use != PendingUse::ignored) {
		// Read the rows (and keep no copy: the next statement's writes are not logged either).
		if (unlogged_writes(row))
			return typed(Opened{snapshot_build(name, row, keys), nullptr, AnswerSource::rows_read});
		bool pending_rows = true;
		if (use == PendingUse::overlay) {
			std::shared_ptr<LiveOverlay> live = live_overlay(name, row, key_type, keys);
			if (live && live->reach)
				return typed(Opened{live->base, live, AnswerSource::overlay});
			pending_rows = live != nullptr;
		}
		if (pending_rows) {
			PendingChanges pending = visible_pending_changes(row.id);
			if (pending.rows > 0)
				return typed(Opened{live_graph(name, row, pending, keys), nullptr, AnswerSource::snapshot_rebuild});
		}
	}
	return typed(Opened{load_build(name, row, keys), nullptr});
}

const Csr &
LoadedGraph::in_edges() {
	if (!in_edges_) {
		MemoryPhase phase("reversing the edges", name, backend_limit_text());
		// Room first, from the size it will have (the reversed edges of every vertex, as out's).
		const Csr &out = index.graph().out;
		keep_within_budget(name, "reversed edges",
		                   out.offsets.size() * sizeof(out.offsets[0]) + out.targets.size() * sizeof(out.targets[0]));
		HeapGrowth growth;
		in_edges_ = std::make_unique<const Csr>(out.reversed());
		kept.add(growth.bytes());
	}
	return *in_edges_;
}

PathFinder &
LoadedGraph::path_finder() {
	if (!path_finder_) {
		HeapGrowth growth;
		path_finder_ = std::make_unique<PathFinder>(index, [this]() -> const Csr & { return in_edges(); });
		kept.add(growth.bytes());
	}
	return *path_finder_;
}

void
LoadedGraph::count_scratch() {
	size_t now = reach.scratch_bytes() + (bfs_scratch_ ? bfs_scratch_->bytes() : 0) +
	             (path_finder_ ? path_finder_->scratch_bytes() : 0);
	size_t counted = scratch_kept_ ? scratch_kept_->bytes() : 0;
	if (now <= counted)
		return;
	try {
		keep_within_budget(name, "search scratch", now - counted);
	} catch (...) {
		// The statement fails, and what the searches keep goes with it: the next call (with fewer
		// helper threads, or once other graphs were dropped) starts from nothing, where a kept
		// helper's marks would fail every later call of this build.
		reach.release_scratch();
		bfs_scratch_.reset();
		if (path_finder_)
			path_finder_->release_scratch();
		scratch_kept_.reset();
		throw;
	}
	if (!scratch_kept_)
		scratch_kept_ = std::make_unique<KeptBytes>();
	scratch_kept_->add(now - counted);
}

BfsScratch &
LoadedGraph::bfs_scratch() {
	if (!bfs_scratch_)
		bfs_scratch_ = std::make_unique<BfsScratch>();
	return *bfs_scratch_;
}

void
forget_graph(int64_t graph_id) {
	backend_cache().erase(graph_id);
}

/*
 * The call site's state in fn_extra, made (empty: no graph, nothing checked) at its first call.
 */
static CallSite *
call_site(FunctionCallInfo fcinfo) {
	if (fcinfo->flinfo->fn_extra == nullptr) {
		fcinfo->flinfo->fn_extra = guard([&] {
			auto *s = static_cast<CallSite *>(MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CallSite)));
			s->release.func = release_call_site;
			s->release.arg = s;
			MemoryContextRegisterResetCallback(fcinfo->flinfo->fn_mcxt, &s->release);
			return s;
		});
		auto *site = static_cast<CallSite *>(fcinfo->flinfo->fn_extra);
		site->flinfo = fcinfo->flinfo;
		site->next_site = all_sites;
		all_sites = site;
	}
	return static_cast<CallSite *>(fcinfo->flinfo->fn_extra);
}

Oid &
site_key_type(FunctionCallInfo fcinfo) {
	return call_site(fcinfo)->key_type;
}

/*
 * The call site's graph (and overlay), opened again only when the name or the snapshot changed.
 */
static CallSite &
open_site(FunctionCallInfo fcinfo, int arg, std::optional<grail::KeyKind> keys, bool with_overlay) {
	text *name = text_arg(fcinfo, arg);
	auto *site = static_cast<CallSite *>(fcinfo->flinfo->fn_extra);
	if (site != nullptr && site->graph != nullptr && same_snapshot(site->snapshot) && same_name(site->name, name))
		return *site;

	// The site's overlay let go first, so that the backend's kept one, where no other site holds
	// it, may be extended in place; the site is checked again at its next call.
	if (site != nullptr && site->overlay != nullptr && *site->overlay) {
		site->snapshot.transaction = InvalidLocalTransactionId;
		site->overlay->reset();
	}
	// So is its graph (its last call's rows are gone: a traversal scan frees them before it calls
	// again), so that a site that goes from graph to graph holds one at a time within
	// grail.backend_memory_limit, and a graph the backend no longer keeps is freed before the next.
	if (site != nullptr && site->graph != nullptr && *site->graph) {
		site->snapshot.transaction = InvalidLocalTransactionId;
		site->graph->reset();
	}
	char *cname = guard([&] { return text_to_cstring(name); });
	Opened opened = open_checked(cname, keys, with_overlay ? PendingUse::overlay : PendingUse::rows);

	site = call_site(fcinfo);
	// The traversal scan's call context (an extensible node) takes rows that point into the graph.
	site->lends_rows = fcinfo->context != nullptr && IsA(fcinfo->context, ExtensibleNode);
	if (site->name != nullptr)
		pfree(site->name);
	site->name = guard([&] {
		size_t size = VARSIZE_ANY(name);
		auto *copy = static_cast<text *>(MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, size));
		memcpy(copy, name, size);
		return copy;
	});
	guard([&] { remember_snapshot(&site->snapshot, fcinfo->flinfo->fn_mcxt); });
	if (site->graph == nullptr)
		site->graph = new std::shared_ptr<LoadedGraph>(std::move(opened.graph));
	else
		*site->graph = std::move(opened.graph);
	if (site->overlay == nullptr)
		site->overlay = new std::shared_ptr<LiveOverlay>(std::move(opened.overlay));
	else
		*site->overlay = std::move(opened.overlay);
	return *site;
}

LoadedGraph &
open_graph(FunctionCallInfo fcinfo, int arg, std::optional<grail::KeyKind> keys) {
	return **open_site(fcinfo, arg, keys, false).graph;
}

ReachabilityView
open_reachability(FunctionCallInfo fcinfo, int arg, std::optional<grail::KeyKind> keys) {
	CallSite &site = open_site(fcinfo, arg, keys, true);
	LoadedGraph &graph = **site.graph;
	return ReachabilityView{graph, *site.overlay ? *(*site.overlay)->reach : graph.reach};
}

std::shared_ptr<LoadedGraph>
open_graph_named(const char *name, std::optional<grail::KeyKind> keys) {
	return open_checked(name, keys, PendingUse::rows).graph;
}

OpenedFor
explain_open(const char *name, bool reachability) {
	GraphRow row;
	Opened opened = open_checked(name, std::nullopt, reachability ? PendingUse::overlay : PendingUse::rows, &row);
	OpenedFor result;
	// An overlay carried across later builds answers from the build it was made over.
	bool carried = opened.overlay && opened.overlay->base && opened.overlay->base->build_uuid != row.build_uuid;
	const GraphRow &answered = carried ? opened.overlay->made_under : row;
	result.graph = std::move(opened.graph);
	result.source = opened.source;
	result.build = answered.build;
	result.built_at = answered.built_at;
	result.live = row.live;
	result.base_build = answered.base_build;
	result.delta_changes = answered.delta_changes;
	if (row.live)
		result.pending = guard([&] { return count_pending_edges(row.id, GetActiveSnapshot()); });
	if (opened.overlay) {
		if (const grail::OverlayChanges *changes = opened.overlay->reach->changes()) {
			result.overlay_inserted = changes->inserted().size();
			result.overlay_deleted = changes->deleted().size();
		}
	}
	return result;
}

std::shared_ptr<LoadedGraph>
open_build_named(const char *name) {
	return open_checked(name, std::nullopt, PendingUse::ignored).graph;
}

} // namespace grail::pg
