// Command-line front end of the engine: build an index from an edge-list file, query it, and
// time it, on machines without PostgreSQL (the GPU machine).
#include "bfs.hpp"
#include "clock.hpp"
#include "device.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "index.hpp"
#include "rng.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

using namespace grail;

namespace {

const char *kUsage =
    "usage:\n"
    "  grail_cli build EDGES.txt -o INDEX.bin [--labels D]\n"
    "  grail_cli query INDEX.bin [PAIRS.txt] [--time]\n"
    "  grail_cli bfs INDEX.bin SOURCE [--max-depth N]\n"
    "  grail_cli scc INDEX.bin\n"
    "  grail_cli bench-queries INDEX.bin [--queries N] [--seed S] [--helpers H]\n"
    "  grail_cli generate dag N AVG_DEGREE SEED | rmat SCALE EDGE_FACTOR SEED [--dag] | grid ROWS COLS [--both]\n"
    "                     | local N DEGREE SPAN SEED | pairs N EDGES SEED\n"
    "  grail_cli devices\n";

struct UsageError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

int64_t
parse_int(const std::string &text, const char *what) {
	errno = 0;
	char *end = nullptr;
	long long v = std::strtoll(text.c_str(), &end, 10);
	if (text.empty() || *end != '\0' || errno == ERANGE)
		throw UsageError(std::string("invalid ") + what + ": \"" + text + "\"");
	return v;
}

double
parse_double(const std::string &text, const char *what) {
	char *end = nullptr;
	double v = std::strtod(text.c_str(), &end);
	if (text.empty() || *end != '\0')
		throw UsageError(std::string("invalid ") + what + ": \"" + text + "\"");
	return v;
}

// Reads whitespace-separated int64 pairs ('#' starts a comment to the end of the line) in big
// blocks with strtoll: iostream extraction is an order of magnitude slower on large files.
class PairReader {
public:
	PairReader(FILE *file, std::string name) : file_(file), name_(std::move(name)), buf_(1 << 20) {
	}
	// false at a clean end of input; throws on a malformed line or a dangling value.
	bool
	next(int64_t &a, int64_t &b) {
		if (!number(a))
			return false;
		size_t line = line_;
		if (!number(b) || line_ != line)
			throw Error(ErrorKind::invalid_input, name_ + ":" + std::to_string(line) + ": expected two ids per line");
		return true;
	}

private:
	bool
	refill() {
		// Keep an unfinished token at the front of the buffer.
		size_t keep = end_ - pos_;
		std::memmove(buf_.data(), buf_.data() + pos_, keep);
		pos_ = 0;
		end_ = keep;
		if (buf_.size() - end_ < 64)
			buf_.resize(buf_.size() * 2);
		size_t got = std::fread(buf_.data() + end_, 1, buf_.size() - end_ - 1, file_);
		end_ += got;
		buf_[end_] = '\0';
		return got > 0;
	}
	bool
	number(int64_t &out) {
		for (;;) {
			if (pos_ == end_ && !refill())
				return false;
			char c = buf_[pos_];
			if (c == '\n') {
				line_++;
				pos_++;
			} else if (c == ' ' || c == '\t' || c == '\r') {
				pos_++;
			} else if (c == '#') {
				while (pos_ < end_ && buf_[pos_] != '\n')
					pos_++;
			} else {
				break;
			}
		}
		// A token must not be cut by the buffer end: refill until a separator follows it.
		size_t t = pos_;
		while (t < end_ && !is_space(buf_[t]) && buf_[t] != '#')
			t++;
		if (t == end_ && !std::feof(file_)) {
			refill();
			return number(out);
		}
		errno = 0;
		char *stop = nullptr;
		long long v = std::strtoll(buf_.data() + pos_, &stop, 10);
		if (stop != buf_.data() + t || errno == ERANGE)
			throw Error(ErrorKind::invalid_input, name_ + ":" + std::to_string(line_) + ": invalid vertex id \"" +
			                                          std::string(buf_.data() + pos_, t - pos_) + "\"");
		pos_ = t;
		out = v;
		return true;
	}
	static bool
	is_space(char c) {
		return c == ' ' || c == '\t' || c == '\r' || c == '\n';
	}

