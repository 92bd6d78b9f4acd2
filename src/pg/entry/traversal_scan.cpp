// bfs(), descendants() and ancestors() in FROM as a scan of their rows, formed one at a time as the
// plan asks for them. A FunctionScan writes every row of a set-returning function into a
// tuplestore and reads it back (even a value-per-call one); a traversal's rows are already in
// memory as the search's arrays of vertices and depths, so the copy costs as much as the rows
// themselves. "Grail Traversal Scan" takes the FunctionScan's place where it is safe: one call of
// one of those functions (by oid, a member of the extension), no WITH ORDINALITY, no ROWS FROM of
// several functions, arguments without placeholders or subplans; the rest stays a FunctionScan.
//
// The scan calls the function itself, through the fmgr as FunctionScan does (the same EXECUTE
// check at executor start, the same checks, errors, snapshot and NULL handling in the call), with
// a TraversalCall as its context (traversal_rows.hpp): the search keeps its result there instead
// of writing rows. The call is made at the first row asked for, and again at a rescan whose
// parameters changed (a LATERAL reference); a rescan without changed parameters reads the same
// rows again. It reads backward as FunctionScan's tuplestore does, so that a cursor declared
// without SCROLL moves backward over it as over a FunctionScan, and a SCROLL cursor needs no
// Material node that would copy the rows after all. No mark and restore: a merge join sorts the
// scan's rows first (the plan knows no order of them). grail.traversal_scan = off leaves every
// call to FunctionScan.
//
// Plain C-style PostgreSQL code: no C++ object lives across a call that may raise an error; the
// search's result (a C++ object) is freed by a reset callback of the scan's memory, which every
// rescan, the scan's end and an abort reset or delete.
#include "entry/traversal_scan.hpp"

#include "boundary/settings.hpp"
#include "entry/depth_pushdown.hpp"
#include "entry/plan_checks.hpp"
#include "entry/traversal_rows.hpp"

extern "C" {
#include "postgres.h"

#include "access/sysattr.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "parser/parsetree.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
}

namespace {

set_rel_pathlist_hook_type previous_hook = nullptr;

// The key columns of bfs() (vertex, depth, parent), descendants() and ancestors() (vertex, depth).
constexpr AttrNumber kVertexColumn = 1, kParentColumn = 3;

Plan *plan_traversal_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist, List *clauses,
                          List *custom_plans);
Node *create_traversal_scan_state(CustomScan *plan);
void begin_traversal_scan(CustomScanState *node, EState *estate, int eflags);
TupleTableSlot *exec_traversal_scan(CustomScanState *node);
void end_traversal_scan(CustomScanState *node);
void rescan_traversal_scan(CustomScanState *node);
void explain_traversal_scan(CustomScanState *node, List *ancestors, ExplainState *es);

const CustomPathMethods path_methods = {"Grail Traversal Scan", plan_traversal_scan, nullptr};
const CustomScanMethods scan_methods = {"Grail Traversal Scan", create_traversal_scan_state};
const CustomExecMethods exec_methods = {
    "Grail Traversal Scan",
    begin_traversal_scan,
    exec_traversal_scan,
    end_traversal_scan,
    rescan_traversal_scan,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    explain_traversal_scan,
};

struct TraversalScanState {
	CustomScanState css;
	SetExprState *call_expr;        // the call: its arguments' states, fmgr info and fcinfo
	MemoryContext call_memory;      // the call's arguments and result; reset at each new call
	grail::pg::TraversalCall *call; // the current call's, in call_memory; null before the first row
	ReturnSetInfo result_info;
	MemoryContextCallback free_rows;
	// Whether the last row asked for forward was past the last row: a backward step then gives the
	// last row, as a tuplestore's does, not the one before it.
	bool past_end;
};

