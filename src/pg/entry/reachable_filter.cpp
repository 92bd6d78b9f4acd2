// reachable(graph, a, b) as a condition on a table's rows, answered for many rows at once. Called
// row by row, each call waits for its own cache misses in the index (the id's hash slot, then its
// component's records), one after the other; the array form (reachable(graph, a[], b[])) keeps
// many pairs' misses in flight and splits a batch among helper threads (grail.search_threads):
// on a 1M-vertex random DAG, 663 ns a row one at a time against 286 through this filter
// (bench/lookup_sql.sh, 2 cores).
//
// "Grail Reachability Filter" takes a scan's place where it is safe: a SELECT's plain table or
// materialized view, or each partition or inheritance child of one (no TABLESAMPLE, no row locks),
// read by a sequential scan,
// with the condition grail.reachable(graph, source, target) or NOT grail.reachable(...) among its
// conditions (the extension's form for bigint, integer, smallint, text or uuid keys, each of
// which has an array form), the graph an expression of no column, and no volatile function,
// placeholder or correlated subquery among the conditions or the columns read; in a parallel plan,
// one in each process over its share of a Parallel Seq Scan. Its child, the
// sequential scan, applies the conditions that PostgreSQL orders before the call (the cheaper
// ones, and a row security policy's); the filter takes the rows that pass them in batches (1,024
// rows at first, growing to 65,536, within work_mem), evaluates each row's source and target,
// answers the batch's first pair by the per-row function (whatever the graph's checks raise, they
// raise as a row-by-row call does, hint included), then all its pairs by one call of the array
// form, both through the function manager (their EXECUTE checks, snapshot, errors and call counts
// in pg_stat_user_functions, the graph opened as a per-row call opens it), and returns the rows
// answered true (false under NOT), in the child's order, to the conditions ordered after the call
// (the costlier ones: a function that row by row sees only the rows reachable() lets through sees
// only those here too). A row with a NULL source or target is not returned either way (the
// function is STRICT: NULL, and NOT NULL is NULL). Where the role may execute the per-row function
// but not the array form, each row of a batch is answered by the per-row function: the same rows.
// A cursor that may move backward (one declared without NO SCROLL, as over a plain scan) gets the
// rows one at a time, each answered by the per-row function as the child reads it in either
// direction: no batch is read ahead of a backward step. grail.reachable_batch = off leaves the
// condition to the scan, row by row.
//
// The read-ahead differs from a scan's only in when rows are read: a LIMIT above stops the child
// up to a batch later, which is why volatile functions (whose calls a user could count) keep the
// plain scan. An error that the earlier conditions or the call raise on a row read ahead is raised
// though the plan above would not have asked for that row (README, "Planner estimates and key
// types"), as a parallel scan's workers raise it.
//
// Plain C-style PostgreSQL code: no C++ object lives across a call that may raise an error.
#include "entry/reachable_filter.hpp"

#include <algorithm>

#include "boundary/settings.hpp"
#include "entry/plan_checks.hpp"

extern "C" {
#include "postgres.h"

#include "access/sysattr.h"
#include "catalog/dependency.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planmain.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "pgstat.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
}