	FILE *file_;
	std::string name_;
	std::vector<char> buf_;
	size_t pos_ = 0, end_ = 0, line_ = 1;
};

struct File {
	explicit File(const std::string &path, const char *mode) : f(std::fopen(path.c_str(), mode)) {
		if (!f)
			throw Error(ErrorKind::invalid_input, "cannot open " + path + ": " + std::strerror(errno));
	}
	~File() {
		if (f)
			std::fclose(f);
	}
	File(const File &) = delete;
	File &operator=(const File &) = delete;
	FILE *f;
};

Index
load_index(const std::string &path) {
	File file(path, "rb");
	std::vector<uint8_t> bytes;
	uint8_t chunk[1 << 16];
	size_t got;
	while ((got = std::fread(chunk, 1, sizeof chunk, file.f)) > 0)
		bytes.insert(bytes.end(), chunk, chunk + got);
	if (std::ferror(file.f))
		throw Error(ErrorKind::invalid_input, "cannot read " + path);
	return Index::deserialize(bytes.data(), bytes.size());
}

int
cmd_build(const std::vector<std::string> &args) {
	std::string input, output;
	BuildOptions options;
	for (size_t k = 0; k < args.size(); k++) {
		if (args[k] == "-o" && k + 1 < args.size())
			output = args[++k];
		else if (args[k] == "--labels" && k + 1 < args.size())
			options.labels = unsigned(parse_int(args[++k], "label count"));
		else if (input.empty() && args[k][0] != '-')
			input = args[k];
		else
			throw UsageError("unexpected argument \"" + args[k] + "\"");
	}
	if (input.empty() || output.empty())
		throw UsageError("build needs EDGES.txt and -o INDEX.bin");
	double t0 = now_ms();
	EdgeList edges;
	{
		File file(input, "rb");
		PairReader reader(file.f, input);
		int64_t a, b;
		while (reader.next(a, b))
			if (!edges.append(a, b))
				throw Error(ErrorKind::limit_exceeded, "out of memory reading edges");
	}
	double t1 = now_ms();
	BuildStats stats;
	Index index = Index::build(std::move(edges), options, &stats);
	double t2 = now_ms();
	std::vector<uint8_t> bytes = index.serialize();
	double t3 = now_ms();
	{
		File file(output, "wb");
		if (std::fwrite(bytes.data(), 1, bytes.size(), file.f) != bytes.size() || std::fflush(file.f) != 0)
			throw Error(ErrorKind::invalid_input, "cannot write " + output);
	}
	double t4 = now_ms();
	std::printf("input edges     %llu\n", (unsigned long long)stats.input_edges);
	std::printf("vertices        %llu\n", (unsigned long long)stats.vertices);
	std::printf("edges           %llu (distinct, no self-loops)\n", (unsigned long long)stats.edges);
	std::printf("components      %llu\n", (unsigned long long)stats.components);
	std::printf("dag edges       %llu\n", (unsigned long long)stats.dag_edges);
	std::printf("labels          %u\n", options.labels);
	std::printf("index bytes     %zu\n", bytes.size());
	std::printf("read edges      %.3f s\n", (t1 - t0) / 1e3);
	std::printf("graph (ids+csr) %.3f s\n", stats.graph_seconds);
	std::printf("scc+condense    %.3f s\n", stats.scc_seconds);
	std::printf("labels          %.3f s\n", stats.label_seconds);
	std::printf("  of which lookup %.3f s\n", stats.lookup_seconds);
	std::printf("build total     %.3f s\n", (t2 - t1) / 1e3);
	std::printf("serialize       %.3f s\n", (t3 - t2) / 1e3);
	std::printf("write           %.3f s\n", (t4 - t3) / 1e3);
	return 0;
}

int
cmd_query(const std::vector<std::string> &args) {
	bool timed = false;
	std::vector<std::string> pos;
	for (const std::string &arg : args) {
		if (arg == "--time")
			timed = true;
		else
			pos.push_back(arg);
	}
	if (pos.empty() || pos.size() > 2)
		throw UsageError("query needs INDEX.bin and an optional PAIRS.txt");
	Index index = load_index(pos[0]);
	ReachabilityQuery q(index);
	std::unique_ptr<File> file;
	FILE *in = stdin;
	std::string name = "stdin";
	if (pos.size() == 2) {
		file = std::make_unique<File>(pos[1], "rb");
		in = file->f;
		name = pos[1];
	}
	PairReader reader(in, name);
	int64_t a, b;
	if (!timed) {
		while (reader.next(a, b))
			std::fputs(q.reachable(a, b) ? "1\n" : "0\n", stdout);
		return 0;
	}
	// --time: every pair read first, then answered one at a time in a timed loop (what another
	// index's query loop over the same pairs is compared with), the answers printed after.
	std::vector<std::pair<int64_t, int64_t>> pairs;
	while (reader.next(a, b))
		pairs.push_back({a, b});
	std::vector<uint8_t> answers(pairs.size());
	double t0 = now_ms();
	for (size_t k = 0; k < pairs.size(); k++)
		answers[k] = q.reachable(pairs[k].first, pairs[k].second);
	double t = now_ms() - t0;
	size_t yes = 0;
	for (uint8_t answer : answers) {
		yes += answer;
		std::fputs(answer ? "1\n" : "0\n", stdout);
	}
	std::fprintf(stderr, "%zu pairs, %zu reachable, %.3f ms (%.4f us each)\n", pairs.size(), yes, t,
	             pairs.empty() ? 0.0 : 1e3 * t / double(pairs.size()));
	return 0;
}

int
cmd_bfs(const std::vector<std::string> &args) {
	uint32_t max_depth = UINT32_MAX;
	std::vector<std::string> pos;
	for (size_t k = 0; k < args.size(); k++) {
		if (args[k] == "--max-depth" && k + 1 < args.size()) {
			int64_t d = parse_int(args[++k], "max depth");
			if (d < 0 || d > int64_t(UINT32_MAX))
				throw UsageError("max depth out of range");
			max_depth = uint32_t(d);
		} else {
			pos.push_back(args[k]);
		}
	}
	if (pos.size() != 2)
		throw UsageError("bfs needs INDEX.bin and SOURCE");
	Index index = load_index(pos[0]);
	int64_t source = parse_int(pos[1], "source id");
	int64_t v = index.find(source);
	std::printf("vertex\tdepth\tparent\n");
	if (v < 0) // an unknown id reaches only itself, like reachable()
		return std::printf("%lld\t0\t\n", (long long)source), 0;
	BfsResult r = bfs(index.graph().out, vid_t(v), max_depth);
	const Array<int64_t> &ids = index.graph().ids;
	for (size_t k = 0; k < r.vertex.size(); k++) {
		if (r.parent[k] == kNoVertex)
			std::printf("%lld\t%u\t\n", (long long)ids[r.vertex[k]], r.depth[k]);
		else
			std::printf("%lld\t%u\t%lld\n", (long long)ids[r.vertex[k]], r.depth[k], (long long)ids[r.parent[k]]);
	}
	return 0;
}

int
cmd_scc(const std::vector<std::string> &args) {
	if (args.size() != 1)
		throw UsageError("scc needs INDEX.bin");
	Index index = load_index(args[0]);
	std::printf("vertex\tcomponent\n");
	for (int64_t id : index.graph().ids)
		std::printf("%lld\t%lld\n", (long long)id, (long long)index.component_id(id));
	return 0;
}

int
cmd_bench(const std::vector<std::string> &args) {
	uint64_t queries = 1000000, seed = 1, helpers = 1;
	std::string path;
	for (size_t k = 0; k < args.size(); k++) {
		if (args[k] == "--queries" && k + 1 < args.size())
			queries = uint64_t(parse_int(args[++k], "query count"));
		else if (args[k] == "--seed" && k + 1 < args.size())
			seed = uint64_t(parse_int(args[++k], "seed"));
		else if (args[k] == "--helpers" && k + 1 < args.size())
			helpers = uint64_t(parse_int(args[++k], "helper count"));
		else if (path.empty() && args[k][0] != '-')
			path = args[k];
		else
			throw UsageError("unexpected argument \"" + args[k] + "\"");
	}
	if (path.empty())
		throw UsageError("bench-queries needs INDEX.bin");
	Index index = load_index(path);
	const Array<int64_t> &ids = index.graph().ids;
	if (ids.empty())
		throw Error(ErrorKind::invalid_input, "the graph has no vertices");
	const Csr &g = index.graph().out;
	Rng rng(seed);
	std::vector<std::pair<int64_t, int64_t>> uniform(queries), positive(queries);
	for (auto &p : uniform)
		p = {ids[rng.below(ids.size())], ids[rng.below(ids.size())]};
	// A random walk of random length from a random source ends at a vertex it reaches.
	for (auto &p : positive) {
		vid_t v = vid_t(rng.below(ids.size()));
		p.first = ids[v];
		for (uint64_t steps = 1 + rng.below(32); steps > 0 && g.begin(v) != g.end(v); steps--)
			v = g.begin(v)[rng.below(uint64_t(g.end(v) - g.begin(v)))];
		p.second = ids[v];
	}
	static const char *names[ReachabilityQuery::kDecidedCount] = {
	    "same component", "topological",  "level",        "labels",     "tree interval", "search",
	    "unknown vertex", "Bloom filter", "interval end", "back level", "supports",      "back order"};
	{
		// What the lookup labels add to a build: choosing the supports and their records, against
		// one sweep over supports given (what the build did before it chose them).
		const GrailLabels &labels = index.labels();
		const BloomLabels &bloom = index.bloom();
		auto decided = [&](vid_t u, vid_t v) {
			return pruning::step(bloom.record(u), labels.record(u), bloom.record(v), labels.record(v),
			                     labels.label_count()) != pruning::Step::expand;
		};
		double t0 = now_ms();
		LookupLabels chosen = LookupLabels::build(index.dag(), kMaxSupports, {}, decided, seed);
		double choose_ms = ms_since(t0);
		t0 = now_ms();
		LookupLabels swept =
		    LookupLabels::build(index.dag(), 0, std::vector<vid_t>(chosen.supports().begin(), chosen.supports().end()));
		std::printf("lookup labels: %.1f ms to choose %zu supports and make the records, %.1f ms for one sweep\n",
		            choose_ms, chosen.supports().size(), ms_since(t0));
	}
	ReachabilityQuery q(index);
	for (int set = 0; set < 2; set++) {
		const auto &pairs = set == 0 ? uniform : positive;
		uint64_t decided[ReachabilityQuery::kDecidedCount] = {}, yes = 0;
		double t0 = now_ms();
		uint64_t visits = 0;
		for (const auto &p : pairs) {
			yes += q.reachable(p.first, p.second);
			decided[int(q.last_decision())]++;
			if (q.last_decision() == ReachabilityQuery::Decided::search)
				visits += q.last_search_visits();
		}
		double t = ms_since(t0) / 1e3;
		std::printf("%s queries: %llu, reachable %llu, %.0f queries/s (%.3f us each)\n",
		            set == 0 ? "uniform random" : "known reachable", (unsigned long long)pairs.size(),
		            (unsigned long long)yes, double(pairs.size()) / t, 1e6 * t / double(pairs.size()));
		for (int k = 0; k < ReachabilityQuery::kDecidedCount; k++)
			if (decided[k])
				std::printf("  decided by %-15s %6.2f%%\n", names[k],
				            100.0 * double(decided[k]) / double(pairs.size()));
		if (uint64_t searches = decided[int(ReachabilityQuery::Decided::search)])
			std::printf("  components visited per search: %.1f\n", double(visits) / double(searches));
		// The same pairs as one batch (reachable(g, a[], b[])'s CPU path): decided by the pipeline,
		// the rest searched together, on the calling thread and then with --helpers threads beside
		// it; each batch's answers checked against the other's and the pair-at-a-time count. Each
		// is timed the second time it runs: the first makes the helpers' visit marks (fresh pages),
		// which a backend does once.
		std::vector<int64_t> from(pairs.size()), to(pairs.size());
		for (size_t k = 0; k < pairs.size(); k++)
			std::tie(from[k], to[k]) = pairs[k];
		std::unique_ptr<bool[]> alone(new bool[pairs.size()]), answers(new bool[pairs.size()]);
		for (uint64_t threads : {uint64_t(0), helpers}) {
			bool *out = threads == 0 ? alone.get() : answers.get();
			for (int run = 0; run < 2; run++) {
				t0 = now_ms();
				q.reachable_many(from.data(), to.data(), pairs.size(), out, {}, 0, unsigned(threads));
				t = ms_since(t0) / 1e3;
			}
			uint64_t batch_yes = 0;
			for (size_t k = 0; k < pairs.size(); k++)
				batch_yes += out[k];
			if (batch_yes != yes || (threads > 0 && !std::equal(alone.get(), alone.get() + pairs.size(), out)))
				throw Error(ErrorKind::internal, "the batch answered otherwise than the pairs one at a time");
			std::printf("  as one batch, %llu helper threads: %.3f us each\n", (unsigned long long)threads,
			            1e6 * t / double(pairs.size()));
			if (helpers == 0)
				break;
		}
	}
	return 0;
}

// The R-MAT DAG of the benchmarks (bench/lookup_sql.sh): each edge from the smaller id to the
// larger, self-loops dropped. R-MAT's ids are a permutation already, so the order is random.
EdgeList
rmat_dag(const EdgeList &rmat) {
	EdgeList dag;
	for (size_t k = 0; k < rmat.size(); k++) {
		int64_t a = rmat.source[k], b = rmat.target[k];
		if (a != b && !dag.append(std::min(a, b), std::max(a, b)))
			throw Error(ErrorKind::limit_exceeded, "out of memory generating edges");
	}
	return dag;
}

// The random DAG of the benchmarks (bench/lookup_sql.sh): `edges` uniform pairs of 1..n-1, each
// from the smaller number to the larger (equal ones dropped), ids a random permutation. Shallow:
// few uniform pairs reach, unlike generate_random_dag's.
EdgeList
pairs_dag(uint64_t n, uint64_t count, uint64_t seed) {
	if (n < 2 || n > (uint64_t(1) << 31))
		throw UsageError("pairs needs 2 <= N <= 2^31");
	Rng rng(seed);
	std::vector<int64_t> id(n);
	for (uint64_t i = 0; i < n; i++)
		id[i] = int64_t(i);
	for (uint64_t i = n; i > 1; i--)
		std::swap(id[i - 1], id[rng.below(i)]);
	EdgeList edges;
	for (uint64_t k = 0; k < count; k++) {
		uint64_t x = 1 + rng.below(n - 1), y = 1 + rng.below(n - 1);
		if (x != y && !edges.append(id[std::min(x, y)], id[std::max(x, y)]))
			throw Error(ErrorKind::limit_exceeded, "out of memory generating edges");
	}
	return edges;
}

// The deep local DAG of the benchmarks (bench/lookup_sql.sh): vertex i (1..n) to `degree` random
// vertices of i + 1 .. i + span (those past n dropped), paths about n / span long; ids a random
// permutation of 1..n, so that id order says nothing of the topological order.
EdgeList
local_dag(uint64_t n, uint64_t degree, uint64_t span, uint64_t seed) {
	if (n == 0 || span == 0 || n > (uint64_t(1) << 31))
		throw UsageError("local needs 1 <= N <= 2^31 and SPAN >= 1");
	Rng rng(seed);
	std::vector<int64_t> id(n + 1);
	for (uint64_t i = 0; i <= n; i++)
		id[i] = int64_t(i);
	for (uint64_t i = n; i > 1; i--) // Fisher-Yates over 1..n
		std::swap(id[i], id[1 + rng.below(i)]);
	EdgeList edges;
	for (uint64_t i = 1; i <= n; i++)
		for (uint64_t k = 0; k < degree; k++) {
			uint64_t t = i + 1 + rng.below(span);
			if (t <= n && !edges.append(id[i], id[t]))
				throw Error(ErrorKind::limit_exceeded, "out of memory generating edges");
		}
	return edges;
}

int
cmd_generate(const std::vector<std::string> &args) {
	if (args.empty())
		throw UsageError("generate needs dag, rmat or grid");
	EdgeList edges;
	if (args[0] == "dag" && args.size() == 4)
		edges = generate_random_dag(uint64_t(parse_int(args[1], "N")), parse_double(args[2], "AVG_DEGREE"),
		                            uint64_t(parse_int(args[3], "SEED")));
	else if (args[0] == "rmat" && (args.size() == 4 || (args.size() == 5 && args[4] == "--dag"))) {
		edges = generate_rmat(unsigned(parse_int(args[1], "SCALE")), unsigned(parse_int(args[2], "EDGE_FACTOR")),
		                      uint64_t(parse_int(args[3], "SEED")));
		if (args.size() == 5)
			edges = rmat_dag(edges);
	} else if (args[0] == "pairs" && args.size() == 4)
		edges = pairs_dag(uint64_t(parse_int(args[1], "N")), uint64_t(parse_int(args[2], "EDGES")),
		                  uint64_t(parse_int(args[3], "SEED")));
	else if (args[0] == "local" && args.size() == 5)
		edges = local_dag(uint64_t(parse_int(args[1], "N")), uint64_t(parse_int(args[2], "DEGREE")),
		                  uint64_t(parse_int(args[3], "SPAN")), uint64_t(parse_int(args[4], "SEED")));
	else if (args[0] == "grid" && (args.size() == 3 || (args.size() == 4 && args[3] == "--both")))
		edges =
		    generate_grid(uint64_t(parse_int(args[1], "ROWS")), uint64_t(parse_int(args[2], "COLS")), args.size() == 4);
	else
		throw UsageError("bad generate arguments");
	std::vector<char> out;
	out.reserve(1 << 20);
	char line[48];
	for (size_t k = 0; k < edges.size(); k++) {
		int len =
		    std::snprintf(line, sizeof line, "%lld %lld\n", (long long)edges.source[k], (long long)edges.target[k]);
		out.insert(out.end(), line, line + len);
		if (out.size() > (1 << 20) - 64) {
			std::fwrite(out.data(), 1, out.size(), stdout);
			out.clear();
		}
	}
	std::fwrite(out.data(), 1, out.size(), stdout);
	return std::fflush(stdout) == 0 ? 0 : 1;
}

} // namespace

