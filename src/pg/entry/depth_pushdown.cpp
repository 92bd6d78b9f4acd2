// A depth bound written as a condition reaches the search: in
//     SELECT ... FROM grail.bfs('g', 1) WHERE depth <= 2
// the planner's condition on the result's depth column becomes bfs's max_depth argument, so that
// the search stops at level 2 instead of visiting the whole graph for the filter to throw most of
// it away. The rows are the same: a search bounded by k finds exactly the vertices within k steps,
// at the same depths and with the same parents (the smallest at the level above), and the
// condition stays in the plan. EXPLAIN (VERBOSE) shows the bound in the call.
//
// Done in set_rel_pathlist_hook, where the planner has already placed each condition on the
// relation it filters (whatever join or subquery it was written in) and has not yet made the plan
// that copies the call from the range table. Plain C-style PostgreSQL code: no C++ object lives
// across a call that may raise an error.
#include "entry/depth_pushdown.hpp"
#include "entry/plan_checks.hpp"

extern "C" {
#include "postgres.h"

#include "catalog/dependency.h"
#include "catalog/pg_proc_d.h"
#include "catalog/pg_type_d.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
}

#include <cstring>

namespace {

set_rel_pathlist_hook_type previous_hook = nullptr;

// The column of bfs(), descendants() and ancestors() that holds the depth, and their max_depth
// argument.
constexpr AttrNumber kDepthColumn = 2;
constexpr int kMaxDepthArgument = 2;

// The largest depth that `clause` lets through when it bounds the depth column of relation rti
// from above with a constant (depth <= k, depth < k, depth = k, or the same written the other way
// round), in *bound; false for any other clause.
bool
depth_bound(Expr *clause, Index rti, int64 *bound) {
	if (!IsA(clause, OpExpr))
		return false;
	OpExpr *op = reinterpret_cast<OpExpr *>(clause);
	if (list_length(op->args) != 2)
		return false;
	Node *left = static_cast<Node *>(linitial(op->args));
	Node *right = static_cast<Node *>(lsecond(op->args));
	// With the depth on the right, k >= depth is depth <= k, and k > depth is depth < k.
	bool depth_on_left = IsA(left, Var);
	Node *depth = depth_on_left ? left : right;
	Node *constant = depth_on_left ? right : left;
	if (!IsA(depth, Var) || !IsA(constant, Const))
		return false;
	Var *var = reinterpret_cast<Var *>(depth);
	Const *value = reinterpret_cast<Const *>(constant);
	if (var->varno != int(rti) || var->varattno != kDepthColumn || var->vartype != INT4OID || var->varlevelsup != 0 ||
	    value->constisnull)
		return false;
	int64 k;
	// k - 1 below is defined for every constant of these types but int8's least.
	if (value->consttype == INT8OID && DatumGetInt64(value->constvalue) == PG_INT64_MIN)
		return false;
	if (value->consttype == INT4OID)
		k = DatumGetInt32(value->constvalue);
	else if (value->consttype == INT8OID)
		k = DatumGetInt64(value->constvalue);
	else if (value->consttype == INT2OID)
		k = DatumGetInt16(value->constvalue);
	else
		return false;
	switch (get_opcode(op->opno)) {
	case F_INT4EQ:
	case F_INT48EQ:
	case F_INT42EQ:
		*bound = k;
		return true;
	case F_INT4LE:
	case F_INT48LE:
	case F_INT42LE:
		if (!depth_on_left)
			return false;
		*bound = k;
		return true;
	case F_INT4LT:
	case F_INT48LT:
	case F_INT42LT:
		if (!depth_on_left)
			return false;
		*bound = k - 1;
		return true;
	case F_INT4GE:
	case F_INT48GE:
	case F_INT42GE:
		if (depth_on_left)
			return false;
		*bound = k;
		return true;
	case F_INT4GT:
	case F_INT48GT:
	case F_INT42GT:
		if (depth_on_left)
			return false;
		*bound = k - 1;
		return true;
	default:
		return false;
	}
}

void
push_depth_bounds(RelOptInfo *rel, Index rti, RangeTblEntry *rte) {
	if (rte->rtekind != RTE_FUNCTION || list_length(rte->functions) != 1 || rel->baserestrictinfo == NIL)
		return;
	RangeTblFunction *function = linitial_node(RangeTblFunction, rte->functions);
	if (!IsA(function->funcexpr, FuncExpr))
		return;
	FuncExpr *call = reinterpret_cast<FuncExpr *>(function->funcexpr);
	if (list_length(call->args) <= kMaxDepthArgument || !grail::pg::is_depth_bounded_search(call->funcid))
		return;
	Node *max_depth = static_cast<Node *>(list_nth(call->args, kMaxDepthArgument));
	if (!IsA(max_depth, Const) || reinterpret_cast<Const *>(max_depth)->consttype != INT4OID)
		return;
	Const *current = reinterpret_cast<Const *>(max_depth);
	int64 bound = current->constisnull ? PG_INT64_MAX : DatumGetInt32(current->constvalue);
	bool bounded = false;
	ListCell *cell;
	foreach (cell, rel->baserestrictinfo) {
		RestrictInfo *restriction = lfirst_node(RestrictInfo, cell);
		int64 k;
		// Bounds below 0 (which the search refuses) and above its argument's range are left to the
		// condition alone.
		if (restriction->pseudoconstant || !depth_bound(restriction->clause, rti, &k) || k < 0 || k > PG_INT32_MAX)
			continue;
		if (k < bound) {
			bound = k;
			bounded = true;
		}
	}
	if (!bounded)
		return;
	// The call is the planner's own copy of the query's expression: a new argument list leaves the
	// query as written untouched.
	List *arguments = list_copy(call->args);
	Const *limit = makeConst(INT4OID, -1, InvalidOid, sizeof(int32), Int32GetDatum(int32(bound)), false, true);
	lfirst(list_nth_cell(arguments, kMaxDepthArgument)) = limit;
	FuncExpr *bounded_call = static_cast<FuncExpr *>(copyObjectImpl(call));
	bounded_call->args = arguments;
	function->funcexpr = reinterpret_cast<Node *>(bounded_call);
}

void
set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte) {
	if (previous_hook)
		previous_hook(root, rel, rti, rte);
	push_depth_bounds(rel, rti, rte);
}

} // namespace

namespace grail::pg {

bool
is_depth_bounded_search(Oid function) {
	char *name = get_func_name(function);
	if (name == nullptr ||
	    (strcmp(name, "bfs") != 0 && strcmp(name, "descendants") != 0 && strcmp(name, "ancestors") != 0))
		return false;
	Oid schema = get_func_namespace(function);
	char *schema_name = OidIsValid(schema) ? get_namespace_name(schema) : nullptr;
	if (schema_name == nullptr || strcmp(schema_name, "grail") != 0)
		return false;
	return is_extension_function(function);
}

void
install_depth_pushdown() {
	previous_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = set_rel_pathlist;
}

} // namespace grail::pg
