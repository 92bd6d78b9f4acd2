// A live graph's pending changes as an overlay takes them (overlay.hpp): each edge's net change of
// rows, added to the rows the build read of it (Graph::rows_of), says whether the edge appears or
// vanishes; keys the build lacks become vertices numbered from the build's vertex count on, in the
// order the changes first name them.
#pragma once
#include "cpp_only.hpp"
#include "index.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace grail {

// One logged change of edge source -> target: rows written (rows > 0) or removed (rows < 0).
struct EdgeChange {
	int64_t source = 0, target = 0;     // integer keys
	std::string source_key, target_key; // text or uuid keys: the bytes the build's dictionary holds
	int64_t rows = 0;
};

class OverlayChanges {
public:
	using Edges = std::vector<std::pair<vid_t, vid_t>>;

	// Whether an overlay takes this many changes over base: past a quarter of its edges, hashing
	// and widening them costs about what a rebuild from the rows does, and the rebuild answers
	// faster.
	static bool takes(size_t changes, const Index &base) noexcept;

	// The net changes over base (keys of base's kind), or nothing where an overlay takes none of
	// them: too many (takes()), an image that does not count the rows of an edge, more rows removed
	// from an edge than it held, or vertices past 32 bits.
	static std::optional<OverlayChanges> of(const Index &base, const std::vector<EdgeChange> &changes);

	// Takes in more changes (logged after those already in), and says what they change, each list
	// sorted: `appeared`, edges now inserted (added to inserted(), keys the build lacks numbered on);
	// `retracted`, edges inserted earlier that no row holds any more (taken out of inserted());
	// `gone`, edges of the build that no row holds any more (added to deleted()). False where the
	// overlay would need more: an edge of the build deleted and then written again (it comes back),
	// or what of() refuses. Then this object is left part-way and must be dropped: the caller makes
	// a new one from all the changes.
	struct Extension {
		Edges appeared, retracted, gone;
	};
	bool extend(const std::vector<EdgeChange> &more, Extension &extension);

	// Edges that no row held at the build and some row holds now, and edges some row held that no
	// row holds now (u != v, base vertices): each sorted. extend() appends what a batch adds, sorted
	// here when next asked (a merge of the batch into the rest): a stream of batches that nobody
	// asks for them in between costs no move of the edges held.
	const Edges &
	inserted() const {
		return sorted(inserted_, inserted_sorted_);
	}
	const Edges &
	deleted() const {
		return sorted(deleted_, deleted_sorted_);
	}
	size_t
	inserted_count() const noexcept {
		return inserted_.size();
	}
	size_t
	deleted_count() const noexcept {
		return deleted_.size();
	}
	// Vertices only the changes have: numbered n .. n + added() - 1 after the build's n.
	size_t
	added() const noexcept {
		return added_;
	}
	// The vertex of an integer id (the build's, else the changes'), or -1 when neither has it.
	int64_t vertex(int64_t id) const noexcept;
	// The vertex of a text or uuid key (the dictionary's bytes) that only the changes have, or -1.
	int64_t added_key(std::string_view key) const;
	bool
	adds_keys() const noexcept {
		return !added_keys_.empty();
	}

private:
	explicit OverlayChanges(const Index &base) : base_(&base) {
	}
	// The vertex of an integer id or of a key's bytes, numbered on where the build lacks it.
	int64_t vertex_of_id(int64_t id);
	int64_t vertex_of_key(const std::string &key);
	// What an edge is over the build, from the rows the build read and the net rows written since.
	enum class Net { none, inserted, deleted };
	static Net net_state(int64_t built, int64_t rows) noexcept;

	const Index *base_;
	size_t count_ = 0;                          // changes taken in
	std::unordered_map<uint64_t, int64_t> net_; // (u << 32 | v) -> rows written less rows removed
	// Sorted up to *_sorted_, the rest appended since (none of it in the sorted part).
	static const Edges &sorted(Edges &edges, size_t &prefix);
	mutable Edges inserted_, deleted_;
	mutable size_t inserted_sorted_ = 0, deleted_sorted_ = 0;
	size_t added_ = 0;
	std::unordered_map<int64_t, vid_t> added_ids_;      // integer keys
	std::unordered_map<std::string, vid_t> added_keys_; // text or uuid keys, by their bytes
};

} // namespace grail