// The relation's target where it holds Vars alone and a join above projects: all the function's
// columns in order instead, so that the scan's tuple is its output and ExecScan projects nothing a
// row (as a relation scan's physical tlist, which createplan makes for no custom path); the join
// reads the columns it needs. Otherwise the relation's own: the query's only relation gives its
// rows as they are where its target is the query's (apply_scanjoin_target_to_paths keeps the
// path's), and a placeholder is no column.
PathTarget *
every_column_target(PlannerInfo *root, RelOptInfo *rel, Node *call) {
	if (bms_equal(rel->relids, root->all_baserels))
		return rel->reltarget;
	ListCell *cell;
	foreach (cell, rel->reltarget->exprs) {
		if (!IsA(lfirst(cell), Var))
			return rel->reltarget;
	}
	TupleDesc columns = get_expr_result_tupdesc(call, false);
	PathTarget *target = create_empty_pathtarget();
	for (int i = 0; i < columns->natts; i++) {
		Form_pg_attribute column = TupleDescAttr(columns, i);
		add_column_to_pathtarget(target,
		                         reinterpret_cast<Expr *>(makeVar(rel->relid, AttrNumber(i + 1), column->atttypid,
		                                                          column->atttypmod, column->attcollation, 0)),
		                         0);
	}
	return set_pathtarget_cost_width(root, target);
}

void
add_traversal_path(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte) {
	if (!grail::pg::settings.traversal_scan || rte->rtekind != RTE_FUNCTION || rte->funcordinality ||
	    list_length(rte->functions) != 1 || rel->reloptkind != RELOPT_BASEREL || list_length(rel->pathlist) != 1)
		return;
	Path *function_path = static_cast<Path *>(linitial(rel->pathlist));
	RangeTblFunction *function = linitial_node(RangeTblFunction, rte->functions);
	if (function_path->pathtype != T_FunctionScan || !IsA(function->funcexpr, FuncExpr))
		return;
	FuncExpr *call = reinterpret_cast<FuncExpr *>(function->funcexpr);
	if (!call->funcretset || grail::pg::holds_placeholder_or_subplan(function->funcexpr) ||
	    !grail::pg::is_depth_bounded_search(call->funcid))
		return;
	if (grail::pg::uses_whole_row(reinterpret_cast<Node *>(rel->reltarget->exprs), rti) ||
	    grail::pg::restrictions_use_whole_row(rel->baserestrictinfo, rti) ||
	    (function_path->param_info != nullptr &&
	     grail::pg::restrictions_use_whole_row(function_path->param_info->ppi_clauses, rti)))
		return;
	// The FunctionScan's estimates (the functions' support gives its rows), for the same work less
	// the copy; the scan replaces that path rather than compete with it.
	CustomPath *path = makeNode(CustomPath);
	path->path.pathtype = T_CustomScan;
	path->path.parent = rel;
	path->path.pathtarget = every_column_target(root, rel, function->funcexpr);
	path->path.param_info = function_path->param_info;
	// Never below a Gather: a worker would need the call's state that the leader keeps.
	path->path.parallel_safe = false;
	path->path.rows = function_path->rows;
	path->path.startup_cost = function_path->startup_cost;
	path->path.total_cost = function_path->total_cost;
	path->flags = CUSTOMPATH_SUPPORT_PROJECTION | CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	path->methods = &path_methods;
	rel->pathlist = NIL;
	add_path(rel, &path->path);
}

void
set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte) {
	// The previous hooks first: depth_pushdown.cpp puts a depth bound into the call this scan makes.
	if (previous_hook)
		previous_hook(root, rel, rti, rte);
	add_traversal_path(root, rel, rti, rte);
}

