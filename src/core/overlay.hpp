// Reachability over an index and a few changes to its graph (a live graph's pending changes): the
// edges inserted since the build and the edges that no row holds any more, answered without a
// rebuild. The index stays as built; the overlay keeps what the changes invalidate.
//
// Why each base rule still holds or is replaced (G the built graph, G' = G - deleted + inserted,
// both over the build's components, which the overlay refuses to let split):
//  - A_I, the components that reach (in G') the tail of an inserted edge, may reach more in G' than
//    in G: the base "no" rules (topological order, level, labels, Bloom filter) are unsound for
//    them. They get widened labels instead, a fixpoint over G' (each interval the hull of its
//    successors', each Bloom "out" set the union, filled where 3/4 full), which bound what they
//    reach in G' as the base labels bound G (the labels in the manner of DAGGER, Yildirim et al.'s
//    dynamic GRAIL), and a topological order of G' replaces the base's where inserted edges go
//    against it.
//  - A_D, the components that reach (in G) the tail of a vanished DAG edge, may reach less: the
//    "yes" of the DFS-tree interval is unsound for them (the tree path may use the edge); every
//    "no" stays sound.
//  - A component in neither reaches in G' exactly what it reaches in G: the base query answers.
//  - Where every inserted edge goes forward in the base's topological numbering, that numbering
//    still orders G', and its rule prunes in A_I too.
// A query is a search over G' with, at each component, the rules that hold for it.
//
// A widening left unfinished. A batch's widening (extend()) grows at most a budget of records; the
// rest stays on its queue, and each later extend() or reachable() goes on by another budget. U, the
// DAG edges whose widening began since the queue was last empty, holds the edges whose widening may
// not have finished. Why the rules stay sound (G'' = G' - U; with L empty, below):
//  - When the queue was last empty the records were the fixpoint over the G' of then, which holds
//    every edge of G'' (G'' has no edge inserted since, and deletions and edges taken back only
//    take edges away; an edge taken back that is in U leaves U). A fixpoint only grows with the
//    graph, and records only grow: every record is at least the fixpoint over G'', so its "no"
//    holds for every path of G''.
//  - The flags of A_I are complete for G' before any widening (a new edge's widening first flags
//    its tail's G'-ancestors): a component outside A_I reaches no inserted edge, of U or not, and its
//    base rules hold. One that joined A_I while U was not empty reaches an inserted edge only
//    through U in G'', and its own record is its fixpoint over G''.
//  - The topological order is kept for all of G' at once (order_edge()), and the "yes"es name
//    paths of G outside A_D: both hold in G' as they are.
// So a search for v (reachable()) finds it wherever a path of G'' leads there, and says yes only
// along edges of G'. A path of G' that is not of G'' goes through edges of U joined by paths of
// G''; every edge of G' goes forward in its topological order, so the edges of such a path come in
// that order, each between its ends. reachable() sweeps the edges of U between a query's ends by
// their tails' places (through_unfinished()): an edge is on a path from the source where the source,
// or the head of an edge before it that is, reaches its tail; yes where the head of one so reaches
// v. Past kClosureSearches searches a query finishes the widening and searches once more; past
// kUnwidenedMost edges in U a batch finishes it.
//
// Widenings deferred. A batch's new edges between components join G' at once (hashed in, ordered: a
// cycle refuses), but their widening waits on a list, L: each later extend() or reachable() widens
// a few of them (while U has room: admit()), which then join U. Why the rules stay sound for paths
// of G''' = G' - U - L: A_I is closed upward over the edges of G' outside L (every edge widened
// flagged its tail's G'-ancestors; one of L has not), so a component outside it reaches no widened
// edge's tail by such a path; records are at least the fixpoint over G''' as over G'' above (a
// record that took in more through an edge of L bounds more than the fixpoint: sound). A search
// follows L's edges too, and says yes only along edges of G'. A query's path through edges of U
// and L takes them in the topological order of G' (L's edges are ordered): reachable() sweeps
// those between its ends by their tails (through_unfinished()), with searches over G''' between
// them. So a statement that reads a burst of rows written while it waited for a CPU widens a few
// edges, not all of them at once. A batch that takes edges out widens L first.
#pragma once
#include "cpp_only.hpp"

#include <cstdint>
#include <memory>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "index.hpp"
#include "pruned_search.hpp"
#include "pruning.hpp"