namespace {

set_rel_pathlist_hook_type previous_hook = nullptr;

constexpr int kFirstBatch = 1024, kLargestBatch = 65536;

Plan *plan_reachable_filter(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist, List *clauses,
                            List *custom_plans);
Node *create_reachable_filter_state(CustomScan *plan);
void begin_reachable_filter(CustomScanState *node, EState *estate, int eflags);
TupleTableSlot *exec_reachable_filter(CustomScanState *node);
void end_reachable_filter(CustomScanState *node);
void rescan_reachable_filter(CustomScanState *node);
void explain_reachable_filter(CustomScanState *node, List *ancestors, ExplainState *es);

const CustomPathMethods path_methods = {"Grail Reachability Filter", plan_reachable_filter, nullptr};
const CustomScanMethods scan_methods = {"Grail Reachability Filter", create_reachable_filter_state};
const CustomExecMethods exec_methods = {
    "Grail Reachability Filter",
    begin_reachable_filter,
    exec_reachable_filter,
    end_reachable_filter,
    rescan_reachable_filter,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    explain_reachable_filter,
};

struct ReachableFilterState {
	CustomScanState css;
	PlanState *child;
	ExprState *graph, *source, *target;
	ExprContext *row_context; // the arguments' evaluation, one child row at a time
	FmgrInfo row_function, array_function;
	Oid collation; // the call's input collation, as the per-row call takes it
	bool by_rows;  // no EXECUTE on the array form: each row by the per-row function
	bool stepwise; // may be read backward: one child row at a time, no batch
	bool negated;  // NOT reachable(...): the rows answered false
	Oid key_type;  // the keys' type, and how its values are stored
	int16 key_length;
	bool key_by_value;
	char key_align;
	MemoryContext batch_memory; // the batch's rows, keys and answers; reset at each batch
	int batch_size;             // rows the next batch reads at most
	MinimalTuple *rows;         // the batch's rows whose source and target are not NULL
	bool *answers;
	int count, next;
	bool child_done;
};

// The extension's function `reachable` in schema grail taking `args`, or InvalidOid.
Oid
grail_reachable(const Oid *args) {
	Oid function =
	    LookupFuncName(list_make2(makeString(pstrdup("grail")), makeString(pstrdup("reachable"))), 3, args, true);
	return grail::pg::is_extension_function(function) ? function : InvalidOid;
}

// The key types whose per-row reachable(text, T, T) has an array form reachable(text, T[], T[]).
bool
batchable_key(Oid type) {
	return type == INT8OID || type == INT4OID || type == INT2OID || type == TEXTOID || type == UUIDOID;
}

// A condition `reachable(graph, source, target)` or `NOT reachable(...)` among the conditions,
// for a key type with an array form (whose oid goes to *array_function): the call (its restriction
// in *found, whether negated in *negated), or null. Not one that must run before another condition
// (a row security policy's, below a user's condition that may leak what the policy hides): the
// child scan applies the others first.
FuncExpr *
batchable_call(List *restrictions, Oid *array_function, RestrictInfo **found, bool *negated) {
	ListCell *cell;
	foreach (cell, restrictions) {
		RestrictInfo *restriction = lfirst_node(RestrictInfo, cell);
		if (restriction->pseudoconstant)
			continue;
		Node *clause = reinterpret_cast<Node *>(restriction->clause);
		bool is_not = is_notclause(clause);
		if (is_not)
			clause = reinterpret_cast<Node *>(get_notclausearg(reinterpret_cast<Expr *>(clause)));
		if (!IsA(clause, FuncExpr))
			continue;
		FuncExpr *call = reinterpret_cast<FuncExpr *>(clause);
		if (list_length(call->args) != 3 || call->funcretset || call->funcresulttype != BOOLOID)
			continue;
		Oid key = exprType(static_cast<Node *>(lsecond(call->args)));
		if (!batchable_key(key) || exprType(static_cast<Node *>(lthird(call->args))) != key ||
		    exprType(static_cast<Node *>(linitial(call->args))) != TEXTOID)
			continue;
		const Oid row_args[] = {TEXTOID, key, key};
		if (call->funcid != grail_reachable(row_args))
			continue;
		// The graph must be the same for every row of a batch.
		if (contain_var_clause(static_cast<Node *>(linitial(call->args))))
			continue;
		ListCell *other;
		foreach (other, restrictions) {
			if (lfirst_node(RestrictInfo, other)->security_level > restriction->security_level)
				return nullptr;
		}
		const Oid array_args[] = {TEXTOID, get_array_type(key), get_array_type(key)};
		*array_function = grail_reachable(array_args);
		*found = restriction;
		*negated = is_not;
		return OidIsValid(*array_function) ? call : nullptr;
	}
	return nullptr;
}

// The Vars of the relation that the child scan returns: those of its target and of the call's
// arguments.
PathTarget *
child_target(PlannerInfo *root, RelOptInfo *rel, FuncExpr *call) {
	PathTarget *target = copy_pathtarget(rel->reltarget);
	List *vars = pull_var_clause(reinterpret_cast<Node *>(call->args), 0);
	ListCell *cell;
	foreach (cell, vars)
		add_new_column_to_pathtarget(target, static_cast<Expr *>(lfirst(cell)));
	return set_pathtarget_cost_width(root, target);
}

// The filter's path over a sequential scan of rel: a whole scan (workers 0), or a partial one
// whose parallel scan hands each process of a parallel plan its share of the rows.
CustomPath *
filter_path(PlannerInfo *root, RelOptInfo *rel, FuncExpr *call, RestrictInfo *restriction, Oid array_function,
            bool negated, int workers) {
	Path *scan = create_seqscan_path(root, rel, nullptr, workers);
	// The rows one process's filter returns: the scan's estimate (all the conditions, its share).
	double rows = scan->rows, share = rows / std::max(rel->rows, 1.0), tuples = rel->tuples * share;
	scan->pathtarget = child_target(root, rel, call);
	// The rows that pass the other conditions (the scan's own estimate counts the call's too).
	List *others = list_copy(rel->baserestrictinfo);
	others = list_delete_ptr(others, restriction);
	scan->rows = clamp_row_est(tuples * clauselist_selectivity(root, others, 0, JOIN_INNER, nullptr));
	// The scan's costs, less the part of the call's per-row cost that answering a batch saves (a
	// pair by array costs about a third of a pair by row).
	QualCost per_row;
	cost_qual_eval_node(&per_row, reinterpret_cast<Node *>(call), root);
	CustomPath *path = makeNode(CustomPath);
	path->path.pathtype = T_CustomScan;
	path->path.parent = rel;
	path->path.pathtarget = rel->reltarget;
	path->path.param_info = nullptr;
	path->path.parallel_aware = false; // the child scan shares the table out
	path->path.parallel_safe = workers > 0;
	path->path.parallel_workers = workers;
	path->path.rows = rows;
	double first_batch = std::min(tuples, double(kFirstBatch)) / std::max(tuples, 1.0);
	path->path.startup_cost = scan->startup_cost + first_batch * (scan->total_cost - scan->startup_cost);
	path->path.total_cost = std::max(path->path.startup_cost, scan->total_cost - tuples * per_row.per_tuple * 2 / 3);
	// Backward too, as the plain scan reads (stepwise, without batches): a cursor declared without
	// NO SCROLL moves backward over it as over the plain scan. A parallel plan is never read so.
	path->flags = CUSTOMPATH_SUPPORT_PROJECTION | (workers > 0 ? 0 : CUSTOMPATH_SUPPORT_BACKWARD_SCAN);
	path->custom_paths = list_make1(scan);
	path->custom_private =
	    list_make4(restriction->clause, call, makeInteger(int(uint32(array_function))), makeBoolean(negated));
	path->methods = &path_methods;
	return path;
}

void
add_reachable_filter_path(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte) {
	// A table, or each partition or inheritance child of one (an Append's member: the parent's
	// conditions translated to its columns), never the parent's own scan (rte->inh).
	if (!grail::pg::settings.reachable_batch ||
	    (rel->reloptkind != RELOPT_BASEREL && rel->reloptkind != RELOPT_OTHER_MEMBER_REL) ||
	    rte->rtekind != RTE_RELATION || rte->inh || rte->tablesample != nullptr ||
	    root->parse->commandType != CMD_SELECT || root->parse->rowMarks != NIL || root->rowMarks != NIL ||
	    rel->baserestrictinfo == NIL)
		return;
	char kind = get_rel_relkind(rte->relid);
	if (kind != RELKIND_RELATION && kind != RELKIND_MATVIEW)
		return;
	ListCell *cell;
	foreach (cell, rel->reltarget->exprs) {
		if (!IsA(lfirst(cell), Var))
			return;
	}
	// The child's tuple lists the relation's columns: no whole row.
	if (grail::pg::uses_whole_row(reinterpret_cast<Node *>(rel->reltarget->exprs), rel->relid) ||
	    grail::pg::restrictions_use_whole_row(rel->baserestrictinfo, rel->relid))
		return;
	List *clauses = NIL;
	foreach (cell, rel->baserestrictinfo) {
		RestrictInfo *restriction = lfirst_node(RestrictInfo, cell);
		if (restriction->pseudoconstant)
			return; // a gating Result would come between the filter and the scan
		clauses = lappend(clauses, restriction->clause);
	}
	if (contain_volatile_functions(reinterpret_cast<Node *>(clauses)) ||
	    grail::pg::holds_placeholder_or_subplan(reinterpret_cast<Node *>(clauses)))
		return;
	Oid array_function = InvalidOid;
	RestrictInfo *restriction = nullptr;
	bool negated = false;
	FuncExpr *call = batchable_call(rel->baserestrictinfo, &array_function, &restriction, &negated);
	if (call == nullptr)
		return;
	add_path(rel, &filter_path(root, rel, call, restriction, array_function, negated, 0)->path);
	// Beside a parallel sequential scan, one filter in each process that reads the table (the
	// leader and its workers), each answering the rows its scan hands it in batches of its own:
	// without it a large table's parallel plan, cheaper than one process's filter, answers row by
	// row. Only where every condition and column may be computed in a worker (consider_parallel)
	// and the array form may be called there too.
	if (rel->consider_parallel && max_parallel_workers_per_gather > 0 &&
	    func_parallel(array_function) == PROPARALLEL_SAFE) {
		int workers = compute_parallel_worker(rel, double(rel->pages), -1, max_parallel_workers_per_gather);
		if (workers > 0)
			add_partial_path(rel, &filter_path(root, rel, call, restriction, array_function, negated, workers)->path);
	}
}

void
set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte) {
	if (previous_hook)
		previous_hook(root, rel, rti, rte);
	add_reachable_filter_path(root, rel, rte);
}

