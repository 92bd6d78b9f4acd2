// Reachability over an index and the changes since its build (see overlay.hpp).
#include "overlay.hpp"
#include "error.hpp"
#include "pruned_search.hpp"
#include "pruning.hpp"
#include "topo_order.hpp"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace grail {

namespace {

uint64_t
edge_key(vid_t u, vid_t v) noexcept {
	return uint64_t(u) << 32 | v;
}

// The range of sorted (first, second) pairs whose first is `first`.
std::pair<ReachabilityOverlay::Edges::const_iterator, ReachabilityOverlay::Edges::const_iterator>
pairs_from(const ReachabilityOverlay::Edges &edges, uint32_t first) {
	auto begin = std::lower_bound(edges.begin(), edges.end(), std::make_pair(vid_t(first), vid_t(0)));
	auto end = begin;
	while (end != edges.end() && end->first == first)
		++end;
	return {begin, end};
}

void
sort_unique(ReachabilityOverlay::Edges &edges) {
	std::sort(edges.begin(), edges.end());
	edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
}

} // namespace

ReachabilityOverlay::ReachabilityOverlay(const Index &base, size_t added)
    : base_(base), base_query_(base), vertices_(base.graph().vertex_count()), components_(base.components().count()),
      added_(added), labels_(base.labels().label_count()) {
}

std::unique_ptr<ReachabilityOverlay>
ReachabilityOverlay::build(const Index &base, size_t added, const Edges &inserted, const Edges &deleted,
                           std::shared_ptr<const Csr> reversed_dag) {
	std::unique_ptr<ReachabilityOverlay> overlay(new ReachabilityOverlay(base, added));
	ReachabilityOverlay &o = *overlay;
	if (reversed_dag && (reversed_dag->vertex_count() != base.dag().vertex_count() ||
	                     reversed_dag->edge_count() != base.dag().edge_count()))
		throw Error(ErrorKind::internal, "a graph overlay was given the transpose of another DAG");
	o.reversed_dag_ = std::move(reversed_dag);
	if (o.components_ + added >= size_t(UINT32_MAX))
		return nullptr;
	for (const auto &[u, v] : inserted)
		if (u == v || u >= o.vertices_ + added || v >= o.vertices_ + added)
			throw Error(ErrorKind::internal, "an inserted edge of a graph overlay is a self-loop or out of range");
	for (const auto &[u, v] : deleted)
		if (u == v || u >= o.vertices_ || v >= o.vertices_)
			throw Error(ErrorKind::internal, "a deleted edge of a graph overlay is a self-loop or out of range");
	const GrailLabels &labels = base.labels();
	for (size_t c = 0; c < o.components_; c++) {
		const uint32_t *r = labels.record(vid_t(c));
		o.max_rank_ = std::max<uint64_t>(o.max_rank_, r[0]);
		for (unsigned i = 0; i < o.labels_; i++)
			o.max_rank_ = std::max<uint64_t>(o.max_rank_, r[4 + 2 * i]);
	}
	if (o.max_rank_ + 1 + added >= UINT32_MAX)
		return nullptr;
	o.added_ = 0;
	o.add_vertices(added);
	if (!o.remove(deleted, deleted, inserted, o.vanished_))
		return nullptr;
	for (const auto &[from, to] : o.vanished_)
		o.flags_[from] |= kVanishedOut;
	o.insert(inserted);
	o.mark_ancestors();
	std::vector<uint32_t> order; // G' topologically, where the base's numbering does not order it
	if (!o.acyclic(order))
		return nullptr;
	o.widen(order);
	return overlay;
}

/*
 * Added vertices up to `added` in all: each its own record (ranks past every rank of the base
 * labels, a Bloom bit of its own), no flag, no widened record, the last places of the order.
 */
void
ReachabilityOverlay::add_vertices(size_t added) {
	size_t from = added_;
	added_ = added;
	if (added != from)
		visited_ = VisitMarks{}; // its marks are made for one count of vertices
	added_intervals_.resize(added * 2 * labels_);
	added_bloom_.resize(added * kBloomWords, 0);
	for (size_t k = from; k < added; k++) {
		for (unsigned i = 0; i < 2 * labels_; i++)
			added_intervals_[k * 2 * labels_ + i] = uint32_t(max_rank_ + 1 + k);
		unsigned bit = unsigned((uint32_t(k) * 0x9E3779B1u) >> (32 - kBloomShift));
		added_bloom_[k * kBloomWords + bit / 64] |= uint64_t(1) << (bit % 64);
	}
	size_t total = components_ + added;
	flags_.resize(total, 0);
	if (!slot_.empty())
		slot_.resize(total, kNoSlot);
	if (!order_kept_)
		for (size_t c = order_.size(); c < total; c++)
			order_.push_back(uint64_t(c + 1) << kOrderRoom); // past every key: those moved stay below the last's
}

bool
ReachabilityOverlay::ComponentEdges::add(uint32_t from, uint32_t to) {
	if (!edges_.insert(key(from, to)).second)
		return false;
	list_for(out_index_, from).push_back(to);
	list_for(in_index_, to).push_back(from);
	return true;
}

ReachabilityOverlay::ComponentEdges::List &
ReachabilityOverlay::ComponentEdges::list_for(std::vector<uint32_t> &index, uint32_t c) {
	if (c >= index.size())
		index.resize(std::max(size_t(c) + 1, index.size() * 2), kNoList);
	if (index[c] == kNoList) {
		index[c] = uint32_t(lists_.size());
		lists_.emplace_back();
	}
	return lists_[index[c]];
}

const ReachabilityOverlay::ComponentEdges::List *
ReachabilityOverlay::ComponentEdges::list_of(const std::vector<uint32_t> &index, const std::vector<List> &lists,
                                             uint32_t c) {
	return c < index.size() && index[c] != kNoList ? &lists[index[c]] : nullptr;
}

namespace {

// `value` out of `list` (where it is), the last moved into its place.
void
unlist(std::vector<uint32_t> &list, uint32_t value) {
	auto at = std::find(list.begin(), list.end(), value);
	if (at == list.end())
		return;
	*at = list.back();
	list.pop_back();
}

} // namespace

