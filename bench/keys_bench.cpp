// Text keys against bigint keys at the engine level (issue 16's create_graph target, without
// PostgreSQL): one random graph of VERTICES vertices and EDGES edges, its endpoints once as bigint
// ids in 1..VERTICES and once as package-like names 'pkg-<n>-<6 hex digits>' (bench/text_keys.sh
// writes md5 prefixes; a 64-bit mix here, the same shape and lengths). The names lie in one buffer
// in row order, each after a one-byte header, as a heap scan meets them.
//   text:   KeyDictionaryBuilder::add per endpoint (with EdgeList::append), finish(), Index::build
//           over the ranks, serialize();
//   bigint: EdgeList::append per row, Index::build, serialize().
// Medians of RUNS runs, in ms; the ratio row is text over bigint.
// Keys are added in batches of the keys of kBatchRows rows, as the glue adds them; --single adds
// them one add() at a time.
//   keys_bench [--vertices N] [--edges M] [--runs R] [--labels D] [--single]
#include "index.hpp"
#include "keys.hpp"

#include "bench_util.hpp"

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

using namespace grail;

namespace {

using bench::median;
using bench::now_ms;

constexpr size_t kBatchRows = 128;

uint64_t
mix(uint64_t x) {
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

std::string
name_of(uint64_t n) {
	char hex[17];
	std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)mix(n));
	return "pkg-" + std::to_string(n) + "-" + std::string(hex, 6);
}

int
usage() {
	std::fputs("usage: keys_bench [--vertices N] [--edges M] [--runs R] [--labels D] [--single]\n", stderr);
	return 2;
}

} // namespace

