#include "reach.hpp"
#include "clock.hpp"

namespace grail {

Reach::Reach(const Index &index) : index_(index), query_(index) {
}

Reach::~Reach() = default;

std::unique_ptr<Reach>
Reach::with_changes(const Index &index, OverlayChanges changes, std::shared_ptr<const Csr> reversed_dag) {
	std::unique_ptr<ReachabilityOverlay> overlay = ReachabilityOverlay::build(
	    index, changes.added(), changes.inserted(), changes.deleted(), std::move(reversed_dag));
	if (!overlay)
		return nullptr;
	std::unique_ptr<Reach> reach(new Reach(index));
	reach->changes_ = std::move(changes);
	reach->overlay_ = std::move(overlay);
	return reach;
}

bool
Reach::extend(const std::vector<EdgeChange> &more) {
	if (!overlay_ || !changes_ || !intact())
		return false;
	// The changes and the overlay change together: part-way (false, or an error) they disagree.
	changes_intact_ = false;
	OverlayChanges::Extension extension;
	if (!changes_->extend(more, extension))
		return false;
	// Every inserted and deleted edge (sorted when asked for) only where the overlay reads them.
	static const OverlayChanges::Edges none;
	bool deletes = !extension.gone.empty();
	ReachabilityOverlay::Extension batch{extension.appeared, extension.retracted, extension.gone,
	                                     deletes ? changes_->inserted() : none, deletes ? changes_->deleted() : none};
	changes_intact_ = overlay_->extend(changes_->added(), batch);
	return changes_intact_;
}

std::shared_ptr<const Csr>
Reach::reversed_dag() const noexcept {
	return overlay_ ? overlay_->reversed_dag() : nullptr;
}

int64_t
Reach::vertex(int64_t id) const noexcept {
	if (index_.keys().kind() == KeyKind::integer)
		return changes_->vertex(id);
	return id >= 0 && uint64_t(id) < index_.graph().vertex_count() + changes_->added() ? id : -1;
}

bool
Reach::reachable(int64_t a, int64_t b) {
	if (!overlay_)
		return query_.reachable(a, b);
	if (a == b)
		return true;
	int64_t va = vertex(a), vb = vertex(b);
	return va >= 0 && vb >= 0 && overlay_->reachable(vid_t(va), vid_t(vb));
}

size_t
Reach::reachable_many(const int64_t *a, const int64_t *b, size_t count, bool *answers, const DevicePolicy &policy,
                      const DeviceFallback &fallback, unsigned helpers) {
	if (overlay_) {
		settle();
		for (size_t i = 0; i < count; i++) {
			if ((i & 0xFFFF) == 0xFFFF)
				poll_cancel();
			answers[i] = reachable(a[i], b[i]);
		}
		return 0;
	}
	ReachabilityQuery::Undecided undecided;
	query_.decide_many(a, b, count, answers, undecided, helpers);
	std::vector<uint8_t> reached;
	// Under automatic the GPU searches only where it has been the faster (search_device()), each
	// device timed on its searches alone (not the index's upload by the first batch on the GPU).
	bool choosing = policy.mode == DeviceMode::automatic && policy.batch_may_use_gpu(undecided.size());
	bool gpu = false;
	double searching = 0;
	auto on_gpu = [&] {
		if (choosing && !search_device_.gpu_next())
			return false;
		if (!device_)
			device_ = std::make_unique<GpuReachability>(index_);
		searching = now_ms();
		device_->search(undecided.from, undecided.to, reached);
		return gpu = true;
	};
	if (policy.batch_may_use_gpu(undecided.size()) &&
	    run_on_device(
	        policy, "the reachability searches", index_.dag(), on_gpu, [] { return false; }, fallback)) {
		undecided.answer(reached, answers);
	} else {
		searching = now_ms();
		query_.search_each(undecided, answers, helpers);
	}
	if (choosing)
		search_device_.record(gpu, undecided.size(), ms_since(searching));
	return undecided.size();
}

void
Reach::decide_many(const int64_t *a, const int64_t *b, size_t count, bool *answers,
                   ReachabilityQuery::Undecided &undecided, unsigned helpers) {
	if (overlay_)
		throw Error(ErrorKind::internal, "a batch over pending changes has no undecided pairs to hand out");
	query_.decide_many(a, b, count, answers, undecided, helpers);
}

void
Reach::search_each(const ReachabilityQuery::Undecided &undecided, bool *answers, unsigned helpers) {
	query_.search_each(undecided, answers, helpers);
}

size_t
Reach::device_bytes() const noexcept {
	return device_ ? device_->device_bytes() : 0;
}

} // namespace grail
