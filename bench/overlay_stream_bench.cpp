// A live graph's kept overlay under a steady stream of single-row writes, in the engine alone (what
// bench/live_pgbench.sh times through SQL, less the statement and the change log): a random graph
// of VERTICES vertices and EDGES edges made as that script makes it (source s, target past s), an
// overlay of PENDING single-row inserts, then ROUNDS rounds of: BATCH more single-row inserts taken
// in (Reach::extend), one reachable() of a random pair. Per round: the extension's time, the
// query's and both together (what a reader's statement spends in the engine), median, 99th
// percentile and largest in microseconds, and the rounds where the overlay declined the batch
// (made again from all the changes, as the glue does then). Also each round's time on the CPU
// (the thread's CPU clock): on a busy machine a round that was preempted shows a time slice more in
// its wall time, not in its CPU time, so old and new binaries compare there under load.
// Then what the slowest 1% and 2% of rounds (by CPU) spent on: a remade overlay, a widening that
// grew 1,000 records or more (a cascade: a new edge whose tail has many G'-ancestors), the query
// (longer than the extension), or none of these. --budget: records a widening looks at a call
// (ReachabilityOverlay::set_widening_budget). --restart E: every E rounds the overlay starts
// again from PENDING new inserts, untimed, as a reader's does after each merge (the live graph's
// pending changes stay between PENDING and PENDING + E * BATCH, as beside a writer and its merges,
// for as many rounds as the run asks). --burst-every K --burst S: every K-th round takes S inserts,
// not BATCH (a reader's statement after it waited for a CPU while the writer went on); their CPU
// is told apart.
//   overlay_stream_bench [--vertices N] [--edges M] [--pending K] [--rounds R] [--batch B] [--budget G]
//                        [--restart E] [--burst-every K --burst S]
#include "overlay_changes.hpp"
#include "reach.hpp"
#include "rng.hpp"

#include "bench_util.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <numeric>
#include <vector>

using namespace grail;

namespace {

double
percentile(std::vector<double> v, double p) {
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	return v[std::min(v.size() - 1, size_t(double(v.size()) * p))];
}

// Milliseconds this thread has run on a CPU.
double
cpu_ms() {
	struct timespec now;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
}

} // namespace

