// GPU vs CPU BFS on a generated graph: checks that the rows are identical and prints GTEPS,
// medians over runs and sources. GTEPS counts the edges out of the reached vertices, once (as
// Gunrock does: the edges of the reached component), over the device time of the traversal alone
// ("traversal": depths, and the parents of bottom-up levels), of the traversal plus the other
// parents and the rows' order ("kernel"), and of everything with the copies ("with copies").
// The in-edges, built on the device before a dense graph's traversal, are graph preparation like
// the upload: outside "traversal" and "kernel", inside "with copies".
// --steps prints the level loop's steps (kind, level, frontier, device ms) of each source's first
// run; "shuffled-path" numbers a path's vertices at random, so that a chain's vertices lie far
// apart in memory.
//   bfs_bench rmat SCALE EDGE_FACTOR SEED | grid ROWS COLS | path N | shuffled-path N
//             [--sources K] [--runs R] [--steps]
#include "bfs.hpp"
#include "device.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "gpu.hpp"
#include "rng.hpp"

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

uint64_t
arg(const char *text) {
	return bench::number_arg("bfs_bench", text);
}

int
usage() {
	std::fputs("usage: bfs_bench rmat SCALE EDGE_FACTOR SEED | grid ROWS COLS | path N | shuffled-path N\n"
	           "                 [--sources K] [--runs R] [--steps]\n",
	           stderr);
	return 2;
}

} // namespace

int
main(int argc, char **argv) {
	if (argc < 3)
		return usage();
	std::string kind = argv[1];
	int next = 0;
	EdgeList edges;
	int64_t head = 0; // the source of grids and paths
	std::string name;
	if (kind == "rmat" && argc >= 5) {
		edges = generate_rmat(unsigned(arg(argv[2])), unsigned(arg(argv[3])), arg(argv[4]));
		name = std::string("rmat-") + argv[2] + "-" + argv[3];
		next = 5;
	} else if (kind == "grid" && argc >= 4) {
		edges = generate_grid(arg(argv[2]), arg(argv[3]), false);
		name = std::string("grid-") + argv[2] + "x" + argv[3];
		next = 4;
	} else if ((kind == "path" || kind == "shuffled-path") && argc >= 3) {
		uint64_t n = arg(argv[2]);
		std::vector<int64_t> order(n);
		for (uint64_t v = 0; v < n; v++)
			order[v] = int64_t(v);
		if (kind == "shuffled-path") {
			Rng rng(7);
			for (uint64_t v = n; v > 1; v--)
				std::swap(order[v - 1], order[rng.below(v)]);
		}
		edges.reserve(n);
		for (uint64_t v = 0; v + 1 < n; v++)
			edges.append(order[v], order[v + 1]);
		head = n > 0 ? order[0] : 0;
		name = kind + "-" + argv[2];
		next = 3;
	} else {
		return usage();
	}
	// R-MAT sources are random vertices with edges (Graph500's rule); grids and paths start at their head.
	uint64_t sources = kind == "rmat" ? 4 : 1, runs = 5;
	bool steps = false;
	for (int k = next; k < argc; k++) {
		std::string opt = argv[k];
		if (opt == "--sources" && k + 1 < argc)
			sources = arg(argv[++k]);
		else if (opt == "--runs" && k + 1 < argc)
			runs = arg(argv[++k]);
		else if (opt == "--steps")
			steps = true;
		else
			return usage();
	}
	try {
		GpuProbe probe = probe_gpu();
		std::printf("device: %s\n", probe.description.c_str());
		Graph g = Graph::from_edges(edges);
		edges = EdgeList();
		const Csr &csr = g.out;
		std::printf("graph %s: %zu vertices, %zu edges\n", name.c_str(), csr.vertex_count(), csr.edge_count());
		Rng rng(42);
		std::vector<double> cpu_rate, traversal_rate, kernel_rate, copies_rate, traversal_ms, kernel_ms, copies_ms,
		    cpu_ms, in_edges_ms;
		for (uint64_t k = 0; k < sources; k++) {
			vid_t s = 0;
			if (kind == "rmat")
				do
					s = vid_t(rng.below(csr.vertex_count()));
				while (csr.offsets[s] == csr.offsets[s + 1]);
			else
				s = vid_t(g.find(head));
			double t0 = now_ms();
			BfsResult cpu = bfs(csr, s);
			double cpu_time = now_ms() - t0;
			uint64_t traversed = 0;
			for (vid_t v : cpu.vertex)
				traversed += csr.offsets[v + 1] - csr.offsets[v];
			cpu_ms.push_back(cpu_time);
			cpu_rate.push_back(double(traversed) / cpu_time / 1e6);
			bfs_gpu(csr, s); // warm-up: CUDA context, module load, allocator
			for (uint64_t r = 0; r < runs; r++) {
				GpuBfsTimings t;
				BfsResult gpu = bfs_gpu(csr, s, UINT32_MAX, &t);
				if (gpu.vertex != cpu.vertex || gpu.depth != cpu.depth || gpu.parent != cpu.parent) {
					std::fprintf(stderr, "bfs_bench: GPU and CPU rows differ from source %u\n", s);
					return 1;
				}
				double all = t.upload_ms + t.in_edges_ms + t.compute_ms + t.download_ms;
				traversal_ms.push_back(t.traverse_ms);
				traversal_rate.push_back(double(traversed) / t.traverse_ms / 1e6);
				in_edges_ms.push_back(t.in_edges_ms);
				kernel_ms.push_back(t.compute_ms);
				copies_ms.push_back(all);
				kernel_rate.push_back(double(traversed) / t.compute_ms / 1e6);
				copies_rate.push_back(double(traversed) / all / 1e6);
				if (r == 0)
					std::printf(
					    "source %u: reached %zu vertices, %llu edges, %u levels (%u bottom-up, %u chain "
					    "vertices); cpu %.1f ms, gpu traversal %.3f ms + rows %.3f ms, upload %.2f ms, in-edges "
					    "%.2f ms, download %.2f ms\n",
					    s, cpu.vertex.size(), (unsigned long long)traversed, t.levels, t.bottom_up_levels,
					    t.chain_vertices, cpu_time, t.traverse_ms, t.rows_ms, t.upload_ms, t.in_edges_ms,
					    t.download_ms);
				if (r == 0 && steps)
					for (const GpuBfsStep &step : t.steps)
						std::printf("  step %-8s level %8u frontier %9u vertices %11llu edges %9.3f ms\n", step.kind,
						            step.level, step.vertices, (unsigned long long)step.edges, step.ms);
			}
		}
		std::printf("RESULT %-16s identical=yes cpu %.3f GTEPS (%.1f ms) | gpu traversal %.1f GTEPS (%.3f ms) | gpu "
		            "kernel %.1f GTEPS (%.3f ms) | in-edges %.2f ms | gpu with copies %.3f GTEPS (%.2f ms) | "
		            "speedup kernel %.1fx\n",
		            name.c_str(), median(cpu_rate), median(cpu_ms), median(traversal_rate), median(traversal_ms),
		            median(kernel_rate), median(kernel_ms), median(in_edges_ms), median(copies_rate), median(copies_ms),
		            median(cpu_ms) / median(kernel_ms));
		return 0;
	} catch (const Error &e) {
		std::fprintf(stderr, "bfs_bench: %s\n", e.what());
		return 1;
	}
}
