// GPU (Trim + minimum-id propagation, cuda/scc*.cu) vs CPU (Tarjan) strongly connected components
// on a generated graph: checks that both give the same smallest member for every vertex and that
// the GPU numbering is topological, then prints the time of each GPU step (device events) and its
// work, medians over runs.
//   scc_bench rmat SCALE EDGE_FACTOR SEED | uniform VERTICES DEGREE SEED
//             | cycles GIANT SMALL SEED  [--runs R] [--cpu-runs C] [--write-egr PATH]
// R GPU runs (3) after a warm-up, C CPU Tarjan runs (3); medians. --write-egr also writes the
// graph in the ECL graph format (binary CSR of 32-bit words: vertices, edges, offsets, targets),
// which ECL-SCC reads, so that bench/scc_ecl.sh times it on the very same graph. The last line, "TABLE | ...",
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
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace grail;

namespace {

using bench::median;

uint64_t
arg(const char *text) {
	return bench::number_arg("scc_bench", text);
}

int
usage() {
	std::fputs("usage: scc_bench rmat SCALE EDGE_FACTOR SEED | uniform VERTICES DEGREE SEED | cycles GIANT SMALL SEED "
	           "[--runs R] [--cpu-runs C] [--write-egr PATH]\n"
	           "  R GPU runs (default 3) after one warm-up run, C CPU Tarjan runs (default 3); medians.\n",
	           stderr);
	return 2;
}

// The ECL graph format (cs.txstate.edu/~burtscher/research/ECLgraph): int32 vertex and edge counts,
// n + 1 int32 offsets, m int32 targets, no weights.
bool
write_egr(const Csr &g, const std::string &path) {
	if (g.vertex_count() == 0 || g.edge_count() > size_t(INT32_MAX) || g.vertex_count() > size_t(INT32_MAX)) {
		std::fprintf(stderr, "scc_bench: the ECL format holds 1 to 2^31 - 1 vertices and edges\n");
		return false;
	}
	FILE *f = std::fopen(path.c_str(), "wb");
	if (!f) {
		std::perror(path.c_str());
		return false;
	}
	int32_t counts[2] = {int32_t(g.vertex_count()), int32_t(g.edge_count())};
	std::vector<int32_t> offsets(g.offsets.begin(), g.offsets.end());
	bool ok = std::fwrite(counts, sizeof counts, 1, f) == 1 &&
	          std::fwrite(offsets.data(), sizeof(int32_t), offsets.size(), f) == offsets.size() &&
	          std::fwrite(g.targets.data(), sizeof(vid_t), g.targets.size(), f) == g.targets.size();
	ok = std::fclose(f) == 0 && ok;
	if (!ok)
		std::fprintf(stderr, "scc_bench: could not write %s\n", path.c_str());
	return ok;
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
	std::string egr;
	for (int k = 5; k < argc; k++) {
		std::string opt = argv[k];
		if (opt == "--runs" && k + 1 < argc)
			runs = arg(argv[++k]);
		else if (opt == "--cpu-runs" && k + 1 < argc)
			cpu_runs = arg(argv[++k]);
		else if (opt == "--write-egr" && k + 1 < argc)
			egr = argv[++k];
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
		if (!egr.empty() && !write_egr(csr, egr))
			return 1;
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
		std::vector<double> total, upload, detect, number, download, device;
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
			detect.push_back(t.detect_ms);
			number.push_back(t.numbering_ms);
			download.push_back(t.download_ms);
			device.push_back(t.detect_ms + t.numbering_ms);
		}
		std::printf("work: trim passes %u (%llu vertices; start %.2f ms), rounds %u, sweeps %u (%.2f ms)%s, levels "
		            "%u (Kahn %.2f ms)%s; numbering (last run): cross edges %.2f, Kahn + select + wait %.2f, "
		            "order %.2f ms\n",
		            t.trim_passes, (unsigned long long)t.trimmed, t.trim_ms, t.rounds, t.sweeps, t.propagate_ms,
		            t.mixed_keys ? " under mixed keys" : "", t.levels, t.kahn_ms,
		            t.host_numbering ? " (numbered on the host)" : "", t.cross_ms, t.sync_ms, t.order_ms);
		std::printf("RESULT %-18s n=%zu m=%zu comps=%zu largest=%zu | cpu %.1f ms | gpu total %.2f ms: upload %.2f "
		            "detect %.2f numbering %.2f download %.2f | device %.2f ms | speedup total %.1fx, device %.1fx\n",
		            name.c_str(), n, csr.edge_count(), cpu.count(), largest, cpu_ms, median(total), median(upload),
		            median(detect), median(number), median(download), median(device), cpu_ms / median(total),
		            cpu_ms / median(device));
		// For bench/scc_ecl.sh: device time (detection + numbering, upload and download excluded).
		std::printf("DEVICE %s device_ms=%.3f detect_ms=%.3f numbering_ms=%.3f download_ms=%.3f upload_ms=%.3f "
		            "total_ms=%.3f\n",
		            name.c_str(), median(device), median(detect), median(number), median(download), median(upload),
		            median(total));
		std::printf("TABLE | %s | %.2fM | %.1fM | %zu | %zu | %.1f%s | %.1f | **%.1fx** | %.2f | %.2f | %.2f | %.2f | "
		            "%.2f | %u / %llu | %u | %u | %u%s |\n",
		            name.c_str(), n / 1e6, csr.edge_count() / 1e6, cpu.count(), largest, cpu_ms,
		            cpu_runs == 1 ? " (1 run)" : "", median(total), cpu_ms / median(total), median(upload),
		            median(detect), median(number), median(download), median(device), t.trim_passes,
		            (unsigned long long)t.trimmed, t.rounds, t.sweeps, t.levels, t.host_numbering ? " (host)" : "");
		return 0;
	} catch (const Error &e) {
		std::fprintf(stderr, "scc_bench: %s\n", e.what());
		return 1;
	}
}
