// Reading a graph's edge table and building its index, shared by the lifecycle
// (service/lifecycle.cpp) and a live graph's snapshot rebuild (service/open_graph.cpp).
#pragma once

#include "device_policy.hpp"
#include "index.hpp"
#include "keys.hpp"

#include "gpu_service/rows_file.hpp"

#include <memory>

#include "store/catalog.hpp"

namespace grail::pg {

// The rows of a graph's edge table as a build reads them, before the build: a merge finds in them
// what changed since the graph's last full build (grail::diff_rows) and builds from them only
// where that change is large.
struct GraphRows {
	grail::EdgeList edges;
	// Integer keys read for a build through the GPU service: the rows, written where the service
	// reads them (edges stays empty; the host's steps, where they take the rows, move them there).
	std::unique_ptr<grail::service::RowsFile> rows_file;
	// Text and uuid keys: their dictionary, whose vertex numbers edges hold; empty for integer keys.
	grail::KeyDictionary keys;
	double start_ms = 0; // when the read began: the build's time counts from there
	// Where the build runs, chosen before the read (its memory limit depends on it).
	grail::DevicePolicy policy;
	int route = 0;
};

// The first half of build_index: reads the rows (raising what build_index raises of them) and fills
// stats' read_ms, input_rows and null_rows. rows_on_host: the caller reads the rows' edges itself (a
// merge diffs them), so they never go into a rows file.
GraphRows read_graph_rows(const char *name, const GraphRow &row, Snapshot snapshot, StoredBuild *stats,
                          bool rows_on_host = false);
// The second half: builds the index of rows, filling the rest of stats. whole_image: the caller
// then makes the image whole (a merge, for the image cache), which the build's memory limit counts.
// The graph's GRAIL label count from its row (create_graph checks it; a row edited by hand gets an
// error that names the graph and the repair).
unsigned label_count(const char *name, const GraphRow &row);
grail::Index build_graph_rows(const char *name, const GraphRow &row, GraphRows rows, StoredBuild *stats,
                              bool whole_image = false);
// stats' sizes and times from a build's (after read_graph_rows), as build_graph_rows fills them.
void record_build_stats(const grail::BuildStats &build, double start_ms, StoredBuild *stats);

// Reads a graph's edge table and builds its index: in snapshot under ACCESS SHARE locks, or
// without one under SHARE locks in the latest snapshot (read_edges). Raises the build's errors
// (NULL endpoints unless skip_nulls, memory limit) as create_graph does; fills stats but
// persist_ms and index_bytes.
grail::Index build_index(const char *name, const GraphRow &row, Snapshot snapshot, StoredBuild *stats);

} // namespace grail::pg