bool
ReachabilityOverlay::ComponentEdges::remove(uint32_t from, uint32_t to) {
	if (edges_.erase(key(from, to)) == 0)
		return false;
	unlist(list_for(out_index_, from), to);
	unlist(list_for(in_index_, to), from);
	return true;
}

const ReachabilityOverlay::ComponentEdges::List *
ReachabilityOverlay::ComponentEdges::heads(uint32_t from) const {
	return list_of(out_index_, lists_, from);
}

const ReachabilityOverlay::ComponentEdges::List *
ReachabilityOverlay::ComponentEdges::tails(uint32_t to) const {
	return list_of(in_index_, lists_, to);
}

void
ReachabilityOverlay::count_between(const Edges &edges, int sign) {
	for (const auto &[u, v] : edges) {
		uint32_t cu = component(u), cv = component(v);
		if (cu == cv)
			continue;
		uint64_t pair = uint64_t(cu) << 32 | cv;
		if (sign > 0) {
			between_[pair]++;
		} else {
			auto found = between_.find(pair);
			if (found != between_.end() && --found->second == 0)
				between_.erase(found);
		}
	}
}

bool
ReachabilityOverlay::extend(size_t added, const Extension &batch) {
	if (!intact_)
		return false;
	intact_ = false;
	intact_ = take(added, batch);
	return intact_;
}

bool
ReachabilityOverlay::take(size_t added, const Extension &batch) {
	const Edges &inserted = batch.inserted;
	if (added < added_)
		throw Error(ErrorKind::internal, "a graph overlay was extended with fewer added vertices than it has");
	if (components_ + added >= size_t(UINT32_MAX) || max_rank_ + 1 + added >= UINT32_MAX)
		return false;
	// One edge at a time, each hashed in, ordered (a search between its ends) and widened upward.
	// A build takes them at once, but widens the labels of every component that reaches an inserted
	// edge, O(DAG edges), and takes what the overlay holds again: a batch is taken while it is no
	// larger than what the overlay holds, or while it stays small against the DAG's edges. (Beside a
	// writer a build of what is held costs more than extending by a batch of that size: about 16
	// against 25 us of CPU per log row on a 1M-edge DAG, bench/live_pgbench.sh; and the rows written
	// while it ran, some 0.4 of those it took, are the next batch: refused past a quarter of what is
	// held, each build was followed by another. A reader that a build makes slower than the writers
	// would otherwise see a larger batch at each statement, and build again each time.)
	size_t size = inserted.size() + batch.retracted.size() + batch.gone.size();
	size_t held = inserted_.size() + deferred_.size() + vanished_.size();
	if (size > 256 + held && double(size) * double(held + size) > 64.0 * double(base_.dag().edge_count()))
		return false;
	for (const auto &[u, v] : inserted)
		if (u == v || u >= vertices_ + added || v >= vertices_ + added)
			throw Error(ErrorKind::internal, "an inserted edge of a graph overlay is a self-loop or out of range");
	for (const auto &[u, v] : batch.retracted)
		if (u == v || u >= vertices_ + added_ || v >= vertices_ + added_)
			throw Error(ErrorKind::internal, "a retracted edge of a graph overlay is a self-loop or out of range");
	for (const auto &[u, v] : batch.gone)
		if (u == v || u >= vertices_ || v >= vertices_)
			throw Error(ErrorKind::internal, "a deleted edge of a graph overlay is a self-loop or out of range");
	add_vertices(added);
	if (!reversed_dag_)
		reversed_dag_ = std::make_shared<const Csr>(base_.dag().reversed());
	// between_ counts the inserted edges of the changes: this batch's in, its retracted ones out.
	count_between(inserted, 1);
	count_between(batch.retracted, -1);
	// A batch that takes edges out finds every edge of G' widened, as before L (the header): L is
	// widened first.
	bool deleting = !batch.retracted.empty() || !batch.gone.empty();
	if (deleting && !deferred_.empty())
		widen_deferred(deferred_.size(), widening_budget_);
	// Inserted edges taken back: the DAG edge between their components goes where no other inserted
	// edge holds it (one the base DAG holds was never in inserted_). Inside a component, an inserted
	// edge may have been what kept it strongly connected after a deletion: rebuild then.
	for (const auto &[u, v] : batch.retracted) {
		uint32_t cu = component(u), cv = component(v);
		if (cu == cv) {
			if (flags_[cu] & kLostInside)
				return false;
			continue;
		}
		if (!inserted_between(cu, cv) && inserted_.remove(cu, cv))
			unlist_unwidened(cu, cv);
	}
	// Edges of G deleted: a component they split refuses; DAG edges that vanish make their tails'
	// G-ancestors join A_D. One that an inserted edge still holds would move into inserted_ and its
	// tail into A_I: rare (two edges between the same components), left to a build.
	if (!batch.gone.empty()) {
		Edges vanishing;
		if (!remove(batch.gone, batch.all_deleted, batch.all_inserted, vanishing))
			return false;
		Edges fresh_vanished;
		for (const auto &[cu, cv] : vanishing) {
			if (vanished(cu, cv))
				continue;
			if (inserted_between(cu, cv))
				return false;
			fresh_vanished.emplace_back(cu, cv);
		}
		if (!fresh_vanished.empty()) {
			size_t middle = vanished_.size();
			vanished_.insert(vanished_.end(), fresh_vanished.begin(), fresh_vanished.end());
			std::inplace_merge(vanished_.begin(), vanished_.begin() + long(middle), vanished_.end());
			for (const auto &[from, to] : fresh_vanished)
				flags_[from] |= kVanishedOut;
			flag_ancestors(fresh_vanished, kReachesDeletion, [&](uint32_t c, auto &&reach) {
				for (const vid_t *p = reversed_dag_->begin(c); p != reversed_dag_->end(c); p++)
					reach(*p);
			});
		}
	}
	// The batch's new edges between components join G' (hashed in, ordered: a cycle refuses) and L,
	// whose widening waits: each call widens a few (admit()), so a statement that reads a burst of
	// rows written while it waited for a CPU does not widen them all at once
	// (bench/live_pgbench.sh). A batch that takes edges out, or past kDeferredMost, widens them all.
	for (const auto &[u, v] : inserted) {
		uint32_t cu = component(u), cv = component(v);
		if (cu == cv || !new_between(cu, cv))
			continue;
		if (!inserted_.add(cu, cv))
			continue;
		flags_[cu] |= kInsertedOut;
		flags_[cv] |= kInsertedIn;
		if (!order_edge(cu, cv))
			return false;
		deferred_.emplace_back(cu, cv);
	}
	if (deleting || deferred_.size() > kDeferredMost)
		widen_deferred(deferred_.size(), widening_budget_);
	else
		admit(admission_);
	return true;
}

