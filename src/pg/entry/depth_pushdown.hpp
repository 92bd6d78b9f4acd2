// A condition on the depth of bfs(), descendants() or ancestors() passed to the search as its
// max_depth (depth_pushdown.cpp).
#pragma once

extern "C" {
#include "postgres.h"
}

namespace grail::pg {

// Whether function is one of pg_grail's searches that take max_depth as their third argument
// (bfs, descendants, ancestors): by name in schema grail, and a member of the extension (a
// database where pg_grail is preloaded but not installed may have a schema of that name holding
// anyone's functions).
bool is_depth_bounded_search(Oid function);

// Installs the planner hook; once per backend, from _PG_init.
void install_depth_pushdown();

} // namespace grail::pg
