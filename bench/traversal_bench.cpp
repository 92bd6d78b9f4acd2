// The CPU search behind descendants() and ancestors() on a built index (grail_cli build): SOURCES
// random vertices, each searched in both directions with the kept scratch and no parents, as the
// SQL functions search; RUNS rounds, the median of each round's ns per reached vertex (a row).
// The rows are checked against the plain bfs() of the first round.
//   traversal_bench INDEX.bin [--sources K] [--runs R] [--seed S]
#include "bfs.hpp"
#include "error.hpp"
#include "index.hpp"
#include "rng.hpp"

#include "bench_util.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace grail;

int
main(int argc, char **argv) {
	if (argc < 2) {
		std::fputs("usage: traversal_bench INDEX.bin [--sources K] [--runs R] [--seed S]\n", stderr);
		return 2;
	}
	uint64_t sources = 100, runs = 5, seed = 1;
	for (int k = 2; k + 1 < argc; k += 2) {
		std::string opt = argv[k];
		uint64_t value = bench::number_arg("traversal_bench", argv[k + 1]);
		if (opt == "--sources")
			sources = value;
		else if (opt == "--runs")
			runs = value;
		else if (opt == "--seed")
			seed = value;
		else
			return std::fprintf(stderr, "traversal_bench: unknown option %s\n", opt.c_str()), 2;
	}
	try {
		std::ifstream file(argv[1], std::ios::binary);
		std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
		Index index = Index::deserialize(bytes.data(), bytes.size());
		bytes = {};
		const Csr &out = index.graph().out;
		const Csr in = out.reversed();
		Rng rng(seed);
		std::vector<vid_t> from(sources);
		for (vid_t &s : from)
			s = vid_t(rng.below(out.vertex_count()));
		BfsScratch scratch;
		for (int direction = 0; direction < 2; direction++) {
			const Csr &edges = direction == 0 ? out : in, &reverse = direction == 0 ? in : out;
			std::function<const Csr &()> back = [&]() -> const Csr & { return reverse; };
			std::vector<double> ns;
			size_t rows = 0;
			for (uint64_t r = 0; r < runs; r++) {
				rows = 0;
				double t0 = now_ms();
				for (vid_t s : from) {
					BfsResult result = bfs(edges, back, s, UINT32_MAX, scratch, BfsOutput::ordered);
					rows += result.vertex.size();
					if (r == 0) {
						BfsResult plain = bfs(edges, s);
						if (plain.vertex != result.vertex || plain.depth != result.depth)
							return std::fprintf(stderr, "traversal_bench: rows differ from source %u\n", s), 1;
					}
				}
				ns.push_back((now_ms() - t0) * 1e6 / double(rows));
			}
			std::printf("%s: %zu rows from %llu sources, %.2f ns a row (median of %llu)\n",
			            direction == 0 ? "descendants" : "ancestors", rows, (unsigned long long)sources,
			            bench::median(ns), (unsigned long long)runs);
		}
		return 0;
	} catch (const Error &e) {
		std::fprintf(stderr, "traversal_bench: %s\n", e.what());
		return 1;
	}
}