/*
 * The first `count` edges of L widened: their tails' G'-ancestors flagged into A_I, each tail
 * taking its head's contribution in, and the widening on by `budget` records (all of them where U
 * grows past its bound). The flags of A_I are made whole first, whatever the widening leaves for
 * later: a component outside A_I is answered by the base's rules over G' - L. The edges join U
 * until the widening has finished (the header); past kUnwidenedMost of them it finishes now, where
 * a query's closure over U would cost more than the widening left. Labels only grow as edges are
 * added, so the widening ends at the fixpoint build() computes for the same changes.
 */
void
ReachabilityOverlay::widen_deferred(size_t count, size_t budget) {
	if (count == 0) {
		if (!queue_.empty())
			propagate(budget);
		return;
	}
	// The edges leave L only once they are in U: a query's error part-way (reachable() widens too,
	// and the kept overlay answers the next statement) leaves them in one or the other, and flags
	// and records that grew more than they would have are sound.
	ComponentPairs &taken = admitted_;
	taken.assign(deferred_.begin(), deferred_.begin() + long(count));
	if (slot_.empty())
		slot_.assign(components_ + added_, kNoSlot);
	flag_ancestors(taken, kReachesInsertion, [&](uint32_t c, auto &&reach) { for_each_predecessor(c, reach); });
	for (const auto &[cu, cv] : taken)
		widen_edge(cu, cv);
	unwidened_.insert(unwidened_.end(), taken.begin(), taken.end());
	deferred_.erase(deferred_.begin(), deferred_.begin() + long(count));
	propagate(unwidened_.size() > kUnwidenedMost ? kWholeWidening : budget);
}

/*
 * The first edges of L, at most `most`, widened while U has room for them (the widening is then
 * never forced to finish by them), and the widening on by its budget.
 */
void
ReachabilityOverlay::admit(size_t most) {
	size_t room = unwidened_.size() < kUnwidenedMost ? kUnwidenedMost - unwidened_.size() : 0;
	widen_deferred(std::min({most, room, deferred_.size()}), widening_budget_);
}

void
ReachabilityOverlay::settle() {
	bool was = intact_;
	intact_ = false;
	widen_deferred(deferred_.size(), kWholeWidening);
	intact_ = was;
}

void
ReachabilityOverlay::unlist_unwidened(uint32_t from, uint32_t to) {
	auto at = std::find(unwidened_.begin(), unwidened_.end(), std::make_pair(from, to));
	if (at != unwidened_.end())
		unwidened_.erase(at);
}

/*
 * The edge from -> to, just added to G', kept in the topological order of G': nothing where from
 * comes first; else B, the components that reach from and come after to (from among them), move
 * just before to, keeping their own order (one side of Pearce and Kelly's reorder: their search
 * from to's side visits every component that to reaches before from's place, 12,000-22,000
 * components for some single edges on a random 1M-edge DAG, where B held a few dozen,
 * bench/overlay_stream_bench.cpp). The order stays topological: an edge into B from outside it
 * comes from a component before to, so B's new keys go past the last such (`below`); an edge out
 * of B leads to a component after B's old places, which are after to; B's own edges keep their
 * order. Where no key is free between below and to, the keys are numbered again with room between
 * them. False where to reaches from (the walk over B meets to): a cycle between components.
 */
bool
ReachabilityOverlay::order_edge(uint32_t from, uint32_t to) {
	size_t total = components_ + added_;
	if (order_kept_) {
		if (from < to)
			return true;
		order_.resize(total);
		for (size_t c = 0; c < total; c++)
			order_[c] = uint64_t(c + 1) << kOrderRoom;
		order_kept_ = false;
		queue_keys_stale_ = !queue_.empty();
	}
	if (!after(from, to))
		return true;
	if (marks_.size() < total)
		marks_.resize(total, 0);
	if (++epoch_ == 0) {
		std::fill(marks_.begin(), marks_.end(), 0);
		epoch_ = 1;
	}
	// B, and the latest key of a component outside it with an edge into it (none: below is 0 and
	// the keys from 0 on are free, else the keys past below are).
	std::vector<uint32_t> &moved = moved_, &stack = stack_;
	moved.assign(1, from);
	stack.assign(1, from);
	marks_[from] = epoch_;
	bool cycle = false, bounded = false;
	uint64_t below = 0;
	while (!stack.empty() && !cycle) {
		uint32_t c = stack.back();
		stack.pop_back();
		for_each_predecessor(c, [&](uint32_t p) {
			if (p == to) {
				cycle = true;
			} else if (after(p, to)) {
				if (marks_[p] != epoch_) {
					marks_[p] = epoch_;
					moved.push_back(p);
					stack.push_back(p);
				}
			} else if (!bounded || order_[p] > below) {
				below = order_[p];
				bounded = true;
			}
		});
	}
	if (cycle)
		return false;
	uint64_t first = bounded ? below + 1 : 0; // the first free key
	if (order_[to] < first || order_[to] - first < moved.size()) {
		renumber();
		return order_edge(from, to);
	}
	std::sort(moved.begin(), moved.end(), [&](uint32_t a, uint32_t b) { return after(b, a); });
	// Spread over the free keys, leaving room on both sides for the next edges that land here.
	uint64_t step = (order_[to] - first) / (moved.size() + 1), key = first;
	for (uint32_t c : moved)
		order_[c] = key += step;
	queue_keys_stale_ = !queue_.empty();
	return true;
}

/*
 * The keys of the order numbered again, in the order they give, kOrderRoom bits apart and from
 * 1 << kOrderRoom on (room before the first too): where a run of edges into one place has used
 * the keys between two components.
 */
void
ReachabilityOverlay::renumber() {
	std::vector<uint32_t> &by_key = moved_;
	by_key.resize(components_ + added_);
	for (size_t c = 0; c < by_key.size(); c++)
		by_key[c] = uint32_t(c);
	std::sort(by_key.begin(), by_key.end(), [&](uint32_t a, uint32_t b) { return after(b, a); });
	for (size_t k = 0; k < by_key.size(); k++)
		order_[by_key[k]] = uint64_t(k + 1) << kOrderRoom;
	renumbered_++;
	queue_keys_stale_ = !queue_.empty();
}

