#include "overlay_changes.hpp"

#include <algorithm>

namespace grail {

bool
OverlayChanges::takes(size_t changes, const Index &base) noexcept {
	return changes <= 65536 + base.graph().out.edge_count() / 4;
}

std::optional<OverlayChanges>
OverlayChanges::of(const Index &base, const std::vector<EdgeChange> &changes) {
	if (!takes(changes.size(), base))
		return std::nullopt;
	OverlayChanges c(base);
	const Graph &graph = base.graph();
	const size_t n = graph.vertex_count();
	const bool integer = base.keys().kind() == KeyKind::integer;
	auto vertex_of_id = [&](int64_t id) -> int64_t {
		int64_t v = base.find(id);
		if (v >= 0)
			return v;
		auto [slot, fresh] = c.added_ids_.emplace(id, vid_t(n + c.added_));
		c.added_ += fresh;
		return slot->second;
	};
	auto vertex_of_key = [&](const std::string &key) -> int64_t {
		int64_t v = base.keys().find(key.data(), key.size());
		if (v >= 0)
			return v;
		auto [slot, fresh] = c.added_keys_.emplace(key, vid_t(n + c.added_));
		c.added_ += fresh;
		return slot->second;
	};
	std::unordered_map<uint64_t, int64_t> net; // (u << 32 | v) -> rows written less rows removed
	for (const EdgeChange &change : changes) {
		int64_t u = integer ? vertex_of_id(change.source) : vertex_of_key(change.source_key);
		int64_t v = integer ? vertex_of_id(change.target) : vertex_of_key(change.target_key);
		if (n + c.added_ >= size_t(UINT32_MAX))
			return std::nullopt;
		if (u != v)
			net[uint64_t(u) << 32 | uint64_t(v)] += change.rows;
	}
	for (const auto &[edge, rows] : net) {
		vid_t u = vid_t(edge >> 32), v = vid_t(edge);
		int64_t built = u < n && v < n ? graph.rows_of(u, v) : 0;
		if (built < 0 || built + rows < 0)
			return std::nullopt;
		if (built == 0 && rows > 0)
			c.inserted_.emplace_back(u, v);
		else if (built > 0 && built + rows == 0)
			c.deleted_.emplace_back(u, v);
	}
	std::sort(c.inserted_.begin(), c.inserted_.end());
	std::sort(c.deleted_.begin(), c.deleted_.end());
	return c;
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
