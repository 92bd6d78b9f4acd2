// Answering reachable(a, b) from an index: the label filters, then a label-pruned search.
#include "index.hpp"
#include "error.hpp"
#include "parallel.hpp"
#include "pruning.hpp"

#include <algorithm>

namespace grail {

ReachabilityQuery::ReachabilityQuery(const Index &index) : index_(index) {
}

ReachabilityQuery::Verdict
ReachabilityQuery::decide_ids(int64_t source, int64_t target, vid_t &ca, vid_t &cb) noexcept {
	last_ = Decided::same_component;
	if (source == target)
		return Verdict::yes;
	vid_t va, vb;
	if (!index_.resolve(source, &va, &ca) || !index_.resolve(target, &vb, &cb)) {
		last_ = Decided::unknown_vertex;
		return Verdict::no;
	}
	if (ca == cb)
		return Verdict::yes;
	last_ = Decided::topological;
	if (ca > cb)
		return Verdict::no;
	return Verdict::search;
}

void
ReachabilityQuery::prefetch_labels(vid_t c) const noexcept {
	const LookupLabels &lookup = index_.lookup();
	if (!lookup.empty())
		__builtin_prefetch(&lookup.record(c));
	__builtin_prefetch(index_.labels().record(c));
}

ReachabilityQuery::Verdict
ReachabilityQuery::decide_labels(vid_t ca, vid_t cb) noexcept {
	// The lookup records first (32 bytes each, one line): the supports' and the backward order's
	// yes, the back levels', the supports' and the backward order's no.
	const LookupLabels &lookup = index_.lookup();
	const GrailLabels &labels = index_.labels();
	const uint32_t *ra = labels.record(ca), *rb = labels.record(cb);
	if (!lookup.empty()) {
		const LookupRecord &la = lookup.record(ca), &lb = lookup.record(cb);
		last_ = Decided::supports;
		if (LookupLabels::proves(la, lb))
			return Verdict::yes;
		last_ = Decided::back_order;
		if (LookupLabels::order_proves(la, lb))
			return Verdict::yes;
		last_ = Decided::back_level;
		if (LookupLabels::level_rules_out(la, lb))
			return Verdict::no;
		last_ = Decided::supports;
		if (LookupLabels::supports_rule_out(la, lb))
			return Verdict::no;
		last_ = Decided::back_order;
		if (LookupLabels::order_rules_out(la, lb))
			return Verdict::no;
	}
	// pruning::step()'s tests one by one, to record which one decided. Then the GRAIL records:
	// they hold the level and interval "no"s and both "yes"es, so most pairs that reach are
	// decided before the Bloom records are read.
	const unsigned d = labels.label_count();
	last_ = Decided::level;
	if (!pruning::level_allows(ra, rb))
		return Verdict::no;
	last_ = Decided::tree_interval;
	if (pruning::tree_holds(ra, rb))
		return Verdict::yes;
	last_ = Decided::interval_end;
	if (pruning::end_holds(ra, rb, d))
		return Verdict::yes;
	last_ = Decided::labels;
	if (!pruning::intervals_allow(ra, rb, d))
		return Verdict::no;
	const BloomLabels &bloom = index_.bloom();
	last_ = Decided::bloom;
	if (!pruning::bloom_allows(bloom.record(ca), bloom.record(cb)))
		return Verdict::no;
	last_ = Decided::search;
	return Verdict::search;
}

ReachabilityQuery::Verdict
ReachabilityQuery::decide(int64_t source, int64_t target, vid_t &ca, vid_t &cb) noexcept {
	Verdict verdict = decide_ids(source, target, ca, cb);
	if (verdict != Verdict::search)
		return verdict;
	// The search that may follow starts at ca's list: its offsets asked for beside the records the
	// labels read, then the list itself, so that the search's first level waits for neither (the
	// random DAG's known reachable pairs, two in three of them searched: 80.9 -> 78.0 ms a 100,000,
	// grail_cli query --time, 5 alternated rounds).
	__builtin_prefetch(&index_.dag().offsets[ca]);
	verdict = decide_labels(ca, cb);
	if (verdict == Verdict::search)
		__builtin_prefetch(index_.dag().begin(ca));
	return verdict;
}

bool
ReachabilityQuery::reachable(int64_t source, int64_t target) {
	vid_t ca = 0, cb = 0;
	Verdict verdict = decide(source, target, ca, cb);
	return verdict == Verdict::search ? search(ca, cb) : verdict == Verdict::yes;
}

size_t
ReachabilityQuery::scratch_bytes() const noexcept {
	size_t bytes = marks_.bytes() + slots_.capacity() * sizeof(SearchSlot);
	for (const SearchSlot &slot : slots_)
		bytes += (slot.stack.capacity() + slot.batch.capacity() + slot.successors.capacity() + slot.marked.capacity()) *
		         sizeof(uint32_t);
	for (const std::unique_ptr<ReachabilityQuery> &helper : helpers_)
		bytes += sizeof(ReachabilityQuery) + helper->scratch_bytes();
	return bytes;
}

void
ReachabilityQuery::release_scratch() noexcept {
	marks_ = SearchMarks();
	std::vector<SearchSlot>().swap(slots_);
	helpers_.clear();
}

ReachabilityQuery &
ReachabilityQuery::helper(unsigned k) {
	while (helpers_.size() < k)
		helpers_.push_back(std::make_unique<ReachabilityQuery>(index_));
	return *helpers_[k - 1];
}

void
ReachabilityQuery::decide_many(const int64_t *sources, const int64_t *targets, size_t count, bool *answers,
                               Undecided &undecided, unsigned helpers) {
	undecided = Undecided{};
	if (helpers > 0 && count >= kFewestItemsToSplit) {
		// Runs of the pairs, each decided as below by the query of the thread that takes it (runs,
		// not one range a thread: a thread that waits for a CPU leaves its runs to the others);
		// their undecided pairs joined in run order are the list one pass makes.
		constexpr size_t kRun = 1 << 14;
		for (unsigned k = 1; k <= helpers; k++)
			helper(k);
		std::vector<Undecided> parts((count + kRun - 1) / kRun);
		run_tasks(parts.size(), helpers, [&](size_t run, unsigned worker) {
			poll_cancel(); // a run is shorter than the pass's own polling interval
			ReachabilityQuery &query = worker == 0 ? *this : *helpers_[worker - 1];
			size_t begin = run * kRun, end = std::min(count, begin + kRun);
			query.decide_many(sources + begin, targets + begin, end - begin, answers + begin, parts[run]);
			for (size_t &pair : parts[run].pair)
				pair += begin;
		});
		for (Undecided &part : parts) {
			undecided.pair.insert(undecided.pair.end(), part.pair.begin(), part.pair.end());
			undecided.from.insert(undecided.from.end(), part.from.begin(), part.from.end());
			undecided.to.insert(undecided.to.end(), part.to.begin(), part.to.end());
		}
		return;
	}
	// A pipeline over the pairs that keeps many cache misses in flight, where one pair at a time
	// waits for each of its own in turn: pair i + 2 * kAhead's hash slots are prefetched, pair
	// i + kAhead's ids resolved (their slots read by then) and its components' records prefetched,
	// and pair i decided (its records read by then). The same tests as decide(), in the same order.
	constexpr size_t kAhead = 16, kRing = 2 * kAhead;
	struct Resolved {
		vid_t ca, cb;
		Verdict verdict;
		Decided decided;
	} ring[kRing];
	for (size_t i = 0; i < count + 2 * kAhead; i++) {
		if ((i & 0xFFFF) == 0xFFFF)
			poll_cancel();
		if (i < count) {
			index_.prefetch_resolve(sources[i]);
			index_.prefetch_resolve(targets[i]);
		}
		if (i >= kAhead && i - kAhead < count) {
			size_t j = i - kAhead;
			Resolved &r = ring[j % kRing];
			r.ca = r.cb = 0;
			r.verdict = decide_ids(sources[j], targets[j], r.ca, r.cb);
			r.decided = last_;
			if (r.verdict == Verdict::search) {
				prefetch_labels(r.ca);
				prefetch_labels(r.cb);
			}
		}
		if (i >= 2 * kAhead) {
			size_t k = i - 2 * kAhead;
			const Resolved &r = ring[k % kRing];
			Verdict verdict = r.verdict;
			last_ = r.decided;
			if (verdict == Verdict::search)
				verdict = decide_labels(r.ca, r.cb);
			answers[k] = verdict == Verdict::yes;
			if (verdict == Verdict::search) {
				undecided.pair.push_back(k);
				undecided.from.push_back(r.ca);
				undecided.to.push_back(r.cb);
			}
		}
	}
}

void
ReachabilityQuery::Undecided::answer(const std::vector<uint8_t> &reached, bool *answers) const {
	if (reached.size() != pair.size())
		throw Error(ErrorKind::internal, "a batched reachability search answered the wrong number of pairs");
	for (size_t k = 0; k < pair.size(); k++)
		answers[pair[k]] = reached[k] != 0;
}

void
ReachabilityQuery::search_each(const Undecided &undecided, bool *answers, unsigned helpers) {
	// Runs of pairs taken by whichever thread is free: searches differ in length by orders of
	// magnitude, so fixed ranges would leave a thread idle. A run is long enough that taking it
	// costs nothing beside its searches (a search is a microsecond or more), short enough that the
	// threads end together. Below a few runs per thread, starting the helpers costs about what
	// they would save.
	constexpr size_t kRun = 64;
	size_t count = undecided.size();
	// The searches poll for a cancel as they go (search_step(), start_search()).
	if (helpers == 0 || count < 4 * kRun * (size_t(helpers) + 1)) {
		search_range(undecided, 0, count, answers);
		return;
	}
	for (unsigned k = 1; k <= helpers; k++)
		helper(k);
	run_tasks((count + kRun - 1) / kRun, helpers, [&](size_t run, unsigned worker) {
		if ((run & 0x3F) == 0x3F)
			poll_cancel();
		ReachabilityQuery &query = worker == 0 ? *this : *helpers_[worker - 1];
		query.search_range(undecided, run * kRun, std::min(count, (run + 1) * kRun), answers);
	});
}

size_t
ReachabilityQuery::reachable_many(const int64_t *sources, const int64_t *targets, size_t count, bool *answers,
                                  const PairSearch &search_many, size_t min_searches, unsigned helpers) {
	Undecided undecided;
	decide_many(sources, targets, count, answers, undecided, helpers);
	std::vector<uint8_t> reached;
	if (search_many && undecided.size() > 0 && undecided.size() >= min_searches &&
	    search_many(undecided.from, undecided.to, reached))
		undecided.answer(reached, answers);
	else
		search_each(undecided, answers, helpers);
	return undecided.size();
}

bool
ReachabilityQuery::reachable_components(vid_t ca, vid_t cb) {
	if (ca == cb)
		return true;
	if (ca > cb)
		return false;
	// The labels as a query of ids reads them, the lookup records included: exact for the index's
	// DAG (an overlay asks only about components whose reach its changes leave as built).
	Verdict verdict = decide_labels(ca, cb);
	return verdict == Verdict::search ? search(ca, cb) : verdict == Verdict::yes;
}

pruning::Step
ReachabilityQuery::rule(vid_t u, vid_t v) const noexcept {
	using pruning::Step;
	const GrailLabels &labels = index_.labels();
	const uint32_t *ru = labels.record(u), *rv = labels.record(v);
	if (!pruning::level_allows(ru, rv))
		return Step::prune;
	// The interval containment and the interval end test in one pass over the record, which the
	// containment reads anyway: the end test costs no load of its own.
	const unsigned d = labels.label_count();
	uint32_t outside = 0, end = 0;
	for (unsigned i = 0; i < d; i++) {
		outside |= uint32_t(rv[3 + 2 * i] < ru[3 + 2 * i]) | uint32_t(rv[4 + 2 * i] > ru[4 + 2 * i]);
		end |= uint32_t(rv[4 + 2 * i] == ru[3 + 2 * i]);
	}
	if (outside)
		return Step::prune;
	if (end || pruning::tree_holds(ru, rv))
		return Step::reached;
	// The Bloom record last: its line is read only where the GRAIL record decides nothing.
	const BloomLabels &bloom = index_.bloom();
	return pruning::bloom_allows(bloom.record(u), bloom.record(v)) ? Step::expand : Step::prune;
}

// The search is depth first, a batch at a time: the kBatch components last pushed (fewer where
// their lists already hold kBatchEdges successors) are taken off the stack together, their
// successor lists asked for at once, then the GRAIL and Bloom records, visit marks and offsets of
// every successor, then each successor not yet visited judged by rule() and those to expand pushed
// (their lists asked for), the highest on top.
//
// The batch overlaps the cache misses of many components, as a level-by-level search does, while
// the stack still goes deep first, towards the target: where paths are long (the deep local DAG) a
// breadth-first search visits every component of every level on the way (527 a searched pair that
// reaches, against 333 here). A depth-first search one component at a time waits for each one's
// misses in turn (on the random DAG's searched pairs, nearly all negative, about 20% slower than
// level by level; these batches are not). The lookup records are not read here: they would spare
// 2-5% of the visits, for a line more a visit that costs more. The cap on a batch's successors is
// for graphs with hubs (R-MAT: a batch of sixteen that holds a hub's list asks for thousands of
// lines at once; capped, its searched pairs took 20% less time, the random and deep DAGs' batches
// were never cut).
//
// A search alone (search(): one pair) waits at each level for two rounds of misses, the lists and
// then the successors' lines: a successor's offsets asked for with its records, rather than once it
// is pushed, make it two where it was three (known reachable pairs, grail_cli query --time, this
// 2-core machine: the random DAG's 98-102 -> 90-92 ms a 100,000, the deep local DAG's 367-383 ->
// 350). Taking the pushed components highest first spares it visits (on those pairs 17.5 -> 14.2 a
// search on the random DAG, 374 -> 273 on the deep one, by a replay of the search); sorting all
// that a batch pushed cost the deep DAG, whose batches push dozens, more than it spared, hence the
// kBatch highest only (with the offsets: 86-90 and 344-348 ms). Where searches run interleaved
// (search_range()) the others' phases hide those misses already, and both cost: the extra line a
// successor and the sort took the deep DAG's batch of reachable pairs from 2.70-2.78 to 2.88-2.96
// us a pair and the random DAG's uniform batch from 0.34 to 0.37 (grail_cli bench-queries).
// Lists are ascending and components topologically numbered: those past `to` cannot reach it.
void
ReachabilityQuery::start_search(size_t k, vid_t from, vid_t to) {
	if ((++steps_ & 0xFFFF) == 0) // many searches that end at once judge few components
		poll_cancel();
	SearchSlot &slot = slots_[k];
	marks_.reserve(index_.dag().vertex_count());
	marks_.take_back(unsigned(k), slot.marked);
	slot.from = from;
	slot.to = to;
	slot.phase = SearchSlot::Phase::take;
	slot.visits = 0;
	marks_.visit(from, unsigned(k), slot.marked);
	slot.stack.assign(1, from);
	__builtin_prefetch(&index_.dag().offsets[from]);
}

ReachabilityQuery::Progress
ReachabilityQuery::search_step(size_t k, bool alone) {
	constexpr size_t kBatch = 16, kBatchEdges = 256;
	SearchSlot &slot = slots_[k];
	const Csr &dag = index_.dag();
	switch (slot.phase) {
	case SearchSlot::Phase::take: {
		if (slot.stack.empty())
			return Progress::exhausted;
		size_t take = 0; // at least one
		for (size_t edges = 0; take < slot.stack.size() && take < kBatch && edges < kBatchEdges; take++) {
			uint32_t u = slot.stack[slot.stack.size() - 1 - take];
			edges += size_t(dag.offsets[u + 1] - dag.offsets[u]); // asked for by the scan, or once u was pushed
		}
		slot.batch.assign(slot.stack.end() - std::ptrdiff_t(take), slot.stack.end());
		slot.stack.resize(slot.stack.size() - take);
		for (uint32_t u : slot.batch)
			__builtin_prefetch(dag.begin(u));
		slot.phase = SearchSlot::Phase::scan;
		return Progress::searching;
	}
	case SearchSlot::Phase::scan: {
		const GrailLabels &labels = index_.labels();
		const BloomLabels &bloom = index_.bloom();
		const size_t width = labels.record_width(); // a record may span two lines: both are asked for
		slot.successors.clear();
		for (size_t i = slot.batch.size(); i-- > 0;) { // the last pushed first
			const vid_t *end = dag.end(slot.batch[i]);
			for (const vid_t *p = dag.begin(slot.batch[i]); p != end && *p <= slot.to; p++) {
				if (*p == slot.to)
					return Progress::reached;
				__builtin_prefetch(labels.record(*p));
				__builtin_prefetch(labels.record(*p) + width - 1);
				__builtin_prefetch(&bloom.record(*p));
				marks_.prefetch(*p);
				if (alone) // a line of its own: the list's start, if it is expanded
					__builtin_prefetch(&dag.offsets[*p]);
				slot.successors.push_back(*p);
			}
		}
		slot.phase = SearchSlot::Phase::judge;
		return Progress::searching;
	}
	case SearchSlot::Phase::judge: {
		const size_t pushed_from = slot.stack.size();
		for (uint32_t w : slot.successors) {
			if ((++steps_ & 0xFFFF) == 0)
				poll_cancel();
			if (!marks_.visit(w, unsigned(k), slot.marked))
				continue;
			slot.visits++;
			switch (rule(w, slot.to)) {
			case pruning::Step::reached:
				return Progress::reached;
			case pruning::Step::expand:
				if (alone)
					__builtin_prefetch(dag.begin(w)); // its offsets asked for by the scan
				else
					__builtin_prefetch(&dag.offsets[w]);
				slot.stack.push_back(w);
				break;
			case pruning::Step::prune:
				break;
			}
		}
		// What this batch pushed, the highest components on top in ascending order: the next batch
		// is the kBatch of them nearest the target in topological order, whichever lists they came
		// from, the nearest scanned first (each list was pushed ascending, the batch's lists one
		// after another).
		if (alone) {
			auto first = slot.stack.begin() + std::ptrdiff_t(pushed_from), last = slot.stack.end();
			if (last - first > std::ptrdiff_t(kBatch)) {
				std::nth_element(first, last - std::ptrdiff_t(kBatch), last);
				first = last - std::ptrdiff_t(kBatch);
			}
			std::sort(first, last);
		}
		slot.phase = SearchSlot::Phase::take;
		return Progress::searching;
	}
	}
	return Progress::exhausted;
}

bool
ReachabilityQuery::search(vid_t from, vid_t to) {
	if (slots_.empty())
		slots_.resize(1);
	start_search(0, from, to);
	Progress progress;
	while ((progress = search_step(0, true)) == Progress::searching) {
	}
	visits_ = slots_[0].visits;
	return progress == Progress::reached;
}

void
ReachabilityQuery::search_range(const Undecided &undecided, size_t begin, size_t end, bool *answers) {
	// Several searches advanced in turn, a phase each: what one phase asks of memory arrives while
	// the others run theirs, where one search alone waits for it. Four: a batch of 100,000 pairs of
	// a 1M-vertex random DAG (grail_cli bench-queries, one thread) went from 0.41-0.49 to 0.37-0.38
	// us a uniform pair and from 0.79-0.91 to 0.59-0.63 a reachable one, the deep local DAG's
	// reachable pairs from 3.2-3.9 to 3.1 us; two gained less, six and eight no more (their lines
	// crowd each other out of the cache).
	constexpr size_t kInterleaved = 4;
	static_assert(kInterleaved <= SearchMarks::kMaxSearches, "a search's mark is a bit of a byte");
	size_t count = std::min(kInterleaved, end - begin), next = begin;
	if (slots_.size() < count)
		slots_.resize(count);
	size_t running = 0;
	for (size_t k = 0; k < count; k++, next++, running++) {
		slots_[k].item = next;
		start_search(k, undecided.from[next], undecided.to[next]);
	}
	while (running > 0) {
		for (size_t k = 0; k < count; k++) {
			SearchSlot &slot = slots_[k];
			if (slot.item == end)
				continue; // done, no search left to start
			Progress progress = search_step(k, false);
			if (progress == Progress::searching)
				continue;
			answers[undecided.pair[slot.item]] = progress == Progress::reached;
			if (next < end) {
				slot.item = next;
				start_search(k, undecided.from[next], undecided.to[next]);
				next++;
			} else {
				slot.item = end;
				running--;
			}
		}
	}
}

} // namespace grail