/*
 * The deleted edges' effect on the DAG: refuses (false) when a component loses its strong
 * connectivity, else records the DAG edges that no remaining edge between their components holds.
 */
bool
ReachabilityOverlay::remove(const Edges &fresh, const Edges &deleted, const Edges &inserted, Edges &vanishing) {
	vanishing.clear();
	if (fresh.empty())
		return true;
	const Csr &out = base_.graph().out;
	const auto &of = base_.components().of_vertex;
	std::unordered_set<uint64_t> gone;
	gone.reserve(deleted.size() * 2);
	for (const auto &[u, v] : deleted)
		gone.insert(edge_key(u, v));
	auto kept = [&](vid_t u, vid_t v) { return gone.count(edge_key(u, v)) == 0; };

	// Components an edge left inside (they may split) or left from (they may lose a DAG edge).
	enum : uint8_t { kInside = 1, kFrom = 2 };
	std::unordered_map<uint32_t, uint8_t> examined;
	Edges candidates; // DAG edges that may vanish
	for (const auto &[u, v] : fresh) {
		uint32_t cu = of[u], cv = of[v];
		if (cu == cv) {
			examined[cu] |= kInside;
			flags_[cu] |= kLostInside;
		} else {
			examined[cu] |= kFrom;
			candidates.emplace_back(cu, cv);
		}
	}
	sort_unique(candidates);
	// The base's vertices by component (once per overlay): a batch costs what its components hold.
	if (member_start_.empty()) {
		member_start_.assign(components_ + 1, 0);
		for (size_t v = 0; v < vertices_; v++)
			member_start_[of[v] + 1]++;
		for (size_t c = 0; c < components_; c++)
			member_start_[c + 1] += member_start_[c];
		member_list_.resize(vertices_);
		std::vector<uint32_t> next(member_start_.begin(), member_start_.end() - 1);
		for (size_t v = 0; v < vertices_; v++)
			member_list_[next[of[v]]++] = vid_t(v);
	}
	std::vector<uint32_t> components;
	components.reserve(examined.size());
	for (const auto &[c, kind] : examined)
		components.push_back(c);
	std::sort(components.begin(), components.end());
	std::vector<std::pair<uint32_t, vid_t>> members; // (component, vertex), grouped by component
	for (uint32_t c : components)
		for (uint32_t m = member_start_[c]; m < member_start_[c + 1]; m++)
			members.emplace_back(c, member_list_[m]);

	std::vector<uint8_t> supported(candidates.size(), 0);
	std::vector<uint32_t> &local = local_; // a member's position in its component, during the check
	for (size_t begin = 0, end; begin < members.size(); begin = end) {
		uint32_t c = members[begin].first;
		for (end = begin; end < members.size() && members[end].first == c; end++) {
		}
		if (examined[c] & kFrom) {
			auto [first, last] = pairs_from(candidates, c);
			for (size_t m = begin; m < end; m++) {
				vid_t w = members[m].second;
				for (const vid_t *x = out.begin(w); x != out.end(w); x++) {
					if (of[*x] == c || !kept(w, *x))
						continue;
					auto hit = std::lower_bound(first, last, std::make_pair(vid_t(c), vid_t(of[*x])));
					if (hit != last && hit->second == of[*x])
						supported[size_t(hit - candidates.begin())] = 1;
				}
			}
		}
		if (!(examined[c] & kInside))
			continue;
		// Strongly connected still: the first member reaches every member and every member reaches
		// it, over the edges left inside (and those inserted inside, which the writes also made).
		size_t k = end - begin;
		if (local.empty())
			local.assign(vertices_, UINT32_MAX);
		for (size_t m = begin; m < end; m++)
			local[members[m].second] = uint32_t(m - begin);
		Edges inside; // (local tail, local head)
		for (size_t m = begin; m < end; m++) {
			vid_t w = members[m].second;
			for (const vid_t *x = out.begin(w); x != out.end(w); x++)
				if (of[*x] == c && kept(w, *x))
					inside.emplace_back(local[w], local[*x]);
		}
		for (const auto &[u, v] : inserted)
			if (u < vertices_ && v < vertices_ && of[u] == c && of[v] == c)
				inside.emplace_back(local[u], local[v]);
		auto covers_all = [&](Edges &edges) {
			sort_unique(edges);
			std::vector<uint8_t> seen(k, 0);
			std::vector<uint32_t> stack{0};
			seen[0] = 1;
			size_t reached = 1;
			while (!stack.empty()) {
				uint32_t u = stack.back();
				stack.pop_back();
				for (auto [e, e_end] = pairs_from(edges, u); e != e_end; ++e)
					if (!seen[e->second]) {
						seen[e->second] = 1;
						reached++;
						stack.push_back(e->second);
					}
			}
			return reached == k;
		};
		bool forward = covers_all(inside);
		for (auto &e : inside)
			std::swap(e.first, e.second);
		bool strongly_connected = forward && covers_all(inside);
		for (size_t m = begin; m < end; m++)
			local[members[m].second] = UINT32_MAX;
		if (!strongly_connected)
			return false;
		poll_cancel();
	}
	for (size_t i = 0; i < candidates.size(); i++)
		if (!supported[i])
			vanishing.push_back(candidates[i]);
	return true;
}

bool
ReachabilityOverlay::vanished(uint32_t from, uint32_t to) const noexcept {
	return std::binary_search(vanished_.begin(), vanished_.end(), std::make_pair(vid_t(from), vid_t(to)));
}

bool
ReachabilityOverlay::new_between(uint32_t from, uint32_t to) const noexcept {
	const Csr &dag = base_.dag();
	return !(from < components_ && to < components_ && std::binary_search(dag.begin(from), dag.end(from), vid_t(to)) &&
	         !((flags_[from] & kVanishedOut) && vanished(from, to)));
}

// The inserted edges between components, less those the DAG still has.
void
ReachabilityOverlay::insert(const Edges &inserted) {
	for (const auto &[u, v] : inserted) {
		uint32_t cu = component(u), cv = component(v);
		if (cu == cv || !new_between(cu, cv))
			continue;
		inserted_.add(cu, cv);
		flags_[cu] |= kInsertedOut;
		flags_[cv] |= kInsertedIn;
	}
	count_between(inserted, 1);
}