namespace grail {

class ReachabilityOverlay {
public:
	using Edges = std::vector<std::pair<vid_t, vid_t>>;

	// base: the index as built. Vertices are the base's dense vertices 0..n-1 and added ones n..n+added-1
	// (ids the build did not have). inserted: edges G lacks (u != v); deleted: edges of G that no row holds
	// any more (u != v, both base vertices). Returns nullptr when the changes split a strongly connected
	// component of the base or join components into a new one (the overlay keeps the base's components,
	// and a search through a new cycle would find no label to stop it): the caller rebuilds.
	// reversed_dag: the base DAG's transpose that an earlier overlay of the same base used
	// (reversed_dag()), or null: then it is built when the changes need it. It is the one O(edges)
	// piece of an overlay that does not depend on the changes: a statement that sees a few changes
	// more than the last need not transpose the DAG again.
	static std::unique_ptr<ReachabilityOverlay> build(const Index &base, size_t added, const Edges &inserted,
	                                                  const Edges &deleted,
	                                                  std::shared_ptr<const Csr> reversed_dag = nullptr);

	// Extends the overlay by more changes of the same base, vertices as in build() (`added` of them
	// past the base's now, at least as many as before):
	//  - inserted: edges that G' lacks (u != v), each added to G'. Only the components the new edges
	//    change are touched: the tail's and its G'-ancestors' widened labels grow until nothing
	//    changes (the same fixpoint build() computes, since a label only grows when edges are added;
	//    a few edges a call, the rest waiting on L: the header),
	//    and the topological order of G' moves only the components that reach a new edge's tail
	//    and came after its head (one side of Pearce and Kelly's dynamic topological order).
	//  - retracted: edges inserted before that G' no longer has. Labels, flags and the order stay
	//    as they are: a widened record that bounds more than its component reaches, a component
	//    flagged in A_I that reaches no insertion any more and an order with an edge fewer to respect
	//    all stay sound. Only the DAG edge between the components goes, where no other inserted edge
	//    holds it.
	//  - gone: edges of G that no row holds any more (both base vertices). Their components are
	//    checked as build() checks them (a split one refuses); a DAG edge that no other edge holds
	//    vanishes, and its tail's G-ancestors not yet in A_D join it (a walk that stops at those
	//    already there). Widened records keep what the vanished edge led to: sound, as above.
	//  - all_inserted, all_deleted: every edge inserted and deleted, this batch's included (sorted).
	//    Read only where gone is not empty: elsewhere they may be passed empty.
	// Returns false where an overlay takes none of it: a new edge closes a cycle between components,
	// a component splits, an inserted edge inside a component that lost edges goes, a vanished
	// DAG edge still held by an inserted edge, the batch is large against the changes already held
	// and the DAG (a build takes it faster), or vertices past 32 bits. Then the overlay is left part-way and
	// must be dropped: the caller rebuilds.
	struct Extension {
		const Edges &inserted;
		const Edges &retracted;
		const Edges &gone;
		const Edges &all_inserted;
		const Edges &all_deleted;
	};
	bool extend(size_t added, const Extension &batch);

	// False once a change of the overlay ended part-way: an extend() that returned false, or an
	// error (a bad_alloc, a cancel) out of extend(), reachable() or settle(), which widen the labels
	// as they go (a record given its slot, a component taken off the widening's queue may be left
	// half done). Such an overlay answers nothing reliably: drop it and make a new one.
	bool
	intact() const noexcept {
		return intact_;
	}

	// The base DAG's transpose this overlay used, for the next overlay of the same base; null when
	// the changes did not need it (and none was given).
	std::shared_ptr<const Csr>
	reversed_dag() const noexcept {
		return reversed_dag_;
	}

	// Whether a reaches b in G' (a == b: yes). Vertices as in build().
	bool reachable(vid_t a, vid_t b);