int
main(int argc, char **argv) {
	uint64_t vertices = 200000, edges = 1000000, pending = 30000, rounds = 20000, batch = 1,
	         budget = ReachabilityOverlay::kWideningBudget, restart = 0, burst_every = 0, burst = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		uint64_t value = bench::number_arg("overlay_stream_bench", argv[i + 1]);
		if (std::strcmp(argv[i], "--vertices") == 0)
			vertices = value;
		else if (std::strcmp(argv[i], "--edges") == 0)
			edges = value;
		else if (std::strcmp(argv[i], "--pending") == 0)
			pending = value;
		else if (std::strcmp(argv[i], "--rounds") == 0)
			rounds = value;
		else if (std::strcmp(argv[i], "--batch") == 0)
			batch = value;
		else if (std::strcmp(argv[i], "--budget") == 0)
			budget = value;
		else if (std::strcmp(argv[i], "--restart") == 0)
			restart = value;
		else if (std::strcmp(argv[i], "--burst-every") == 0)
			burst_every = value;
		else if (std::strcmp(argv[i], "--burst") == 0)
			burst = value;
		else
			vertices = 0;
	}
	if (vertices < 3 || argc % 2 == 0) {
		std::fputs("usage: overlay_stream_bench [--vertices N] [--edges M] [--pending K] [--rounds R] [--batch B] "
		           "[--budget G] [--restart E] [--burst-every K --burst S]\n",
		           stderr);
		return 2;
	}
	Rng rng(31);
	auto forward_edge = [&] {
		int64_t s = 1 + int64_t(rng.below(vertices - 1));
		int64_t t = s + 1 + int64_t(rng.below(vertices - uint64_t(s)));
		return EdgeChange{s, t, {}, {}, 1};
	};
	EdgeList list;
	for (uint64_t i = 0; i < edges; i++) {
		EdgeChange e = forward_edge();
		list.append(e.source, e.target);
	}
	Index index = Index::build(std::move(list), BuildOptions{});
	// A remade overlay holds every change of the run (since the last restart): no more than an overlay takes.
	uint64_t held_rounds = restart ? std::min(restart, rounds) : rounds;
	if (!OverlayChanges::takes(pending + held_rounds * batch + (burst_every ? held_rounds / burst_every * burst : 0),
	                           index)) {
		std::fputs("overlay_stream_bench: PENDING + ROUNDS * BATCH changes are more than an overlay takes\n", stderr);
		return 2;
	}
	std::vector<EdgeChange> all;
	for (uint64_t i = 0; i < pending; i++)
		all.push_back(forward_edge());
	double t = now_ms();
	std::unique_ptr<Reach> reach = Reach::with_changes(index, *OverlayChanges::of(index, all));
	reach->overlay()->set_widening_budget(budget);
	std::printf("graph: %zu vertices, %zu edges; overlay of %llu inserts made in %.1f ms\n",
	            size_t(index.graph().vertex_count()), size_t(index.graph().out.edge_count()),
	            (unsigned long long)pending, now_ms() - t);
	std::vector<double> extend_us, query_us, round_us, round_cpu_us, burst_cpu_us;
	std::vector<size_t> grown;   // records the round's widening grew
	std::vector<uint8_t> remade; // whether the round's overlay was made again
	size_t unfinished = 0;       // rounds whose query found the widening unfinished
	size_t declined = 0, yes = 0;
	for (uint64_t r = 0; r < rounds; r++) {
		if (restart && r > 0 && r % restart == 0) {
			all.clear();
			for (uint64_t i = 0; i < pending; i++)
				all.push_back(forward_edge());
			reach = Reach::with_changes(index, *OverlayChanges::of(index, all), reach->reversed_dag());
			reach->overlay()->set_widening_budget(budget);
		}
		std::vector<EdgeChange> more;
		bool bursting = burst_every && r % burst_every == burst_every - 1;
		for (uint64_t i = 0; i < (bursting ? burst : batch); i++)
			more.push_back(forward_edge());
		all.insert(all.end(), more.begin(), more.end());
		double cpu = cpu_ms();
		t = now_ms();
		size_t grown_before = reach->overlay()->records_grown();
		remade.push_back(0);
		if (!reach->extend(more)) {
			declined++;
			remade.back() = 1;
			reach = Reach::with_changes(index, *OverlayChanges::of(index, all), reach->reversed_dag());
			reach->overlay()->set_widening_budget(budget);
			grown_before = reach->overlay()->records_grown();
		}
		extend_us.push_back((now_ms() - t) * 1000);
		int64_t a = 1 + int64_t(rng.below(vertices)), b = 1 + int64_t(rng.below(vertices));
		t = now_ms();
		unfinished += reach->overlay()->unwidened() != 0;
		yes += reach->reachable(a, b);
		query_us.push_back((now_ms() - t) * 1000);
		round_us.push_back(extend_us.back() + query_us.back());
		round_cpu_us.push_back((cpu_ms() - cpu) * 1000);
		if (bursting)
			burst_cpu_us.push_back(round_cpu_us.back());
		grown.push_back(reach->overlay()->records_grown() - grown_before);
	}
	std::printf("%llu rounds of %llu insert(s) and one reachable() (%zu yes), %zu declined, %zu queries with the "
	            "widening unfinished\n",
	            (unsigned long long)rounds, (unsigned long long)batch, yes, declined, unfinished);
	std::printf("%-10s %10s %10s %10s %10s %10s\n", "us", "median", "p90", "p99", "max", "mean");
	for (const auto &[name, v] : {std::make_pair("extend", &extend_us), std::make_pair("query", &query_us),
	                              std::make_pair("round", &round_us), std::make_pair("round cpu", &round_cpu_us)}) {
		double sum = 0;
		for (double x : *v)
			sum += x;
		std::printf("%-10s %10.1f %10.1f %10.1f %10.1f %10.1f\n", name, percentile(*v, 0.5), percentile(*v, 0.9),
		            percentile(*v, 0.99), percentile(*v, 1.0), sum / double(v->size()));
	}
	if (!burst_cpu_us.empty())
		std::printf("%-10s %10.1f %10.1f %10.1f %10.1f %10.1f\n", "burst cpu", percentile(burst_cpu_us, 0.5),
		            percentile(burst_cpu_us, 0.9), percentile(burst_cpu_us, 0.99), percentile(burst_cpu_us, 1.0),
		            std::accumulate(burst_cpu_us.begin(), burst_cpu_us.end(), 0.0) / double(burst_cpu_us.size()));
	// What the slowest rounds (by CPU) spent on: a remade overlay, a widening that grew many
	// records (a cascade), the query, or none of these.
	for (double share : {0.01, 0.02}) {
		std::vector<size_t> by_cpu(rounds);
		for (size_t r = 0; r < rounds; r++)
			by_cpu[r] = r;
		std::sort(by_cpu.begin(), by_cpu.end(), [&](size_t a, size_t b) { return round_cpu_us[a] > round_cpu_us[b]; });
		size_t slow = std::max<size_t>(1, size_t(double(rounds) * share)), made = 0, cascade = 0, query = 0;
		double grown_sum = 0;
		for (size_t k = 0; k < slow; k++) {
			size_t r = by_cpu[k];
			grown_sum += double(grown[r]);
			if (remade[r])
				made++;
			else if (grown[r] >= 1000)
				cascade++;
			else if (query_us[r] > extend_us[r])
				query++;
		}
		std::printf("slowest %.0f%% (%zu rounds, cpu >= %.1f us): remade %zu, widening of >= 1000 records %zu, "
		            "query %zu, other %zu; records grown a round %.0f (all rounds %.0f)\n",
		            share * 100, slow, round_cpu_us[by_cpu[slow - 1]], made, cascade, query,
		            slow - made - cascade - query, grown_sum / double(slow),
		            double(std::accumulate(grown.begin(), grown.end(), size_t(0))) / double(rounds));
	}
	return 0;
}
