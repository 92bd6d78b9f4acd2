#include "entry/plan_checks.hpp"

extern "C" {
#include "access/sysattr.h"
#include "catalog/dependency.h"
#include "catalog/pg_proc_d.h"
#include "commands/extension.h"
#include "nodes/bitmapset.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/optimizer.h"
}

namespace {

bool
holds_placeholder_or_subplan_walker(Node *node, void *context) {
	if (node == nullptr)
		return false;
	if (IsA(node, PlaceHolderVar) || IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) || IsA(node, SubLink))
		return true;
	return expression_tree_walker(node, reinterpret_cast<bool (*)()>(holds_placeholder_or_subplan_walker), context);
}

} // namespace

namespace grail::pg {

bool
is_extension_function(Oid function) {
	Oid extension = get_extension_oid("pg_grail", true);
	return OidIsValid(function) && OidIsValid(extension) &&
	       getExtensionOfObject(ProcedureRelationId, function) == extension;
}

bool
holds_placeholder_or_subplan(Node *expression) {
	return holds_placeholder_or_subplan_walker(expression, nullptr);
}

bool
uses_whole_row(Node *expression, Index rti) {
	Bitmapset *attributes = nullptr;
	pull_varattnos(expression, rti, &attributes);
	return bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attributes);
}

bool
restrictions_use_whole_row(List *restrictions, Index rti) {
	ListCell *cell;
	foreach (cell, restrictions) {
		if (uses_whole_row(reinterpret_cast<Node *>(lfirst_node(RestrictInfo, cell)->clause), rti))
			return true;
	}
	return false;
}

} // namespace grail::pg
