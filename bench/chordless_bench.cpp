// GPU vs CPU chordless cycles on the graphs of Table 1 of papers/gpu-chordless-cycles.txt that
// can be rebuilt exactly (grids, K_{m,n}, wheel, C_100), counting and enumerating, medians over
// runs, the paper's times beside ours. Every run's total is checked against the known count, and
// the GPU's counts by length against the CPU's (grid 8x10: GPU count only, as in the paper, and
// checked against the total alone). Then the fixed cost of one GPU call on tiny graphs, and the
// cost of a step at the minimum budget.
//   chordless_bench [--runs R] [--cpu-runs C] [--quick]
// --quick leaves out grid 8x10; --cpu-runs 0 leaves out the CPU (the GPU's totals are still
// checked against the paper's counts, not by length).
#include "chordless.hpp"
#include "device.hpp"
#include "error.hpp"
#include "gpu.hpp"

#include "../test/unit/shapes.hpp"
#include "bench_util.hpp"

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace grail;
using namespace grail::shapes;

namespace {

using bench::median;

struct Row {
	std::string name;
	Csr graph;
	uint64_t cycles;   // Table 1: C3 + #clc
	bool enumerate;    // the paper counted grid 8x10 only
	double paper_seq;  // Table 1, T_seq (ms)
	double paper_proc; // T_par-proc: kernels plus degree labelling
	double paper_total;
};

Csr
cycle_graph(vid_t n) {
	Pairs edges;
	for (vid_t i = 0; i < n; i++)
		edges.push_back({i, (i + 1) % n});
	return csr_of(n, edges);
}

// Median of `runs` timings of f, which returns the number of cycles it saw; exits 1 when that
// is not `expected`.
double
timed(const std::string &what, size_t runs, uint64_t expected, const std::function<uint64_t()> &f) {
	std::vector<double> ms;
	for (size_t r = 0; r < runs; r++) {
		double start = now_ms();
		uint64_t got = f();
		ms.push_back(now_ms() - start);
		if (got != expected) {
			std::fprintf(stderr, "%s: %llu cycles, expected %llu\n", what.c_str(), (unsigned long long)got,
			             (unsigned long long)expected);
			std::exit(1);
		}
	}
	return median(ms);
}

// Drains an enumerator in large batches; returns the number of cycles.
template <typename Enumerator>
uint64_t
drain(Enumerator &cycles) {
	CycleBatch batch;
	uint64_t found = 0;
	while (cycles.next(batch, size_t(1) << 20))
		found += batch.size();
	return found;
}

void
overhead(size_t runs) {
	std::printf(
	    "\nCost of one GPU count call by budget (minimum: one path per kernel launch), medians of %zu calls, ms\n",
	    runs);
	std::printf("| graph | budget | wall | prepare | setup | search | rest (teardown) | steps / launches "
	            "|\n|---|---|---|---|---|"
	            "---|---|---|\n");
	Pairs petersen_edges;
	for (vid_t i = 0; i < 5; i++) {
		petersen_edges.push_back({i, (i + 1) % 5});
		petersen_edges.push_back({i, i + 5});
		petersen_edges.push_back({i + 5, (i + 2) % 5 + 5});
	}
	struct Tiny {
		const char *name;
		Csr graph;
	} tiny[] = {{"C_5", cycle_graph(5)},
	            {"petersen", csr_of(10, petersen_edges)},
	            {"grid 5x6", grid(5, 6)},
	            {"random 12 of the tests", random_messy_csr(12)}};
	for (const Tiny &t : tiny)
		for (size_t budget : {size_t(0), size_t(4) << 20, size_t(1)}) {
			std::vector<double> wall, prepare, setup, search;
			GpuChordlessTimings last;
			// The minimum budget takes one kernel launch per path: a few runs say enough.
			for (size_t r = 0; r < (budget == 1 ? std::min<size_t>(runs, 3) : runs); r++) {
				double start = now_ms();
				count_chordless_cycles_gpu(t.graph, kNoLengthLimit, budget, &last);
				wall.push_back(now_ms() - start);
				prepare.push_back(last.prepare_ms);
				setup.push_back(last.setup_ms);
				search.push_back(last.search_ms);
			}
			const char *label = budget == 0 ? "default" : budget == 1 ? "minimum" : "4 MiB";
			std::printf("| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %llu / %llu |\n", t.name, label, median(wall),
			            median(prepare), median(setup), median(search),
			            median(wall) - median(prepare) - median(setup) - median(search), (unsigned long long)last.steps,
			            (unsigned long long)last.launches);
		}
}

} // namespace

