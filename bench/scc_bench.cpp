// GPU (FB-Trim hybrid) vs CPU (Tarjan) strongly connected components on a generated graph:
// checks that both give the same smallest member for every vertex, then prints the time of each
// GPU phase and its rounds, medians over runs.
//   scc_bench rmat SCALE EDGE_FACTOR SEED | uniform VERTICES DEGREE SEED
//             | cycles GIANT SMALL SEED  [--runs R] [--cpu-runs C]
// R GPU runs (3) after a warm-up, C CPU Tarjan runs (3); medians. The last line, "TABLE | ...",
// is one markdown row (bench/scc_sweep.sh collects them).
// R-MAT edges get random directions (a giant SCC plus many small ones); uniform is a random
// digraph with VERTICES * DEGREE edges; cycles is a giant SCC (a cycle of GIANT vertices with
// 3 * GIANT random chords) feeding SMALL cycles of 2 to 7 vertices, each also fed by an earlier
// one: one weakly connected piece that phase 2 must take apart.
#include "device.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "gpu.hpp"
#include "scc.hpp"

#include "bench_util.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace grail;

namespace {

using bench::median;
using bench::now_ms;

uint64_t
arg(const char *text) {
	return bench::number_arg("scc_bench", text);
}

int
usage() {
	std::fputs("usage: scc_bench rmat SCALE EDGE_FACTOR SEED | uniform VERTICES DEGREE SEED | cycles GIANT SMALL SEED "
	           "[--runs R] [--cpu-runs C]\n"
	           "  R GPU runs (default 3) after one warm-up run, C CPU Tarjan runs (default 3); medians.\n",
	           stderr);
	return 2;
}

} // namespace

