#include "grail_labels.hpp"
#include "error.hpp"
#include "rng.hpp"

#include <algorithm>

namespace grail {

GrailLabels
GrailLabels::build(const Csr &dag, unsigned d, uint64_t seed) {
	if (d < 1 || d > kMaxLabels)
		throw Error(ErrorKind::invalid_input, "the number of GRAIL labels must be between 1 and 16");
	size_t n = dag.vertex_count();
	if (n >= UINT32_MAX)
		throw Error(ErrorKind::limit_exceeded, "too many components for GRAIL labels");
	GrailLabels labels;
	labels.d_ = d;
	size_t w = labels.record_width();
	labels.data_.assign(n * w, 0);
	uint32_t *data = labels.data_.data();

	std::vector<vid_t> roots;
	{
		std::vector<uint8_t> has_parent(n, 0);
		for (vid_t t : dag.targets)
			has_parent[t] = 1;
		for (size_t v = 0; v < n; v++)
			if (!has_parent[v])
				roots.push_back(vid_t(v));
	}

	constexpr uint32_t kUnseen = UINT32_MAX;
	constexpr size_t kRootsAhead = 16, kChildrenAhead = 8;
	// Per traversal: kUnseen, kEntered, or the vertex's final lo. One compact array keeps the
	// hot check of each edge to a single 4-byte load.
	constexpr uint32_t kEntered = kUnseen - 1;
	std::vector<uint32_t> lo_of(n);
	// v's post rank in the current traversal. The ranks go to the records in one sequential pass
	// after each traversal: written there as the traversal finishes each vertex, they would land
	// at random in records of n * w words (a cache miss each), here in an array of n words.
	std::vector<uint32_t> post_of(n);
	std::vector<uint32_t> first_of(n); // traversal 0: the first rank of v's DFS subtree
	std::vector<vid_t> post_sequence;  // vertices of traversal 0 in post-order
	post_sequence.reserve(n);
	struct Frame {
		vid_t v;
		uint32_t lo;
		eid_t begin, next, end; // v's shuffled children are children[begin, end)
	};
	std::vector<Frame> stack;
	std::vector<vid_t> children;
	Rng seeds(seed);
	size_t steps = 0;

	for (unsigned i = 0; i < d; i++) {
		Rng rng(seeds.next());
		std::fill(lo_of.begin(), lo_of.end(), kUnseen);
		uint32_t rank = 0;
		// Fisher-Yates on the roots: each traversal starts from a different root order.
		for (size_t k = roots.size(); k > 1; k--)
			std::swap(roots[k - 1], roots[rng.below(k)]);
		auto enter = [&](vid_t v) {
			lo_of[v] = kEntered;
			if (i == 0)
				first_of[v] = rank;
			eid_t begin = children.size();
			children.insert(children.end(), dag.begin(v), dag.end(v));
			for (size_t k = children.size() - begin; k > 1; k--)
				std::swap(children[begin + k - 1], children[begin + rng.below(k)]);
			// Each child's state is read next (a miss each, at random), and its edges if unseen.
			for (size_t k = begin; k < children.size() && k < begin + kChildrenAhead; k++) {
				__builtin_prefetch(&lo_of[children[k]]);
				__builtin_prefetch(dag.offsets.data() + children[k]);
			}
			stack.push_back({v, kUnseen, begin, begin, children.size()});
		};
		for (size_t k = 0; k < roots.size(); k++) {
			// The roots come in a random order, each a cache miss or more: the coming ones' state and
			// edges are asked for ahead (no root is seen before its own DFS: nothing reaches it).
			if (k + kRootsAhead < roots.size()) {
				vid_t ahead = roots[k + kRootsAhead];
				__builtin_prefetch(&lo_of[ahead], 1);
				__builtin_prefetch(dag.offsets.data() + ahead);
			}
			if (k + kRootsAhead / 2 < roots.size()) {
				vid_t ahead = roots[k + kRootsAhead / 2];
				__builtin_prefetch(dag.begin(ahead));
			}
			vid_t root = roots[k];
			enter(root);
			while (!stack.empty()) {
				if ((++steps & 0xFFFF) == 0)
					poll_cancel();
				Frame &f = stack.back();
				if (f.next < f.end) {
					vid_t c = children[f.next++];
					uint32_t lo = lo_of[c];
					if (lo == kUnseen)
						enter(c);
					else // in a DAG a seen child is finished: its lo is final
						f.lo = std::min(f.lo, lo);
					continue;
				}
				vid_t v = f.v;
				uint32_t r = rank++;
				uint32_t lo = std::min(f.lo, r);
				lo_of[v] = lo;
				post_of[v] = r;
				if (i == 0)
					post_sequence.push_back(v);
				children.resize(f.begin); // v's range is on top: its descendants' ranges are gone
				stack.pop_back();
				if (!stack.empty())
					stack.back().lo = std::min(stack.back().lo, lo);
			}
		}
		if (rank != n)
			throw Error(ErrorKind::internal, "GRAIL labelling: the graph is not a DAG or has unreachable vertices");
		for (size_t v = 0; v < n; v++) {
			uint32_t *rec = data + v * w;
			rec[3 + 2 * i] = lo_of[v];
			rec[4 + 2 * i] = post_of[v];
			if (i == 0) {
				rec[0] = post_of[v];
				rec[1] = first_of[v];
			}
		}
	}

	// Reverse post-order is a topological order: levels settle in one pass over it (in a compact
	// array, as the ranks).
	std::vector<uint32_t> &level_of = first_of;
	std::fill(level_of.begin(), level_of.end(), 0);
	for (size_t k = post_sequence.size(); k-- > 0;) {
		vid_t v = post_sequence[k];
		uint32_t next_level = level_of[v] + 1;
		for (const vid_t *c = dag.begin(v); c != dag.end(v); c++)
			level_of[*c] = std::max(level_of[*c], next_level);
	}
	for (size_t v = 0; v < n; v++)
		data[v * w + 2] = level_of[v];
	labels.built_here_ = true;
	return labels;
}

BloomLabels
BloomLabels::build(const Csr &dag, const std::vector<uint32_t> &post_rank) {
	size_t n = dag.vertex_count();
	BloomLabels labels;
	labels.data_.assign(n, BloomRecord{});
	BloomRecord *data = labels.data_.data();
	// About ten intervals per bit: measured on a random DAG of 1M vertices, 5M edges, far fewer
	// (larger) intervals merge unrelated vertices, far more (smaller) ones scatter a reachable set.
	size_t interval = std::max<size_t>(1, n / (10 * kBloomBits));
	for (vid_t v = 0; v < n; v++) {
		// Intervals are spread over the bits by a multiplicative hash, so that neighbouring
		// intervals (often reached together) do not crowd a few neighbouring bits.
		uint64_t bit = (uint64_t(post_rank[v] / interval) * 0x9e3779b97f4a7c15ull) >> (64 - kBloomShift);
		data[v].out[bit / 64] |= uint64_t(1) << (bit % 64);
		data[v].in[bit / 64] |= uint64_t(1) << (bit % 64);
	}
	// Components are numbered topologically (every edge goes to a larger id): one upward pass
	// settles in(), one downward pass out().
	for (vid_t v = 0; v < n; v++) {
		if (v % 4096 == 0)
			poll_cancel();
		for (const vid_t *c = dag.begin(v); c != dag.end(v); c++)
			for (unsigned k = 0; k < kBloomWords; k++)
				data[*c].in[k] |= data[v].in[k];
	}
	for (vid_t v = vid_t(n); v-- > 0;) {
		if (v % 4096 == 0)
			poll_cancel();
		for (const vid_t *c = dag.begin(v); c != dag.end(v); c++)
			for (unsigned k = 0; k < kBloomWords; k++)
				data[v].out[k] |= data[*c].out[k];
	}
	return labels;
}

BloomLabels
BloomLabels::from_data(Array<BloomRecord> data) {
	BloomLabels labels;
	labels.data_ = std::move(data);
	return labels;
}

std::string
GrailLabels::first_inconsistent_edge(const Csr &dag) const {
	for (size_t a = 0; a < dag.vertex_count(); a++) {
		if (a % 4096 == 0)
			poll_cancel();
		for (const vid_t *b = dag.begin(vid_t(a)); b != dag.end(vid_t(a)); b++)
			if (record(vid_t(a))[2] >= record(*b)[2] || !contains(vid_t(a), *b))
				return std::to_string(a) + "->" + std::to_string(*b);
	}
	return {};
}

std::string
GrailLabels::first_inexact_label(const Csr &dag) const {
	size_t n = dag.vertex_count();
	if (data_.size() != n * record_width())
		return "the labels do not cover the DAG's " + std::to_string(n) + " vertices";
	std::vector<uint8_t> seen(n);
	for (unsigned i = 0; i < d_; i++) {
		std::fill(seen.begin(), seen.end(), 0);
		for (size_t v = 0; v < n; v++) {
			if (v % 4096 == 0)
				poll_cancel();
			const uint32_t *r = record(vid_t(v));
			uint32_t post = r[4 + 2 * i], lo = post;
			if (post >= n || seen[post])
				return "post rank " + std::to_string(post) + " of traversal " + std::to_string(i) +
				       " is repeated or out of range";
			seen[post] = 1;
			for (const vid_t *c = dag.begin(vid_t(v)); c != dag.end(vid_t(v)); c++)
				lo = std::min(lo, record(*c)[3 + 2 * i]);
			if (r[3 + 2 * i] != lo)
				return "lo of traversal " + std::to_string(i) + " at vertex " + std::to_string(v) +
				       " is not the smallest post rank it reaches";
		}
	}
	return {};
}

LookupLabels
LookupLabels::build(const Csr &dag, unsigned count, std::vector<vid_t> supports) {
	size_t n = dag.vertex_count();
	if (supports.empty() && n > 0 && count > 0) {
		// The kMaxSupports DAG vertices of largest (in-degree + 1) * (out-degree + 1): hubs that
		// many paths cross.
		std::vector<uint32_t> in(n, 0);
		for (vid_t t : dag.targets)
			in[t]++;
		std::vector<std::pair<uint64_t, vid_t>> score(n);
		for (size_t v = 0; v < n; v++)
			score[v] = {uint64_t(in[v] + 1) * uint64_t(dag.end(vid_t(v)) - dag.begin(vid_t(v)) + 1), vid_t(v)};
		size_t k = std::min<size_t>(std::min(count, kMaxSupports), n);
		std::partial_sort(score.begin(), score.begin() + k, score.end(), [](const auto &a, const auto &b) {
			return a.first > b.first || (a.first == b.first && a.second < b.second);
		});
		for (size_t i = 0; i < k; i++)
			supports.push_back(score[i].second);
	}
	if (supports.size() > kMaxSupports)
		throw Error(ErrorKind::internal, "too many reachability supports");
	LookupLabels labels;
	labels.records_.assign(n, LookupRecord{0, 0, 0, 0});
	LookupRecord *r = labels.records_.data();
	for (size_t i = 0; i < supports.size(); i++) {
		if (supports[i] >= n || r[supports[i]].reaches != 0)
			throw Error(ErrorKind::internal, "a reachability support is out of range or repeated");
		r[supports[i]].reaches = r[supports[i]].reached_by = uint64_t(1) << i;
	}
	// Edges go to larger vertices: reached_by and nothing else flows down in one upward pass,
	// reaches and the back level up in one downward pass.
	for (size_t v = 0; v < n; v++) {
		if (v % 4096 == 0)
			poll_cancel();
		for (const vid_t *c = dag.begin(vid_t(v)); c != dag.end(vid_t(v)); c++)
			r[*c].reached_by |= r[v].reached_by;
	}
	for (size_t v = n; v-- > 0;) {
		if (v % 4096 == 0)
			poll_cancel();
		uint64_t reaches = r[v].reaches;
		uint32_t level = 0;
		for (const vid_t *c = dag.begin(vid_t(v)); c != dag.end(vid_t(v)); c++) {
			reaches |= r[*c].reaches;
			level = std::max(level, r[*c].back_level + 1);
		}
		r[v].reaches = reaches;
		r[v].back_level = level;
	}
	labels.supports_ = Array<uint32_t>(std::vector<uint32_t>(supports.begin(), supports.end()));
	return labels;
}

LookupLabels
LookupLabels::from_data(Array<uint32_t> supports, Array<LookupRecord> records) {
	LookupLabels labels;
	labels.supports_ = std::move(supports);
	labels.records_ = std::move(records);
	return labels;
}

GrailLabels
GrailLabels::from_data(unsigned d, Array<uint32_t> data) {
	if (d < 1 || d > kMaxLabels)
		throw Error(ErrorKind::corrupt_index, "the number of GRAIL labels must be between 1 and 16");
	GrailLabels labels;
	labels.d_ = d;
	if (data.size() % labels.record_width() != 0)
		throw Error(ErrorKind::corrupt_index, "the GRAIL label data is not a whole number of records");
	labels.data_ = std::move(data);
	return labels;
}

} // namespace grail