template <typename Visit>
void
ReachabilityOverlay::for_each_successor(uint32_t c, Visit &&visit) const {
	if (c < components_) {
		const Csr &dag = base_.dag();
		bool check = flags_[c] & kVanishedOut;
		for (const vid_t *w = dag.begin(c); w != dag.end(c); w++)
			if ((!check || !vanished(c, *w)) && visit(uint32_t(*w)))
				return;
	}
	if (flags_[c] & kInsertedOut)
		if (const ComponentEdges::List *heads = inserted_.heads(c))
			for (uint32_t w : *heads)
				if (visit(w))
					return;
}

template <typename Visit>
void
ReachabilityOverlay::for_each_predecessor(uint32_t c, Visit &&visit) const {
	if (c < components_)
		for (const vid_t *p = reversed_dag_->begin(c); p != reversed_dag_->end(c); p++)
			if (!(flags_[*p] & kVanishedOut) || !vanished(*p, c))
				visit(uint32_t(*p));
	if (flags_[c] & kInsertedIn)
		if (const ComponentEdges::List *tails = inserted_.tails(c))
			for (uint32_t p : *tails)
				visit(p);
}

// A_D over G (the base DAG, vanished edges included) and A_I over G': flag on every component
// from which an edge of `tails` starts, and on every predecessor of a flagged one.
template <typename Predecessors>
void
ReachabilityOverlay::flag_ancestors(const Edges &tails, Flag flag, Predecessors &&for_each_predecessor_of) {
	std::vector<uint32_t> stack;
	auto reach = [&](uint32_t c) {
		if (!(flags_[c] & flag)) {
			flags_[c] |= flag;
			stack.push_back(c);
		}
	};
	for (const auto &edge : tails)
		reach(edge.first);
	while (!stack.empty()) {
		uint32_t c = stack.back();
		stack.pop_back();
		for_each_predecessor_of(c, reach);
	}
}

void
ReachabilityOverlay::mark_ancestors() {
	if (vanished_.empty() && inserted_.empty())
		return;
	if (!reversed_dag_)
		reversed_dag_ = std::make_shared<const Csr>(base_.dag().reversed());
	flag_ancestors(vanished_, kReachesDeletion, [&](uint32_t c, auto &&reach) {
		for (const vid_t *p = reversed_dag_->begin(c); p != reversed_dag_->end(c); p++)
			reach(*p);
	});
	Edges tails;
	tails.reserve(inserted_.size());
	inserted_.for_each([&](uint32_t from, uint32_t to) { tails.emplace_back(from, to); });
	flag_ancestors(tails, kReachesInsertion, [&](uint32_t c, auto &&reach) { for_each_predecessor(c, reach); });
}

/*
 * Whether G' has no cycle between components (the base DAG has none; inserted edges can close one),
 * by Kahn's algorithm over G', whose order then replaces the base numbering in the topological rule
 * for A_I. Where every inserted edge goes from a lower number to a higher one the base numbering
 * still orders G' and nothing needs computing.
 */
bool
ReachabilityOverlay::acyclic(std::vector<uint32_t> &order) {
	order_kept_ = true;
	inserted_.for_each([&](uint32_t from, uint32_t to) { order_kept_ = order_kept_ && from < to; });
	if (order_kept_)
		return true;
	size_t total = components_ + added_;
	order = topological_order(total, [&](uint32_t c, auto &&visit) { for_each_successor(c, visit); });
	if (order.size() != total)
		return false;
	order_.resize(total);
	for (size_t k = 0; k < total; k++)
		order_[order[k]] = uint64_t(k + 1) << kOrderRoom;
	return true;
}

ReachabilityOverlay::Record
ReachabilityOverlay::own_record(uint32_t c) const noexcept {
	if (c < components_)
		return Record{base_.labels().record(c) + 3, base_.bloom().record(c).out};
	size_t k = c - components_;
	return Record{added_intervals_.data() + k * 2 * labels_, added_bloom_.data() + k * kBloomWords};
}

ReachabilityOverlay::Record
ReachabilityOverlay::contribution(uint32_t c) noexcept {
	if (slot_[c] == kNoSlot)
		return own_record(c);
	return Record{intervals(slot_[c]), bloom_out(slot_[c])};
}

/*
 * A widened Bloom "out" filter with kFullBloomFrom bits or more set is filled. Each bit a filter
 * takes goes on to every G'-ancestor whose filter lacks it, and a component's filter takes its
 * heads' descendants' bits a few at a time, one inserted edge after another: on a random 1M-edge
 * DAG with 30,000 inserts, 86% of the records that grew in a widening grew in their filter
 * (bench/overlay_stream_bench.cpp). A filter 3/4 full passes each bit of a target with odds of
 * 3 in 4 or better, and a full one takes nothing more: its ancestors fill once. A search loses the
 * filter's "no" where it is filled: there, filling at half cut the predecessors a batch of 8
 * inserts visits from 828 to 295 on average (p99 12,190 to 5,073) but made the query's mean 2-3x
 * with 60,000 changes held, and slowed a SQL reader's median statement beside a writer
 * (bench/live_pgbench.sh); at 3/4 the extension's mean and p99 are about 0.7x, the query's mean
 * about 1.3x. Filling is monotone, extensive and idempotent, so the widening still ends at one
 * fixpoint whatever the order it takes the edges in (build() and extend() agree), and a filter
 * that holds more than what its component reaches stays sound.
 */
void
ReachabilityOverlay::fill_if_dense(uint64_t *bits) noexcept {
	unsigned set = 0;
	for (unsigned k = 0; k < kBloomWords; k++)
		set += unsigned(__builtin_popcountll(bits[k]));
	if (set >= kFullBloomFrom)
		std::fill(bits, bits + kBloomWords, ~uint64_t(0));
}