Plan *
plan_reachable_filter(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist, List *clauses,
                      List *custom_plans) {
	Plan *child = static_cast<Plan *>(linitial(custom_plans));
	Node *clause = static_cast<Node *>(linitial(best_path->custom_private));
	Node *call = static_cast<Node *>(lsecond(best_path->custom_private));
	// The scan's conditions are in the order PostgreSQL evaluates them (by security level, then
	// cost): the child applies those before the call, the filter those after it, to the rows
	// answered true, as row by row a costlier condition sees only the rows the call lets through.
	if (!IsA(child, SeqScan))
		elog(ERROR, "the Grail Reachability Filter's child is not a sequential scan");
	List *before = NIL, *after = NIL;
	bool found = false;
	ListCell *cell;
	foreach (cell, child->qual) {
		if (!found && equal(lfirst(cell), clause))
			found = true;
		else if (found)
			after = lappend(after, lfirst(cell));
		else
			before = lappend(before, lfirst(cell));
	}
	if (!found)
		elog(ERROR, "the Grail Reachability Filter's call is not among its scan's conditions");
	child->qual = before;
	// The child returns the columns the later conditions read too.
	List *vars = pull_var_clause(reinterpret_cast<Node *>(after), 0);
	foreach (cell, vars) {
		if (tlist_member(static_cast<Expr *>(lfirst(cell)), child->targetlist) == nullptr)
			child->targetlist = lappend(
			    child->targetlist, makeTargetEntry(static_cast<Expr *>(copyObjectImpl(lfirst(cell))),
			                                       AttrNumber(list_length(child->targetlist) + 1), nullptr, false));
	}
	// A cached plan is made again where the array form changes, as where the call's function does
	// (setrefs records that one: it is in the plan's expressions).
	record_plan_function_dependency(root, Oid(uint32(intVal(lthird(best_path->custom_private)))));
	// The filter's tuple is the child's (scanrelid 0: no relation of its own), whose columns
	// setrefs matches the filter's target and the call's arguments to.
	CustomScan *filter = makeNode(CustomScan);
	filter->scan.plan.targetlist = tlist;
	filter->scan.plan.qual = after;
	filter->scan.scanrelid = 0;
	filter->flags = best_path->flags;
	filter->custom_plans = custom_plans;
	filter->custom_exprs = list_make1(copyObjectImpl(call));
	filter->custom_private = list_make2(lthird(best_path->custom_private), lfourth(best_path->custom_private));
	filter->custom_scan_tlist = static_cast<List *>(copyObjectImpl(child->targetlist));
	filter->custom_relids = bms_copy(rel->relids);
	filter->methods = &scan_methods;
	return &filter->scan.plan;
}

