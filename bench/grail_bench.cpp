// GPU vs CPU GRAIL: labelling time for d = 1..D (the GPU's per-step breakdown, the paper's
// Figure 7), label quality (the share of negative pairs the intervals alone rule out), and
// reachability batches answered with the GPU search vs the CPU's pruned DFS, both after the same
// CPU pre-filter (the paper's section 5).
//   grail_bench dag VERTICES DEGREE SEED | rmat SCALE EDGE_FACTOR SEED  [--runs R] [--max-labels D]
//               [--queries Q] [--words W] [--cpu]
// dag is the paper's home-made random DAG (generate_random_dag: dag09 is "dag 1000000 100 9");
// rmat is R-MAT, whose condensation is the DAG labelled. Batches run with GPU groups of 64 x W
// queries for W = 1, 4, 8 and 16, or the one W given. Checks that the GPU labels give the same
// answers as the CPU's on every query, and the batches the same answers on both devices. --cpu
// runs the CPU's side alone (labelling, label quality, batches), with no GPU needed: to compare
// CPU trees, or on a machine without one.
#include "device.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "gpu.hpp"
#include "index.hpp"

#include "bench_util.hpp"

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace grail;

namespace {

using bench::median;

uint64_t
arg(const char *text) {
	return bench::number_arg("grail_bench", text);
}

int
usage() {
	std::fputs("usage: grail_bench dag VERTICES DEGREE SEED | rmat SCALE EDGE_FACTOR SEED [--runs R] [--max-labels D] "
	           "[--queries Q (0: labelling only)] [--words W] [--cpu]\n",
	           stderr);
	return 2;
}

// Of the pairs (a < b in topological order, a not reaching b), the share whose intervals are
// not nested: the negatives the labels alone decide, without the level, Bloom filter or search.
double
label_negative_share(const GrailLabels &labels, const std::vector<vid_t> &a, const std::vector<vid_t> &b,
                     const std::vector<uint8_t> &reaches) {
	size_t negatives = 0, decided = 0;
	for (size_t k = 0; k < a.size(); k++)
		if (!reaches[k]) {
			negatives++;
			decided += !labels.contains(a[k], b[k]);
		}
	return negatives ? double(decided) / double(negatives) : 0;
}

struct Batch {
	std::string name;
	std::vector<int64_t> sources, targets;
};

// Uniform pairs, and pairs whose target ends a random walk from the source (reachable-heavy).
void
make_batches(const Index &index, uint64_t seed, size_t count, Batch &uniform, Batch &heavy) {
	const Array<int64_t> &ids = index.graph().ids;
	const Csr &g = index.graph().out;
	Rng rng(seed ^ 0x9A11ull);
	uniform = {"uniform", {}, {}};
	heavy = {"reachable-heavy", {}, {}};
	for (size_t k = 0; k < count; k++) {
		uniform.sources.push_back(ids[rng.below(ids.size())]);
		uniform.targets.push_back(ids[rng.below(ids.size())]);
		vid_t v = vid_t(rng.below(ids.size()));
		heavy.sources.push_back(ids[v]);
		for (int step = 0; step < 64 && g.offsets[v] != g.offsets[v + 1]; step++)
			v = g.targets[g.offsets[v] + rng.below(g.offsets[v + 1] - g.offsets[v])];
		heavy.targets.push_back(ids[v]);
	}
}

// The uniform pairs a before b in topological order (components), and whether a reaches b.
void
ordered_pairs(const Index &index, const Batch &uniform, std::vector<vid_t> &a, std::vector<vid_t> &b,
              std::vector<uint8_t> &reaches) {
	ReachabilityQuery q(index);
	for (size_t k = 0; k < uniform.sources.size(); k++) {
		vid_t ca = index.components().of_vertex[size_t(index.find(uniform.sources[k]))];
		vid_t cb = index.components().of_vertex[size_t(index.find(uniform.targets[k]))];
		if (ca < cb) {
			a.push_back(ca);
			b.push_back(cb);
			reaches.push_back(q.reachable(uniform.sources[k], uniform.targets[k]));
		}
	}
}

// --cpu: labelling times for d = 1..D, the labels' quality at D and the CPU's batches (pairs
// searched: those the labels and filters left undecided).
int
cpu_side(const Index &index, uint64_t seed, int runs, unsigned max_labels, size_t query_count) {
	const Csr &dag = index.dag();
	std::printf("\nCPU labelling, ms (medians of %d)\n%2s %10s\n", runs, "d", "cpu");
	for (unsigned d = 1; d <= max_labels; d++) {
		std::vector<double> cpu;
		for (int r = 0; r < runs; r++) {
			double a = now_ms();
			GrailLabels labels = GrailLabels::build(dag, d, BuildOptions{}.seed);
			cpu.push_back(now_ms() - a);
		}
		std::printf("%2u %10.1f\n", d, median(cpu));
	}
	if (query_count == 0)
		return 0;
	Batch uniform, heavy;
	make_batches(index, seed, query_count, uniform, heavy);
	std::vector<vid_t> a, b;
	std::vector<uint8_t> reaches;
	ordered_pairs(index, uniform, a, b, reaches);
	std::printf("\nlabel quality: share of negative uniform pairs (a before b) ruled out by the d=%u intervals "
	            "alone\n  cpu labels %.4f (of %zu pairs)\n",
	            max_labels, label_negative_share(index.labels(), a, b, reaches), a.size());
	std::printf("\nbatches of %zu pairs, ms (medians of %d)\n%-16s %8s %8s %10s\n", query_count, runs, "pairs", "yes",
	            "searched", "cpu");
	for (const Batch *batch : {&uniform, &heavy}) {
		const size_t n = batch->sources.size();
		std::unique_ptr<bool[]> answers(new bool[n]);
		std::vector<double> cpu;
		size_t searched = 0;
		ReachabilityQuery q(index);
		for (int r = 0; r < runs; r++) {
			double t = now_ms();
			searched = q.reachable_many(batch->sources.data(), batch->targets.data(), n, answers.get());
			cpu.push_back(now_ms() - t);
		}
		size_t yes = 0;
		for (size_t k = 0; k < n; k++)
			yes += answers[k];
		std::printf("%-16s %8zu %8zu %10.1f\n", batch->name.c_str(), yes, searched, median(cpu));
	}
	return 0;
}

} // namespace