int
main(int argc, char **argv) {
	size_t runs = 5, cpu_runs = 3;
	bool quick = false;
	for (int i = 1; i < argc; i++) {
		if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = bench::number_arg("chordless_bench", argv[++i]);
		else if (!std::strcmp(argv[i], "--cpu-runs") && i + 1 < argc)
			cpu_runs = bench::number_arg("chordless_bench", argv[++i]);
		else if (!std::strcmp(argv[i], "--quick"))
			quick = true;
		else {
			std::fputs("usage: chordless_bench [--runs R] [--cpu-runs C] [--quick]\n", stderr);
			return 2;
		}
	}
	std::setvbuf(stdout, nullptr, _IOLBF, 0); // rows show as they come, even if the run is cut short
	GpuProbe probe = probe_gpu();
	std::printf("device: %s\n", probe.description.c_str());
	if (!probe.usable)
		return 2;
	// The first CUDA call of a process creates its context: timed apart from every row.
	double start = now_ms();
	count_chordless_cycles_gpu(cycle_graph(5));
	std::printf("first GPU call of the process (CUDA context creation included): %.1f ms\n", now_ms() - start);

	// Every row is timed after this: CUDA's lazy loading of the kernels is paid here too.
	count_chordless_cycles_gpu(grid(4, 10));
	{
		GpuChordlessCycleEnumerator warm(grid(4, 10));
		drain(warm);
	}

	std::vector<Row> rows;
	rows.push_back({"C_100", cycle_graph(100), 1, true, 0.149, 0.165, 0.770});
	rows.push_back({"wheel 100", wheel(100), 101, true, 0.225, 0.778, 1.229});
	rows.push_back({"K_8,8", complete_bipartite(8, 8), 784, true, 0.473, 0.197, 0.599});
	rows.push_back({"K_50,50", complete_bipartite(50, 50), 1500625, true, 600.661, 4.867, 10.391});
	rows.push_back({"grid 5x10", grid(5, 10), 52620, true, 199.132, 1.982, 12.718});
	rows.push_back({"grid 6x10", grid(6, 10), 800139, true, 2906.009, 6.284, 18.989});
	rows.push_back({"grid 7x10", grid(7, 10), 8136453, true, 36955.470, 54.840, 286.212});
	if (!quick)
		rows.push_back({"grid 8x10", grid(8, 10), 71535910, false, 427091.02, 1655.147, 8697.081});

	std::printf(
	    "\nms, medians of %zu GPU runs and %zu CPU runs (1 for grid 8x10); GPU gen = prepare + setup + kernels + cycle "
	    "downloads, wall time from construction to the last cycle in host memory in canonical compact form, "
	    "undecoded (in brackets: the host's waits for launches and for downloads not hidden behind the "
	    "search); GPU enum = the whole GpuChordlessCycleEnumerator drained into CycleBatches; paper: AMD "
	    "FX-9590 / R9 290X\n",
	    runs, cpu_runs);
	std::printf(
	    "| graph | cycles | CPU count | GPU count | CPU enum | GPU gen (search + download waits) | GPU enum | peak "
	    "paths | steps / launches | downloads | paper seq | paper GPU proc | paper GPU total "
	    "|\n|---|---|---|---|---|---|"
	    "---|---|---|---|---|---|---|\n");
	for (const Row &row : rows) {
		std::vector<uint64_t> cpu_counts;
		double cpu_count = 0;
		if (row.enumerate && cpu_runs > 0)
			cpu_count = timed(row.name + " CPU count", cpu_runs, row.cycles, [&] {
				cpu_counts = count_chordless_cycles(row.graph);
				return total(cpu_counts);
			});
		GpuChordlessTimings count_timings;
		double gpu_count = timed(row.name + " GPU count", runs, row.cycles, [&] {
			std::vector<uint64_t> counts = count_chordless_cycles_gpu(row.graph, kNoLengthLimit, 0, &count_timings);
			if (row.enumerate && cpu_runs > 0 && counts != cpu_counts) {
				std::fprintf(stderr, "%s: GPU counts by length differ from the CPU's\n", row.name.c_str());
				std::exit(1);
			}
			return total(counts);
		});
		double cpu_enum = 0, gpu_enum = 0, gpu_gen = 0, gpu_search = 0, gpu_download = 0;
		GpuChordlessTimings t;
		if (row.enumerate) {
			cpu_enum = cpu_runs == 0 ? 0 : timed(row.name + " CPU enumerate", cpu_runs, row.cycles, [&] {
				ChordlessCycleEnumerator cycles(row.graph);
				return drain(cycles);
			});
			std::vector<double> gen, search, download;
			// Every cycle in host memory, in the device's compact form, undecoded: the wall time
			// from the enumerator's construction to the last block's arrival (its teardown after).
			timed(row.name + " GPU generate", runs, row.cycles, [&] {
				double start = now_ms();
				GpuChordlessCycleEnumerator cycles(row.graph);
				uint64_t found = 0;
				while (size_t block = cycles.next_block())
					found += block;
				gen.push_back(now_ms() - start);
				t = cycles.timings();
				search.push_back(t.search_ms);
				download.push_back(t.download_ms);
				return found;
			});
			gpu_gen = median(gen);
			gpu_enum = timed(row.name + " GPU enumerate", runs, row.cycles, [&] {
				GpuChordlessCycleEnumerator cycles(row.graph);
				return drain(cycles);
			});
			gpu_search = median(search);
			gpu_download = median(download);
		}
		std::printf("| %s | %llu | ", row.name.c_str(), (unsigned long long)row.cycles);
		if (row.enumerate)
			std::printf("%.2f | %.2f | %.2f | %.2f (%.2f + %.2f) | %.2f | %zu | %llu / %llu | %llu | ", cpu_count,
			            gpu_count, cpu_enum, gpu_gen, gpu_search, gpu_download, gpu_enum, t.peak_paths,
			            (unsigned long long)t.steps, (unsigned long long)t.launches, (unsigned long long)t.downloads);
		else
			std::printf("- | %.2f (search %.2f) | - | - | - | %zu | %llu / %llu | - | ", gpu_count,
			            count_timings.search_ms, count_timings.peak_paths, (unsigned long long)count_timings.steps,
			            (unsigned long long)count_timings.launches);
		std::printf("%.3f | %.3f | %.3f |\n", row.paper_seq, row.paper_proc, row.paper_total);
	}
	overhead(20);
	return 0;
}
