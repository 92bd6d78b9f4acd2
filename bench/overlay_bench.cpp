// The live overlay's build for a statement that sees a few changes (a live graph under a steady
// stream of writes builds one per statement): one random DAG of VERTICES vertices and about
// DEGREE x VERTICES edges, then for each change count K, RUNS rounds of K inserted edges (in the
// DAG's order, so that no cycle forms) and K deleted ones, each round's overlay built twice side by
// side: fresh (the transpose of the build's DAG made again) and with the transpose lent from an
// earlier overlay of the same build, as the glue now does. Medians in ms and their ratio.
//   overlay_bench [--vertices N] [--degree D] [--runs R] [K ...]   (default 1000000 5 7; K 2 20 200)
#include "generate.hpp"
#include "index.hpp"
#include "overlay.hpp"
#include "rng.hpp"

#include "bench_util.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace grail;
using bench::median;

int
main(int argc, char **argv) {
	uint64_t vertices = 1000000, degree = 5, runs = 7;
	std::vector<uint64_t> counts;
	for (int i = 1; i < argc; i++) {
		if (std::strcmp(argv[i], "--vertices") == 0 && i + 1 < argc)
			vertices = bench::number_arg("overlay_bench", argv[++i]);
		else if (std::strcmp(argv[i], "--degree") == 0 && i + 1 < argc)
			degree = bench::number_arg("overlay_bench", argv[++i]);
		else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = bench::number_arg("overlay_bench", argv[++i]);
		else
			counts.push_back(bench::number_arg("overlay_bench", argv[i]));
	}
	if (counts.empty())
		counts = {2, 20, 200};
	if (vertices < 2 || runs < 1) {
		std::fputs("usage: overlay_bench [--vertices N] [--degree D] [--runs R] [K ...]\n", stderr);
		return 2;
	}
	Index index = Index::build(generate_random_dag(vertices, double(degree), 1), BuildOptions{});
	const size_t n = index.graph().vertex_count();
	const auto &component = index.components().of_vertex;
	const Csr &out = index.graph().out;
	std::printf("random DAG: %zu vertices, %zu edges\n%8s %10s %10s %7s %10s\n", n, size_t(out.edge_count()), "changes",
	            "fresh_ms", "lent_ms", "ratio", "widened");
	for (uint64_t k : counts) {
		Rng rng(k);
		std::vector<double> fresh, lent;
		std::shared_ptr<const Csr> transpose;
		size_t widened = 0;
		for (uint64_t r = 0; r < runs; r++) {
			ReachabilityOverlay::Edges inserted, deleted;
			for (uint64_t i = 0; i < k; i++) {
				vid_t a = vid_t(rng.below(n)), b = vid_t(rng.below(n));
				if (component[a] > component[b])
					std::swap(a, b);
				if (component[a] != component[b])
					inserted.emplace_back(a, b);
				vid_t d = vid_t(rng.below(n));
				if (out.begin(d) != out.end(d))
					deleted.emplace_back(d, *out.begin(d));
			}
			std::sort(deleted.begin(), deleted.end());
			deleted.erase(std::unique(deleted.begin(), deleted.end()), deleted.end());
			double t = now_ms();
			auto made = ReachabilityOverlay::build(index, 0, inserted, deleted);
			fresh.push_back(now_ms() - t);
			if (!made) {
				std::fprintf(stderr, "overlay_bench: the overlay declined %llu changes\n", (unsigned long long)k);
				return 1;
			}
			if (!transpose)
				transpose = made->reversed_dag();
			made.reset();
			t = now_ms();
			auto reused = ReachabilityOverlay::build(index, 0, inserted, deleted, transpose);
			lent.push_back(now_ms() - t);
			widened = reused->widened_components();
		}
		std::printf("%4llu+%-3llu %10.1f %10.1f %6.2fx %10zu\n", (unsigned long long)k, (unsigned long long)k,
		            median(fresh), median(lent), median(lent) / median(fresh), widened);
	}
	return 0;
}
