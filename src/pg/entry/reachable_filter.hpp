// reachable(graph, a, b) as a condition on a table's rows, answered for many rows at once
// (reachable_filter.cpp).
#pragma once

#include "boundary/guard.hpp"

namespace grail::pg {

// Registers the filter and installs its planner hook; once per backend, from _PG_init.
void install_reachable_filter();

// Whether this call of an array form of reachable() is the filter's, answering a batch of rows
// that the query asks row by row: an error about one pair's key then gives the per-row call in its
// hint, as a row-by-row call raises it, not a call of arrays that the query does not make.
bool answers_filter_rows(FunctionCallInfo fcinfo);

} // namespace grail::pg