	// Components in A_I and in A_D (see above), for tests and statistics.
	size_t widened_components() const noexcept;
	size_t ancestors_of_deletions() const noexcept;
	// Widened records whose Bloom "out" filter has from..to bits set (of kBloomBits), for tests and
	// statistics: none has from kFullBloomFrom to one short of full (fill_if_dense()).
	size_t widened_blooms(unsigned from, unsigned to) const noexcept;
	// Times the topological order's keys were numbered again, for tests.
	size_t
	order_renumbered() const noexcept {
		return renumbered_;
	}
	// Records the widening grew since the overlay was made (a slot taken or widened), for statistics.
	size_t
	records_grown() const noexcept {
		return grown_;
	}
	// A widened Bloom filter this dense (bits set of kBloomBits) is filled.
	static constexpr unsigned kFullBloomFrom = kBloomBits * 3 / 4;
	// Records a widening looks at (grow()s) in one extend() or reachable() before it leaves the
	// rest for the next (the header: U); kWholeWidening: no bound. For tests, which make it tiny.
	static constexpr size_t kWideningBudget = 1024;
	static constexpr size_t kWholeWidening = SIZE_MAX;
	void
	set_widening_budget(size_t records) noexcept {
		widening_budget_ = records;
	}
	// Inserted edges between components whose widening has not finished (U), for tests.
	size_t
	unwidened() const noexcept {
		return unwidened_.size();
	}
	// Edges between components deferred (L, the header), for tests and statistics.
	size_t
	deferred() const noexcept {
		return deferred_.size();
	}
	// Every edge of L widened and the widening finished: for a batch of queries, which would each
	// sweep L otherwise.
	void settle();
	// Edges of L a call widens at most (kAdmittedAtOnce, and as U has room), and searches a query's
	// sweep makes before it settles: for tests, which make them tiny.
	void
	set_admission(size_t edges) noexcept {
		admission_ = edges;
	}
	void
	set_closure_searches(size_t searches) noexcept {
		closure_searches_ = searches;
	}

private:
	ReachabilityOverlay(const Index &base, size_t added);
	enum Flag : uint8_t {
		kReachesInsertion = 1, // in A_I
		kReachesDeletion = 2,  // in A_D
		kInsertedOut = 4,      // tail of an inserted DAG edge
		kVanishedOut = 8,      // tail of a vanished DAG edge
		kLostInside = 16,      // a deleted edge lies inside it
		kInsertedIn = 32,      // head of an inserted DAG edge
		// The widening's (propagate()): the record it contributes has a full Bloom filter (it only
		// grows: set for good); its intervals grew since it last pushed its record to its
		// predecessors.
		kFullBloom = 64,
		kIntervalsGrew = 128,
	};
	// What widen_changed() grew: kIntervalsGrew, kBloomGrew.
	static constexpr uint8_t kBloomGrew = 1;
	// DAG edges between components that G' has and G has not: a set, and each component's heads and
	// tails (unordered). Adding or taking out an edge costs O(1) and O(degree), whatever the count
	// held: a stream of single edges pays for its own.
	class ComponentEdges {
	public:
		using List = std::vector<uint32_t>;
		bool
		contains(uint32_t from, uint32_t to) const {
			return edges_.count(key(from, to)) != 0;
		}
		// False where it holds the edge already.
		bool add(uint32_t from, uint32_t to);
		// False where it does not hold the edge.
		bool remove(uint32_t from, uint32_t to);
		size_t
		size() const noexcept {
			return edges_.size();
		}
		bool
		empty() const noexcept {
			return edges_.empty();
		}
		// The heads of from's edges, the tails of to's: null where none was ever added.
		const List *heads(uint32_t from) const;
		const List *tails(uint32_t to) const;
		template <typename Visit>
		void
		for_each(Visit &&visit) const {
			for (uint64_t e : edges_)
				visit(uint32_t(e >> 32), uint32_t(e));
		}