int
main(int argc, char **argv) {
	std::setvbuf(stdout, nullptr, _IOLBF, 0); // logs keep the order of stdout and stderr
	if (argc < 5)
		return usage();
	std::string kind = argv[1];
	uint64_t a = arg(argv[2]), b = arg(argv[3]), seed = arg(argv[4]);
	EdgeList edges;
	std::string name;
	Rng rng(seed ^ 0xD1CEull);
	if (kind == "rmat") {
		edges = generate_rmat(unsigned(a), unsigned(b), seed);
		for (size_t k = 0; k < edges.size(); k++)
			if (rng.next() & 1)
				std::swap(edges.source[k], edges.target[k]);
		name = "rmat-" + std::to_string(a) + "-" + std::to_string(b);
	} else if (kind == "uniform") {
		edges.reserve(a * b);
		for (uint64_t k = 0; k < a * b; k++)
			edges.append(int64_t(rng.below(a)), int64_t(rng.below(a)));
		name = "uniform-" + std::to_string(a) + "-" + std::to_string(b);
	} else if (kind == "cycles" && a > 0) {
		for (uint64_t v = 0; v < a; v++)
			edges.append(int64_t(v), int64_t((v + 1) % a));
		for (uint64_t k = 0; k < 3 * a; k++)
			edges.append(int64_t(rng.below(a)), int64_t(rng.below(a)));
		std::vector<int64_t> first;
		int64_t base = int64_t(a);
		for (uint64_t k = 0; k < b; k++) {
			int64_t size = 2 + int64_t(rng.below(6));
			for (int64_t i = 0; i < size; i++)
				edges.append(base + i, base + (i + 1) % size);
			edges.append(int64_t(rng.below(a)), base);
			if (!first.empty())
				edges.append(first[rng.below(first.size())], base + size - 1);
			first.push_back(base);
			base += size;
		}
		name = "cycles-" + std::to_string(a) + "-" + std::to_string(b);
	} else {
		return usage();
	}
	uint64_t runs = 3, cpu_runs = 3;
	for (int k = 5; k < argc; k++) {
		std::string opt = argv[k];
		if (opt == "--runs" && k + 1 < argc)
			runs = arg(argv[++k]);
		else if (opt == "--cpu-runs" && k + 1 < argc)
			cpu_runs = arg(argv[++k]);
		else
			return usage();
	}
	if (runs == 0 || cpu_runs == 0)
		return usage();
	try {
		GpuProbe probe = probe_gpu();
		std::printf("device: %s\n", probe.description.c_str());
		Graph g = Graph::from_edges(edges);
		edges = EdgeList();
		const Csr &csr = g.out;
		size_t n = csr.vertex_count();
		Components cpu;
		std::vector<double> cpu_times;
		for (uint64_t r = 0; r < cpu_runs; r++) {
			double t0 = now_ms();
			cpu = strongly_connected_components(csr);
			cpu_times.push_back(now_ms() - t0);
		}
		double cpu_ms = median(cpu_times);
		std::vector<size_t> sizes(cpu.count(), 0);
		for (uint32_t c : cpu.of_vertex)
			sizes[c]++;
		size_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
		std::printf("graph %s: %zu vertices, %zu edges, %zu components, largest %zu; cpu tarjan %.1f ms (median of "
		            "%zu)\n",
		            name.c_str(), n, csr.edge_count(), cpu.count(), largest, cpu_ms, cpu_times.size());
		strongly_connected_components_gpu(csr); // warm-up: CUDA context, module load
		std::vector<double> total, upload, trim, p1, p2, wcc, number;
		GpuSccTimings t;
		for (uint64_t r = 0; r < runs; r++) {
			double start = now_ms();
			Components gpu = strongly_connected_components_gpu(csr, &t);
			total.push_back(now_ms() - start);
			for (size_t v = 0; v < n; v++)
				if (gpu.count() != cpu.count() ||
				    gpu.smallest_vertex[gpu.of_vertex[v]] != cpu.smallest_vertex[cpu.of_vertex[v]]) {
					std::fprintf(stderr, "scc_bench: GPU and CPU components differ at vertex %zu\n", v);
					return 1;
				}
			for (size_t v = 0; v < n; v++)
				for (const vid_t *w = csr.begin(vid_t(v)); w != csr.end(vid_t(v)); w++)
					if (gpu.of_vertex[v] > gpu.of_vertex[*w]) {
						std::fprintf(stderr, "scc_bench: GPU numbering not topological at edge %zu -> %u\n", v, *w);
						return 1;
					}
			upload.push_back(t.upload_ms);
			trim.push_back(t.trim_ms);
			p1.push_back(t.phase1_ms);
			wcc.push_back(t.trim2_wcc_ms);
			p2.push_back(t.phase2_ms);
			number.push_back(t.numbering_ms);
		}
		double engine = median(trim) + median(p1) + median(wcc) + median(p2);
		std::printf("rounds: phase1 %u phase2 %u, trim passes %u, wcc iterations %u, reach levels %llu\n",
		            t.phase1_rounds, t.phase2_rounds, t.trim_passes, t.wcc_iterations,
		            (unsigned long long)t.reach_levels);
		std::printf("RESULT %-18s n=%zu m=%zu comps=%zu largest=%zu | cpu %.1f ms | gpu total %.1f ms: upload %.1f "
		            "trim %.1f phase1 %.1f trim2+wcc %.1f phase2 %.1f numbering %.1f | speedup total %.1fx, "
		            "device phases %.1fx\n",
		            name.c_str(), n, csr.edge_count(), cpu.count(), largest, cpu_ms, median(total), median(upload),
		            median(trim), median(p1), median(wcc), median(p2), median(number), cpu_ms / median(total),
		            cpu_ms / engine);
		std::printf("TABLE | %s | %.2fM | %.1fM | %zu | %zu | %.1f%s | %.1f | **%.1fx** | %.1f | %.1f | %.1f | %.1f | "
		            "%.1f | %.1f | %u / %u | %u | %u | %llu |\n",
		            name.c_str(), n / 1e6, csr.edge_count() / 1e6, cpu.count(), largest, cpu_ms,
		            cpu_runs == 1 ? " (1 run)" : "", median(total), cpu_ms / median(total), median(upload),
		            median(trim), median(p1), median(wcc), median(p2), median(number), t.phase1_rounds, t.phase2_rounds,
		            t.trim_passes, t.wcc_iterations, (unsigned long long)t.reach_levels);
		return 0;
	} catch (const Error &e) {
		std::fprintf(stderr, "scc_bench: %s\n", e.what());
		return 1;
	}
}
