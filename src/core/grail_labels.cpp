#include "grail_labels.hpp"
#include "error.hpp"
#include "parallel.hpp"
#include "rng.hpp"

#include <algorithm>
#include <memory>

namespace grail {

GrailLabels
GrailLabels::build(const Csr &dag, unsigned d, uint64_t seed, unsigned threads) {
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
	std::vector<uint32_t> first_of(n); // traversal 0: the first rank of v's DFS subtree
	std::vector<vid_t> post_sequence;  // vertices of traversal 0 in post-order
	post_sequence.reserve(n);
	struct Frame {
		vid_t v;
		uint32_t lo;
		eid_t begin, next, end; // v's shuffled children are children[begin, end)
	};
	// One thread's working arrays, kept from one of its traversals to the next.
	struct Scratch {
		std::vector<Frame> stack;
		std::vector<vid_t> children;
	};
	// Each traversal's lo and post rank of v. The ranks go to the records in one sequential pass
	// after all traversals: written there as a traversal finishes each vertex, they would land at
	// random in records of n * w words (a cache miss each), here in n words; and a pass per
	// traversal, two words of each record at a time, would read and write all n * w words d times.
	std::vector<std::vector<uint32_t>> lo_of_all(d), post_of_all(d);
	// Each traversal's random numbers and root order, made in traversal order as one thread made
	// them (each shuffles the previous order), so that the traversals, in any order and on any
	// thread, make the labels bit for bit.
	std::vector<Rng> rngs;
	std::vector<std::vector<vid_t>> root_orders(d);
	Rng seeds(seed);
	for (unsigned i = 0; i < d; i++) {
		Rng rng(seeds.next());
		// Fisher-Yates on the roots: each traversal starts from a different root order.
		for (size_t k = roots.size(); k > 1; k--)
			std::swap(roots[k - 1], roots[rng.below(k)]);
		root_orders[i] = roots;
		rngs.push_back(rng);
	}
	roots = std::vector<vid_t>();
	unsigned helpers = std::min(threads, d - 1);
	std::vector<Scratch> scratch(helpers + 1);

	auto traverse = [&](unsigned i, Scratch &s) {
		Rng rng = rngs[i];
		const std::vector<vid_t> &order = root_orders[i];
		std::vector<uint32_t> &lo_of = lo_of_all[i], &post_of = post_of_all[i];
		std::vector<Frame> &stack = s.stack;
		std::vector<vid_t> &children = s.children;
		lo_of.assign(n, kUnseen);
		post_of.resize(n);
		size_t steps = 0;
		uint32_t rank = 0;
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
		for (size_t k = 0; k < order.size(); k++) {
			// The roots come in a random order, each a cache miss or more: the coming ones' state and
			// edges are asked for ahead (no root is seen before its own DFS: nothing reaches it).
			if (k + kRootsAhead < order.size()) {
				vid_t ahead = order[k + kRootsAhead];
				__builtin_prefetch(&lo_of[ahead], 1);
				__builtin_prefetch(dag.offsets.data() + ahead);
			}
			if (k + kRootsAhead / 2 < order.size()) {
				vid_t ahead = order[k + kRootsAhead / 2];
				__builtin_prefetch(dag.begin(ahead));
			}
			vid_t root = order[k];
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
	};
	run_tasks(d, helpers, [&](size_t i, unsigned worker) { traverse(unsigned(i), scratch[worker]); });
	scratch.clear();

	// Reverse post-order is a topological order: levels settle in one pass over it (in a compact
	// array, as the ranks).
	std::vector<uint32_t> level_of(n, 0);
	for (size_t k = post_sequence.size(); k-- > 0;) {
		vid_t v = post_sequence[k];
		uint32_t next_level = level_of[v] + 1;
		for (const vid_t *c = dag.begin(v); c != dag.end(v); c++)
			level_of[*c] = std::max(level_of[*c], next_level);
	}
	for (size_t v = 0; v < n; v++) {
		if (v % 65536 == 0)
			poll_cancel();
		uint32_t *rec = data + v * w;
		rec[0] = post_of_all[0][v];
		rec[1] = first_of[v];
		rec[2] = level_of[v];
		for (unsigned i = 0; i < d; i++) {
			rec[3 + 2 * i] = lo_of_all[i][v];
			rec[4 + 2 * i] = post_of_all[i][v];
		}
	}
	labels.built_here_ = true;
	return labels;
}

BloomLabels
BloomLabels::build(const Csr &dag, const std::vector<uint32_t> &post_rank, bool beside) {
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
	// settles in(), one downward pass out(). Each edge's head is a record at random (64 bytes of
	// n): its cache miss is asked for kAhead edges before it is needed, as in sweep() below.
	// The passes read and write disjoint halves of the records: with `beside`, the upward one runs
	// on a helper thread while this one makes the downward one.
	constexpr size_t kAhead = 16;
	const vid_t *t = dag.targets.data();
	const eid_t *o = dag.offsets.data();
	size_t m = dag.edge_count();
	Background upward;
	upward.start(beside, [=] {
		for (vid_t v = 0; v < n; v++) {
			if (v % 4096 == 0)
				poll_cancel();
			for (eid_t e = o[v]; e < o[v + 1]; e++) {
				if (e + kAhead < m)
					__builtin_prefetch(&data[t[e + kAhead]].in, 1);
				for (unsigned k = 0; k < kBloomWords; k++)
					data[t[e]].in[k] |= data[v].in[k];
			}
		}
	});
	for (vid_t v = vid_t(n); v-- > 0;) {
		if (v % 4096 == 0)
			poll_cancel();
		for (eid_t e = o[v]; e < o[v + 1]; e++) {
			if (e >= kAhead)
				__builtin_prefetch(&data[t[e - kAhead]].out);
			for (unsigned k = 0; k < kBloomWords; k++)
				data[v].out[k] |= data[t[e]].out[k];
		}
	}
	upward.wait();
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

namespace {

constexpr vid_t kNoHint = ~vid_t(0);

// The two bit-parallel sweeps over the topologically numbered DAG (every edge to a larger vertex),
// on compact arrays (8 bytes a vertex: most of them stay in cache): bit i of reached_by flows down
// from supports[i] in one pass, bit i of reaches (and the back level, where asked) up in another.
// The masks' cache misses are asked for a few edges ahead. With `beside`, the downward pass runs
// on a helper thread while this one makes the upward one (they share no array they write).
void
sweep(const Csr &dag, const std::vector<vid_t> &supports, uint64_t *reaches, uint64_t *reached_by, uint32_t *back_level,
      bool beside) {
	size_t n = dag.vertex_count();
	std::fill(reaches, reaches + n, 0);
	std::fill(reached_by, reached_by + n, 0);
	for (size_t i = 0; i < supports.size(); i++) {
		if (supports[i] >= n || reaches[supports[i]] != 0)
			throw Error(ErrorKind::internal, "a reachability support is out of range or repeated");
		reaches[supports[i]] = reached_by[supports[i]] = uint64_t(1) << i;
	}
	constexpr size_t kAhead = 16;
	const vid_t *t = dag.targets.data();
	const eid_t *o = dag.offsets.data();
	size_t m = dag.edge_count();
	Background downward;
	downward.start(beside, [=] {
		for (size_t v = 0; v < n; v++) {
			if (v % 4096 == 0)
				poll_cancel();
			uint64_t down = reached_by[v];
			if (down != 0)
				for (eid_t e = o[v]; e < o[v + 1]; e++) {
					if (e + kAhead < m)
						__builtin_prefetch(&reached_by[t[e + kAhead]], 1);
					reached_by[t[e]] |= down;
				}
		}
	});
	for (size_t v = n; v-- > 0;) {
		if (v % 4096 == 0)
			poll_cancel();
		uint64_t up = reaches[v];
		uint32_t level = 0;
		for (eid_t e = o[v]; e < o[v + 1]; e++) {
			if (e >= kAhead)
				__builtin_prefetch(&reaches[t[e - kAhead]]);
			up |= reaches[t[e]];
			if (back_level)
				level = std::max(level, back_level[t[e]] + 1);
		}
		reaches[v] = up;
		if (back_level)
			back_level[v] = level;
	}
	downward.wait();
}

// The kMaxSupports DAG vertices of largest (in-degree + 1) * (out-degree + 1): hubs that many
// paths cross, best first.
std::vector<vid_t>
hubs(const Csr &dag) {
	size_t n = dag.vertex_count();
	std::vector<uint32_t> in(n, 0);
	for (vid_t t : dag.targets)
		in[t]++;
	std::vector<std::pair<uint64_t, vid_t>> score(n);
	for (size_t v = 0; v < n; v++)
		score[v] = {uint64_t(in[v] + 1) * uint64_t(dag.end(vid_t(v)) - dag.begin(vid_t(v)) + 1), vid_t(v)};
	size_t k = std::min<size_t>(kMaxSupports, n);
	std::partial_sort(score.begin(), score.begin() + k, score.end(), [](const auto &a, const auto &b) {
		return a.first > b.first || (a.first == b.first && a.second < b.second);
	});
	std::vector<vid_t> out(k);
	for (size_t i = 0; i < k; i++)
		out[i] = score[i].second;
	return out;
}

// Packs the bits of a word that `select` names, in their order, shifted up by `shift` (a portable
// pext): one table of 256 entries per byte of the word, eight lookups a word.
class BitGather {
public:
	BitGather(uint64_t select, unsigned shift) {
		for (unsigned j = 0; j < 8; j++) {
			unsigned byte_select = unsigned(select >> (8 * j)) & 0xff;
			unsigned base = shift + unsigned(__builtin_popcountll(select & ((uint64_t(1) << (8 * j)) - 1)));
			for (unsigned b = 0; b < 256; b++) {
				uint64_t out = 0;
				unsigned at = 0;
				for (unsigned i = 0; i < 8; i++)
					if (byte_select >> i & 1) {
						if (b >> i & 1)
							out |= uint64_t(1) << (base + at);
						at++;
					}
				table_[j][b] = out;
			}
		}
	}
	uint64_t
	operator()(uint64_t m) const noexcept {
		uint64_t out = 0;
		for (unsigned j = 0; j < 8; j++)
			out |= table_[j][(m >> (8 * j)) & 0xff];
		return out;
	}

private:
	uint64_t table_[8][256];
};

// Supports chosen where they pay, and their records: a sample of the pairs a query meets (uniform
// pairs, and the ends of random walks, which reach) is cut to those that the other deciders (the
// back levels, and `decided`) leave to a search. Three rounds of 64 candidates, each one sweep: the
// hubs, then vertices on those pairs' walks (between the ends of a walk, or past the target of a
// uniform pair), from the pairs the earlier rounds leave undecided first. A greedy cover of the sample keeps
// the k candidates that decide the most of it; their records are gathered from the rounds' masks,
// bit for bit what a sweep over them makes. Returns the supports; fills r.
std::vector<vid_t>
choose_supports(const Csr &dag, size_t k, const DecidedElsewhere &decided, uint64_t seed, LookupRecord *r,
                bool beside) {
	size_t n = dag.vertex_count();
	constexpr unsigned kRounds = 3;
	constexpr size_t kDraws = 16384;
	std::vector<uint64_t> reaches[kRounds], reached_by[kRounds];
	std::vector<uint32_t> back_level(n);
	std::vector<vid_t> round_supports[kRounds];
	round_supports[0] = hubs(dag);
	std::vector<uint8_t> is_candidate(n, 0);
	for (vid_t c : round_supports[0])
		is_candidate[c] = 1;
	reaches[0].resize(n);
	reached_by[0].resize(n);
	sweep(dag, round_supports[0], reaches[0].data(), reached_by[0].data(), back_level.data(), beside);

	struct Pair {
		vid_t u, v, hint; // hint: a vertex on a walk, kNoHint for none
	};
	std::vector<Pair> hard;
	Rng rng(seed ^ 0x5eed5eed5eed5eedull);
	auto walk = [&](vid_t from, uint64_t steps, vid_t *middle) {
		vid_t v = from;
		uint64_t pick = 1 + rng.below(steps);
		*middle = kNoHint;
		for (uint64_t taken = 0; taken < steps && dag.begin(v) != dag.end(v); taken++) {
			v = dag.begin(v)[rng.below(uint64_t(dag.end(v) - dag.begin(v)))];
			if (taken + 1 == pick)
				*middle = v;
		}
		return v;
	};
	auto is_hard = [&](vid_t u, vid_t v) {
		return u < v && back_level[u] > back_level[v] && !(decided && decided(u, v));
	};
	for (size_t draw = 0; draw < kDraws; draw++) {
		if (draw % 1024 == 0)
			poll_cancel();
		vid_t u = vid_t(rng.below(n)), v = vid_t(rng.below(n)), hint;
		if (is_hard(u, v)) {
			walk(v, 1 + rng.below(8), &hint);
			hard.push_back({u, v, hint});
		}
		u = vid_t(rng.below(n));
		v = walk(u, 1 + rng.below(32), &hint);
		if (hint == v) // the walk's end proves nothing of its own pair: a vertex short of it does
			hint = kNoHint;
		if (is_hard(u, v))
			hard.push_back({u, v, hint});
	}

	// masks[p * kRounds + round]: the candidates of that round that decide pair p, either way.
	std::vector<uint64_t> masks(hard.size() * kRounds, 0);
	auto record = [&](unsigned round) {
		const uint64_t *re = reaches[round].data(), *rb = reached_by[round].data();
		for (size_t p = 0; p < hard.size(); p++) {
			vid_t u = hard[p].u, v = hard[p].v;
			masks[p * kRounds + round] = (re[u] & rb[v]) | (re[v] & ~re[u]) | (rb[u] & ~rb[v]);
		}
	};
	record(0);
	unsigned rounds = 1;
	for (unsigned round = 1; round < kRounds && !hard.empty(); round++) {
		std::vector<vid_t> &next = round_supports[round];
		for (int pass = 0; pass < 2 && next.size() < kMaxSupports; pass++) {
			size_t start = rng.below(hard.size());
			for (size_t q = 0; q < hard.size() && next.size() < kMaxSupports; q++) {
				size_t p = (start + q) % hard.size();
				bool open = true;
				for (unsigned s = 0; s < round; s++)
					open &= masks[p * kRounds + s] == 0;
				vid_t h = hard[p].hint;
				if ((pass == 1 || open) && h != kNoHint && !is_candidate[h]) {
					is_candidate[h] = 1;
					next.push_back(h);
				}
			}
		}
		if (next.empty())
			break;
		reaches[round].resize(n);
		reached_by[round].resize(n);
		sweep(dag, next, reaches[round].data(), reached_by[round].data(), nullptr, beside);
		record(round);
		rounds = round + 1;
	}

	// Greedy cover: gain[round * 64 + bit], how many pairs still open that candidate decides.
	std::vector<uint64_t> gain(kRounds * kMaxSupports, 0);
	for (size_t p = 0; p < hard.size(); p++)
		for (unsigned s = 0; s < rounds; s++)
			for (uint64_t m = masks[p * kRounds + s]; m != 0; m &= m - 1)
				gain[s * kMaxSupports + unsigned(__builtin_ctzll(m))]++;
	std::vector<uint8_t> open(hard.size(), 1);
	uint64_t selected[kRounds] = {};
	size_t picked = 0;
	while (picked < k) {
		size_t best = 0;
		for (size_t c = 1; c < gain.size(); c++)
			if (gain[c] > gain[best])
				best = c;
		if (gain[best] == 0)
			break;
		unsigned round = unsigned(best / kMaxSupports), bit = unsigned(best % kMaxSupports);
		selected[round] |= uint64_t(1) << bit;
		picked++; // its gain drops to 0 below: every pair it decides closes
		for (size_t p = 0; p < hard.size(); p++) {
			if (!open[p] || !(masks[p * kRounds + round] >> bit & 1))
				continue;
			open[p] = 0;
			for (unsigned s = 0; s < rounds; s++)
				for (uint64_t m = masks[p * kRounds + s]; m != 0; m &= m - 1)
					gain[s * kMaxSupports + unsigned(__builtin_ctzll(m))]--;
		}
	}
	// The rest by degree, the hubs first: they may decide pairs the sample did not meet.
	for (unsigned s = 0; s < rounds && picked < k; s++)
		for (size_t b = 0; b < round_supports[s].size() && picked < k; b++)
			if (!(selected[s] >> b & 1)) {
				selected[s] |= uint64_t(1) << b;
				picked++;
			}

	// The supports by round and bit; each vertex's masks are its rounds' selected bits, packed.
	std::vector<vid_t> supports;
	for (unsigned s = 0; s < rounds; s++)
		for (uint64_t m = selected[s]; m != 0; m &= m - 1)
			supports.push_back(round_supports[s][unsigned(__builtin_ctzll(m))]);
	std::vector<std::unique_ptr<BitGather>> gather;
	std::vector<unsigned> gathered; // the rounds that have supports
	unsigned shift = 0;
	for (unsigned s = 0; s < rounds; s++)
		if (selected[s] != 0) {
			gather.push_back(std::make_unique<BitGather>(selected[s], shift));
			gathered.push_back(s);
			shift += unsigned(__builtin_popcountll(selected[s]));
		}
	for (size_t v = 0; v < n; v++) {
		if (v % 65536 == 0)
			poll_cancel();
		uint64_t re = 0, rb = 0;
		for (size_t g = 0; g < gather.size(); g++) {
			re |= (*gather[g])(reaches[gathered[g]][v]);
			rb |= (*gather[g])(reached_by[gathered[g]][v]);
		}
		r[v] = LookupRecord{
		    re, rb, back_level[v], LookupLabels::kNoOrderPost, LookupLabels::kNoOrderFirst, LookupLabels::kNoOrderLo};
	}
	return supports;
}

} // namespace

LookupLabels
LookupLabels::build(const Csr &dag, unsigned count, std::vector<vid_t> supports, const DecidedElsewhere &decided,
                    uint64_t seed, bool ordered, bool beside) {
	size_t n = dag.vertex_count();
	if (supports.size() > kMaxSupports)
		throw Error(ErrorKind::internal, "too many reachability supports");
	LookupLabels labels;
	// Without an order until one is written (ordered, or set_order()): kNoOrder* decide nothing.
	labels.records_.assign(n, LookupRecord{0, 0, 0, kNoOrderPost, kNoOrderFirst, kNoOrderLo});
	LookupRecord *r = labels.records_.data();
	size_t k = std::min<size_t>(std::min<size_t>(count, kMaxSupports), n);
	if (supports.empty() && k > 0 && k < n) {
		supports = choose_supports(dag, k, decided, seed, r, beside);
	} else {
		if (supports.empty()) // every component a support (k == n): the records are the whole reachability
			for (size_t v = 0; v < k; v++)
				supports.push_back(vid_t(v));
		std::vector<uint64_t> reaches(n), reached_by(n);
		std::vector<uint32_t> back_level(n);
		sweep(dag, supports, reaches.data(), reached_by.data(), back_level.data(), beside);
		for (size_t v = 0; v < n; v++)
			r[v] = LookupRecord{reaches[v], reached_by[v], back_level[v], kNoOrderPost, kNoOrderFirst, kNoOrderLo};
	}
	labels.supports_ = Array<uint32_t>(std::vector<uint32_t>(supports.begin(), supports.end()));
	labels.has_order_ = ordered;
	if (ordered)
		order(dag, r);
	return labels;
}

void
LookupLabels::set_order(const BackwardOrder &order) {
	if (order.post.size() != records_.size() || order.first.size() != records_.size() ||
	    order.lo.size() != records_.size())
		throw Error(ErrorKind::internal, "a backward order of another DAG");
	order.write_to(records_.data());
	has_order_ = true;
}

void
LookupLabels::BackwardOrder::write_to(LookupRecord *records) const noexcept {
	for (size_t v = 0; v < post.size(); v++) {
		records[v].back_post = post[v];
		records[v].back_first = first[v];
		records[v].back_lo = lo[v];
	}
}

// The backward DFS order (grail_labels.hpp, LookupRecord): one depth-first search over the
// transpose, whose lists come out ascending, from the sinks in ascending order. Compact arrays
// (4 bytes a vertex each) rather than the records, which it writes once at the end.
LookupLabels::BackwardOrder
LookupLabels::backward_order(const Csr &dag) {
	size_t n = dag.vertex_count();
	if (n >= UINT32_MAX)
		throw Error(ErrorKind::limit_exceeded, "too many components for a backward order");
	const Csr up = dag.reversed();
	constexpr uint32_t kUnseen = UINT32_MAX;
	BackwardOrder order;
	std::vector<uint32_t> &lo_of = order.lo, &post_of = order.post, &first_of = order.first;
	lo_of.assign(n, kUnseen);
	post_of.resize(n);
	first_of.resize(n);
	struct Frame {
		vid_t v;
		uint32_t lo;
		eid_t next, end;
	};
	std::vector<Frame> stack;
	const eid_t *offsets = up.offsets.data();
	const vid_t *preds = up.targets.data();
	// As in strongly_connected_components: on a DAG numbered in no order of its edges every
	// predecessor is a cache miss, asked for as its vertex is entered (the first few) or a few
	// edges ahead (the rest), with where its own predecessors lie.
	constexpr eid_t kAhead = 8;
	auto enter = [&](vid_t v, uint32_t rank) {
		lo_of[v] = kUnseen - 1; // entered
		first_of[v] = rank;
		eid_t begin = offsets[v], end = offsets[v + 1];
		for (eid_t e = begin; e < end && e < begin + kAhead; e++) {
			__builtin_prefetch(&lo_of[preds[e]]);
			__builtin_prefetch(&offsets[preds[e]]);
		}
		stack.push_back({v, kUnseen, begin, end});
	};
	uint32_t rank = 0;
	size_t steps = 0;
	for (size_t root = 0; root < n; root++) {
		if (dag.begin(vid_t(root)) != dag.end(vid_t(root)) || lo_of[root] != kUnseen)
			continue;
		enter(vid_t(root), rank);
		while (!stack.empty()) {
			if ((++steps & 0xFFFF) == 0)
				poll_cancel();
			Frame &f = stack.back();
			if (f.next < f.end) {
				if (f.next + kAhead < f.end) {
					__builtin_prefetch(&lo_of[preds[f.next + kAhead]]);
					__builtin_prefetch(&offsets[preds[f.next + kAhead]]);
				}
				vid_t c = preds[f.next++];
				uint32_t lo = lo_of[c];
				if (lo == kUnseen)
					enter(c, rank);
				else // in a DAG a seen predecessor is finished: its lo is final
					f.lo = std::min(f.lo, lo);
				continue;
			}
			uint32_t r = rank++, lo = std::min(f.lo, r);
			post_of[f.v] = r;
			lo_of[f.v] = lo;
			stack.pop_back();
			if (!stack.empty())
				stack.back().lo = std::min(stack.back().lo, lo);
		}
	}
	if (rank != n)
		throw Error(ErrorKind::internal, "backward order: the graph is not a DAG");
	return order;
}

LookupLabels
LookupLabels::from_data(Array<uint32_t> supports, Array<LookupRecord> records, bool has_order) {
	LookupLabels labels;
	labels.has_order_ = has_order;
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