	private:
		static uint64_t
		key(uint32_t from, uint32_t to) noexcept {
			return uint64_t(from) << 32 | to;
		}
		static constexpr uint32_t kNoList = UINT32_MAX;
		// The list of component c in lists_ (kNoList: none yet), indexed by c: a component's
		// lists are found with one read, where a hash map took a bucket and a node before them
		// (heads() and tails() run for every component a widening or a search reaches).
		static const List *list_of(const std::vector<uint32_t> &index, const std::vector<List> &lists, uint32_t c);
		List &list_for(std::vector<uint32_t> &index, uint32_t c);
		std::unordered_set<uint64_t> edges_;
		std::vector<uint32_t> out_index_, in_index_;
		std::vector<List> lists_;
	};
	uint32_t
	component(vid_t v) const noexcept {
		return v < vertices_ ? base_.components().of_vertex[v] : uint32_t(components_ + (v - vertices_));
	}
	// The deletions `fresh` (of all the deletions `deleted`, with `inserted` in G'): false where a
	// component loses its strong connectivity, else the DAG edges they may make vanish that no
	// remaining edge of G between their components holds, in vanishing (sorted).
	bool remove(const Edges &fresh, const Edges &deleted, const Edges &inserted, Edges &vanishing);
	// Whether an inserted edge (of the changes: all_inserted) goes from component from to component to.
	bool
	inserted_between(uint32_t from, uint32_t to) const {
		auto found = between_.find(uint64_t(from) << 32 | to);
		return found != between_.end() && found->second > 0;
	}
	// The inserted edges `edges` counted into between_ (by `sign`: 1 or -1).
	void count_between(const Edges &edges, int sign);
	void add_vertices(size_t added);
	bool order_edge(uint32_t from, uint32_t to);
	bool take(size_t added, const Extension &batch);
	bool answer(uint32_t ca, uint32_t cb);
	using ComponentPairs = std::vector<std::pair<uint32_t, uint32_t>>;
	void widen_deferred(size_t count, size_t budget);
	void admit(size_t most);
	bool through_unfinished(uint32_t ca, uint32_t cb);
	void renumber();
	void insert(const Edges &inserted);
	void mark_ancestors();
	template <typename Predecessors>
	void flag_ancestors(const Edges &tails, Flag flag, Predecessors &&for_each_predecessor_of);
	// Whether G' has no cycle between components; where the base's numbering does not order it, its
	// topological order (components, first to last) into order.
	bool acyclic(std::vector<uint32_t> &order);
	void widen(const std::vector<uint32_t> &order);
	bool vanished(uint32_t from, uint32_t to) const noexcept;
	// Whether an inserted edge from component from to component to (different) is new to G': the
	// base DAG does not hold it, or holds it only as a vanished edge.
	bool new_between(uint32_t from, uint32_t to) const noexcept;
	template <typename Visit> void for_each_successor(uint32_t c, Visit &&visit) const;
	template <typename Visit> void for_each_predecessor(uint32_t c, Visit &&visit) const;
	// Widened record of a component of A_I: its intervals (low, high per label) and Bloom "out" words.
	uint32_t *
	intervals(uint32_t slot) noexcept {
		return intervals_.data() + size_t(slot) * 2 * labels_;
	}
	uint64_t *
	bloom_out(uint32_t slot) noexcept {
		return bloom_out_.data() + size_t(slot) * kBloomWords;
	}
	// A component's intervals (low, high per label) and Bloom "out" words, where they lie.
	struct Record {
		const uint32_t *intervals;
		const uint64_t *bloom;
	};
	// Its own: the base's, or an added vertex's rank past the base's and Bloom bit.
	Record own_record(uint32_t c) const noexcept;
	// What it contributes to its G'-ancestors' widened records: its widened record, else its own.
	Record contribution(uint32_t c) noexcept;
	// Asks the cache for the lines of contribution(c) (its slot read).
	void prefetch_contribution(uint32_t c) const noexcept;
	static void fill_if_dense(uint64_t *bits) noexcept;
	void widen_into(uint32_t slot, Record from) noexcept;
	// widen_into, telling what grew (kIntervalsGrew, kBloomGrew; 0: nothing).
	uint8_t widen_changed(uint32_t slot, Record from) noexcept;
	void widen_edge(uint32_t cu, uint32_t cv);
	void grow(uint32_t c, Record from);
	void propagate(size_t budget);
	// propagate()'s: the components it takes off the queue at once (`taken`), the cache asked for
	// their predecessors' lists, flags and slots; one of them pushing its record.
	static constexpr size_t kTakenAtOnce = 8;
	void prefetch_predecessors(const std::vector<uint32_t> &taken) const noexcept;
	size_t push_record(uint32_t c);
	void unlist_unwidened(uint32_t from, uint32_t to);
	bool search(uint32_t ca, uint32_t cb);
	bool covers(const uint32_t *intervals, const uint64_t *bloom, Record from) const noexcept;
	// A component's key in the topological order of G' (ties go by component number: after()).
	uint64_t
	place(uint32_t c) const noexcept {
		return order_kept_ ? c : order_[c];
	}
	// Whether component a comes after component b in the topological order of G'.
	bool
	after(uint32_t a, uint32_t b) const noexcept {
		if (order_kept_)
			return a > b;
		return order_[a] != order_[b] ? order_[a] > order_[b] : a > b;
	}
	// The rule at component c about the search's target (pruning.hpp): the base's where the base
	// labels hold, the widened labels' in A_I, no DFS-tree "yes" in A_D.
	pruning::Step step(uint32_t c, uint32_t target) noexcept;

