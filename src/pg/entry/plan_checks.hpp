// What the planner hooks (depth_pushdown.cpp, traversal_scan.cpp, reachable_filter.cpp) check
// before they change a plan: that a function is pg_grail's own, and that an expression holds
// nothing their nodes would evaluate otherwise than PostgreSQL's own scans.
#pragma once

extern "C" {
#include "postgres.h"

#include "nodes/pg_list.h"
}

namespace grail::pg {

// Whether function is a member of the extension pg_grail in this database (one where pg_grail is
// preloaded but not installed may have a schema grail holding anyone's functions).
bool is_extension_function(Oid function);

// Whether the expression holds a placeholder (an outer join's expression, replaced by createplan
// in ways the hooks do not repeat) or a subplan or sublink.
bool holds_placeholder_or_subplan(Node *expression);

// Whether the expression reads the whole row of range table entry rti (a node that lists the
// relation's columns has no such row).
bool uses_whole_row(Node *expression, Index rti);

// Whether a condition of the list (RestrictInfos) reads the whole row of rti.
bool restrictions_use_whole_row(List *restrictions, Index rti);

} // namespace grail::pg
