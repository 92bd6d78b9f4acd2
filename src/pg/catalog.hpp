// The extension's catalog (grail.graph, grail.index_chunk), read and written through SPI with the
// privileges of the extension's owner: users never touch these tables directly, and the functions
// check the caller's privileges on the edge table before calling in here.
#pragma once

#include <cstdint>
#include <vector>

#include "guard.hpp"

extern "C" {
#include "access/attnum.h"
}

namespace grail::pg {

struct GraphRow {
	int64_t id = 0;
	Oid relid = InvalidOid;
	AttrNumber source_attnum = 0;
	AttrNumber target_attnum = 0;
	Oid owner = InvalidOid;
	int labels = 0;
	bool skip_nulls = false;
	int64_t build = 0; // 0 before the first build
	bool stale = false;
	int64_t index_bytes = 0;
	// The staleness trigger exists and is enabled: without it, a change to the table would go unseen.
	bool watched = false;
};

// Runs the enclosing scope as the extension's owner (SECURITY_LOCAL_USERID_CHANGE, as
// PostgreSQL's own RI triggers do). A transaction abort restores the caller too.
class AsExtensionOwner {
public:
	AsExtensionOwner();
	~AsExtensionOwner();
	AsExtensionOwner(const AsExtensionOwner &) = delete;
	AsExtensionOwner &operator=(const AsExtensionOwner &) = delete;

private:
	Oid saved_user_;
	int saved_context_;
};

// Each of these connects to SPI, runs as the extension owner, and disconnects.
// find_graph: false if there is no such graph. A query reads the row in its statement's snapshot,
// so that the row and the index chunks it loads next agree; for_change reads the latest committed
// row and locks it FOR UPDATE.
bool find_graph(const char *name, GraphRow *row, bool for_change = false);
// Serialises create_graph calls for one name until the end of the transaction, so the second of
// two concurrent calls sees the first's graph and fails with a clear error.
void lock_graph_name(const char *name);
int64_t insert_graph(const char *name, const GraphRow &row);
void delete_graph(int64_t id);

struct StoredBuild {
	int64_t input_rows, null_rows, vertices, edges, components, dag_edges, index_bytes;
	double read_ms, graph_ms, scc_ms, label_ms, persist_ms;
};
// Replaces the graph's chunks with bytes and records the build; returns the new build number.
int64_t store_index(int64_t id, const std::vector<uint8_t> &bytes, StoredBuild *stats);
std::vector<uint8_t> load_index(const GraphRow &row);

// Runs a utility or DML statement as the extension owner.
void execute_as_owner(const char *sql);

} // namespace grail::pg
