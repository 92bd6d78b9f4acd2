// Opening a graph for queries: catalog row, privilege and staleness checks once per statement
// and call site, what a graph needs (its build's index, a live graph's overlay or rebuild) cached
// per backend.
#pragma once

#include "bfs.hpp"
#include "index.hpp"
#include "paths.hpp"
#include "reach.hpp"

#include <memory>
#include <optional>
#include <string>

#include "boundary/guard.hpp"
#include "service/kept_memory.hpp"

namespace grail::pg {

struct CachedFile;

struct LoadedGraph {
	LoadedGraph(std::string build_uuid_, Index &&index_, std::shared_ptr<const CachedFile> image_file_)
	    : build_uuid(std::move(build_uuid_)), image_file(std::move(image_file_)), index(std::move(index_)),
	      reach(index) {
	}
	std::string build_uuid; // grail.graph.build_uuid: never reused, unlike graph ids and build numbers
	// The format version of the image the index was attached to; 0 for a snapshot's rebuild, which
	// is made in memory and never written as an image.
	uint32_t image_format = 0;
	// The shared image file the index is mapped from (image_cache.hpp), or null.
	std::shared_ptr<const CachedFile> image_file;
	Index index;
	// The graph's name as the last open gave it, for the messages of what is made later (in_edges()).
	std::string name;
	// What this backend keeps of it (its private image, a rebuild's index, the reversed edges),
	// within grail.backend_memory_limit.
	KeptBytes kept;
	// The SQL type the graph's keys are answered in (key_datums.hpp, column_key_type): INT8OID,
	// TEXTOID, UUIDOID, or an oid type (OIDOID, REGROLEOID, ...). Set by every open, from the
	// edge columns as they are.
	Oid key_type = InvalidOid;
	// The build's reachability; its copy of the index on the GPU, made by the first batch that uses
	// it, is kept with this build (device memory included) while the backend caches it.
	Reach reach;

	// The build's edges reversed (each vertex's in-neighbours, ascending), for searches against
	// edge direction: made by the first call that needs it, then kept with this build (a live
	// graph's snapshot rebuild keeps its own), counted in kept.
	const Csr &in_edges();

	// The build's paths and cycles (path(), find_cycle()), with the scratch of their searches and
	// these in_edges(): made by the first call that needs it, then kept with this build.
	PathFinder &path_finder();

	// The memory of this build's CPU traversals besides their rows (bfs(), descendants(),
	// ancestors(): BfsScratch), made by the first one and kept with the build, so that a call that
	// reaches few vertices costs what it reaches; freed with the build (a drop, a newer build).
	BfsScratch &bfs_scratch();

	// Counts in kept what the build's reachability searches (its own and its helper threads':
	// Reach::scratch_bytes()), traversals (bfs_scratch()) and paths (path_finder()'s depth slots,
	// 16 bytes a vertex) keep for their next calls, after a call that may have grown it: room
	// within grail.backend_memory_limit as for anything kept (53200 where none is left, and the
	// scratch is let go). A batch with helper threads keeps a byte a component for each.
	void count_scratch();

private:
	std::unique_ptr<const Csr> in_edges_;
	std::unique_ptr<PathFinder> path_finder_;
	std::unique_ptr<BfsScratch> bfs_scratch_;
	std::unique_ptr<KeptBytes> scratch_kept_; // count_scratch()'s
};

// What reachable() answers from: the loaded build (its index turns keys into ids), and the
// reachability of the build, or of the build and the pending changes the statement's snapshot
// sees when the graph is live and has some that the overlay takes (else graph is the build, or
// the snapshot's own rebuild).
struct ReachabilityView {
	LoadedGraph &graph;
	Reach &reach;
};
ReachabilityView open_reachability(FunctionCallInfo fcinfo, int arg, std::optional<grail::KeyKind> keys);

// Where the call site (fn_extra, beside the graph open_reachability() keeps there) keeps the type
// of a polymorphic function's key arguments, InvalidOid until the caller sets it: the call's
// expression fixes it, so a site looks it up once rather than per row. Not for a function that
// lends fn_extra to anything but open_reachability() / open_graph().
Oid &site_key_type(FunctionCallInfo fcinfo);

// The graph named by argument `arg` of the current call. The first call of a statement checks
// the graph (exists, edge table readable by the current user, not stale, keyed by `keys` unless
// that is empty: the kind of key the calling function takes or returns) and loads its index
// unless this backend holds that build already; later calls with the same name return the
// graph kept in fn_extra at the cost of one name comparison, no catalog lookup, no allocation.
LoadedGraph &open_graph(FunctionCallInfo fcinfo, int arg, std::optional<grail::KeyKind> keys);

// Frees this backend's copy of a dropped graph's index (other backends free theirs when they exit).
void forget_graph(int64_t graph_id);

// The graph of that name, checked as open_graph() checks it, for callers that cannot lend
// fn_extra to open_graph() (value-per-call set-returning functions keep their FuncCallContext
// there); the shared_ptr keeps the build loaded for as long as the caller holds it.
std::shared_ptr<LoadedGraph> open_graph_named(const char *name, std::optional<grail::KeyKind> keys);

// How a statement's calls open a graph (grail.explain_graph): the graph opened in the active
// snapshot exactly as open_graph() (reachability: as open_reachability()) opens it, and what it
// answers from. Opening it loads what the functions would load, and keeps it for them.
enum class AnswerSource {
	build,            // the last build's index
	overlay,          // the last build's index and the overlay of the pending changes (reachable())
	snapshot_rebuild, // an index of the rows the snapshot sees, built in this backend and kept
	rows_read,        // the same, for a statement whose own writes are not logged yet (not kept)
	view_read,        // a view's rows, read as the querying role in the statement's snapshot
};
struct OpenedFor {
	std::shared_ptr<LoadedGraph> graph;
	AnswerSource source = AnswerSource::build;
	int64_t build = 0;    // grail.graph.build
	int64_t built_at = 0; // grail.graph.built_at (TimestampTz)
	bool live = false;    // grail.graph.live
	int64_t pending = 0;  // edge changes pending that the snapshot sees (as grail.graphs counts them)
	size_t overlay_inserted = 0, overlay_deleted = 0; // edges the overlay adds and removes
	int64_t base_build = 0, delta_changes = 0;        // a delta build's base and changes (0: a full build)
};
OpenedFor explain_open(const char *name, bool reachability);

// The last build of the graph of that name, checked as open_graph() checks it, whatever a live
// graph has pending: for the planner's estimates, which need not see the pending changes and must
// not rebuild a live graph while planning.
std::shared_ptr<LoadedGraph> open_build_named(const char *name);

} // namespace grail::pg
