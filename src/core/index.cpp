#include "index.hpp"
#include "error.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the index format is little-endian");

namespace grail {

namespace {

using Clock = std::chrono::steady_clock;

double
seconds_since(Clock::time_point start) {
	return std::chrono::duration<double>(Clock::now() - start).count();
}

constexpr char kMagic[8] = {'P', 'G', 'G', 'R', 'A', 'I', 'L', '\0'};
constexpr size_t kHeaderBytes = 32;

enum Tag : uint32_t {
	kIds = 1,
	kOutOffsets,
	kOutTargets,
	kComponentOf,
	kComponentSmallest,
	kDagOffsets,
	kDagTargets,
	kLabelMeta,
	kLabels,
	kBloomMeta,
	kBloom,
	kTagCount = kBloom,
};

const char *
tag_name(uint32_t tag) {
	static const char *names[] = {"",
	                              "vertex ids",
	                              "graph offsets",
	                              "graph targets",
	                              "vertex components",
	                              "component smallest vertices",
	                              "DAG offsets",
	                              "DAG targets",
	                              "label header",
	                              "labels",
	                              "Bloom header",
	                              "Bloom labels"};
	return tag <= kTagCount ? names[tag] : "unknown";
}

inline uint64_t
rotl(uint64_t x, int r) {
	return (x << r) | (x >> (64 - r));
}

constexpr uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full, P3 = 0x165667B19E3779F9ull,
                   P4 = 0x85EBCA77C2B2AE63ull, P5 = 0x27D4EB2F165667C5ull;

inline uint64_t
load64(const uint8_t *p) {
	uint64_t x;
	std::memcpy(&x, p, 8);
	return x;
}

inline uint64_t
round64(uint64_t acc, uint64_t input) {
	return rotl(acc + input * P2, 31) * P1;
}

inline uint64_t
merge64(uint64_t acc, uint64_t v) {
	return (acc ^ round64(0, v)) * P1 + P4;
}

} // namespace

// XXH64 (four independent lanes of 8-byte words: several GB/s, so loading pays little for it).
uint64_t
Index::checksum(const uint8_t *p, size_t len) noexcept {
	const uint8_t *end = p + len;
	uint64_t h;
	if (len >= 32) {
		uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = uint64_t(0) - P1;
		for (; end - p >= 32; p += 32) {
			v1 = round64(v1, load64(p));
			v2 = round64(v2, load64(p + 8));
			v3 = round64(v3, load64(p + 16));
			v4 = round64(v4, load64(p + 24));
		}
		h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
		h = merge64(merge64(merge64(merge64(h, v1), v2), v3), v4);
	} else {
		h = P5;
	}
	h += uint64_t(len);
	for (; end - p >= 8; p += 8)
		h = rotl(h ^ round64(0, load64(p)), 27) * P1 + P4;
	if (end - p >= 4) {
		uint32_t w;
		std::memcpy(&w, p, 4);
		h = rotl(h ^ (uint64_t(w) * P1), 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl(h ^ (uint64_t(*p) * P5), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

namespace {

[[noreturn]] void
corrupt(const std::string &what) {
	throw Error(ErrorKind::corrupt_index, "corrupt pg_grail index: " + what, "Rebuild the index from its edge table.");
}

class Writer {
public:
	void
	raw(const void *p, size_t len) {
		const uint8_t *b = static_cast<const uint8_t *>(p);
		bytes.insert(bytes.end(), b, b + len);
	}
	template <typename T>
	void
	section(uint32_t tag, const std::vector<T> &v) {
		uint32_t head[2] = {tag, 0};
		uint64_t len = v.size() * sizeof(T);
		raw(head, sizeof head);
		raw(&len, sizeof len);
		raw(v.data(), len);
		bytes.resize(bytes.size() + (8 - len % 8) % 8, 0);
		sections++;
	}
	std::vector<uint8_t> bytes;
	uint32_t sections = 0;
};

struct Section {
	const uint8_t *data = nullptr;
	uint64_t bytes = 0;
	bool present = false;
};

template <typename T>
std::vector<T>
read_array(const Section &s, uint32_t tag, uint64_t expected_count) {
	if (s.bytes % sizeof(T) != 0 || s.bytes / sizeof(T) != expected_count)
		corrupt(std::string(tag_name(tag)) + " section has " + std::to_string(s.bytes) + " bytes, expected " +
		        std::to_string(expected_count * sizeof(T)));
	std::vector<T> v(expected_count);
	if (expected_count)
		std::memcpy(v.data(), s.data, s.bytes);
	return v;
}

// Offsets start at 0, never decrease and end at the edge count; targets are < n, each list
// strictly ascending, without self-loops.
void
check_csr(const Csr &csr, size_t n, const char *what) {
	if (csr.offsets.size() != n + 1 || csr.offsets[0] != 0 || csr.offsets[n] != csr.targets.size())
		corrupt(std::string(what) + " offsets do not span the target array");
	for (size_t v = 0; v < n; v++) {
		if (csr.offsets[v + 1] < csr.offsets[v] || csr.offsets[v + 1] > csr.targets.size())
			corrupt(std::string(what) + " offsets decrease or leave the target array at vertex " + std::to_string(v));
		for (eid_t e = csr.offsets[v]; e < csr.offsets[v + 1]; e++) {
			vid_t t = csr.targets[e];
			if (t >= n)
				corrupt(std::string(what) + " target " + std::to_string(t) + " out of range");
			if (t == v)
				corrupt(std::string(what) + " has a self-loop at vertex " + std::to_string(v));
			if (e > csr.offsets[v] && csr.targets[e - 1] >= t)
				corrupt(std::string(what) + " adjacency of vertex " + std::to_string(v) + " is not strictly ascending");
		}
	}
}

// Containment and level order along every DAG edge imply them along every path, so they make
// labels valid; returns the first edge that breaks them ("a->b"), or an empty string.
std::string
inconsistent_label_edge(const Csr &dag, const GrailLabels &labels) {
	for (size_t a = 0; a < dag.vertex_count(); a++)
		for (const vid_t *b = dag.begin(vid_t(a)); b != dag.end(vid_t(a)); b++)
			if (labels.record(vid_t(a))[2] >= labels.record(*b)[2] || !labels.contains(vid_t(a), *b))
				return std::to_string(a) + "->" + std::to_string(*b);
	return {};
}

} // namespace

Index
Index::build(EdgeList edges, const BuildOptions &options, BuildStats *stats) {
	if (options.labels < 1 || options.labels > kMaxLabels)
		throw Error(ErrorKind::invalid_input, "the number of GRAIL labels must be between 1 and 16");
	BuildStats local;
	BuildStats &st = stats ? *stats : local;
	st = BuildStats{};
	st.input_edges = edges.size();
	Index index;

	auto start = Clock::now();
	index.graph_ = Graph::from_edges(edges);
	edges = EdgeList{}; // release the raw edges before the next phases allocate
	st.vertices = index.graph_.vertex_count();
	st.edges = index.graph_.out.edge_count();
	st.graph_seconds = seconds_since(start);
	uint64_t needed = estimate_build_bytes(st.input_edges, st.vertices, st.edges);
	if (options.memory_limit_bytes != 0 && needed > options.memory_limit_bytes)
		throw Error(ErrorKind::limit_exceeded, "building this index needs about " + std::to_string(needed >> 20) +
		                                           " MB (" + std::to_string(st.vertices) + " vertices, " +
		                                           std::to_string(st.edges) + " edges), more than the limit of " +
		                                           std::to_string(options.memory_limit_bytes >> 20) + " MB");

	start = Clock::now();
	index.components_ =
	    options.components ? options.components(index.graph_.out) : strongly_connected_components(index.graph_.out);
	index.dag_ = condensation(index.graph_.out, index.components_);
	st.components = index.components_.count();
	st.dag_edges = index.dag_.edge_count();
	st.scc_seconds = seconds_since(start);

	start = Clock::now();
	if (options.label_builder) {
		index.labels_ = options.label_builder(index.dag_, options.labels, options.seed);
		// Checked rather than trusted: a wrong label would give a wrong "no" to every query it covers.
		if (index.labels_.label_count() != options.labels ||
		    index.labels_.data().size() != st.components * index.labels_.record_width())
			throw Error(ErrorKind::internal, "the label builder returned labels of the wrong shape");
		std::string broken = inconsistent_label_edge(index.dag_, index.labels_);
		if (!broken.empty())
			throw Error(ErrorKind::internal, "the label builder returned invalid labels at DAG edge " + broken);
	} else {
		index.labels_ = GrailLabels::build(index.dag_, options.labels, options.seed);
	}
	{
		std::vector<uint32_t> post(st.components);
		for (size_t v = 0; v < post.size(); v++)
			post[v] = index.labels_.record(vid_t(v))[0];
		index.bloom_ = BloomLabels::build(index.dag_, post);
	}
	st.label_seconds = seconds_since(start);

	index.build_hash();
	return index;
}

void
Index::build_hash() {
	size_t n = graph_.ids.size();
	hash_.clear();
	if (n == 0)
		return;
	unsigned bits = 1;
	while ((size_t(1) << bits) < 2 * n)
		bits++;
	hash_shift_ = 64 - bits;
	hash_.assign(size_t(1) << bits, HashSlot{0, kNoVertex, 0});
	size_t mask = hash_.size() - 1;
	for (size_t v = 0; v < n; v++) {
		size_t slot = hash_slot(graph_.ids[v]);
		while (hash_[slot].vertex != kNoVertex)
			slot = (slot + 1) & mask;
		hash_[slot] = {graph_.ids[v], vid_t(v), components_.of_vertex[v]};
	}
}

const Index::HashSlot *
Index::lookup(int64_t id) const noexcept {
	if (hash_.empty())
		return nullptr;
	size_t mask = hash_.size() - 1;
	for (size_t slot = hash_slot(id);; slot = (slot + 1) & mask) {
		const HashSlot &s = hash_[slot];
		if (s.vertex == kNoVertex)
			return nullptr;
		if (s.id == id)
			return &s;
	}
}

int64_t
Index::find(int64_t id) const noexcept {
	const HashSlot *s = lookup(id);
	return s ? int64_t(s->vertex) : -1;
}

int64_t
Index::component_id(int64_t id) const noexcept {
	int64_t v = find(id);
	if (v < 0)
		return id;
	return graph_.ids[components_.smallest_vertex[components_.of_vertex[size_t(v)]]];
}

std::vector<uint8_t>
Index::serialize() const {
	Writer w;
	w.bytes.resize(kHeaderBytes, 0);
	w.section(kIds, graph_.ids);
	w.section(kOutOffsets, graph_.out.offsets);
	w.section(kOutTargets, graph_.out.targets);
	w.section(kComponentOf, components_.of_vertex);
	w.section(kComponentSmallest, components_.smallest_vertex);
	w.section(kDagOffsets, dag_.offsets);
	w.section(kDagTargets, dag_.targets);
	w.section(kLabelMeta, std::vector<uint32_t>{labels_.label_count(), 0});
	w.section(kLabels, labels_.data());
	w.section(kBloomMeta, std::vector<uint32_t>{kBloomBits, 0});
	w.section(kBloom, bloom_.data());

	uint64_t payload = w.bytes.size() - kHeaderBytes;
	uint64_t sum = checksum(w.bytes.data() + kHeaderBytes, payload);
	uint8_t *h = w.bytes.data();
	uint32_t version = kFormatVersion;
	std::memcpy(h, kMagic, 8);
	std::memcpy(h + 8, &version, 4);
	std::memcpy(h + 12, &w.sections, 4);
	std::memcpy(h + 16, &payload, 8);
	std::memcpy(h + 24, &sum, 8);
	return std::move(w.bytes);
}

Index
Index::deserialize(const uint8_t *bytes, size_t size) {
	if (size < kHeaderBytes)
		corrupt("truncated header (" + std::to_string(size) + " bytes)");
	if (std::memcmp(bytes, kMagic, 8) != 0)
		corrupt("bad magic (not a pg_grail index)");
	uint32_t version, section_count;
	uint64_t payload, sum;
	std::memcpy(&version, bytes + 8, 4);
	std::memcpy(&section_count, bytes + 12, 4);
	std::memcpy(&payload, bytes + 16, 8);
	std::memcpy(&sum, bytes + 24, 8);
	if (version != kFormatVersion)
		throw Error(ErrorKind::corrupt_index,
		            "pg_grail index format version " + std::to_string(version) + " is not supported (expected " +
		                std::to_string(kFormatVersion) + ")",
		            "Rebuild the index with this version of pg_grail.");
	if (payload != size - kHeaderBytes)
		corrupt("payload is " + std::to_string(size - kHeaderBytes) + " bytes, header says " + std::to_string(payload));
	if (checksum(bytes + kHeaderBytes, payload) != sum)
		corrupt("checksum mismatch");
	if (section_count != kTagCount)
		corrupt("has " + std::to_string(section_count) + " sections, expected " + std::to_string(kTagCount));

	Section sections[kTagCount + 1];
	size_t pos = kHeaderBytes;
	for (uint32_t k = 0; k < section_count; k++) {
		if (size - pos < 16)
			corrupt("section " + std::to_string(k) + " header is truncated");
		uint32_t tag, reserved;
		uint64_t len;
		std::memcpy(&tag, bytes + pos, 4);
		std::memcpy(&reserved, bytes + pos + 4, 4);
		std::memcpy(&len, bytes + pos + 8, 8);
		pos += 16;
		if (tag < 1 || tag > kTagCount)
			corrupt("unknown section tag " + std::to_string(tag));
		if (sections[tag].present)
			corrupt(std::string("duplicate ") + tag_name(tag) + " section");
		if (reserved != 0)
			corrupt(std::string(tag_name(tag)) + " section has a nonzero reserved field");
		uint64_t padded = len + (8 - len % 8) % 8;
		if (len > size - pos || padded > size - pos)
			corrupt(std::string(tag_name(tag)) + " section runs past the end");
		sections[tag] = {bytes + pos, len, true};
		for (uint64_t i = len; i < padded; i++)
			if (bytes[pos + i] != 0)
				corrupt(std::string(tag_name(tag)) + " section padding is not zero");
		pos += padded;
	}
	if (pos != size)
		corrupt(std::to_string(size - pos) + " bytes follow the last section");

	Index index;
	Graph &g = index.graph_;
	if (sections[kIds].bytes % 8 != 0)
		corrupt("vertex id section size is not a multiple of 8");
	size_t n = sections[kIds].bytes / 8;
	if (n >= UINT32_MAX)
		corrupt("too many vertices");
	g.ids = read_array<int64_t>(sections[kIds], kIds, n);
	for (size_t v = 1; v < n; v++)
		if (g.ids[v - 1] >= g.ids[v])
			corrupt("vertex ids are not strictly ascending at index " + std::to_string(v));
	g.out.offsets = read_array<eid_t>(sections[kOutOffsets], kOutOffsets, n + 1);
	if (sections[kOutTargets].bytes % 4 != 0)
		corrupt("graph target section size is not a multiple of 4");
	g.out.targets = read_array<vid_t>(sections[kOutTargets], kOutTargets, sections[kOutTargets].bytes / 4);
	check_csr(g.out, n, "graph");

	Components &comp = index.components_;
	comp.of_vertex = read_array<uint32_t>(sections[kComponentOf], kComponentOf, n);
	if (sections[kComponentSmallest].bytes % 4 != 0)
		corrupt("component section size is not a multiple of 4");
	size_t c = sections[kComponentSmallest].bytes / 4;
	if (c > n)
		corrupt("more components than vertices");
	comp.smallest_vertex = read_array<vid_t>(sections[kComponentSmallest], kComponentSmallest, c);
	{
		std::vector<vid_t> smallest(c, kNoVertex);
		for (size_t v = 0; v < n; v++) {
			if (comp.of_vertex[v] >= c)
				corrupt("vertex " + std::to_string(v) + " has component " + std::to_string(comp.of_vertex[v]) + " of " +
				        std::to_string(c));
			smallest[comp.of_vertex[v]] = std::min(smallest[comp.of_vertex[v]], vid_t(v));
		}
		if (smallest != comp.smallest_vertex)
			corrupt("component smallest vertices do not match the vertex components");
	}

	Csr &dag = index.dag_;
	dag.offsets = read_array<eid_t>(sections[kDagOffsets], kDagOffsets, c + 1);
	if (sections[kDagTargets].bytes % 4 != 0)
		corrupt("DAG target section size is not a multiple of 4");
	dag.targets = read_array<vid_t>(sections[kDagTargets], kDagTargets, sections[kDagTargets].bytes / 4);
	check_csr(dag, c, "DAG");
	for (size_t a = 0; a < c; a++)
		for (const vid_t *b = dag.begin(vid_t(a)); b != dag.end(vid_t(a)); b++)
			if (*b <= a)
				corrupt("DAG edge " + std::to_string(a) + "->" + std::to_string(*b) + " breaks topological order");
	// Every graph edge between components must be a DAG edge, or queries would miss paths.
	for (size_t v = 0; v < n; v++) {
		uint32_t cv = comp.of_vertex[v];
		for (const vid_t *w = g.out.begin(vid_t(v)); w != g.out.end(vid_t(v)); w++) {
			uint32_t cw = comp.of_vertex[*w];
			if (cw != cv && !std::binary_search(dag.begin(cv), dag.end(cv), cw))
				corrupt("graph edge " + std::to_string(v) + "->" + std::to_string(*w) + " has no DAG edge");
		}
	}

	std::vector<uint32_t> meta = read_array<uint32_t>(sections[kLabelMeta], kLabelMeta, 2);
	if (meta[0] < 1 || meta[0] > kMaxLabels || meta[1] != 0)
		corrupt("label header is invalid (" + std::to_string(meta[0]) + " labels)");
	unsigned d = meta[0];
	std::vector<uint32_t> data = read_array<uint32_t>(sections[kLabels], kLabels, c * (3 + 2 * size_t(d)));
	index.labels_ = GrailLabels::from_data(d, std::move(data));
	const GrailLabels &labels = index.labels_;
	for (size_t v = 0; v < c; v++) {
		const uint32_t *r = labels.record(vid_t(v));
		if (r[0] >= c || r[1] > r[0] || r[4] != r[0])
			corrupt("label record of component " + std::to_string(v) + " has an invalid tree interval");
		for (unsigned i = 0; i < d; i++)
			if (r[3 + 2 * i] > r[4 + 2 * i] || r[4 + 2 * i] >= c)
				corrupt("label " + std::to_string(i) + " of component " + std::to_string(v) + " is invalid");
	}
	std::string broken = inconsistent_label_edge(dag, labels);
	if (!broken.empty())
		corrupt("labels of DAG edge " + broken + " are inconsistent");

	std::vector<uint32_t> bloom_meta = read_array<uint32_t>(sections[kBloomMeta], kBloomMeta, 2);
	if (bloom_meta[0] != kBloomBits || bloom_meta[1] != 0)
		corrupt("Bloom header is invalid (" + std::to_string(bloom_meta[0]) + " bits)");
	index.bloom_ = BloomLabels::from_data(read_array<BloomRecord>(sections[kBloom], kBloom, c));
	// Subset order along every DAG edge implies it along every path, which is all a query relies on.
	const BloomLabels &bloom = index.bloom_;
	for (size_t a = 0; a < c; a++)
		for (const vid_t *b = dag.begin(vid_t(a)); b != dag.end(vid_t(a)); b++)
			if (!BloomLabels::may_reach(bloom.record(vid_t(a)), bloom.record(*b)))
				corrupt("Bloom labels of DAG edge " + std::to_string(a) + "->" + std::to_string(*b) +
				        " are inconsistent");

	index.build_hash();
	return index;
}

ReachabilityQuery::ReachabilityQuery(const Index &index) : index_(index) {
}

ReachabilityQuery::Verdict
ReachabilityQuery::decide(int64_t source, int64_t target, vid_t &ca, vid_t &cb) noexcept {
	last_ = Decided::same_component;
	if (source == target)
		return Verdict::yes;
	const Index::HashSlot *a = index_.lookup(source), *b = index_.lookup(target);
	if (!a || !b) {
		last_ = Decided::unknown_vertex;
		return Verdict::no;
	}
	ca = a->component;
	cb = b->component;
	if (ca == cb)
		return Verdict::yes;
	last_ = Decided::topological;
	if (ca > cb)
		return Verdict::no;
	const BloomLabels &bloom = index_.bloom();
	last_ = Decided::bloom;
	if (!BloomLabels::may_reach(bloom.record(ca), bloom.record(cb)))
		return Verdict::no;
	const GrailLabels &labels = index_.labels();
	const uint32_t *ra = labels.record(ca), *rb = labels.record(cb);
	last_ = Decided::level;
	if (ra[2] >= rb[2])
		return Verdict::no;
	last_ = Decided::labels;
	if (rb[3] < ra[3] || rb[4] > ra[4] || !labels.contains(ca, cb))
		return Verdict::no;
	last_ = Decided::tree_interval;
	if (rb[0] >= ra[1] && rb[0] <= ra[0])
		return Verdict::yes;
	last_ = Decided::search;
	return Verdict::search;
}

bool
ReachabilityQuery::reachable(int64_t source, int64_t target) {
	vid_t ca = 0, cb = 0;
	Verdict verdict = decide(source, target, ca, cb);
	return verdict == Verdict::search ? search(ca, cb) : verdict == Verdict::yes;
}

size_t
ReachabilityQuery::reachable_many(const int64_t *sources, const int64_t *targets, size_t count, bool *answers,
                                  const PairSearch &search_many, size_t min_searches) {
	std::vector<size_t> pending;
	std::vector<vid_t> from, to;
	for (size_t i = 0; i < count; i++) {
		if ((i & 0xFFFF) == 0xFFFF)
			poll_cancel();
		vid_t ca = 0, cb = 0;
		Verdict verdict = decide(sources[i], targets[i], ca, cb);
		answers[i] = verdict == Verdict::yes;
		if (verdict == Verdict::search) {
			pending.push_back(i);
			from.push_back(ca);
			to.push_back(cb);
		}
	}
	std::vector<uint8_t> reached;
	if (search_many && !pending.empty() && pending.size() >= min_searches && search_many(from, to, reached)) {
		if (reached.size() != pending.size())
			throw Error(ErrorKind::internal, "a batched reachability search answered the wrong number of pairs");
		for (size_t k = 0; k < pending.size(); k++)
			answers[pending[k]] = reached[k] != 0;
	} else {
		for (size_t k = 0; k < pending.size(); k++)
			answers[pending[k]] = search(from[k], to[k]);
	}
	return pending.size();
}

bool
ReachabilityQuery::search(vid_t from, vid_t to) {
	const Csr &dag = index_.dag();
	const GrailLabels &labels = index_.labels();
	if (visited_epoch_.size() != dag.vertex_count()) {
		visited_epoch_.assign(dag.vertex_count(), 0);
		epoch_ = 0;
	}
	if (++epoch_ == 0) {
		std::fill(visited_epoch_.begin(), visited_epoch_.end(), 0);
		epoch_ = 1;
	}
	const BloomLabels &bloom = index_.bloom();
	const BloomRecord &bt = bloom.record(to);
	const uint32_t *rt = labels.record(to);
	uint32_t to_post = rt[0], to_level = rt[2];
	stack_.clear();
	stack_.push_back(from);
	visited_epoch_[from] = epoch_;
	size_t steps = 0;
	while (!stack_.empty()) {
		vid_t v = stack_.back();
		stack_.pop_back();
		for (const vid_t *p = dag.begin(v); p != dag.end(v); p++) {
			if ((++steps & 0xFFFF) == 0)
				poll_cancel();
			vid_t c = *p;
			// Lists are ascending and components topologically numbered: the rest come after `to`.
			if (c >= to) {
				if (c == to)
					return true;
				break;
			}
			if (visited_epoch_[c] == epoch_)
				continue;
			visited_epoch_[c] = epoch_;
			if (!BloomLabels::may_reach(bloom.record(c), bt))
				continue;
			const uint32_t *rc = labels.record(c);
			if (rc[2] >= to_level || !labels.contains(c, to))
				continue;
			if (to_post >= rc[1] && to_post <= rc[0])
				return true;
			stack_.push_back(c);
		}
	}
	return false;
}

} // namespace grail
