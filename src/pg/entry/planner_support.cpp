// grail_internal._planner_support(internal): the planner's estimates for pg_grail's functions (prosupport).
//
// SupportRequestRows: the rows of scc_components (the build's vertices) and of bfs (the vertices a
// search reaches on average, bounded by a constant max_depth). SupportRequestSelectivity: the
// fraction of pairs that reachable() answers true for, as a WHERE or JOIN clause. Both come from
// the graph's build, opened as a query opens it (the caller's rights, the staleness rules), when
// the graph argument is a constant: the fraction of reachable pairs is measured on a fixed sample
// of vertex pairs of the build. An estimate never fails a query: any error (no such graph, no
// rights on its edge table, a stale graph, a parallel worker) is caught in a subtransaction, and
// the function answers nothing, so the declared ROWS (or PostgreSQL's default selectivity) stands.
#include "index.hpp"
#include "reach.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

#include "service/open_graph.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"
#include "utils/syscache.h"
}

using namespace grail::pg;

namespace {

// What the build tells the planner.
struct GraphEstimate {
	double vertices = 0;
	double edges = 0;
	double reachable_fraction = 0; // of ordered vertex pairs (u, v), u != v allowed: u reaches v
};

constexpr int kSamplePairs = 4000;

// A fixed pseudo-random sequence (splitmix64), so that one build always gives one estimate.
uint64_t
next_random(uint64_t *state) {
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

// The estimates of the builds this backend measured, by build and size (a live graph's snapshot
// rebuild has its build's uuid): each is sampled once, not at every plan.
std::map<std::tuple<std::string, size_t, size_t>, GraphEstimate> &
measured() {
	static std::map<std::tuple<std::string, size_t, size_t>, GraphEstimate> estimates;
	return estimates;
}

GraphEstimate
measure(const char *name) {
	std::shared_ptr<LoadedGraph> graph = open_build_named(name);
	const grail::Graph &g = graph->index.graph();
	auto key = std::make_tuple(graph->build_uuid, g.vertex_count(), g.out.edge_count());
	auto kept = measured().find(key);
	if (kept != measured().end())
		return kept->second;
	GraphEstimate estimate;
	estimate.vertices = double(g.vertex_count());
	estimate.edges = double(g.out.edge_count());
	if (g.vertex_count() == 0)
		return estimate;
	uint64_t state = 0x67726169ULL;
	int hits = 0;
	for (int i = 0; i < kSamplePairs; i++) {
		size_t u = size_t(next_random(&state) % g.vertex_count());
		size_t v = size_t(next_random(&state) % g.vertex_count());
		hits += graph->reach.reachable(g.ids[u], g.ids[v]) ? 1 : 0;
	}
	// Half a hit when none: the fraction is below the sample's resolution, not zero.
	estimate.reachable_fraction = std::max(double(hits), 0.5) / kSamplePairs;
	if (measured().size() >= 64)
		measured().clear();
	measured().emplace(key, estimate);
	return estimate;
}

/*
 * The estimate for the graph named by a constant, or nothing. Runs in a subtransaction so that an
 * error (and whatever it leaves: locks, pins) is rolled back and forgotten; none reaches the
 * planner's caller.
 */
std::optional<GraphEstimate>
estimate_for(Node *graph_argument) {
	if (graph_argument == nullptr || !IsA(graph_argument, Const))
		return std::nullopt;
	Const *constant = reinterpret_cast<Const *>(graph_argument);
	if (constant->constisnull || constant->consttype != TEXTOID)
		return std::nullopt;
	bool started = false;
	MemoryContext context = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	std::string name;
	try {
		started = guard([&] {
			if (IsInParallelMode() || !IsTransactionState())
				return false;
			BeginInternalSubTransaction(NULL);
			MemoryContextSwitchTo(context);
			return true;
		});
	} catch (...) {
		return std::nullopt;
	}
	if (!started)
		return std::nullopt;
	std::optional<GraphEstimate> estimate;
	// A cancel or timeout raised meanwhile is the user's, not the estimate's: raised again once the
	// subtransaction is gone (its ErrorData lives in context, which the rollback keeps).
	ErrorData *interrupt = nullptr;
	try {
		char *cname = guard([&] { return text_to_cstring(DatumGetTextPP(constant->constvalue)); });
		name = cname;
		estimate = measure(name.c_str());
	} catch (const PgError &e) {
		if (e.data()->sqlerrcode == ERRCODE_QUERY_CANCELED)
			interrupt = e.data();
		estimate.reset();
	} catch (...) {
		estimate.reset();
	}
	// Ending the subtransaction cannot fail short of a broken transaction, which then says so.
	guard([&] {
		if (estimate)
			ReleaseCurrentSubTransaction();
		else
			RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(context);
		CurrentResourceOwner = owner;
	});
	if (interrupt != nullptr)
		throw PgError(interrupt);
	return estimate;
}

// What the support function estimates for a function.
enum class Estimated { nothing, reachable, scc_components, traversal /* bfs, descendants, ancestors */ };

// What each function oid asked about is, kept per backend so that planning a call costs one hash
// probe, not a catalog lookup of its schema and name; forgotten when pg_proc changes (an extension
// dropped and made again gives its functions new oids, and an old oid may name another function).
std::unordered_map<Oid, Estimated> &
estimated_functions() {
	static std::unordered_map<Oid, Estimated> functions;
	return functions;
}

void
forget_functions(Datum, int, uint32) {
	estimated_functions().clear();
}

// The function's kind for the estimates, by its schema and name (the support function is attached
// to pg_grail's functions only, but a user may attach it to another).
Estimated
look_up(Oid function) {
	return guard([&] {
		Oid schema = get_func_namespace(function);
		char *schema_name = OidIsValid(schema) ? get_namespace_name(schema) : nullptr;
		if (schema_name == nullptr || strcmp(schema_name, "grail") != 0)
			return Estimated::nothing;
		char *name = get_func_name(function);
		if (name == nullptr)
			return Estimated::nothing;
		if (strcmp(name, "reachable") == 0)
			return Estimated::reachable;
		if (strcmp(name, "scc_components") == 0)
			return Estimated::scc_components;
		if (strcmp(name, "bfs") == 0 || strcmp(name, "descendants") == 0 || strcmp(name, "ancestors") == 0)
			return Estimated::traversal;
		return Estimated::nothing;
	});
}

Estimated
estimated(Oid function) {
	static bool registered = false;
	if (!registered) {
		guard([] { CacheRegisterSyscacheCallback(PROCOID, forget_functions, (Datum)0); });
		registered = true;
	}
	auto &functions = estimated_functions();
	auto kept = functions.find(function);
	if (kept != functions.end())
		return kept->second;
	Estimated kind = look_up(function);
	functions.emplace(function, kind);
	return kind;
}

// The argument at position i of a call, or null.
Node *
argument(List *arguments, int i) {
	return i < list_length(arguments) ? static_cast<Node *>(list_nth(arguments, i)) : nullptr;
}

/*
 * The rows of bfs(graph, source, max_depth): the vertices a search reaches on average (itself and
 * the fraction of the others that it reaches), at most those within max_depth steps when that is a
 * constant (1 + d + d^2 + ... for the average out-degree d).
 */
double
bfs_rows(const GraphEstimate &estimate, Node *max_depth) {
	double rows = 1 + estimate.reachable_fraction * std::max(estimate.vertices - 1, 0.0);
	if (max_depth != nullptr && IsA(max_depth, Const) && !reinterpret_cast<Const *>(max_depth)->constisnull) {
		int32 depth = DatumGetInt32(reinterpret_cast<Const *>(max_depth)->constvalue);
		double degree = estimate.vertices > 0 ? estimate.edges / estimate.vertices : 0;
		double within = 1, level = 1;
		// At most 1000 levels: by then the sum has passed rows or converged (d < 1).
		for (int32 k = 0; k < depth && k < 1000 && within < rows; k++) {
			level *= degree;
			within += level;
		}
		rows = std::min(rows, within);
	}
	return std::max(rows, 1.0);
}

Node *
support(Node *request) {
	if (IsA(request, SupportRequestRows)) {
		auto *rows_request = reinterpret_cast<SupportRequestRows *>(request);
		if (rows_request->node == nullptr || !IsA(rows_request->node, FuncExpr))
			return nullptr;
		auto *call = reinterpret_cast<FuncExpr *>(rows_request->node);
		Estimated kind = estimated(call->funcid);
		if (kind != Estimated::scc_components && kind != Estimated::traversal)
			return nullptr;
		std::optional<GraphEstimate> estimate = estimate_for(argument(call->args, 0));
		if (!estimate)
			return nullptr;
		rows_request->rows = kind == Estimated::scc_components ? std::max(estimate->vertices, 1.0)
		                                                       : bfs_rows(*estimate, argument(call->args, 2));
		return request;
	}
	if (IsA(request, SupportRequestSelectivity)) {
		auto *selectivity_request = reinterpret_cast<SupportRequestSelectivity *>(request);
		if (estimated(selectivity_request->funcid) != Estimated::reachable)
			return nullptr;
		std::optional<GraphEstimate> estimate = estimate_for(argument(selectivity_request->args, 0));
		if (!estimate)
			return nullptr;
		// A pair (v, v) is reachable too; the sample of random pairs counts those at their rate.
		selectivity_request->selectivity = std::clamp(estimate->reachable_fraction, 0.0, 1.0);
		return request;
	}
	return nullptr;
}

} // namespace

GRAIL_FUNCTION(grail_planner_support) {
	Node *request = reinterpret_cast<Node *>(PG_GETARG_POINTER(0));
	Node *answer = support(request);
	return PointerGetDatum(answer);
}