int
main(int argc, char **argv) {
	uint64_t vertices = 1000000, edge_count = 5000000, runs = 3, labels = 5;
	bool single = false;
	for (int i = 1; i < argc; i += 2) {
		if (std::strcmp(argv[i], "--single") == 0) {
			single = true;
			i--;
			continue;
		}
		if (i + 1 >= argc)
			return usage();
		uint64_t v = bench::number_arg("keys_bench", argv[i + 1]);
		if (std::strcmp(argv[i], "--vertices") == 0)
			vertices = v;
		else if (std::strcmp(argv[i], "--edges") == 0)
			edge_count = v;
		else if (std::strcmp(argv[i], "--runs") == 0)
			runs = v;
		else if (std::strcmp(argv[i], "--labels") == 0)
			labels = v;
		else
			return usage();
	}
	if (vertices < 2 || runs < 1 || labels < 1)
		return usage();

	std::vector<int64_t> sources(edge_count), targets(edge_count);
	uint64_t state = 42;
	for (size_t e = 0; e < edge_count; e++) {
		sources[e] = int64_t(1 + mix(state++) % vertices);
		targets[e] = int64_t(1 + mix(state++) % vertices);
	}
	std::vector<uint8_t> heap; // [length][bytes] [length][bytes] per row
	std::vector<std::string> names(vertices + 1);
	for (uint64_t n = 1; n <= vertices; n++)
		names[n] = name_of(n);
	for (size_t e = 0; e < edge_count; e++)
		for (int64_t id : {sources[e], targets[e]}) {
			const std::string &k = names[size_t(id)];
			heap.push_back(uint8_t(k.size()));
			heap.insert(heap.end(), k.begin(), k.end());
		}
	names = {};

	BuildOptions options;
	options.labels = unsigned(labels);
	std::vector<double> t_add, t_finish, t_text_build, t_text_image, t_read, t_int_build, t_int_image;
	size_t text_vertices = 0, int_vertices = 0, text_image = 0, int_image = 0;
	for (uint64_t r = 0; r < runs; r++) {
		{
			double a = now_ms();
			KeyDictionaryBuilder builder(KeyKind::text);
			EdgeList edges;
			const uint8_t *p = heap.data();
			if (single) {
				for (size_t e = 0; e < edge_count; e++) {
					size_t la = *p++;
					int64_t s = builder.add(p, la);
					p += la;
					size_t lb = *p++;
					int64_t t = builder.add(p, lb);
					p += lb;
					if (s < 0 || t < 0 || !edges.append(s, t)) {
						std::fputs("keys_bench: out of memory\n", stderr);
						return 1;
					}
				}
			} else { // as the glue does: the keys of up to kBatchRows rows at a time
				std::vector<KeyDictionaryBuilder::KeyRef> batch;
				std::vector<int64_t> ids(2 * kBatchRows);
				for (size_t e = 0; e < edge_count; e += kBatchRows) {
					size_t rows = std::min<size_t>(kBatchRows, edge_count - e);
					batch.clear();
					for (size_t i = 0; i < 2 * rows; i++) {
						size_t l = *p++;
						batch.push_back({p, l});
						p += l;
					}
					bool ok = builder.add(batch.data(), batch.size(), ids.data());
					for (size_t i = 0; ok && i < rows; i++)
						ok = edges.append(ids[2 * i], ids[2 * i + 1]);
					if (!ok) {
						std::fputs("keys_bench: out of memory\n", stderr);
						return 1;
					}
				}
			}
			double b = now_ms();
			KeyDictionary keys = builder.finish(edges);
			double c = now_ms();
			Index index = Index::build(std::move(edges), options, nullptr, std::move(keys));
			double d = now_ms();
			std::vector<uint8_t> image = index.serialize();
			double f = now_ms();
			t_add.push_back(b - a);
			t_finish.push_back(c - b);
			t_text_build.push_back(d - c);
			t_text_image.push_back(f - d);
			text_vertices = index.graph().vertex_count();
			text_image = image.size();
		}
		{
			double a = now_ms();
			EdgeList edges;
			for (size_t e = 0; e < edge_count; e++)
				if (!edges.append(sources[e], targets[e])) {
					std::fputs("keys_bench: out of memory\n", stderr);
					return 1;
				}
			double b = now_ms();
			Index index = Index::build(std::move(edges), options);
			double c = now_ms();
			std::vector<uint8_t> image = index.serialize();
			double d = now_ms();
			t_read.push_back(b - a);
			t_int_build.push_back(c - b);
			t_int_image.push_back(d - c);
			int_vertices = index.graph().vertex_count();
			int_image = image.size();
		}
	}
	if (text_vertices != int_vertices) {
		std::fprintf(stderr, "keys_bench: %zu text vertices, %zu bigint vertices\n", text_vertices, int_vertices);
		return 1;
	}
	double add = median(t_add), finish = median(t_finish), text_build = median(t_text_build),
	       text_img = median(t_text_image), read = median(t_read), int_build = median(t_int_build),
	       int_img = median(t_int_image);
	double text_total = add + finish + text_build + text_img, int_total = read + int_build + int_img;
	std::printf("graph: %zu vertices, %llu edges (rows), %d labels; medians of %llu runs, ms\n", int_vertices,
	            (unsigned long long)edge_count, int(labels), (unsigned long long)runs);
	std::printf("| %-34s | %9s | %9s | %6s |\n", "phase", "bigint", "text", "ratio");
	std::printf("|%s|%s|%s|%s|\n", "------------------------------------", "-----------", "-----------", "--------");
	std::printf("| %-34s | %9.1f | %9.1f | %6.2f |\n", "read (append / add per endpoint)", read, add, add / read);
	std::printf("| %-34s | %9s | %9.1f | %6s |\n", "finish (sort keys, rank edges)", "", finish, "");
	std::printf("| %-34s | %9.1f | %9.1f | %6.2f |\n", "Index::build", int_build, text_build, text_build / int_build);
	std::printf("| %-34s | %9.1f | %9.1f | %6.2f |\n", "serialize", int_img, text_img, text_img / int_img);
	std::printf("| %-34s | %9.1f | %9.1f | %6.2f |\n", "text add+finish vs bigint build", int_build, add + finish,
	            (add + finish) / int_build);
	std::printf("| %-34s | %9.1f | %9.1f | %6.2f |\n", "all of the above", int_total, text_total,
	            text_total / int_total);
	std::printf("image: bigint %.1f MB, text %.1f MB\n", int_image / 1048576.0, text_image / 1048576.0);
	return 0;
}
