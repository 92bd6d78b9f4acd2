#include "overlay_changes.hpp"

#include <algorithm>
#include <iterator>

namespace grail {

bool
OverlayChanges::takes(size_t changes, const Index &base) noexcept {
	return changes <= 65536 + base.graph().out.edge_count() / 4;
}

int64_t
OverlayChanges::vertex_of_id(int64_t id) {
	int64_t v = base_->find(id);
	if (v >= 0)
		return v;
	auto [slot, fresh] = added_ids_.emplace(id, vid_t(base_->graph().vertex_count() + added_));
	added_ += fresh;
	return slot->second;
}

int64_t
OverlayChanges::vertex_of_key(const std::string &key) {
	int64_t v = base_->keys().find(key.data(), key.size());
	if (v >= 0)
		return v;
	auto [slot, fresh] = added_keys_.emplace(key, vid_t(base_->graph().vertex_count() + added_));
	added_ += fresh;
	return slot->second;
}

OverlayChanges::Net
OverlayChanges::net_state(int64_t built, int64_t rows) noexcept {
	if (built == 0 && rows > 0)
		return Net::inserted;
	if (built > 0 && built + rows == 0)
		return Net::deleted;
	return Net::none;
}

std::optional<OverlayChanges>
OverlayChanges::of(const Index &base, const std::vector<EdgeChange> &changes) {
	if (!takes(changes.size(), base))
		return std::nullopt;
	OverlayChanges c(base);
	const Graph &graph = base.graph();
	const size_t n = graph.vertex_count();
	const bool integer = base.keys().kind() == KeyKind::integer;
	c.count_ = changes.size();
	for (const EdgeChange &change : changes) {
		int64_t u = integer ? c.vertex_of_id(change.source) : c.vertex_of_key(change.source_key);
		int64_t v = integer ? c.vertex_of_id(change.target) : c.vertex_of_key(change.target_key);
		if (n + c.added_ >= size_t(UINT32_MAX))
			return std::nullopt;
		if (u != v)
			c.net_[uint64_t(u) << 32 | uint64_t(v)] += change.rows;
	}
	for (const auto &[edge, rows] : c.net_) {
		vid_t u = vid_t(edge >> 32), v = vid_t(edge);
		int64_t built = u < n && v < n ? graph.rows_of(u, v) : 0;
		if (built < 0 || built + rows < 0)
			return std::nullopt;
		Net state = net_state(built, rows);
		if (state == Net::inserted)
			c.inserted_.emplace_back(u, v);
		else if (state == Net::deleted)
			c.deleted_.emplace_back(u, v);
	}
	return c;
}

namespace {

// a less b, both sorted.
void
take_out(OverlayChanges::Edges &a, const OverlayChanges::Edges &b) {
	if (b.empty())
		return;
	OverlayChanges::Edges kept;
	kept.reserve(a.size());
	std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(kept));
	a.swap(kept);
}

} // namespace

const OverlayChanges::Edges &
OverlayChanges::sorted(Edges &edges, size_t &prefix) {
	if (prefix < edges.size()) {
		std::sort(edges.begin() + long(prefix), edges.end());
		std::inplace_merge(edges.begin(), edges.begin() + long(prefix), edges.end());
		prefix = edges.size();
	}
	return edges;
}

bool
OverlayChanges::extend(const std::vector<EdgeChange> &more, Extension &extension) {
	extension = Extension{};
	count_ += more.size();
	if (!takes(count_, *base_))
		return false;
	const Graph &graph = base_->graph();
	const size_t n = graph.vertex_count();
	const bool integer = base_->keys().kind() == KeyKind::integer;
	std::unordered_map<uint64_t, int64_t> batch; // the batch's net rows per edge
	for (const EdgeChange &change : more) {
		int64_t u = integer ? vertex_of_id(change.source) : vertex_of_key(change.source_key);
		int64_t v = integer ? vertex_of_id(change.target) : vertex_of_key(change.target_key);
		if (n + added_ >= size_t(UINT32_MAX))
			return false;
		if (u != v)
			batch[uint64_t(u) << 32 | uint64_t(v)] += change.rows;
	}
	for (const auto &[edge, rows] : batch) {
		vid_t u = vid_t(edge >> 32), v = vid_t(edge);
		int64_t built = u < n && v < n ? graph.rows_of(u, v) : 0;
		int64_t &net = net_[edge];
		int64_t before = net;
		net += rows;
		if (built < 0 || built + net < 0)
			return false;
		Net was = net_state(built, before), is = net_state(built, net);
		if (was == is)
			continue;
		if (was == Net::none && is == Net::inserted)
			extension.appeared.emplace_back(u, v);
		else if (was == Net::inserted && is == Net::none)
			extension.retracted.emplace_back(u, v);
		else if (was == Net::none && is == Net::deleted)
			extension.gone.emplace_back(u, v);
		else
			return false; // a deleted edge of the build written again
	}
	std::sort(extension.appeared.begin(), extension.appeared.end());
	std::sort(extension.retracted.begin(), extension.retracted.end());
	std::sort(extension.gone.begin(), extension.gone.end());
	if (!extension.retracted.empty()) {
		sorted(inserted_, inserted_sorted_);
		take_out(inserted_, extension.retracted);
		inserted_sorted_ = inserted_.size();
	}
	inserted_.insert(inserted_.end(), extension.appeared.begin(), extension.appeared.end());
	deleted_.insert(deleted_.end(), extension.gone.begin(), extension.gone.end());
	return true;
}

int64_t
OverlayChanges::vertex(int64_t id) const noexcept {
	int64_t v = base_->find(id);
	if (v >= 0)
		return v;
	auto found = added_ids_.find(id);
	return found == added_ids_.end() ? -1 : int64_t(found->second);
}

int64_t
OverlayChanges::added_key(std::string_view key) const {
	if (added_keys_.empty())
		return -1;
	auto found = added_keys_.find(std::string(key));
	return found == added_keys_.end() ? -1 : int64_t(found->second);
}

} // namespace grail
