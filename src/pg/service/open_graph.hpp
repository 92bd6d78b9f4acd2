// Opening a graph for queries: catalog row, privilege and staleness checks once per statement
// and call site, the deserialized index cached per backend and build.
#pragma once

#include "gpu.hpp"
#include "index.hpp"
#include "overlay.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "boundary/guard.hpp"

namespace grail::pg {

struct CachedFile;

struct LoadedGraph {
	LoadedGraph(std::string build_uuid_, Index &&index_, std::shared_ptr<const CachedFile> image_file_)
	    : build_uuid(std::move(build_uuid_)), image_file(std::move(image_file_)), index(std::move(index_)),
	      query(index) {
	}
	std::string build_uuid; // grail.graph.build_uuid: never reused, unlike graph ids and build numbers
	// The shared image file the index is mapped from (image_cache.hpp), or null.
	std::shared_ptr<const CachedFile> image_file;
	Index index;
	ReachabilityQuery query;
	// The index on the GPU for batched searches, made by the first batch that uses it and kept
	// with this build (device memory included) while the backend caches it.
	std::unique_ptr<GpuReachability> gpu;
};

// A live graph's build and the pending changes a query's snapshot sees, which reachable() answers
// from without a rebuild (src/core/overlay.hpp). Vertices the build lacks are numbered from the
// build's vertex count on.
struct LiveOverlay {
	std::shared_ptr<LoadedGraph> base;
	std::unique_ptr<ReachabilityOverlay> overlay;
	std::unordered_map<int64_t, vid_t> added_ids;      // integer keys
	std::unordered_map<std::string, vid_t> added_keys; // text or uuid keys, by their bytes

	// The overlay vertex of an integer id, or -1 when neither the build nor a change has it.
	int64_t
	vertex(int64_t id) const {
		int64_t v = base->index.find(id);
		if (v >= 0)
			return v;
		auto found = added_ids.find(id);
		return found == added_ids.end() ? -1 : int64_t(found->second);
	}
	// The overlay vertex of a text or uuid key whose build vertex is base_vertex (-1: none).
	int64_t
	vertex(std::string_view key, int64_t base_vertex) const {
		if (base_vertex >= 0 || added_keys.empty())
			return base_vertex;
		auto found = added_keys.find(std::string(key));
		return found == added_keys.end() ? -1 : int64_t(found->second);
	}
};

// What reachable() answers from: the loaded build, and the overlay of the pending changes the
// statement's snapshot sees when the graph is live and has some (else overlay is null, and graph
// is the build, or for changes the overlay declines, the snapshot's own rebuild).
struct ReachabilityView {
	LoadedGraph &graph;
	LiveOverlay *overlay;
};
ReachabilityView open_reachability(FunctionCallInfo fcinfo, int arg, grail::KeyKind keys);

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

} // namespace grail::pg