void
ReachabilityOverlay::widen_into(uint32_t slot, Record from) noexcept {
	const uint32_t *iv = from.intervals;
	const uint64_t *bloom = from.bloom;
	uint32_t *mine = intervals(slot);
	uint64_t *bits = bloom_out(slot);
	for (unsigned i = 0; i < labels_; i++) {
		mine[2 * i] = std::min(mine[2 * i], iv[2 * i]);
		mine[2 * i + 1] = std::max(mine[2 * i + 1], iv[2 * i + 1]);
	}
	for (unsigned k = 0; k < kBloomWords; k++)
		bits[k] |= bloom[k];
	fill_if_dense(bits);
}

uint8_t
ReachabilityOverlay::widen_changed(uint32_t slot, Record from) noexcept {
	const uint32_t *iv = from.intervals;
	const uint64_t *bloom = from.bloom;
	uint32_t *mine = intervals(slot);
	uint64_t *bits = bloom_out(slot);
	bool grew = false;
	for (unsigned i = 0; i < labels_; i++) {
		if (iv[2 * i] < mine[2 * i]) {
			mine[2 * i] = iv[2 * i];
			grew = true;
		}
		if (iv[2 * i + 1] > mine[2 * i + 1]) {
			mine[2 * i + 1] = iv[2 * i + 1];
			grew = true;
		}
	}
	bool bloom_grew = false;
	for (unsigned k = 0; k < kBloomWords; k++) {
		uint64_t more = bits[k] | bloom[k];
		bloom_grew |= more != bits[k];
		bits[k] = more;
	}
	if (bloom_grew)
		fill_if_dense(bits);
	return uint8_t((grew ? kIntervalsGrew : 0) | (bloom_grew ? kBloomGrew : 0));
}

namespace {

bool
full(const uint64_t *bloom) noexcept {
	uint64_t all = ~uint64_t(0);
	for (unsigned k = 0; k < kBloomWords; k++)
		all &= bloom[k];
	return all == ~uint64_t(0);
}

} // namespace

// Whether record `mine` (intervals and Bloom words) covers `from`.
bool
ReachabilityOverlay::covers(const uint32_t *intervals, const uint64_t *bloom, Record from) const noexcept {
	for (unsigned i = 0; i < labels_; i++)
		if (from.intervals[2 * i] < intervals[2 * i] || from.intervals[2 * i + 1] > intervals[2 * i + 1])
			return false;
	for (unsigned k = 0; k < kBloomWords; k++)
		if ((bloom[k] | from.bloom[k]) != bloom[k])
			return false;
	return true;
}

/*
 * c's widened record takes `from` in (a copy: a new slot may move the records): c takes a slot of
 * its own, its own record widened, the first time its record so far does not cover it; else its
 * slot is widened. Where it grew, c goes on the queue of propagate().
 */
void
ReachabilityOverlay::grow(uint32_t c, Record from) {
	uint8_t growth;
	if (slot_[c] == kNoSlot) {
		Record own = own_record(c);
		if (covers(own.intervals, own.bloom, from)) {
			if (full(own.bloom))
				flags_[c] |= kFullBloom;
			return;
		}
		intervals_.resize(size_t(slots_ + 1) * 2 * labels_);
		bloom_out_.resize(size_t(slots_ + 1) * kBloomWords);
		uint32_t slot = slots_++;
		slot_[c] = slot;
		std::copy(own.intervals, own.intervals + 2 * labels_, intervals(slot));
		std::copy(own.bloom, own.bloom + kBloomWords, bloom_out(slot));
		widen_into(slot, from);
		growth = kIntervalsGrew | kBloomGrew; // its predecessors held its own record: as if all grew
	} else {
		growth = widen_changed(slot_[c], from);
	}
	if (growth == 0)
		return;
	grown_++;
	if (growth & kIntervalsGrew)
		flags_[c] |= kIntervalsGrew;
	if ((growth & kBloomGrew) && full(bloom_out(slot_[c])))
		flags_[c] |= kFullBloom;
	if (!queued_[c]) {
		queue_.emplace(place(c), c);
		queued_[c] = 1;
	}
}

// An edge cu -> cv of G' that the base DAG lacks, into cu's widened record.
void
ReachabilityOverlay::widen_edge(uint32_t cu, uint32_t cv) {
	if (queued_.size() < components_ + added_)
		queued_.resize(components_ + added_, 0);
	Record head = contribution(cv);
	head_intervals_.assign(head.intervals, head.intervals + 2 * labels_);
	head_bloom_.assign(head.bloom, head.bloom + kBloomWords);
	grow(cu, Record{head_intervals_.data(), head_bloom_.data()});
}

/*
 * The records that grew pushed into their G'-predecessors until nothing grows: the least records
 * over G' that hold each component's own and its successors' (a component's base record holds its
 * base successors' already), which bound what each reaches in G'. The queue takes the latest in
 * the topological order of G' first, so a component is taken once all that grew below it has.
 * It stops once it has taken `budget` records' growth (grown or not), the rest left on the queue for the next call;
 * U empties where the queue does. Keys that the order moved since they were queued are taken
 * again first: taken out of order the widening still ends at its fixpoint (each record that grows
 * is queued again), only later.
 */
void
ReachabilityOverlay::propagate(size_t budget) {
	if (queue_.empty()) {
		unwidened_.clear();
		return;
	}
	if (queue_keys_stale_) {
		std::vector<std::pair<uint64_t, uint32_t>> entries;
		entries.reserve(queue_.size());
		for (; !queue_.empty(); queue_.pop())
			entries.emplace_back(place(queue_.top().second), queue_.top().second);
		queue_ = decltype(queue_)(std::less<std::pair<uint64_t, uint32_t>>(), std::move(entries));
		queue_keys_stale_ = false;
	}
	if (queued_.size() < components_ + added_)
		queued_.resize(components_ + added_, 0);
	copied_intervals_.resize(2 * labels_);
	copied_bloom_.resize(kBloomWords);
	size_t done = 0, looked = 0; // grow() calls: records read, whether they grow or not
	std::vector<uint32_t> &taken = taken_;
	while (!queue_.empty() && looked < budget) {
		// The next components off the queue, taken in its order as one at a time would be (each
		// stays marked queued until its turn: one that an earlier one grows is not queued twice).
		// Their predecessors' lists, then those predecessors' flags and slots, are asked for
		// before the first is taken: the misses of a component's chain (offset, list, flags, slot,
		// record) overlap with the other components' where each waited for its own in turn.
		taken.clear();
		for (; taken.size() < kTakenAtOnce && !queue_.empty(); queue_.pop())
			taken.push_back(queue_.top().second);
		prefetch_predecessors(taken);
		size_t next = 0;
		for (; next < taken.size() && looked < budget; next++)
			looked += push_record(taken[next]);
		for (; next < taken.size(); next++)
			queue_.emplace(place(taken[next]), taken[next]);
		if ((done += taken.size()) >= 0x10000) {
			done = 0;
			poll_cancel();
		}
	}
	if (queue_.empty())
		unwidened_.clear();
}