Plan *
plan_traversal_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist, List *clauses,
                    List *custom_plans) {
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	RangeTblFunction *function = linitial_node(RangeTblFunction, rte->functions);
	// A LATERAL reference in the call's arguments becomes the nestloop parameter of the join above
	// when createplan replaces those of custom_exprs, as it does a FunctionScan's.
	Node *call = static_cast<Node *>(copyObjectImpl(function->funcexpr));
	// The scan's tuple: the function's columns as Vars of the relation, which setrefs matches the
	// plan's references to (the scan has no relation of its own to open: scanrelid 0).
	TupleDesc columns = get_expr_result_tupdesc(call, false);
	List *scan_tlist = NIL;
	for (int i = 0; i < columns->natts; i++) {
		Form_pg_attribute column = TupleDescAttr(columns, i);
		Var *var = makeVar(rel->relid, AttrNumber(i + 1), column->atttypid, column->atttypmod, column->attcollation, 0);
		scan_tlist = lappend(scan_tlist, makeTargetEntry(reinterpret_cast<Expr *>(var), AttrNumber(i + 1),
		                                                 pstrdup(NameStr(column->attname)), false));
	}
	CustomScan *scan = makeNode(CustomScan);
	scan->scan.plan.targetlist = tlist;
	scan->scan.plan.qual = extract_actual_clauses(clauses, false);
	scan->scan.scanrelid = 0;
	scan->flags = best_path->flags;
	// Whether anything above the scan reads a key column (vertex, or bfs's parent): what the
	// relation provides (its target: every Var of it that a node above or a projection put on the
	// scan later reads), the expressions of the scan's own output and its conditions. Not the plain
	// columns of its output, which may be all of them (every_column_target) where none is read.
	Bitmapset *read = nullptr;
	pull_varattnos(reinterpret_cast<Node *>(rel->reltarget->exprs), rel->relid, &read);
	ListCell *cell;
	foreach (cell, tlist) {
		Node *expr = reinterpret_cast<Node *>(lfirst_node(TargetEntry, cell)->expr);
		if (!IsA(expr, Var))
			pull_varattnos(expr, rel->relid, &read);
	}
	pull_varattnos(reinterpret_cast<Node *>(scan->scan.plan.qual), rel->relid, &read);
	bool keys_read = bms_is_member(kVertexColumn - FirstLowInvalidHeapAttributeNumber, read) ||
	                 bms_is_member(kParentColumn - FirstLowInvalidHeapAttributeNumber, read);
	scan->custom_private = list_make1_int(keys_read);
	scan->custom_exprs = list_make1(call);
	scan->custom_scan_tlist = scan_tlist;
	scan->custom_relids = bms_copy(rel->relids);
	scan->methods = &scan_methods;
	return &scan->scan.plan;
}

Node *
create_traversal_scan_state(CustomScan *plan) {
	auto *state = static_cast<TraversalScanState *>(palloc0(sizeof(TraversalScanState)));
	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &exec_methods;
	return reinterpret_cast<Node *>(state);
}

void
begin_traversal_scan(CustomScanState *node, EState *estate, int eflags) {
	auto *state = reinterpret_cast<TraversalScanState *>(node);
	CustomScan *plan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
	// As ExecInitFunctionScan: checks EXECUTE on the function, prepares its arguments and fcinfo.
	state->call_expr = ExecInitTableFunctionResult(static_cast<Expr *>(linitial(plan->custom_exprs)),
	                                               node->ss.ps.ps_ExprContext, &node->ss.ps);
	state->call_memory = AllocSetContextCreate(estate->es_query_cxt, "grail traversal scan", ALLOCSET_DEFAULT_SIZES);
}

void
free_call_rows(void *arg) {
	auto *call = static_cast<grail::pg::TraversalCall *>(arg);
	grail::pg::free_traversal_rows(call->rows);
	call->rows = nullptr;
}

