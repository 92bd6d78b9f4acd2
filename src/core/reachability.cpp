// Answering reachable(a, b) from an index: the label filters, then a label-pruned search.
#include "index.hpp"
#include "error.hpp"
#include "pruning.hpp"

#include <algorithm>

namespace grail {

ReachabilityQuery::ReachabilityQuery(const Index &index) : index_(index) {
}

ReachabilityQuery::Verdict
ReachabilityQuery::decide(int64_t source, int64_t target, vid_t &ca, vid_t &cb) noexcept {
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
	// pruning::step()'s tests one by one, to record which one decided.
	const BloomLabels &bloom = index_.bloom();
	last_ = Decided::bloom;
	if (!pruning::bloom_allows(bloom.record(ca), bloom.record(cb)))
		return Verdict::no;
	const GrailLabels &labels = index_.labels();
	const uint32_t *ra = labels.record(ca), *rb = labels.record(cb);
	last_ = Decided::level;
	if (!pruning::level_allows(ra, rb))
		return Verdict::no;
	last_ = Decided::labels;
	if (!pruning::intervals_allow(ra, rb, labels.label_count()))
		return Verdict::no;
	last_ = Decided::tree_interval;
	if (pruning::tree_holds(ra, rb))
		return Verdict::yes;
	last_ = Decided::search;
	return Verdict::search;
}

bool
ReachabilityQuery::reachable(int64_t source, int64_t target) {
	vid_t ca = 0, cb = 0;
	Verdict verdict = decide(source, target, ca, cb);
	return verdict == Verdict::search ? search(ca, cb) : verdict == Verdict::yes;
}

size_t
ReachabilityQuery::reachable_many(const int64_t *sources, const int64_t *targets, size_t count, bool *answers,
                                  const PairSearch &search_many, size_t min_searches) {
	std::vector<size_t> pending;
	std::vector<vid_t> from, to;
	for (size_t i = 0; i < count; i++) {
		if ((i & 0xFFFF) == 0xFFFF)
			poll_cancel();
		vid_t ca = 0, cb = 0;
		Verdict verdict = decide(sources[i], targets[i], ca, cb);
		answers[i] = verdict == Verdict::yes;
		if (verdict == Verdict::search) {
			pending.push_back(i);
			from.push_back(ca);
			to.push_back(cb);
		}
	}
	std::vector<uint8_t> reached;
	if (search_many && !pending.empty() && pending.size() >= min_searches && search_many(from, to, reached)) {
		if (reached.size() != pending.size())
			throw Error(ErrorKind::internal, "a batched reachability search answered the wrong number of pairs");
		for (size_t k = 0; k < pending.size(); k++)
			answers[pending[k]] = reached[k] != 0;
	} else {
		for (size_t k = 0; k < pending.size(); k++)
			answers[pending[k]] = search(from[k], to[k]);
	}
	return pending.size();
}

bool
ReachabilityQuery::reachable_components(vid_t ca, vid_t cb) {
	if (ca == cb)
		return true;
	if (ca > cb)
		return false;
	const BloomLabels &bloom = index_.bloom();
	const GrailLabels &labels = index_.labels();
	switch (pruning::step(bloom.record(ca), labels.record(ca), bloom.record(cb), labels.record(cb),
	                      labels.label_count())) {
	case pruning::Step::prune:
		return false;
	case pruning::Step::reached:
		return true;
	case pruning::Step::expand:
		break;
	}
	return search(ca, cb);
}

bool
ReachabilityQuery::search(vid_t from, vid_t to) {
	const Csr &dag = index_.dag();
	const GrailLabels &labels = index_.labels();
	size_t components = dag.vertex_count();
	if (!visited_epoch_) {
		visited_epoch_.reset(static_cast<uint32_t *>(std::calloc(std::max<size_t>(components, 1), sizeof(uint32_t))));
		if (!visited_epoch_)
			throw std::bad_alloc();
		epoch_ = 0;
	}
	if (++epoch_ == 0) {
		std::fill(visited_epoch_.get(), visited_epoch_.get() + components, 0);
		epoch_ = 1;
	}
	const BloomLabels &bloom = index_.bloom();
	const BloomRecord &bt = bloom.record(to);
	const uint32_t *rt = labels.record(to);
	const unsigned d = labels.label_count();
	stack_.clear();
	stack_.push_back(from);
	visited_epoch_[from] = epoch_;
	size_t steps = 0;
	while (!stack_.empty()) {
		vid_t v = stack_.back();
		stack_.pop_back();
		for (const vid_t *p = dag.begin(v); p != dag.end(v); p++) {
			if ((++steps & 0xFFFF) == 0)
				poll_cancel();
			vid_t c = *p;
			// Lists are ascending and components topologically numbered: the rest come after `to`.
			if (c >= to) {
				if (c == to)
					return true;
				break;
			}
			if (visited_epoch_[c] == epoch_)
				continue;
			visited_epoch_[c] = epoch_;
			pruning::Step step = pruning::step(bloom.record(c), labels.record(c), bt, rt, d);
			if (step == pruning::Step::reached)
				return true;
			if (step == pruning::Step::expand)
				stack_.push_back(c);
		}
	}
	return false;
}

} // namespace grail
