// An index build by phase on the host, from an edge file (nothing read from PostgreSQL): the
// steps create_graph runs after its heap scan, each timed alone (median of `runs`, wall and this
// thread's CPU time, the latter steadier on a shared machine), then the whole Index::build (on
// the calling thread alone, then with 2 helpers: wall time is what they save) and its
// serialization.
//   build_phases EDGES_FILE [runs=3] [IMAGE_FILE]
// (IMAGE_FILE: where to write the image, e.g. to see what a compressor makes of it.)
// EDGES_FILE: one edge a line, "source<TAB or space>target" (psql's \copy e TO 'file').
#include "clock.hpp"
#include "index.hpp"
#include "scc.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

using namespace grail;

namespace {

double
cpu_ms() {
	timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

double
median(std::vector<double> v) {
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

void
phase(const char *name, int runs, const std::function<void()> &step) {
	std::vector<double> wall, cpu;
	for (int r = 0; r < runs; r++) {
		double w = now_ms(), c = cpu_ms();
		step();
		wall.push_back(ms_since(w));
		cpu.push_back(cpu_ms() - c);
	}
	std::printf("%-28s %9.1f ms wall %9.1f ms cpu\n", name, median(wall), median(cpu));
}

} // namespace

int
main(int argc, char **argv) {
	if (argc < 2) {
		std::fprintf(stderr, "usage: build_phases EDGES_FILE [runs]\n");
		return 2;
	}
	int runs = argc > 2 ? std::atoi(argv[2]) : 3;
	FILE *f = std::fopen(argv[1], "r");
	if (f == nullptr) {
		std::perror(argv[1]);
		return 1;
	}
	EdgeList edges;
	long long s, t;
	while (std::fscanf(f, "%lld %lld", &s, &t) == 2)
		edges.append(s, t);
	std::fclose(f);
	std::printf("%zu rows\n", edges.size());

	Graph g;
	phase("ids and CSR (from_edges)", runs, [&] { g = Graph::from_edges(edges); });
	std::printf("  %zu vertices, %zu edges\n", g.vertex_count(), g.out.edge_count());
	phase("  the same with 2 helpers", runs, [&] { g = Graph::from_edges(edges, 2); });
	phase("  the same with 1 helper", runs, [&] { g = Graph::from_edges(edges, 1); });
	Components c;
	phase("components", runs, [&] { c = strongly_connected_components(g.out); });
	Csr dag;
	phase("condensation", runs, [&] { dag = condensation(g.out, c); });
	phase("  the same with 2 helpers", runs, [&] { dag = condensation(g.out, c, 2); });
	std::printf("  %zu components, %zu DAG edges\n", c.count(), dag.edge_count());
	GrailLabels labels;
	phase("GRAIL labels", runs, [&] { labels = GrailLabels::build(dag, BuildOptions{}.labels, BuildOptions{}.seed); });
	std::vector<uint32_t> post(c.count());
	for (size_t v = 0; v < post.size(); v++)
		post[v] = labels.record(vid_t(v))[0];
	phase("Bloom labels", runs, [&] { BloomLabels::build(dag, post); });
	phase("lookup labels", runs, [&] { LookupLabels::build(dag, kMaxSupports); });

	Index index;
	BuildOptions options;
	options.id_hash_seed = 12345;
	phase("Index::build (all)", runs, [&] { index = Index::build(edges, options); });
	BuildOptions helped = options;
	helped.threads = 2;
	phase("Index::build (2 helpers)", runs, [&] { index = Index::build(edges, helped); });
	std::vector<uint8_t> bytes;
	phase("serialize", runs, [&] { bytes = index.serialize(); });
	std::printf("  image %.1f MB\n", double(bytes.size()) / 1e6);
	if (argc > 3) {
		FILE *out = std::fopen(argv[3], "wb");
		if (out == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size() ||
		    std::fclose(out) != 0) {
			std::perror(argv[3]);
			return 1;
		}
	}
	return 0;
}