int
main(int argc, char **argv) {
	if (argc < 2) {
		std::fputs(kUsage, stderr);
		return 2;
	}
	std::string cmd = argv[1];
	std::vector<std::string> args(argv + 2, argv + argc);
	try {
		if (cmd == "build")
			return cmd_build(args);
		if (cmd == "query")
			return cmd_query(args);
		if (cmd == "bfs")
			return cmd_bfs(args);
		if (cmd == "scc")
			return cmd_scc(args);
		if (cmd == "bench-queries")
			return cmd_bench(args);
		if (cmd == "generate")
			return cmd_generate(args);
		if (cmd == "devices") {
			GpuProbe p = probe_gpu();
			std::printf("%s: %s\n", p.usable ? "usable" : "unusable", p.description.c_str());
			return p.usable ? 0 : 1;
		}
		if (cmd == "-h" || cmd == "--help" || cmd == "help") {
			std::fputs(kUsage, stdout);
			return 0;
		}
		throw UsageError("unknown command \"" + cmd + "\"");
	} catch (const UsageError &e) {
		std::fprintf(stderr, "grail_cli: %s\n%s", e.what(), kUsage);
		return 2;
	} catch (const Error &e) {
		std::fprintf(stderr, "grail_cli: %s\n", e.what());
		if (!e.hint().empty())
			std::fprintf(stderr, "hint: %s\n", e.hint().c_str());
		return 1;
	} catch (const std::exception &e) {
		std::fprintf(stderr, "grail_cli: %s\n", e.what());
		return 1;
	}
}
