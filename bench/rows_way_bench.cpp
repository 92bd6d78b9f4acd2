// A build's rows on their way to the GPU service, without PostgreSQL: what the backend's read and
// the service's mapping cost for ROWS rows, the old way (appended into an edge list, then copied
// into a sealed memory file per column by seal_bytes, as call_build does from arrays) against the
// new (appended straight into a RowsFile, then sealed), both mapped as the service maps them
// (SharedBytes::map, populated). Each way RUNS times, alternating, with the read's room from an
// exact estimate or, with ESTIMATE 0, none (the rows grow as they come); medians reported.
//   rows_way_bench [ROWS=65000000] [RUNS=3] [ESTIMATE=1]
#include "bench_util.hpp"
#include "clock.hpp"
#include "graph.hpp"

#include "gpu_service/rows_file.hpp"
#include "gpu_service/shared_bytes.hpp"

#include <cstdio>
#include <vector>

#include <unistd.h>

using namespace grail;
using namespace grail::service;

namespace {

struct Phases {
	double read_ms, seal_ms, map_ms;
};

// The rows a read would append: cheap pseudo-random ids, the same for both ways.
template <typename Append>
void
append_rows(size_t rows, Append &&append) {
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < rows; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (!append(int64_t(x >> 42), int64_t(x & 0x3fffff)))
			std::abort();
	}
}

Phases
old_way(size_t rows, bool estimate) {
	Phases p;
	double start = now_ms();
	EdgeList edges;
	if (estimate)
		edges.reserve(rows);
	append_rows(rows, [&](int64_t s, int64_t t) { return edges.append(s, t); });
	p.read_ms = ms_since(start);
	start = now_ms();
	int source = seal_bytes({{edges.source.data(), rows * 8}});
	int target = seal_bytes({{edges.target.data(), rows * 8}});
	edges = EdgeList{}; // the backend keeps them until the answer; freed here to bound the peak
	p.seal_ms = ms_since(start);
	start = now_ms();
	{
		SharedBytes a = SharedBytes::map(source, rows * 8), b = SharedBytes::map(target, rows * 8);
		p.map_ms = ms_since(start);
	}
	return p;
}

Phases
new_way(size_t rows, bool estimate) {
	Phases p;
	double start = now_ms();
	RowsFile file;
	if (estimate)
		file.reserve(rows);
	append_rows(rows, [&](int64_t s, int64_t t) { return file.append(s, t); });
	p.read_ms = ms_since(start);
	start = now_ms();
	file.seal();
	p.seal_ms = ms_since(start);
	start = now_ms();
	{
		SharedBytes a = SharedBytes::map(dup(file.source_fd()), rows * 8),
		            b = SharedBytes::map(dup(file.target_fd()), rows * 8);
		p.map_ms = ms_since(start);
	}
	return p;
}

void
report(const char *name, const std::vector<Phases> &runs) {
	std::vector<double> read, seal, map, total;
	for (const Phases &p : runs) {
		read.push_back(p.read_ms);
		seal.push_back(p.seal_ms);
		map.push_back(p.map_ms);
		total.push_back(p.read_ms + p.seal_ms + p.map_ms);
	}
	std::printf("%-4s read %8.1f ms  seal %7.1f ms  map %7.1f ms  total %8.1f ms  (totals:", name, bench::median(read),
	            bench::median(seal), bench::median(map), bench::median(total));
	for (double t : total)
		std::printf(" %.1f", t);
	std::printf(")\n");
}

} // namespace

int
main(int argc, char **argv) {
	size_t rows = argc > 1 ? size_t(bench::number_arg(argv[0], argv[1])) : size_t(65000000);
	size_t runs = argc > 2 ? size_t(bench::number_arg(argv[0], argv[2])) : 3;
	bool estimate = argc > 3 ? bench::number_arg(argv[0], argv[3]) != 0 : true;
	std::vector<Phases> old_runs, new_runs;
	for (size_t r = 0; r < runs; r++) {
		old_runs.push_back(old_way(rows, estimate));
		new_runs.push_back(new_way(rows, estimate));
	}
	std::printf("%zu rows, %zu runs each (alternating), room %s; medians:\n", rows, runs,
	            estimate ? "from an exact estimate" : "grown as the rows come");
	report("old", old_runs);
	report("new", new_runs);
	return 0;
}
