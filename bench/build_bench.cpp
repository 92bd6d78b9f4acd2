// A graph build by phase: the graph, its components and its DAG made on the GPU from the rows
// (build_graph_gpu) against the host's steps (Graph::from_edges, the GPU SCC, condensation()), on
// R-MAT edges generated in host memory (nothing read from PostgreSQL); then whole Index builds
// through the hooks, as create_graph makes them under grail.device = gpu. Medians of `runs`.
//   build_bench SCALE EDGE_FACTOR [runs=3] [host_runs=runs]
#include "clock.hpp"
#include "generate.hpp"
#include "gpu.hpp"
#include "index.hpp"
#include "scc.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace grail;

namespace {

double
median(std::vector<double> v) {
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

} // namespace

int
main(int argc, char **argv) {
	if (argc < 3) {
		std::fprintf(stderr, "usage: build_bench SCALE EDGE_FACTOR [runs] [host_runs]\n");
		return 2;
	}
	unsigned scale = unsigned(std::atoi(argv[1])), factor = unsigned(std::atoi(argv[2]));
	int runs = argc > 3 ? std::atoi(argv[3]) : 3;
	int host_runs = argc > 4 ? std::atoi(argv[4]) : runs;
	double start = now_ms();
	EdgeList edges = generate_rmat(scale, factor, 1);
	std::printf("R-MAT %u-%u: %zu rows, generated in %.0f ms\n", scale, factor, edges.size(), ms_since(start));

	std::vector<double> upload, ids, csr, scc, cond, down, total;
	BuiltGraph built;
	for (int r = 0; r < runs; r++) {
		GpuGraphTimings t;
		start = now_ms();
		built = build_graph_gpu(edges.source.data(), edges.target.data(), edges.size(), &t);
		total.push_back(ms_since(start));
		upload.push_back(t.upload_ms);
		ids.push_back(t.ids_ms);
		csr.push_back(t.csr_ms);
		scc.push_back(t.scc_ms);
		cond.push_back(t.condensation_ms);
		down.push_back(t.download_ms);
	}
	size_t n = built.graph.vertex_count(), m = built.graph.out.edge_count();
	std::printf("%zu vertices, %zu edges, %zu components, %zu DAG edges, %zu repeated edges\n", n, m,
	            built.components.count(), built.dag.edge_count(), built.graph.repeated.size());
	std::printf("device build (ms, median of %d): upload %.1f | ids %.1f | csr %.1f | scc %.1f | condensation %.1f | "
	            "download %.1f | total (host clock) %.1f\n",
	            runs, median(upload), median(ids), median(csr), median(scc), median(cond), median(down), median(total));

	std::vector<double> graph_ms, scc_ms, cond_ms, host_total;
	for (int r = 0; r < host_runs; r++) {
		start = now_ms();
		Graph g = Graph::from_edges(edges);
		graph_ms.push_back(ms_since(start));
		double s2 = now_ms();
		Components c = strongly_connected_components_gpu(g.out);
		scc_ms.push_back(ms_since(s2));
		s2 = now_ms();
		Csr dag = condensation(g.out, c);
		cond_ms.push_back(ms_since(s2));
		host_total.push_back(ms_since(start));
		if (r == 0) {
			bool same = g.ids.size() == n && g.out.edge_count() == m && dag.edge_count() == built.dag.edge_count() &&
			            std::equal(g.out.targets.begin(), g.out.targets.end(), built.graph.out.targets.begin()) &&
			            std::equal(dag.targets.begin(), dag.targets.end(), built.dag.targets.begin()) &&
			            std::equal(c.of_vertex.begin(), c.of_vertex.end(), built.components.of_vertex.begin());
			std::printf("host steps give the same graph, components and DAG: %s\n", same ? "yes" : "NO");
		}
	}
	if (host_runs > 0)
		std::printf("host steps (ms, median of %d): ids+csr (CPU) %.1f | scc (GPU, with upload) %.1f | condensation "
		            "(CPU) %.1f | total %.1f\n",
		            host_runs, median(graph_ms), median(scc_ms), median(cond_ms), median(host_total));

	// Whole builds through the hooks (labels on the GPU too), as create_graph under gpu.
	BuildOptions device;
	device.graph_builder = [](EdgeList &rows, BuiltGraph &b) {
		b = build_graph_gpu(rows.source.data(), rows.target.data(), rows.size());
		return true;
	};
	device.label_builder = [](const Csr &dag, unsigned d, uint64_t seed) { return grail_labels_gpu(dag, d, seed); };
	BuildStats st;
	start = now_ms();
	Index index = Index::build(edges, device, &st);
	double whole = ms_since(start);
	std::printf("Index::build, device hooks: %.0f ms (graph %.0f, scc+dag %.0f, labels %.0f)\n", whole,
	            st.graph_seconds * 1e3, st.scc_seconds * 1e3, st.label_seconds * 1e3);
	std::printf("estimate_build_bytes: rows on the device %.0f MB, host steps %.0f MB\n",
	            double(estimate_build_bytes(edges.size(), st.vertices, st.edges, 0, 0, true)) / (1 << 20),
	            double(estimate_build_bytes(edges.size(), st.vertices, st.edges)) / (1 << 20));
	return 0;
}
