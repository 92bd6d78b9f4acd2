#include "error.hpp"
#include "index.hpp"
#include "keys.hpp"

#include <cstring>
#include <unordered_map>

#include "catalog.hpp"
#include "edges.hpp"
#include "graph_admin.hpp"
#include "image_cache.hpp"
#include "key_args.hpp"
#include "loaded_graph.hpp"
#include "settings.hpp"

extern "C" {
#include "access/xact.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
}

namespace grail::pg {

// Graph id -> the last build this backend loaded. Never destroyed: backends exit without
// running C++ destructors over memory the OS takes back anyway.
static std::unordered_map<int64_t, std::shared_ptr<LoadedGraph>> &
backend_cache() {
	static auto *cache = new std::unordered_map<int64_t, std::shared_ptr<LoadedGraph>>();
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
struct CheckedSnapshot {
	LocalTransactionId transaction;
	SubTransactionId subtransaction;
	CommandId command;
	TransactionId xmin;
	TransactionId xmax;
	uint32 xcnt;
	uint32 capacity;   // of xip
	TransactionId *xip; // palloc'd in the call site's fn_mcxt
};

/*
 * Whether the active snapshot is the one checked (always false without an active snapshot).
 */
static bool
same_snapshot(const CheckedSnapshot &checked) {
	if (!ActiveSnapshotSet() || checked.transaction == InvalidLocalTransactionId)
		return false;
	Snapshot now = GetActiveSnapshot();
	return checked.transaction == MyProc->lxid && checked.command == now->curcid &&
	       checked.subtransaction == GetCurrentSubTransactionId() && checked.xmin == now->xmin &&
	       checked.xmax == now->xmax && checked.xcnt == now->xcnt &&
	       memcmp(checked.xip, now->xip, sizeof(TransactionId) * now->xcnt) == 0;
}

/*
 * Record the active snapshot as the one checked (or none, so that the next call checks again).
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
	memcpy(checked->xip, now->xip, sizeof(TransactionId) * now->xcnt);
	checked->xcnt = now->xcnt;
	checked->xmin = now->xmin;
	checked->xmax = now->xmax;
	checked->command = now->curcid;
	checked->subtransaction = GetCurrentSubTransactionId();
	checked->transaction = MyProc->lxid;
}

// fn_extra of a call site: the graph name it was opened with, and a reference that keeps the
// loaded build alive while the statement runs, even if a newer build replaces it in the cache.
struct CallSite {
	text *name; // palloc'd in fn_mcxt
	// The snapshot the checks were made in.
	CheckedSnapshot snapshot;
	std::shared_ptr<LoadedGraph> *graph;
	MemoryContextCallback release;
};

static void
release_call_site(void *arg) {
	auto *site = static_cast<CallSite *>(arg);
	delete site->graph;
	site->graph = nullptr;
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
		guard([&] {
			ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
			                errmsg("pg_grail graph \"%s\" has %s keys, not %s keys", name.display.c_str(),
			                       key_kind_name(actual), key_kind_name(*keys)),
			                errhint("Pass keys of the type of its edge columns.")));
		});
}

// A live graph as a snapshot sees it while changes are pending: its index built from the rows
// the snapshot sees, kept for the next statement that sees the same build and the same changes.
struct LiveBuild {
	std::string build_uuid;
	PendingChanges pending;
	std::shared_ptr<LoadedGraph> graph;
};

static std::unordered_map<int64_t, LiveBuild> &
live_cache() {
	static auto *cache = new std::unordered_map<int64_t, LiveBuild>();
	return *cache;
}

static std::shared_ptr<LoadedGraph>
live_graph(const GraphName &name, const GraphRow &row, const PendingChanges &pending,
           std::optional<grail::KeyKind> keys) {
	auto &cache = live_cache();
	auto found = cache.find(row.id);
	if (found != cache.end() && found->second.build_uuid == row.build_uuid &&
	    found->second.pending.rows == pending.rows && found->second.pending.fingerprint == pending.fingerprint) {
		check_keys(*found->second.graph, name, keys);
		return found->second.graph;
	}
	if (found != cache.end())
		cache.erase(found); // free the old one before building the new one
	Snapshot snapshot = guard([] { return ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot(); });
	StoredBuild stats;
	grail::Index index = build_index(name.display.c_str(), row, snapshot, &stats);
	auto graph = std::make_shared<LoadedGraph>(row.build_uuid, std::move(index), std::string());
	cache[row.id] = LiveBuild{row.build_uuid, pending, graph};
	check_keys(*graph, name, keys);
	return graph;
}

static std::shared_ptr<LoadedGraph>
open_checked(const char *text, std::optional<grail::KeyKind> keys) {
	GraphName name = parse_graph_name(text);
	GraphRow row;
	if (!find_graph(name, &row))
		guard([&] {
			ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
			                errmsg("pg_grail graph \"%s\" does not exist", name.display.c_str()),
			                errhint("The view grail.graphs lists the graphs; grail.create_graph() makes one.")));
		});
	check_table_access(row.relid);
	check_edge_column(row.relid, row.source_attnum, "source");
	check_edge_column(row.relid, row.target_attnum, "target");
	if ((row.stale || !row.watched) && (settings.stale_policy == STALE_ERROR || !warned_this_statement(row.id)))
		guard([&] {
			const char *table = get_rel_name(row.relid);
			ereport(settings.stale_policy == STALE_WARN ? WARNING : ERROR,
			        (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			         row.stale ? errmsg("pg_grail graph \"%s\" is stale: its edge table \"%s\" changed, or its "
			                            "staleness triggers were disabled or dropped, after the last build",
			                            name.display.c_str(), table)
			                   : errmsg("pg_grail graph \"%s\" cannot tell whether its edge table \"%s\" changed: "
			                            "the trigger that watches the table was dropped or disabled",
			                            name.display.c_str(), table),
			         errhint("Rebuild the index with SELECT grail.refresh_graph(%s);",
			                 quote_literal_cstr(name.quoted.c_str()))));
		});

	if (row.live) {
		PendingChanges pending = visible_pending_changes(row.id);
		if (pending.rows > 0)
			return live_graph(name, row, pending, keys);
	}

	auto &cache = backend_cache();
	auto found = cache.find(row.id);
	if (found != cache.end() && found->second->build_uuid == row.build_uuid &&
	    still_cached(found->second->image_path)) {
		check_keys(*found->second, name, keys);
		return found->second;
	}
	if (found != cache.end())
		cache.erase(found); // free the old build before loading the new one
	std::shared_ptr<LoadedGraph> graph;
	try {
		OpenedIndex opened = open_index(row, name.display.c_str());
		graph = std::make_shared<LoadedGraph>(row.build_uuid, std::move(opened.index), std::move(opened.path));
	} catch (const Error &e) {
		if (e.kind() != ErrorKind::corrupt_index)
			throw;
		throw Error(ErrorKind::corrupt_index,
		            "pg_grail graph \"" + name.display + "\" cannot be loaded: " + e.what(),
		            "Rebuild it with grail.refresh_graph(); if this recurs, check the storage under the database.");
	}
	cache[row.id] = graph;
	check_keys(*graph, name, keys);
	return graph;
}

void
forget_graph(int64_t graph_id) {
	backend_cache().erase(graph_id);
	live_cache().erase(graph_id);
}

LoadedGraph &
open_graph(FunctionCallInfo fcinfo, int arg, std::optional<grail::KeyKind> keys) {
	text *name = text_arg(fcinfo, arg);
	auto *site = static_cast<CallSite *>(fcinfo->flinfo->fn_extra);
	if (site != nullptr && site->graph != nullptr && same_snapshot(site->snapshot) && same_name(site->name, name))
		return **site->graph;

	char *cname = guard([&] { return text_to_cstring(name); });
	std::shared_ptr<LoadedGraph> graph = open_checked(cname, keys);

	if (site == nullptr) {
		site = guard([&] {
			auto *s = static_cast<CallSite *>(MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CallSite)));
			s->release.func = release_call_site;
			s->release.arg = s;
			MemoryContextRegisterResetCallback(fcinfo->flinfo->fn_mcxt, &s->release);
			return s;
		});
		fcinfo->flinfo->fn_extra = site;
	}
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
		site->graph = new std::shared_ptr<LoadedGraph>(std::move(graph));
	else
		*site->graph = std::move(graph);
	return **site->graph;
}

std::shared_ptr<LoadedGraph>
open_graph_named(const char *name, std::optional<grail::KeyKind> keys) {
	return open_checked(name, keys);
}

} // namespace grail::pg
