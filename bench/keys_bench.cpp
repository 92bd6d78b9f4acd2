// Text keys against bigint keys at the engine level (text_keys.sh's create_graph target, without
// PostgreSQL): one random graph of VERTICES vertices and EDGES edges, its endpoints once as bigint
// ids in 1..VERTICES and once as package-like names 'pkg-<n>-<6 hex digits>' (bench/text_keys.sh
// writes md5 prefixes; a 64-bit mix here, the same shape and lengths). The names lie in one buffer
// in row order, each after a one-byte header, as a heap scan meets them.
//   text:   KeyDictionaryBuilder::add per endpoint (with EdgeList::append), finish(), Index::build
//           over the ranks, serialize();
//   bigint: EdgeList::append per row, Index::build, serialize().
// Medians of RUNS runs, in ms, each run in a fresh child process; the ratio row is text over bigint.
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

#include <unistd.h>

using namespace grail;

namespace {

using bench::median;

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

struct Run {
	double ms[4];
	size_t vertices, image_bytes;
	bool ok;
};

// One side's run in a process of its own, as each build runs in a backend of its own (and what one
// run leaves in the allocator does not time the next): this program again with --side, which
// prints the run's numbers. ok false if it failed.
Run
in_process(const std::string &self, const std::string &args, const char *side) {
	Run run{};
	std::string command = "'" + self + "'" + args + " --side " + side;
	FILE *out = popen(command.c_str(), "r");
	if (out == nullptr)
		return run;
	int ok = 0;
	if (std::fscanf(out, "%lf %lf %lf %lf %zu %zu %d", &run.ms[0], &run.ms[1], &run.ms[2], &run.ms[3], &run.vertices,
	                &run.image_bytes, &ok) != 7)
		ok = 0;
	run.ok = pclose(out) == 0 && ok == 1;
	return run;
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
	std::string side, args;
	for (int i = 1; i < argc; i += 2) {
		if (std::strcmp(argv[i], "--side") == 0 && i + 1 < argc) {
			side = argv[i + 1];
			continue;
		}
		args += std::string(" ") + argv[i];
		if (i + 1 < argc && std::strcmp(argv[i], "--single") != 0)
			args += std::string(" ") + argv[i + 1];
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
	if (side.empty()) {
		char self[4096];
		ssize_t self_length = readlink("/proc/self/exe", self, sizeof self - 1);
		if (self_length <= 0) {
			std::fputs("keys_bench: cannot find its own executable\n", stderr);
			return 1;
		}
		self[self_length] = '\0';
		std::vector<double> t_add, t_finish, t_text_build, t_text_image, t_read, t_int_build, t_int_image;
		size_t text_vertices = 0, int_vertices = 0, text_image = 0, int_image = 0;
		for (uint64_t r = 0; r < runs; r++) {
			Run text = in_process(self, args, "text"), integer = in_process(self, args, "bigint");
			if (!text.ok || !integer.ok) {
				std::fputs("keys_bench: a run failed (out of memory?)\n", stderr);
				return 1;
			}
			t_add.push_back(text.ms[0]);
			t_finish.push_back(text.ms[1]);
			t_text_build.push_back(text.ms[2]);
			t_text_image.push_back(text.ms[3]);
			text_vertices = text.vertices;
			text_image = text.image_bytes;
			t_read.push_back(integer.ms[0]);
			t_int_build.push_back(integer.ms[1]);
			t_int_image.push_back(integer.ms[2]);
			int_vertices = integer.vertices;
			int_image = integer.image_bytes;
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
		std::printf("|%s|%s|%s|%s|\n", "------------------------------------", "-----------", "-----------",
		            "--------");
		std::printf("| %-34s | %9.1f | %9.1f | %6.2f |\n", "read (append / add per endpoint)", read, add, add / read);
		std::printf("| %-34s | %9s | %9.1f | %6s |\n", "finish (sort keys, rank edges)", "", finish, "");
		std::printf("| %-34s | %9.1f | %9.1f | %6.2f |\n", "Index::build", int_build, text_build,
		            text_build / int_build);
		std::printf("| %-34s | %9.1f | %9.1f | %6.2f |\n", "serialize", int_img, text_img, text_img / int_img);
		std::printf("| %-34s | %9.1f | %9.1f | %6.2f |\n", "text add+finish vs bigint build", int_build, add + finish,
		            (add + finish) / int_build);
		std::printf("| %-34s | %9.1f | %9.1f | %6.2f |\n", "all of the above", int_total, text_total,
		            text_total / int_total);
		std::printf("image: bigint %.1f MB, text %.1f MB\n", int_image / 1048576.0, text_image / 1048576.0);
		return 0;
	}

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
	auto text_run = [&](Run *run) {
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
				if (s < 0 || t < 0 || !edges.append(s, t))
					return;
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
				if (!ok)
					return;
			}
		}
		double b = now_ms();
		KeyDictionary keys = builder.finish(edges);
		double c = now_ms();
		Index index = Index::build(std::move(edges), options, nullptr, std::move(keys));
		double d = now_ms();
		std::vector<uint8_t> image = index.serialize();
		double f = now_ms();
		*run = Run{{b - a, c - b, d - c, f - d}, index.graph().vertex_count(), image.size(), true};
	};
	auto int_run = [&](Run *run) {
		double a = now_ms();
		EdgeList edges;
		for (size_t e = 0; e < edge_count; e++)
			if (!edges.append(sources[e], targets[e]))
				return;
		double b = now_ms();
		Index index = Index::build(std::move(edges), options);
		double c = now_ms();
		std::vector<uint8_t> image = index.serialize();
		double d = now_ms();
		*run = Run{{b - a, c - b, d - c, 0}, index.graph().vertex_count(), image.size(), true};
	};
	{
		Run run{};
		if (side == "text")
			text_run(&run);
		else if (side == "bigint")
			int_run(&run);
		else
			return usage();
		std::printf("%f %f %f %f %zu %zu %d\n", run.ms[0], run.ms[1], run.ms[2], run.ms[3], run.vertices,
		            run.image_bytes, int(run.ok));
		return run.ok ? 0 : 1;
	}
}
