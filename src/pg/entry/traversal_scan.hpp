// bfs(), descendants() and ancestors() in FROM as a scan that hands the search's rows to the plan
// one at a time (traversal_scan.cpp).
#pragma once

namespace grail::pg {

// Registers the scan and installs its planner hook, after install_depth_pushdown(); once per
// backend, from _PG_init.
void install_traversal_scan();

} // namespace grail::pg