Node *
create_reachable_filter_state(CustomScan *plan) {
	auto *state = static_cast<ReachableFilterState *>(palloc0(sizeof(ReachableFilterState)));
	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &exec_methods;
	return reinterpret_cast<Node *>(state);
}

void
begin_reachable_filter(CustomScanState *node, EState *estate, int eflags) {
	auto *state = reinterpret_cast<ReachableFilterState *>(node);
	CustomScan *plan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
	state->stepwise = (eflags & EXEC_FLAG_BACKWARD) != 0;
	state->child = ExecInitNode(static_cast<Plan *>(linitial(plan->custom_plans)), estate, eflags);
	node->custom_ps = list_make1(state->child);
	auto *call = static_cast<FuncExpr *>(linitial(plan->custom_exprs));
	Oid array_function = Oid(uint32(intVal(linitial(plan->custom_private))));
	state->negated = boolVal(lsecond(plan->custom_private));
	state->key_type = exprType(static_cast<Node *>(lsecond(call->args)));
	get_typlenbyvalalign(state->key_type, &state->key_length, &state->key_by_value, &state->key_align);
	// As ExecInitFunc checks the per-row call it replaces: EXECUTE, and the hook (sepgsql).
	AclResult row_allowed = pg_proc_aclcheck(call->funcid, GetUserId(), ACL_EXECUTE);
	if (row_allowed != ACLCHECK_OK)
		aclcheck_error(row_allowed, OBJECT_FUNCTION, get_func_name(call->funcid));
	InvokeFunctionExecuteHook(call->funcid);
	fmgr_info(call->funcid, &state->row_function);
	fmgr_info_set_expr(reinterpret_cast<Node *>(call), &state->row_function);
	state->collation = call->inputcollid;
	state->by_rows = pg_proc_aclcheck(array_function, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK;
	if (!state->by_rows) {
		InvokeFunctionExecuteHook(array_function);
		fmgr_info(array_function, &state->array_function);
		// The call's expression, for a function that reads its argument types from it (the
		// integer and smallint array forms share one C function): the graph, then two arrays.
		Oid array_type = get_array_type(state->key_type);
		List *args = list_make3(makeNullConst(TEXTOID, -1, DEFAULT_COLLATION_OID),
		                        makeNullConst(array_type, -1, InvalidOid), makeNullConst(array_type, -1, InvalidOid));
		fmgr_info_set_expr(reinterpret_cast<Node *>(makeFuncExpr(array_function, BOOLARRAYOID, args, InvalidOid,
		                                                         call->inputcollid, COERCE_EXPLICIT_CALL)),
		                   &state->array_function);
	}
	state->graph = ExecInitExpr(static_cast<Expr *>(linitial(call->args)), &node->ss.ps);
	state->source = ExecInitExpr(static_cast<Expr *>(lsecond(call->args)), &node->ss.ps);
	state->target = ExecInitExpr(static_cast<Expr *>(lthird(call->args)), &node->ss.ps);
	state->row_context = CreateExprContext(estate);
	state->batch_memory =
	    AllocSetContextCreate(estate->es_query_cxt, "grail reachability filter batch", ALLOCSET_DEFAULT_SIZES);
	state->batch_size = kFirstBatch;
}

// function(graph, source, target) called as the executor calls a function: counted in
// pg_stat_user_functions where track_functions asks for it. context: the filter's node for a call
// of the array form (answers_filter_rows()), else null.
Datum
call_counted(FmgrInfo *function, Oid collation, Node *context, Datum graph, Datum source, Datum target, bool *is_null) {
	LOCAL_FCINFO(fcinfo, 3);
	InitFunctionCallInfoData(*fcinfo, function, 3, collation, context, nullptr);
	const Datum args[] = {graph, source, target};
	for (int i = 0; i < 3; i++) {
		fcinfo->args[i].value = args[i];
		fcinfo->args[i].isnull = false;
	}
	PgStat_FunctionCallUsage usage;
	pgstat_init_function_usage(fcinfo, &usage);
	Datum result = FunctionCallInvoke(fcinfo);
	pgstat_end_function_usage(&usage, true);
	*is_null = fcinfo->isnull;
	return result;
}

// The per-row function's answer for a pair: a NULL does not pass, as in a WHERE.
bool
reachable_by_row(ReachableFilterState *state, Datum graph, Datum source, Datum target) {
	bool is_null;
	Datum answer = call_counted(&state->row_function, state->collation, nullptr, graph, source, target, &is_null);
	return !is_null && DatumGetBool(answer);
}

// The call's arguments over a child row, in the row context (reset first), in the call's order:
// the graph's name where graph is given (*graph_null where it is NULL), then the source and target;
// false where either of those is NULL.
bool
evaluate_arguments(ReachableFilterState *state, TupleTableSlot *row, Datum *graph, bool *graph_null, Datum *source,
                   Datum *target) {
	ExprContext *context = state->row_context;
	ResetExprContext(context);
	// The arguments were compiled for this node's scan tuple, a virtual slot, which is read
	// without deforming: the child's row (a buffer's tuple, where the child does not project) is
	// deformed first.
	slot_getallattrs(row);
	context->ecxt_scantuple = row;
	if (graph != nullptr)
		*graph = ExecEvalExpr(state->graph, context, graph_null);
	bool source_null, target_null;
	*source = ExecEvalExpr(state->source, context, &source_null);
	*target = ExecEvalExpr(state->target, context, &target_null);
	return !source_null && !target_null;
}

// Reads the next batch of the child's rows and answers them: state->rows and state->answers.
void
answer_batch(ReachableFilterState *state) {
	MemoryContextReset(state->batch_memory);
	state->count = state->next = 0;
	int size = state->batch_size;
	state->batch_size = std::min(size * 4, kLargestBatch);
	MemoryContext previous = MemoryContextSwitchTo(state->batch_memory);
	state->rows = static_cast<MinimalTuple *>(palloc(sizeof(MinimalTuple) * size_t(size)));
	Datum *sources = static_cast<Datum *>(palloc(sizeof(Datum) * size_t(size)));
	Datum *targets = static_cast<Datum *>(palloc(sizeof(Datum) * size_t(size)));
	MemoryContextSwitchTo(previous);
	ExprContext *context = state->row_context;
	Datum graph = 0;
	bool have_graph = false, graph_null = false;
	// At most `size` rows, and no more than work_mem of their copies (wide rows) beside the arrays
	// just made (24 bytes a row of `size`, 1.5 MB for the largest batch, which must not leave a
	// small work_mem a batch of one row, answered by two calls): at least one.
	Size bytes_allowed = MemoryContextMemAllocated(state->batch_memory, true) + Size(work_mem) * 1024;
	for (int read = 0; read < size; read++) {
		if (state->count > 0 && MemoryContextMemAllocated(state->batch_memory, true) > bytes_allowed)
			break;
		TupleTableSlot *row = ExecProcNode(state->child);
		if (TupIsNull(row)) {
			state->child_done = true;
			break;
		}
		// The graph is the same for every row (no column of the relation): once a batch, kept in
		// its memory.
		Datum value = 0, source, target;
		bool keys = evaluate_arguments(state, row, have_graph ? nullptr : &value, &graph_null, &source, &target);
		if (!have_graph) {
			have_graph = true;
			if (!graph_null) {
				previous = MemoryContextSwitchTo(state->batch_memory);
				graph = PointerGetDatum(PG_DETOAST_DATUM_COPY(value));
				MemoryContextSwitchTo(previous);
			}
		}
		// A STRICT function's NULL: the condition is not true.
		if (graph_null || !keys)
			continue;
		previous = MemoryContextSwitchTo(state->batch_memory);
		// Keys by reference (text, uuid) point into the child's row or the row's memory: copied.
		sources[state->count] = datumCopy(source, state->key_by_value, state->key_length);
		targets[state->count] = datumCopy(target, state->key_by_value, state->key_length);
		state->rows[state->count] = ExecCopySlotMinimalTuple(row);
		MemoryContextSwitchTo(previous);
		state->count++;
	}
	ResetExprContext(context);
	if (state->count == 0)
		return;
	previous = MemoryContextSwitchTo(state->batch_memory);
	state->answers = static_cast<bool *>(palloc(sizeof(bool) * size_t(state->count)));
	// The first pair by the per-row function: where the graph cannot answer (none of that name, no
	// rights on its table, stale, keys of another kind), its error is the one a row-by-row call
	// raises at this row, not the array form's (whose hint would give a call of arrays). The pair
	// stays in the array, whose length (65,536 for a full batch) is what decides whether its
	// pairs are split among grail.search_threads helpers.
	state->answers[0] = reachable_by_row(state, graph, sources[0], targets[0]);
	if (state->by_rows) {
		for (int i = 1; i < state->count; i++)
			state->answers[i] = reachable_by_row(state, graph, sources[i], targets[i]);
	} else {
		ArrayType *source_array = construct_array(sources, state->count, state->key_type, state->key_length,
		                                          state->key_by_value, state->key_align);
		ArrayType *target_array = construct_array(targets, state->count, state->key_type, state->key_length,
		                                          state->key_by_value, state->key_align);
		bool is_null;
		Datum result = call_counted(&state->array_function, state->collation, reinterpret_cast<Node *>(state), graph,
		                            PointerGetDatum(source_array), PointerGetDatum(target_array), &is_null);
		ArrayType *answered = is_null ? nullptr : DatumGetArrayTypeP(result);
		if (answered == nullptr || ARR_NDIM(answered) != 1 || ARR_DIMS(answered)[0] != state->count ||
		    ARR_HASNULL(answered) || ARR_ELEMTYPE(answered) != BOOLOID)
			elog(ERROR, "reachable() answered a batch of %d pairs otherwise than with as many booleans", state->count);
		memcpy(state->answers, ARR_DATA_PTR(answered), size_t(state->count));
	}
	if (state->negated)
		for (int i = 0; i < state->count; i++)
			state->answers[i] = !state->answers[i];
	MemoryContextSwitchTo(previous);
}

// The next child row in the executor's direction that the per-row function answers true, in the
// scan tuple (its columns the child's, valid until the child's next row); an empty slot past the
// last. What a plain scan with the call among its conditions does, for a cursor that may move
// backward.
TupleTableSlot *
next_row_stepwise(ReachableFilterState *state, TupleTableSlot *slot) {
	for (;;) {
		TupleTableSlot *row = ExecProcNode(state->child);
		if (TupIsNull(row))
			return ExecClearTuple(slot);
		Datum graph, source, target;
		bool graph_null;
		// NOT reachable(...): the rows answered false (a NULL argument passes neither way).
		if (!evaluate_arguments(state, row, &graph, &graph_null, &source, &target) || graph_null ||
		    reachable_by_row(state, graph, source, target) == state->negated)
			continue;
		int columns = slot->tts_tupleDescriptor->natts;
		ExecClearTuple(slot);
		memcpy(slot->tts_values, row->tts_values, sizeof(Datum) * size_t(columns));
		memcpy(slot->tts_isnull, row->tts_isnull, sizeof(bool) * size_t(columns));
		return ExecStoreVirtualTuple(slot);
	}
}

// The next row answered true, in the scan tuple; an empty slot past the last.
TupleTableSlot *
next_row(ScanState *node) {
	auto *state = reinterpret_cast<ReachableFilterState *>(node);
	TupleTableSlot *slot = node->ss_ScanTupleSlot;
	if (state->stepwise)
		return next_row_stepwise(state, slot);
	for (;;) {
		while (state->next < state->count) {
			int i = state->next++;
			if (state->answers[i]) {
				// The scan tuple is a virtual slot (scanrelid 0): the row's columns point into
				// the batch's memory, which the next batch resets.
				ExecForceStoreMinimalTuple(state->rows[i], slot, false);
				return slot;
			}
		}
		if (state->child_done)
			return ExecClearTuple(slot);
		answer_batch(state);
	}
}

// An EvalPlanQual recheck, where PostgreSQL before 15.15 asks a scan without a relation of its own
// (scanrelid 0) for one instead of its next row (traversal_scan.cpp): the next row. The filter
// plans no query with row locks, so PostgreSQL 15.15 and later never ask.
bool
recheck_row(ScanState *node, TupleTableSlot *slot) {
	return !TupIsNull(next_row(node));
}

TupleTableSlot *
exec_reachable_filter(CustomScanState *node) {
	return ExecScan(&node->ss, next_row, recheck_row);
}

void
end_reachable_filter(CustomScanState *node) {
	auto *state = reinterpret_cast<ReachableFilterState *>(node);
	ExecEndNode(state->child);
	MemoryContextDelete(state->batch_memory);
}

void
rescan_reachable_filter(CustomScanState *node) {
	auto *state = reinterpret_cast<ReachableFilterState *>(node);
	MemoryContextReset(state->batch_memory);
	state->count = state->next = 0;
	state->child_done = false;
	state->batch_size = kFirstBatch;
	// As ExecReScan does for a node's outer plan: the child takes the changed parameters, and is
	// rescanned at its next row where any changed.
	if (node->ss.ps.chgParam != nullptr)
		UpdateChangedParamSet(state->child, node->ss.ps.chgParam);
	if (state->child->chgParam == nullptr)
		ExecReScan(state->child);
	ExecScanReScan(&node->ss);
}

void
explain_reachable_filter(CustomScanState *node, List *ancestors, ExplainState *es) {
	auto *state = reinterpret_cast<ReachableFilterState *>(node);
	CustomScan *plan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
	List *context = set_deparse_context_plan(es->deparse_cxt, &plan->scan.plan, ancestors);
	Node *condition = static_cast<Node *>(linitial(plan->custom_exprs));
	if (state->negated)
		condition = reinterpret_cast<Node *>(makeBoolExpr(NOT_EXPR, list_make1(condition), -1));
	ExplainPropertyText("Condition", deparse_expression(condition, context, es->verbose, false), es);
	if (es->verbose)
		ExplainPropertyText("Answered", state->by_rows ? "row by row (no EXECUTE on the array form)" : "by array", es);
}

} // namespace

namespace grail::pg {

bool
answers_filter_rows(FunctionCallInfo fcinfo) {
	Node *context = fcinfo->context;
	return context != nullptr && IsA(context, CustomScanState) &&
	       reinterpret_cast<CustomScanState *>(context)->methods == &exec_methods;
}

void
install_reachable_filter() {
	RegisterCustomScanMethods(&scan_methods);
	previous_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = set_rel_pathlist;
}

} // namespace grail::pg