// The call with the arguments' current values, its result kept in state->call.
void
make_call(TraversalScanState *state) {
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	TupleDesc columns = state->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor;
	MemoryContext previous = MemoryContextSwitchTo(state->call_memory);
	auto *call = static_cast<grail::pg::TraversalCall *>(palloc0(sizeof(grail::pg::TraversalCall)));
	call->node.type = T_ExtensibleNode;
	call->node.extnodename = grail::pg::kTraversalCallName;
	call->key_length = TupleDescAttr(columns, 0)->attlen;
	call->keys_read = linitial_int(reinterpret_cast<CustomScan *>(state->css.ss.ps.plan)->custom_private) != 0;
	state->free_rows.func = free_call_rows;
	state->free_rows.arg = call;
	MemoryContextRegisterResetCallback(state->call_memory, &state->free_rows);
	state->call = call;
	state->past_end = false;

	SetExprState *call_expr = state->call_expr;
	FunctionCallInfo fcinfo = call_expr->fcinfo;
	bool any_null = false;
	int i = 0;
	ListCell *cell;
	foreach (cell, call_expr->args) {
		fcinfo->args[i].value = ExecEvalExpr(static_cast<ExprState *>(lfirst(cell)), econtext, &fcinfo->args[i].isnull);
		any_null = any_null || fcinfo->args[i].isnull;
		i++;
	}
	ReturnSetInfo *result_info = &state->result_info;
	*result_info = ReturnSetInfo{};
	result_info->type = T_ReturnSetInfo;
	result_info->econtext = econtext;
	result_info->expectedDesc = columns;
	result_info->allowedModes = SFRM_Materialize;
	result_info->returnMode = SFRM_Materialize;
	result_info->isDone = ExprSingleResult;
	fcinfo->resultinfo = reinterpret_cast<Node *>(result_info);
	fcinfo->context = reinterpret_cast<Node *>(call);
	// A strict function gives no rows for a NULL argument without being called (ours check their
	// own: they take an optional NULL max_depth).
	if (!(call_expr->func.fn_strict && any_null)) {
		PgStat_FunctionCallUsage usage;
		pgstat_init_function_usage(fcinfo, &usage);
		fcinfo->isnull = false;
		FunctionCallInvoke(fcinfo);
		pgstat_end_function_usage(&usage, true);
		if (result_info->setResult != nullptr || (call->rows == nullptr && !fcinfo->isnull))
			elog(ERROR, "function %u did not hand its rows to the Grail Traversal Scan", call_expr->func.fn_oid);
	}
	MemoryContextSwitchTo(previous);
}

TupleTableSlot *
next_row(ScanState *node) {
	auto *state = reinterpret_cast<TraversalScanState *>(node);
	if (state->call == nullptr)
		make_call(state);
	TupleTableSlot *slot = node->ss_ScanTupleSlot;
	ExecClearTuple(slot);
	grail::pg::TraversalRows *rows = state->call->rows;
	if (rows == nullptr)
		return slot;
	if (ScanDirectionIsBackward(node->ps.state->es_direction)) {
		// The row before the last one given (the last row once past the end): back two, then one
		// forward. Before the first row there is none, and the next row forward is the first.
		size_t after_last = grail::pg::traversal_row_position(rows) + (state->past_end ? 1 : 0);
		state->past_end = false;
		if (after_last < 2) {
			grail::pg::set_traversal_row_position(rows, 0);
			return slot;
		}
		grail::pg::set_traversal_row_position(rows, after_last - 2);
	}
	// Keys answered as text are made in the row's memory, which ExecScan resets for each row.
	MemoryContext previous = MemoryContextSwitchTo(node->ps.ps_ExprContext->ecxt_per_tuple_memory);
	bool more = grail::pg::next_traversal_row(rows, slot->tts_values, slot->tts_isnull);
	MemoryContextSwitchTo(previous);
	if (more)
		ExecStoreVirtualTuple(slot);
	else
		state->past_end = true;
	return slot;
}

