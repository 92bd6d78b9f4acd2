// A condition on the depth of bfs(), descendants() or ancestors() passed to the search as its
// max_depth (depth_pushdown.cpp).
#pragma once

namespace grail::pg {

// Installs the planner hook; once per backend, from _PG_init.
void install_depth_pushdown();

} // namespace grail::pg
