// reachable(graph, a, b) as a condition on a table's rows, answered for many rows at once
// (reachable_filter.cpp).
#pragma once

namespace grail::pg {

// Registers the filter and installs its planner hook; once per backend, from _PG_init.
void install_reachable_filter();

} // namespace grail::pg