	const Index &base_;
	ReachabilityQuery base_query_;
	bool intact_ = true; // intact()
	size_t vertices_, components_, added_;
	unsigned labels_;
	uint64_t max_rank_ = 0;                 // the largest rank of the base labels: added vertices rank past it
	std::vector<uint32_t> added_intervals_; // added vertex k's own record
	std::vector<uint64_t> added_bloom_;
	bool order_kept_ = true; // every inserted DAG edge goes from a lower number to a higher
	// Else a topological order of G' by component: a key each, ties ordered by component number
	// (after()); made kOrderRoom bits apart from 1 << kOrderRoom on (Kahn's order), so that order_edge() finds free
	// keys between two components where it moves some.
	std::vector<uint64_t> order_;
	static constexpr unsigned kOrderRoom = 32;
	size_t renumbered_ = 0;      // times the keys were numbered again (renumber())
	size_t grown_ = 0;           // records_grown()
	std::vector<uint8_t> flags_; // per component, base then added
	ComponentEdges inserted_;    // DAG edges G' has and G has not
	// Inserted edges of the changes (base vertices or added) per pair of components (from << 32 | to,
	// different): what inserted_between() asks without a walk over every inserted edge.
	std::unordered_map<uint64_t, uint32_t> between_;
	Edges vanished_; // DAG edges of G that G' lacks, sorted (from, to)
	std::shared_ptr<const Csr> reversed_dag_;
	std::vector<uint32_t> slot_; // widened record of each component of A_I, else kNoSlot
	uint32_t slots_ = 0;
	std::vector<uint32_t> intervals_;
	std::vector<uint64_t> bloom_out_;
	// The search (pruned_search.hpp): its scratch, the target's own record.
	VisitMarks visited_;
	std::vector<uint32_t> stack_;
	Record target_{};
	// remove()'s: the base's vertices by component (component c's from member_start_[c] on in
	// member_list_), made at the first deletion; a vertex's place in its component (UINT32_MAX between
	// checks).
	std::vector<uint32_t> member_start_;
	std::vector<vid_t> member_list_;
	std::vector<uint32_t> local_;
	// extend()'s scratch: marks of the order's searches (this epoch's), the components it moves, a
	// record copied.
	std::vector<uint32_t> marks_;
	std::vector<uint32_t> moved_;
	uint32_t epoch_ = 0;
	std::vector<uint32_t> copied_intervals_;
	std::vector<uint64_t> copied_bloom_;
	// The widening's queue (propagate()): components whose record grew, latest place first, and
	// whether each is on it; an inserted edge's head's record copied.
	std::priority_queue<std::pair<uint64_t, uint32_t>> queue_;
	std::vector<uint8_t> queued_;
	std::vector<uint32_t> taken_;   // the components taken off the queue at once
	std::vector<uint32_t> growing_; // the predecessors a component taken off the queue grows
	std::vector<uint32_t> head_intervals_;
	std::vector<uint64_t> head_bloom_;
	bool queue_keys_stale_ = false; // the order moved components since they were queued
	size_t widening_budget_ = kWideningBudget;
	// U (the header): the DAG edges whose widening began since the widening's queue was last empty,
	// at most kUnwidenedMost.
	ComponentPairs unwidened_;
	static constexpr size_t kUnwidenedMost = 256;
	// L (the header), first deferred first; past kDeferredMost a batch widens them all.
	ComponentPairs deferred_;
	static constexpr size_t kDeferredMost = 1024;
	static constexpr size_t kAdmittedAtOnce = 16;
	size_t admission_ = kAdmittedAtOnce;
	static constexpr size_t kClosureSearches = 2048;
	size_t closure_searches_ = kClosureSearches;
	// Scratch: edges widened at once; through_unfinished()'s edges between the query's ends and the
	// heads on a path from its source.
	ComponentPairs admitted_;
	ComponentPairs window_;
	std::vector<uint32_t> closure_;
	static constexpr uint32_t kNoSlot = UINT32_MAX;
};

} // namespace grail