void
ReachabilityOverlay::prefetch_predecessors(const std::vector<uint32_t> &taken) const noexcept {
	for (uint32_t c : taken)
		if (c < components_)
			__builtin_prefetch(&reversed_dag_->offsets[c]);
	for (uint32_t c : taken) {
		__builtin_prefetch(&slot_[c]);
		if (c < components_)
			__builtin_prefetch(reversed_dag_->begin(c));
	}
	for (uint32_t c : taken)
		if (c < components_)
			for (const vid_t *p = reversed_dag_->begin(c); p != reversed_dag_->end(c); p++) {
				__builtin_prefetch(&flags_[*p]);
				__builtin_prefetch(&slot_[*p]);
			}
}

/*
 * Component c, taken off the widening's queue, pushes what its record grew into its
 * G'-predecessors (grow()): the count of those it reads.
 */
size_t
ReachabilityOverlay::push_record(uint32_t c) {
	queued_[c] = 0;
	bool intervals_grew = flags_[c] & kIntervalsGrew;
	flags_[c] &= uint8_t(~kIntervalsGrew);
	Record grown = contribution(c);
	std::copy(grown.intervals, grown.intervals + 2 * labels_, copied_intervals_.begin());
	std::copy(grown.bloom, grown.bloom + kBloomWords, copied_bloom_.begin());
	Record copy{copied_intervals_.data(), copied_bloom_.data()};
	// Where only c's Bloom filter grew, a predecessor whose filter is full holds all of c's
	// record already (its intervals held c's when c last pushed them, or since the base labels
	// or the inserted edge's widening): its record is not read. In a widening's long runs most
	// records grow in their filter alone (bench/overlay_stream_bench.cpp). The others' slots,
	// then their records, are asked for before any is read: their cache misses overlap where
	// one grow() after another waited for each in turn.
	std::vector<uint32_t> &growing = growing_;
	growing.clear();
	for_each_predecessor(c, [&](uint32_t p) {
		if (intervals_grew || !(flags_[p] & kFullBloom)) {
			__builtin_prefetch(&slot_[p]);
			growing.push_back(p);
		}
	});
	for (uint32_t p : growing)
		prefetch_contribution(p);
	for (uint32_t p : growing)
		grow(p, copy);
	return growing.size();
}

void
ReachabilityOverlay::prefetch_contribution(uint32_t c) const noexcept {
	if (slot_[c] != kNoSlot) {
		__builtin_prefetch(intervals_.data() + size_t(slot_[c]) * 2 * labels_);
		__builtin_prefetch(bloom_out_.data() + size_t(slot_[c]) * kBloomWords);
	} else if (c < components_) {
		__builtin_prefetch(base_.labels().record(c) + 3);
		__builtin_prefetch(base_.bloom().record(c).out);
	}
}

/*
 * The labels of A_I widened to the fixpoint over G' that propagate() reaches, in one pass: each
 * component of A_I after all it reaches (the topological order of G' backward: `order`, or the
 * base's numbering where that orders G'), its record its own joined with the contributions of its
 * successors that its own does not hold already (those by an inserted edge, those with a widened
 * record); one that comes out as its own takes no slot, the others are filled where dense (joining
 * first and filling once gives what filling after each join gives). A build widens nearly every
 * component of A_I (178,598 slots of 199,767 components with 40,000 inserts on the live_pgbench
 * DAG): the queue's pushes, each a grow() of a predecessor, cost about twice this pass
 * (bench/overlay_stream_bench.cpp).
 */
void
ReachabilityOverlay::widen(const std::vector<uint32_t> &order) {
	size_t total = components_ + added_;
	slot_.assign(total, kNoSlot);
	queued_.assign(total, 0);
	if (inserted_.empty())
		return;
	std::vector<uint32_t> &mine = copied_intervals_;
	std::vector<uint64_t> &bits = copied_bloom_;
	mine.resize(2 * labels_);
	bits.resize(kBloomWords);
	auto join = [&](Record from) {
		for (unsigned i = 0; i < labels_; i++) {
			mine[2 * i] = std::min(mine[2 * i], from.intervals[2 * i]);
			mine[2 * i + 1] = std::max(mine[2 * i + 1], from.intervals[2 * i + 1]);
		}
		for (unsigned k = 0; k < kBloomWords; k++)
			bits[k] |= from.bloom[k];
	};
	auto widen_component = [&](uint32_t c) {
		if (!(flags_[c] & kReachesInsertion))
			return;
		Record own = own_record(c);
		std::copy(own.intervals, own.intervals + 2 * labels_, mine.begin());
		std::copy(own.bloom, own.bloom + kBloomWords, bits.begin());
		if (c < components_) {
			const Csr &dag = base_.dag();
			bool check = flags_[c] & kVanishedOut;
			for (const vid_t *w = dag.begin(c); w != dag.end(c); w++)
				if (slot_[*w] != kNoSlot && (!check || !vanished(c, *w)))
					join(Record{intervals(slot_[*w]), bloom_out(slot_[*w])});
		}
		if (flags_[c] & kInsertedOut)
			if (const ComponentEdges::List *heads = inserted_.heads(c))
				for (uint32_t w : *heads)
					join(contribution(w));
		if (covers(own.intervals, own.bloom, Record{mine.data(), bits.data()}))
			return;
		fill_if_dense(bits.data());
		uint32_t slot = slots_++;
		slot_[c] = slot;
		intervals_.resize(size_t(slots_) * 2 * labels_);
		bloom_out_.resize(size_t(slots_) * kBloomWords);
		std::copy(mine.begin(), mine.end(), intervals(slot));
		std::copy(bits.begin(), bits.end(), bloom_out(slot));
	};
	if (order_kept_) {
		for (size_t c = total; c-- > 0;)
			widen_component(uint32_t(c));
	} else {
		for (size_t k = order.size(); k-- > 0;)
			widen_component(order[k]);
	}
}

