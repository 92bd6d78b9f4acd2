// What would decide the pairs that reachable() still searches, measured on those pairs before
// anything is built: uniform random pairs of an index (as grail_cli bench-queries draws them), the
// ones the deciders leave to the search, and on those
//   - more forward GRAIL traversals, and GRAIL traversals of the reversed DAG (intervals nested the
//     other way): how many of the searched pairs k more of each would rule out;
//   - a second set of 64 supports chosen for the searched pairs;
//   - one step of the search: every successor of the source ruled out by all the deciders;
//   - the components a forward and a backward pruned search visit (a bidirectional search's bound),
//     and a pruned bidirectional search with two policies (sides in turn, or the side whose stack is
//     shorter), on these pairs and on the searched ones of known reachable pairs (the end of a
//     random walk of 1 to 32 steps, as grail_cli bench-queries draws them);
// then times the old depth-first search against the engine's search (depth first by batches) on the same
// pairs, interleaved in blocks of 64 (the machine may be shared: only the ratio is meaningful).
//   search_candidates INDEX.bin [SEED] [--quick]   (--quick: the timing only)
#include "grail_labels.hpp"
#include "index.hpp"
#include "rng.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

using namespace grail;

namespace {

double
now_ns() {
	return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

pruning::Step
grail_step(const Index &index, vid_t u, vid_t v) {
	const GrailLabels &l = index.labels();
	const BloomLabels &b = index.bloom();
	return pruning::step(b.record(u), l.record(u), b.record(v), l.record(v), l.label_count());
}

// 0: no, 1: yes, 2: undecided, by everything decide_labels() reads.
int
all_deciders(const Index &index, vid_t u, vid_t v) {
	const LookupRecord &a = index.lookup().record(u), &b = index.lookup().record(v);
	if (LookupLabels::proves(a, b) || LookupLabels::order_proves(a, b))
		return 1;
	if (LookupLabels::level_rules_out(a, b) || LookupLabels::supports_rule_out(a, b) ||
	    LookupLabels::order_rules_out(a, b))
		return 0;
	pruning::Step s = grail_step(index, u, v);
	return s == pruning::Step::prune ? 0 : s == pruning::Step::reached ? 1 : 2;
}

// The engine's search before it went level by level: depth-first, each component's successors'
// GRAIL records prefetched, the rule of ReachabilityQuery::rule().
struct DepthFirst {
	const Index &index;
	VisitMarks visited;
	std::vector<uint32_t> stack;
	bool
	search(vid_t from, vid_t to) {
		const Csr &dag = index.dag();
		const GrailLabels &labels = index.labels();
		auto successors = [&](uint32_t u, auto &&visit) {
			const vid_t *end = dag.end(u);
			for (const vid_t *p = dag.begin(u); p != end && *p <= to; p++)
				__builtin_prefetch(labels.record(*p));
			for (const vid_t *p = dag.begin(u); p != end && *p <= to; p++)
				if (visit(*p))
					return;
		};
		auto step = [&](uint32_t c) { return grail_step(index, c, to); };
		return pruned_search(from, to, dag.vertex_count(), visited, stack, successors, step);
	}
};

// Components a pruned depth-first search visits, forward from `from` or backward from `to`.
size_t
visits(const Index &index, const Csr &next, vid_t from, vid_t to, bool backward, std::vector<uint32_t> &mark,
       uint32_t epoch) {
	std::vector<vid_t> stack{backward ? to : from};
	size_t count = 0;
	while (!stack.empty()) {
		vid_t u = stack.back();
		stack.pop_back();
		for (const vid_t *e = next.begin(u); e != next.end(u); e++) {
			vid_t w = *e;
			if (backward ? w < from : w > to)
				continue;
			if (w == (backward ? from : to))
				return count;
			if (mark[w] == epoch)
				continue;
			mark[w] = epoch;
			count++;
			pruning::Step s = backward ? grail_step(index, from, w) : grail_step(index, w, to);
			if (s == pruning::Step::reached)
				return count;
			if (s == pruning::Step::expand)
				stack.push_back(w);
		}
	}
	return count;
}

// Components a pruned bidirectional search visits: depth first on each side, forward from `from`
// (successors that may reach `to`) and backward from `to` over up, the DAG's predecessor lists
// (predecessors that `from` may reach), a component's expansion at a time on the side the policy
// picks: in turn (alternate), or the side whose stack is shorter. It ends at a component both sides
// visited, at the rule's "yes", or when either side runs out.
size_t
bidirectional_visits(const Index &index, const Csr &up, vid_t from, vid_t to, bool alternate,
                     std::vector<uint32_t> &forward_mark, std::vector<uint32_t> &backward_mark, uint32_t epoch) {
	const Csr &dag = index.dag();
	std::vector<vid_t> ahead{from}, behind{to};
	forward_mark[from] = backward_mark[to] = epoch;
	size_t count = 0;
	bool forward_turn = false;
	while (!ahead.empty() && !behind.empty()) {
		bool forward = alternate ? (forward_turn = !forward_turn) : ahead.size() <= behind.size();
		std::vector<vid_t> &stack = forward ? ahead : behind;
		vid_t u = stack.back();
		stack.pop_back();
		const Csr &next = forward ? dag : up;
		for (const vid_t *e = next.begin(u); e != next.end(u); e++) {
			vid_t w = *e;
			if (forward ? w > to : w < from)
				continue;
			std::vector<uint32_t> &mine = forward ? forward_mark : backward_mark;
			const std::vector<uint32_t> &theirs = forward ? backward_mark : forward_mark;
			if (mine[w] == epoch)
				continue;
			mine[w] = epoch;
			count++;
			if (theirs[w] == epoch)
				return count;
			pruning::Step step = forward ? grail_step(index, w, to) : grail_step(index, from, w);
			if (step == pruning::Step::reached)
				return count;
			if (step == pruning::Step::expand)
				stack.push_back(w);
		}
	}
	return count;
}

// The components of the pairs the deciders leave to a search, of 100,000 pairs drawn by rng:
// uniform, or (walks) a vertex and the end of a random walk of 1 to 32 steps from it. *reached:
// how many of them reach.
std::vector<std::pair<vid_t, vid_t>>
searched_pairs(const Index &index, Rng &rng, bool walks, size_t *reached) {
	const Array<int64_t> &ids = index.graph().ids;
	const Csr &out = index.graph().out;
	const Array<uint32_t> &of = index.components().of_vertex;
	ReachabilityQuery q(index);
	std::vector<std::pair<vid_t, vid_t>> searched;
	*reached = 0;
	for (int k = 0; k < 100000; k++) {
		vid_t a = vid_t(rng.below(ids.size())), b = vid_t(rng.below(ids.size()));
		if (walks) {
			b = a;
			for (uint64_t step = 0, steps = 1 + rng.below(32); step < steps && out.begin(b) != out.end(b); step++)
				b = out.begin(b)[rng.below(size_t(out.end(b) - out.begin(b)))];
		}
		bool yes = q.reachable(ids[a], ids[b]);
		if (q.last_decision() == ReachabilityQuery::Decided::search) {
			searched.push_back({of[a], of[b]});
			*reached += yes;
		}
	}
	return searched;
}

} // namespace

int
main(int argc, char **argv) {
	if (argc < 2) {
		std::fprintf(stderr, "usage: search_candidates INDEX.bin [SEED] [--quick]\n");
		return 2;
	}
	uint64_t seed = argc > 2 && argv[2][0] != '-' ? std::strtoull(argv[2], nullptr, 10) : 1;
	bool quick = std::strcmp(argv[argc - 1], "--quick") == 0;
	std::ifstream file(argv[1], std::ios::binary);
	std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
	Index index = Index::deserialize(bytes.data(), bytes.size());
	const Array<int64_t> &ids = index.graph().ids;
	if (ids.empty() || index.lookup().empty()) {
		std::fprintf(stderr, "an index with vertices and lookup labels is needed\n");
		return 1;
	}
	Rng rng(seed);
	ReachabilityQuery q(index);
	size_t reached = 0;
	std::vector<std::pair<vid_t, vid_t>> searched = searched_pairs(index, rng, false, &reached);
	size_t s = searched.size();
	std::printf("100000 uniform pairs: %zu searched, %zu of them reachable\n", s, reached);
	if (s == 0)
		return 0;
	const Csr &dag = index.dag();
	const size_t n = dag.vertex_count();
	if (!quick) {
		// The reversed DAG, renumbered n - 1 - v so that it is topologically numbered too.
		Csr up = dag.reversed();
		std::vector<vid_t> from, to;
		for (vid_t v = 0; v < n; v++)
			for (const vid_t *p = up.begin(v); p != up.end(v); p++) {
				from.push_back(vid_t(n - 1 - v));
				to.push_back(vid_t(n - 1 - *p));
			}
		Csr reversed = Csr::from_pairs(n, from, to, true);
		GrailLabels forward = GrailLabels::build(dag, 8, seed * 7 + 1);
		GrailLabels backward = GrailLabels::build(reversed, 8, seed * 7 + 2);
		for (unsigned k : {1u, 2u, 4u, 8u}) {
			size_t f = 0, b = 0, both = 0;
			for (auto [u, v] : searched) {
				bool fo = !pruning::intervals_allow(forward.record(u), forward.record(v), k);
				bool bo =
				    !pruning::intervals_allow(backward.record(vid_t(n - 1 - v)), backward.record(vid_t(n - 1 - u)), k);
				f += fo;
				b += bo;
				both += fo || bo;
			}
			std::printf(
			    "  %u more forward traversals rule out %zu (%.1f%%), %u backward %zu (%.1f%%), both %zu (%.1f%%); "
			    "%u bytes a component\n",
			    k, f, 100.0 * f / s, k, b, 100.0 * b / s, both, 100.0 * both / s, 16 * k);
		}
		const Index &x = index;
		LookupLabels more = LookupLabels::build(
		    dag, kMaxSupports, {}, [&](vid_t u, vid_t v) { return all_deciders(x, u, v) != 2; }, seed);
		size_t no = 0, yes = 0;
		for (auto [u, v] : searched) {
			no += LookupLabels::supports_rule_out(more.record(u), more.record(v));
			yes += LookupLabels::proves(more.record(u), more.record(v));
		}
		std::printf("  64 more supports, chosen for these pairs: %zu no (%.1f%%), %zu yes; 16 bytes a component\n", no,
		            100.0 * no / s, yes);
		size_t one_step = 0;
		for (auto [u, v] : searched) {
			bool all = true;
			for (const vid_t *e = dag.begin(u); e != dag.end(u) && all; e++)
				all = *e > v || (*e != v && all_deciders(index, *e, v) == 0);
			one_step += all;
		}
		std::printf("  one step (every successor ruled out by all deciders): %zu (%.1f%%)\n", one_step,
		            100.0 * one_step / s);
		std::vector<uint32_t> mark(n, 0), other_mark(n, 0);
		uint32_t epoch = 0;
		size_t walks_reached = 0;
		std::vector<std::pair<vid_t, vid_t>> walks = searched_pairs(index, rng, true, &walks_reached);
		for (const auto *pairs : {&searched, &walks}) {
			double fw = 0, bw = 0, least = 0, turns = 0, shorter = 0,
			       count = double(std::max<size_t>(pairs->size(), 1));
			for (auto [u, v] : *pairs) {
				size_t f = visits(index, dag, u, v, false, mark, ++epoch);
				size_t b = visits(index, up, u, v, true, mark, ++epoch);
				fw += double(f);
				bw += double(b);
				least += double(std::min(f, b));
				turns += double(bidirectional_visits(index, up, u, v, true, mark, other_mark, ++epoch));
				shorter += double(bidirectional_visits(index, up, u, v, false, mark, other_mark, ++epoch));
			}
			if (pairs == &walks)
				std::printf("100000 known reachable pairs (random walks): %zu searched\n", walks.size());
			std::printf("  components visited per search: forward %.1f, backward %.1f, the smaller of the two %.1f; "
			            "bidirectional, sides in turn %.1f, the shorter stack's side %.1f\n",
			            fw / count, bw / count, least / count, turns / count, shorter / count);
		}
	}
	DepthFirst old{index, {}, {}};
	double t_old = 0, t_new = 0;
	size_t y_old = 0, y_new = 0;
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < s; i += 64) {
			size_t end = std::min(s, i + 64);
			bool old_first = ((i / 64) + size_t(round)) % 2 == 0;
			for (int side = 0; side < 2; side++) {
				bool is_old = (side == 0) == old_first;
				double t = now_ns();
				for (size_t k = i; k < end; k++)
					(is_old ? y_old : y_new) += is_old ? old.search(searched[k].first, searched[k].second)
					                                   : q.reachable_components(searched[k].first, searched[k].second);
				(is_old ? t_old : t_new) += now_ns() - t;
			}
		}
	std::printf("search, 3 x %zu pairs interleaved: depth-first %.2f us, the engine's %.2f us (%.3fx)%s\n", s,
	            t_old / 1e3 / double(3 * s), t_new / 1e3 / double(3 * s), t_new / t_old,
	            y_old == y_new ? "" : "  !!! the answers differ");
	return y_old == y_new ? 0 : 1;
}
