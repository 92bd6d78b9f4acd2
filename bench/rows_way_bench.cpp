// A build's rows on their way to the GPU service, without PostgreSQL: what the backend's read and
// the service's mapping cost for ROWS rows, the old way (appended into an edge list, then copied
// into a sealed memory file per column by seal_bytes, as call_build does from arrays) against the
// new (appended straight into a RowsFile, then sealed), both mapped as the service maps them
// (SharedBytes::map, populated). Each way RUNS times, alternating, with the read's room from an
// exact estimate or, with ESTIMATE 0, none (the rows grow as they come); medians reported.
// Then a build's parts on their way back (ROWS * 7 bytes in eight arrays, about R-MAT's share):
// the old way downloaded into host arrays, then sealed by seal_bytes; the new downloaded into their
// places in a BuiltFile, then sealed (the download stood in for by a fill, the same for both).
//   rows_way_bench [ROWS=65000000] [RUNS=3] [ESTIMATE=1]
#include "bench_util.hpp"
#include "clock.hpp"
#include "graph.hpp"

#include "gpu_service/built_file.hpp"
#include "gpu_service/rows_file.hpp"
#include "gpu_service/shared_bytes.hpp"

#include <cstdio>
#include <cstring>
#include <utility>
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

// A device's download of a part stood in for: every byte written.
void
download(void *to, size_t bytes, uint8_t seed) {
	std::memset(to, seed, bytes);
}

// Parts of 7 * rows bytes in all: eight arrays (ids, offsets, targets, repeated, components,
// smallest, DAG offsets and targets) of up to rows / 4 elements.
BuiltParts
parts_in_arrays(size_t rows) {
	size_t k = rows / 4;
	BuiltParts p;
	p.graph.graph.ids.resize(k / 4);
	p.graph.graph.out.offsets.resize(k / 2);
	p.graph.graph.out.targets.resize(k);
	p.graph.graph.repeated.resize(k / 8);
	p.graph.components.of_vertex.resize(k);
	p.graph.components.smallest_vertex.resize(k);
	p.graph.dag.offsets.resize(k / 2);
	p.graph.dag.targets.resize(k);
	download(p.graph.graph.ids.data(), p.graph.graph.ids.size() * 8, 1);
	download(p.graph.graph.out.offsets.data(), p.graph.graph.out.offsets.size() * 8, 2);
	download(p.graph.graph.out.targets.data(), p.graph.graph.out.targets.size() * 4, 3);
	download(p.graph.graph.repeated.data(), p.graph.graph.repeated.size() * 16, 4);
	download(p.graph.components.of_vertex.data(), p.graph.components.of_vertex.size() * 4, 5);
	download(p.graph.components.smallest_vertex.data(), p.graph.components.smallest_vertex.size() * 4, 6);
	download(p.graph.dag.offsets.data(), p.graph.dag.offsets.size() * 8, 7);
	download(p.graph.dag.targets.data(), p.graph.dag.targets.size() * 4, 8);
	return p;
}

template <typename T>
void
download_into(BuiltFile &file, Array<T> &part, size_t count, uint8_t seed) {
	T *at = static_cast<T *>(file.place(count * sizeof(T)));
	download(at, count * sizeof(T), seed);
	part = Array<T>::borrow(at, count, nullptr);
}

// Returns the download and the sealing, ms.
std::pair<double, double>
old_parts(size_t rows) {
	double start = now_ms();
	BuiltParts p = parts_in_arrays(rows);
	double downloaded = ms_since(start);
	start = now_ms();
	uint8_t header[kBuiltHeaderBytes];
	int fd = seal_bytes(built_pieces(p, header));
	double sealed = ms_since(start);
	close(fd);
	return {downloaded, sealed};
}

std::pair<double, double>
new_parts(size_t rows) {
	double start = now_ms();
	size_t k = rows / 4;
	BuiltFile file(rows, 1);
	BuiltParts p;
	download_into(file, p.graph.graph.ids, k / 4, 1);
	download_into(file, p.graph.graph.out.offsets, k / 2, 2);
	download_into(file, p.graph.graph.out.targets, k, 3);
	download_into(file, p.graph.graph.repeated, k / 8, 4);
	download_into(file, p.graph.components.of_vertex, k, 5);
	download_into(file, p.graph.components.smallest_vertex, k, 6);
	download_into(file, p.graph.dag.offsets, k / 2, 7);
	download_into(file, p.graph.dag.targets, k, 8);
	double downloaded = ms_since(start);
	start = now_ms();
	(void)file.seal(std::move(p));
	return {downloaded, ms_since(start)};
}

void
report_parts(const char *name, const std::vector<std::pair<double, double>> &runs) {
	std::vector<double> down, seal, total;
	for (auto [d, s] : runs) {
		down.push_back(d);
		seal.push_back(s);
		total.push_back(d + s);
	}
	std::printf("%-4s download %8.1f ms  seal %7.1f ms  total %8.1f ms  (totals:", name, bench::median(down),
	            bench::median(seal), bench::median(total));
	for (double t : total)
		std::printf(" %.1f", t);
	std::printf(")\n");
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
	std::vector<std::pair<double, double>> old_part_runs, new_part_runs;
	for (size_t r = 0; r < runs; r++) {
		old_part_runs.push_back(old_parts(rows));
		new_part_runs.push_back(new_parts(rows));
	}
	std::printf("a build's parts, %zu MB in eight arrays; medians:\n", rows * 7 >> 20);
	report_parts("old", old_part_runs);
	report_parts("new", new_part_runs);
	return 0;
}
