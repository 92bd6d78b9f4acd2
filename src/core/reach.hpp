// Reachability over one build of a graph: its index, optionally the changes since (a live graph's
// pending changes, answered by an overlay without a rebuild), and a copy of the index on the GPU for
// batches, made by the first batch that uses it. One object answers single pairs and batches; its
// caller turns keys into the index's ids and back.
//
// Ids are the index's (Index::find): an integer key's id, which the index resolves through its id
// hash (whose slots hold the component: one cache miss per id), or a text or uuid key's vertex
// number (keys.hpp), with the changes also one that only they have (added_key()). An id that is no
// vertex reaches only itself.
//
// A batch runs the label filters, then hands the pairs they leave undecided to the searcher that a
// DevicePolicy picks: the CPU's pruned DFS, or the batched GPU search over the device copy. With
// changes, every pair is answered on the CPU whatever the policy: the device copy holds the build's
// DAG and labels, which the changes invalidate for the components that reach them (overlay.hpp),
// and the GPU search has no overlay. So a live graph's batch with pending changes never reaches
// the GPU, under grail.device = gpu too, and without an error.
#pragma once
#include "cpp_only.hpp"
#include "device_policy.hpp"
#include "gpu.hpp"
#include "index.hpp"
#include "overlay.hpp"
#include "overlay_changes.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace grail {

class Reach {
public:
	// The build's reachability: its index alone.
	explicit Reach(const Index &index);
	~Reach();
	Reach(const Reach &) = delete;
	Reach &operator=(const Reach &) = delete;

	// The build's reachability with changes since, or null where the overlay declines them
	// (ReachabilityOverlay::build: they split a component of the build or join components): the
	// caller rebuilds. reversed_dag: as ReachabilityOverlay::build takes it (reversed_dag()).
	static std::unique_ptr<Reach> with_changes(const Index &index, OverlayChanges changes,
	                                           std::shared_ptr<const Csr> reversed_dag = nullptr);

	// Takes in more changes, logged after those this reachability holds (one made by
	// with_changes()), by extending its overlay with the edges they add, take back or delete
	// (OverlayChanges::extend, ReachabilityOverlay::extend) instead of making it again. False where
	// they need more than that (an edge of the build that comes back, a component split, a new cycle
	// between components, a large batch): then this object is left part-way and must be dropped,
	// and the caller makes a new one from all the changes.
	bool extend(const std::vector<EdgeChange> &more);

	const Index &
	index() const noexcept {
		return index_;
	}
	// The overlay's transpose of the build's DAG, for the next overlay of the same build; null
	// without changes or where they did not need it.
	std::shared_ptr<const Csr> reversed_dag() const noexcept;

	// The changes over the build, netted (null without): what an overlay inserts and deletes.
	const OverlayChanges *
	changes() const noexcept {
		return changes_ ? &*changes_ : nullptr;
	}

	// The id of a text or uuid key (the dictionary's bytes) that only the changes have, or -1;
	// adds_keys() tells whether there is any, before the key's bytes are made.
	bool
	adds_keys() const noexcept {
		return changes_ && changes_->adds_keys();
	}
	int64_t
	added_key(std::string_view key) const {
		return changes_ ? changes_->added_key(key) : -1;
	}

	// Whether id a reaches id b.
	bool reachable(int64_t a, int64_t b);
	// Before many reachable() calls: the overlay's deferred widening finished at once
	// (ReachabilityOverlay::settle()), where each call would otherwise sweep what is left.
	void
	settle() {
		if (overlay_)
			overlay_->settle();
	}

	// answers[i] = reachable(a[i], b[i]), the pairs the labels leave undecided searched on the
	// device the policy picks (on the CPU with changes); fallback is told where the GPU fails and
	// the policy falls back. Returns how many pairs needed a search (0 with changes, which answer
	// each pair as reachable() does). helpers: threads beside the calling one that the labels'
	// pass and the CPU's searches of a large batch may use (ReachabilityQuery::decide_many,
	// search_each); a batch with changes runs on the calling thread (the overlay grows as it answers).
	size_t reachable_many(const int64_t *a, const int64_t *b, size_t count, bool *answers, const DevicePolicy &policy,
	                      const DeviceFallback &fallback, unsigned helpers = 0);

	// The first half of reachable_many() without changes, for a searcher elsewhere (the GPU
	// service): answers[i] where the ids and labels decide, the other pairs listed in undecided;
	// search_each() answers those here. Error(internal) with changes.
	void decide_many(const int64_t *a, const int64_t *b, size_t count, bool *answers,
	                 ReachabilityQuery::Undecided &undecided, unsigned helpers = 0);
	void search_each(const ReachabilityQuery::Undecided &undecided, bool *answers, unsigned helpers = 0);

	// False once extend() ended part-way (false, or an error) or its overlay is not intact
	// (ReachabilityOverlay::intact()): a caller that keeps a reachability across statements drops
	// one that is not, after an error part-way.
	bool
	intact() const noexcept {
		return changes_intact_ && (!overlay_ || overlay_->intact());
	}

	// The overlay over the changes (null without), for statistics and tests.
	ReachabilityOverlay *
	overlay() noexcept {
		return overlay_.get();
	}

	// Device memory of the GPU copy of the index, 0 until a batch made it.
	size_t device_bytes() const noexcept;

	// The bytes the build's queries keep for their searches (ReachabilityQuery::scratch_bytes()):
	// without changes, what batches and single pairs leave behind; an overlay's own are its.
	size_t
	scratch_bytes() const noexcept {
		return query_.scratch_bytes();
	}
	void
	release_scratch() noexcept {
		query_.release_scratch();
	}

	// Under automatic, where this build's batches search: reachable_many()'s own choice, and the
	// GPU service's path (which searches the pairs decide_many() leaves elsewhere) asks it too.
	SearchDeviceChoice &
	search_device() noexcept {
		return search_device_;
	}

private:
	// The overlay's vertex of an id, or -1.
	int64_t vertex(int64_t id) const noexcept;

	const Index &index_;
	ReachabilityQuery query_;
	std::optional<OverlayChanges> changes_;
	std::unique_ptr<ReachabilityOverlay> overlay_; // with changes_
	bool changes_intact_ = true;                   // intact()
	std::unique_ptr<GpuReachability> device_;      // without: made by the first batch on the GPU
	SearchDeviceChoice search_device_;
};

} // namespace grail