size_t
ReachabilityOverlay::widened_components() const noexcept {
	return size_t(std::count_if(flags_.begin(), flags_.end(), [](uint8_t f) { return f & kReachesInsertion; }));
}

size_t
ReachabilityOverlay::widened_blooms(unsigned from, unsigned to) const noexcept {
	size_t count = 0;
	for (uint32_t slot = 0; slot < slots_; slot++) {
		const uint64_t *bits = bloom_out_.data() + size_t(slot) * kBloomWords;
		unsigned set = 0;
		for (unsigned k = 0; k < kBloomWords; k++)
			set += unsigned(__builtin_popcountll(bits[k]));
		count += set >= from && set <= to;
	}
	return count;
}

size_t
ReachabilityOverlay::ancestors_of_deletions() const noexcept {
	return size_t(std::count_if(flags_.begin(), flags_.end(), [](uint8_t f) { return f & kReachesDeletion; }));
}

pruning::Step
ReachabilityOverlay::step(uint32_t c, uint32_t target) noexcept {
	const GrailLabels &labels = base_.labels();
	bool tree_sound = !(flags_[c] & kReachesDeletion) && c < components_ && target < components_;
	if (flags_[c] & kReachesInsertion) {
		if (after(c, target))
			return pruning::Step::prune;
		Record widened = contribution(c);
		pruning::Step rule =
		    pruning::widened_step(widened.intervals, widened.bloom, target_.intervals, target_.bloom, labels_);
		// The base labels' "yes"es (the DFS tree's, the interval end's) name a path of G, which G'
		// keeps outside A_D.
		if (rule == pruning::Step::expand && tree_sound) {
			const uint32_t *rc = labels.record(c), *rt = labels.record(target);
			if (pruning::tree_holds(rc, rt) || pruning::end_holds(rc, rt, labels_))
				return pruning::Step::reached;
		}
		return rule;
	}
	// Outside A_I, c reaches in G' at most what it reaches in G, which holds no added vertex.
	if (c >= components_ || target >= components_ || c > target)
		return pruning::Step::prune;
	const BloomLabels &bloom = base_.bloom();
	pruning::Step rule =
	    pruning::step(bloom.record(c), labels.record(c), bloom.record(target), labels.record(target), labels_);
	// In A_D the DFS tree's path may use a vanished edge: its "yes" only says to search on.
	return rule == pruning::Step::reached && !tree_sound ? pruning::Step::expand : rule;
}

bool
ReachabilityOverlay::reachable(vid_t a, vid_t b) {
	if (a == b)
		return true;
	bool was = intact_;
	intact_ = false;
	bool reached = answer(component(a), component(b));
	intact_ = was;
	return reached;
}

bool
ReachabilityOverlay::answer(uint32_t ca, uint32_t cb) {
	admit(admission_);
	// Outside A_I no path of G' reaches a widened edge, of U or not (with L empty: an edge of L
	// leaves its tail's ancestors unflagged).
	if (deferred_.empty() && (unwidened_.empty() || !(flags_[ca] & kReachesInsertion)))
		return search(ca, cb);
	return search(ca, cb) || through_unfinished(ca, cb);
}

/*
 * Whether a path from ca to cb takes edges of U or L (search() found none without). Such a path is
 * one of G' - U - L and of those edges: it goes through a first one (t1, h1), ca reaching t1 by a
 * path of G' - U - L, h1 the next one's tail by such a path, and so on, the last one's head reaching
 * cb. Every edge of G' goes forward in its topological order, L's too: the path's edges come in that
 * order, each between ca and cb. So those edges taken in the order of their tails, an edge is on a
 * path from ca where ca or the head of one before it that is (a source) reaches its tail; the answer
 * is yes where the head of one so reaches cb.
 * Past kClosureSearches searches the overlay widens every edge of L and finishes its
 * widening, and answers by a search (a query with many such edges between its ends is rare: each
 * must lie between them in the order).
 */
bool
ReachabilityOverlay::through_unfinished(uint32_t ca, uint32_t cb) {
	auto between = [&](const std::pair<uint32_t, uint32_t> &e) {
		return (e.first == ca || after(e.first, ca)) && (e.second == cb || after(cb, e.second));
	};
	ComponentPairs &window = window_;
	window.clear();
	for (const auto &e : unwidened_)
		if (between(e))
			window.push_back(e);
	for (const auto &e : deferred_)
		if (between(e))
			window.push_back(e);
	if (window.empty())
		return false;
	std::sort(window.begin(), window.end(), [&](const auto &x, const auto &y) {
		return x.first != y.first ? after(y.first, x.first) : after(y.second, x.second);
	});
	std::vector<uint32_t> &sources = closure_;
	sources.assign(1, ca);
	size_t searches = 0;
	for (const auto &[tail, head] : window) {
		bool entered = false;
		for (size_t i = 0; i < sources.size() && !entered; i++) {
			uint32_t s = sources[i];
			if (s != tail && !after(tail, s))
				continue;
			if (++searches > closure_searches_) {
				settle();
				return search(ca, cb);
			}
			entered = search(s, tail);
		}
		if (!entered)
			continue;
		if (search(head, cb))
			return true;
		sources.push_back(head);
	}
	return false;
}

/*
 * Whether component ca reaches component cb: in G' wherever the widening has finished (U empty);
 * else true only where it does, and true wherever a path of G' - U leads there (the header).
 */
bool
ReachabilityOverlay::search(uint32_t ca, uint32_t cb) {
	if (ca == cb)
		return true;
	if (!(flags_[ca] & (kReachesInsertion | kReachesDeletion)))
		return ca < components_ && cb < components_ && base_query_.reachable_components(ca, cb);
	// The target's own record, not its widened one: a component that reaches cb in G' has cb's
	// record within its own (widened, or the base's where G' adds nothing to what it reaches).
	target_ = own_record(cb);
	pruning::Step first = step(ca, cb);
	if (first != pruning::Step::expand)
		return first == pruning::Step::reached;
	return pruned_search(
	    ca, cb, components_ + added_, visited_, stack_, [&](uint32_t u, auto &&visit) { for_each_successor(u, visit); },
	    [&](uint32_t c) { return step(c, cb); });
}

} // namespace grail