int
main(int argc, char **argv) {
	if (argc < 5)
		return usage();
	std::string kind = argv[1];
	uint64_t x = arg(argv[2]), y = arg(argv[3]), seed = arg(argv[4]);
	int runs = 3;
	unsigned max_labels = 5;
	size_t query_count = 100000;
	std::vector<unsigned> word_counts = {1, 4, 8, 16};
	bool cpu_only = false;
	for (int i = 5; i < argc; i++) {
		if (std::strcmp(argv[i], "--cpu") == 0)
			cpu_only = true;
		else if (i + 1 >= argc)
			return usage();
		else if (std::strcmp(argv[i], "--runs") == 0)
			runs = int(arg(argv[++i]));
		else if (std::strcmp(argv[i], "--max-labels") == 0)
			max_labels = unsigned(arg(argv[++i]));
		else if (std::strcmp(argv[i], "--queries") == 0)
			query_count = arg(argv[++i]);
		else if (std::strcmp(argv[i], "--words") == 0)
			word_counts = {unsigned(arg(argv[++i]))};
		else
			return usage();
	}
	if (runs < 1 || max_labels < 1 || max_labels > kMaxLabels)
		return usage();
	GpuProbe probe = probe_gpu();
	if (!cpu_only && !probe.usable) {
		std::fprintf(stderr, "grail_bench: no usable GPU: %s\n", probe.description.c_str());
		return 1;
	}
	EdgeList edges;
	std::string name;
	if (kind == "dag") {
		edges = generate_random_dag(x, double(y), seed);
		name = "dag-" + std::to_string(x) + "-" + std::to_string(y);
	} else if (kind == "rmat") {
		edges = generate_rmat(unsigned(x), unsigned(y), seed);
		name = "rmat-" + std::to_string(x) + "-" + std::to_string(y);
	} else {
		return usage();
	}

	try {
		double t0 = now_ms();
		BuildOptions cpu_options;
		cpu_options.labels = max_labels;
		EdgeList edges_copy = edges;
		Index cpu_index = Index::build(std::move(edges), cpu_options);
		const Csr &dag = cpu_index.dag();
		std::printf("%s: %zu vertices, %zu edges, DAG of %zu vertices and %zu edges (built in %.0f ms on the CPU)\n",
		            name.c_str(), cpu_index.graph().vertex_count(), cpu_index.graph().out.edge_count(),
		            dag.vertex_count(), dag.edge_count(), now_ms() - t0);
		if (cpu_only)
			return cpu_side(cpu_index, seed, runs, max_labels, query_count);

		std::printf("\nlabelling, ms (medians of %d)\n%2s %10s %10s %8s | %8s %8s %8s %8s %8s %8s %8s %7s %9s\n", runs,
		            "d", "cpu", "gpu", "speedup", "upload", "levels", "step1", "step2", "step3", "step4", "download",
		            "depth", "dev_MiB");
		GrailLabels gpu_labels;
		char labelling_row[160] = "";
		for (unsigned d = 1; d <= max_labels; d++) {
			std::vector<double> cpu, gpu, parts[7];
			GpuLabelTimings t;
			for (int r = 0; r < runs; r++) {
				double a = now_ms();
				GrailLabels labels = GrailLabels::build(dag, d, cpu_options.seed);
				cpu.push_back(now_ms() - a);
				a = now_ms();
				gpu_labels = grail_labels_gpu(dag, d, cpu_options.seed, &t);
				gpu.push_back(now_ms() - a);
				double p[7] = {t.upload_ms, t.levels_ms,   t.tree_ms,    t.sizes_ms,
				               t.post_ms,   t.min_post_ms, t.download_ms};
				for (int k = 0; k < 7; k++)
					parts[k].push_back(p[k]);
			}
			std::printf("%2u %10.1f %10.1f %7.1fx | %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %7u %9zu\n", d,
			            median(cpu), median(gpu), median(cpu) / median(gpu), median(parts[0]), median(parts[1]),
			            median(parts[2]), median(parts[3]), median(parts[4]), median(parts[5]), median(parts[6]),
			            t.levels, t.device_bytes >> 20);
			std::snprintf(labelling_row, sizeof labelling_row, "%u | %.0f | %.0f | %.1fx | %.0f | %u", d, median(cpu),
			              median(gpu), median(cpu) / median(gpu), median(parts[2]), t.levels);
		}

		// --queries 0: the labelling's timings alone (the GPU tests check its labels).
		if (query_count == 0)
			return 0;
		// Queries: uniform pairs, and pairs whose target ends a random walk from the source
		// (reachable-heavy). Both indexes (CPU labels, GPU labels) must agree on every answer.
		BuildOptions gpu_options = cpu_options;
		gpu_options.label_builder = [](const Csr &g, unsigned d, uint64_t s) { return grail_labels_gpu(g, d, s); };
		Index gpu_index = Index::build(std::move(edges_copy), gpu_options);
		Batch uniform, heavy;
		make_batches(cpu_index, seed, query_count, uniform, heavy);

		std::printf(
		    "\nlabel quality: share of negative uniform pairs (a before b) ruled out by the d=%u intervals alone\n",
		    max_labels);
		{
			std::vector<vid_t> a, b;
			std::vector<uint8_t> reaches;
			ordered_pairs(cpu_index, uniform, a, b, reaches);
			std::printf("  cpu labels %.4f, gpu labels %.4f (of %zu pairs)\n",
			            label_negative_share(cpu_index.labels(), a, b, reaches),
			            label_negative_share(gpu_index.labels(), a, b, reaches), a.size());
		}

		std::printf("\nbatches of %zu pairs, ms (medians of %d); GPU groups of 64 x words queries\n", query_count,
		            runs);
		std::printf("%-16s %5s %8s %8s %10s %10s %8s %10s %7s %7s %11s %8s\n", "pairs", "words", "yes", "searched",
		            "cpu", "gpu", "speedup", "gpu_search", "groups", "levels", "edges", "dev_MiB");
		std::string query_cells;
		for (unsigned words : word_counts) {
			GpuReachability gpu(gpu_index, words);
			for (Batch *batch : {&uniform, &heavy}) {
				size_t n = batch->sources.size();
				std::unique_ptr<bool[]> on_cpu(new bool[n]), on_gpu(new bool[n]), other_labels(new bool[n]);
				std::vector<double> cpu, gpu_ms;
				size_t searched = 0;
				GpuQueryTimings t;
				ReachabilityQuery cq(gpu_index), gq(gpu_index), check(cpu_index);
				auto on_device = [&](const std::vector<vid_t> &from, const std::vector<vid_t> &to,
				                     std::vector<uint8_t> &reached) {
					gpu.search(from, to, reached, &t);
					return true;
				};
				for (int r = 0; r < runs; r++) {
					double a = now_ms();
					searched = cq.reachable_many(batch->sources.data(), batch->targets.data(), n, on_cpu.get());
					cpu.push_back(now_ms() - a);
					a = now_ms();
					gq.reachable_many(batch->sources.data(), batch->targets.data(), n, on_gpu.get(), on_device);
					gpu_ms.push_back(now_ms() - a);
				}
				check.reachable_many(batch->sources.data(), batch->targets.data(), n, other_labels.get());
				size_t yes = 0;
				for (size_t k = 0; k < n; k++) {
					if (on_cpu[k] != on_gpu[k] || on_cpu[k] != other_labels[k]) {
						std::fprintf(stderr, "grail_bench: %s pair %zu (%lld -> %lld): cpu %d gpu %d cpu-labels %d\n",
						             batch->name.c_str(), k, (long long)batch->sources[k], (long long)batch->targets[k],
						             on_cpu[k], on_gpu[k], other_labels[k]);
						return 1;
					}
					yes += on_cpu[k];
				}
				std::printf("%-16s %5u %8zu %8zu %10.1f %10.1f %7.1fx %10.1f %7u %7llu %11llu %8zu\n",
				            batch->name.c_str(), words, yes, searched, median(cpu), median(gpu_ms),
				            median(cpu) / median(gpu_ms), t.search_ms, t.groups, (unsigned long long)t.levels,
				            (unsigned long long)t.edges, gpu.device_bytes() >> 20);
				char cell[64];
				std::snprintf(cell, sizeof cell, " | %.0f / %.0f = %.1fx", median(cpu), median(gpu_ms),
				              median(cpu) / median(gpu_ms));
				if (words == word_counts.back())
					query_cells += cell;
			}
		}
		// One markdown row for bench/grail_sweep.sh: the largest d, the last word count.
		std::printf("TABLE | %s | %zu / %zu | %s%s |\n", name.c_str(), dag.vertex_count(), dag.edge_count(),
		            labelling_row, query_cells.c_str());
	} catch (const Error &e) {
		std::fprintf(stderr, "grail_bench: %s\n", e.what());
		return 1;
	}
	return 0;
}