// Where a row of an UPDATE or a SELECT FOR UPDATE is rechecked (EvalPlanQual) and a subquery
// over the scan runs again, PostgreSQL before 15.15 asks every scan without a relation of its own
// (scanrelid 0) for its recheck instead of its next row: the scan, which has no relation's row to
// recheck, gives its next row here (in slot, its scan tuple), else the subquery would find no rows.
// Later releases read the next row there, and ask for a recheck only below the rechecked rows'
// join, where the scan never is (such a query reads the function's whole row: a FunctionScan).
bool
recheck_row(ScanState *node, TupleTableSlot *slot) {
	return !TupIsNull(next_row(node));
}

TupleTableSlot *
exec_traversal_scan(CustomScanState *node) {
	// Without a condition, a projection or an EvalPlanQual recheck, ExecScan's work a row is the
	// reset of the row's memory, which only a key answered as text used: the row as formed.
	PlanState &plan = node->ss.ps;
	if (plan.qual == nullptr && plan.ps_ProjInfo == nullptr && plan.state->es_epq_active == nullptr) {
		MemoryContext row_memory = plan.ps_ExprContext->ecxt_per_tuple_memory;
		if (!row_memory->isReset || row_memory->firstchild != nullptr)
			MemoryContextReset(row_memory);
		return next_row(&node->ss);
	}
	return ExecScan(&node->ss, next_row, recheck_row);
}

void
end_traversal_scan(CustomScanState *node) {
	auto *state = reinterpret_cast<TraversalScanState *>(node);
	MemoryContextDelete(state->call_memory);
	state->call = nullptr;
}

void
rescan_traversal_scan(CustomScanState *node) {
	auto *state = reinterpret_cast<TraversalScanState *>(node);
	if (state->call != nullptr && node->ss.ps.chgParam == nullptr) {
		// The same arguments: the same rows again, without a second search.
		if (state->call->rows != nullptr)
			grail::pg::set_traversal_row_position(state->call->rows, 0);
		state->past_end = false;
	} else {
		MemoryContextReset(state->call_memory);
		state->call = nullptr;
	}
	ExecScanReScan(&node->ss);
}

void
explain_traversal_scan(CustomScanState *node, List *ancestors, ExplainState *es) {
	Plan *plan = node->ss.ps.plan;
	auto *scan = reinterpret_cast<CustomScan *>(plan);
	Node *call = static_cast<Node *>(linitial(scan->custom_exprs));
	// What a FunctionScan says in its "on descendants d", which a custom scan's title cannot: the
	// function (schema-qualified in VERBOSE) and the alias where it is another name, so that two
	// scans of one plan are told apart.
	const char *function = IsA(call, FuncExpr) ? get_func_name(reinterpret_cast<FuncExpr *>(call)->funcid) : nullptr;
	int rti = bms_singleton_member(scan->custom_relids);
	const char *alias = rti > 0 && rti <= list_length(es->rtable_names)
	                        ? static_cast<const char *>(list_nth(es->rtable_names, rti - 1))
	                        : nullptr;
	if (function != nullptr) {
		StringInfoData target;
		initStringInfo(&target);
		char *schema =
		    es->verbose ? get_namespace_name(get_func_namespace(reinterpret_cast<FuncExpr *>(call)->funcid)) : nullptr;
		if (schema != nullptr)
			appendStringInfo(&target, "%s.", quote_identifier(schema));
		appendStringInfoString(&target, quote_identifier(function));
		if (alias != nullptr && strcmp(alias, function) != 0)
			appendStringInfo(&target, " %s", quote_identifier(alias));
		ExplainPropertyText("Function", target.data, es);
	}
	if (!es->verbose)
		return;
	// The call as it runs: the graph, the source and the depth bound (a pushed-down condition's
	// included).
	List *context = set_deparse_context_plan(es->deparse_cxt, plan, ancestors);
	ExplainPropertyText("Function Call", deparse_expression(call, context, true, false), es);
}

} // namespace

namespace grail::pg {

void
install_traversal_scan() {
	RegisterCustomScanMethods(&scan_methods);
	previous_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = set_rel_pathlist;
}

} // namespace grail::pg
