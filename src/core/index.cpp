// Building an index: the pipeline from an edge list (ids and CSR, components and condensation,
// GRAIL and Bloom labels, the id hash table, the key dictionary), and looking ids up in it.
#include "index.hpp"
#include "clock.hpp"
#include "error.hpp"
#include "parallel.hpp"

#include <algorithm>
#include <string>

namespace grail {

namespace {

// The graph of edges between keys' ranks: vertex v is id v, key v. The ids are dense already, so
// this skips the sort that maps integer ids to vertices.
Graph
keyed_graph(const EdgeList &edges, size_t keys, unsigned helpers) {
	std::vector<vid_t> source(edges.size()), target(edges.size());
	for (size_t e = 0; e < edges.size(); e++) {
		if (e % 4096 == 0)
			poll_cancel();
		if (uint64_t(edges.source[e]) >= keys || uint64_t(edges.target[e]) >= keys)
			throw Error(ErrorKind::internal,
			            "edge " + std::to_string(e) + " names no key of the dictionary's " + std::to_string(keys));
		source[e] = vid_t(edges.source[e]);
		target[e] = vid_t(edges.target[e]);
	}
	Graph g;
	g.ids.resize(keys);
	for (size_t v = 0; v < keys; v++)
		g.ids[v] = int64_t(v);
	std::vector<RepeatedEdge> repeated;
	g.out = Csr::from_pairs(keys, source, target, true, &repeated, helpers);
	g.repeated.assign(repeated.begin(), repeated.end());
	return g;
}

} // namespace

Index
Index::build(EdgeList edges, const BuildOptions &options, BuildStats *stats, KeyDictionary keys) {
	if (options.labels < 1 || options.labels > kMaxLabels)
		throw Error(ErrorKind::invalid_input, "the number of GRAIL labels must be between 1 and 16");
	if (options.supports > kMaxSupports)
		throw Error(ErrorKind::invalid_input, "the number of reachability supports must be between 0 and 64");
	BuildStats local;
	BuildStats &st = stats ? *stats : local;
	st = BuildStats{};
	st.input_edges = edges.size();
	Index index;

	double start = now_ms();
	BuiltGraph built;
	bool on_device = options.graph_builder && options.graph_builder(edges, built);
	if (on_device) {
		// Checked rather than trusted, as cheaply as the shapes allow: a wrong graph answers wrongly.
		// Read through a const view: the parts may borrow their arrays (a GPU service's answer where
		// it lies), and a borrowed array takes no write access.
		const BuiltGraph &parts = built;
		const Array<int64_t> &ids = parts.graph.ids;
		size_t n = ids.size();
		if (parts.graph.out.vertex_count() != n || parts.components.of_vertex.size() != n ||
		    parts.dag.vertex_count() != parts.components.count() || (parts.components.count() == 0) != (n == 0) ||
		    !std::is_sorted(ids.begin(), ids.end()))
			throw Error(ErrorKind::internal, "the graph builder returned parts of the wrong shape");
		// Keyed graphs: the rows hold key numbers 0..keys-1, each an endpoint of some row (a row with
		// a NULL endpoint adds no key), so the builder's vertices, the distinct ids in order, must be
		// exactly those numbers: vertex v is key v, as keyed_graph() makes it.
		if (keys.kind() != KeyKind::integer && (n != keys.size() || (n > 0 && ids[n - 1] != int64_t(n - 1))))
			throw Error(ErrorKind::internal, "the graph builder's vertices are not the dictionary's " +
			                                     std::to_string(keys.size()) + " keys");
		index.graph_ = std::move(built.graph);
		st.graph_seconds = built.graph_seconds;
	} else {
		// The rows may have been read for the device under a limit that the host's steps exceed.
		uint64_t reading = estimate_build_bytes(st.input_edges, 0, 0);
		if (options.memory_limit_bytes != 0 && reading > options.memory_limit_bytes)
			throw Error(ErrorKind::limit_exceeded,
			            "building this index on the CPU needs about " + std::to_string(reading >> 20) + " MB for its " +
			                std::to_string(st.input_edges) + " rows, more than the limit of " +
			                std::to_string(options.memory_limit_bytes >> 20) + " MB");
		index.graph_ = keys.kind() == KeyKind::integer ? Graph::from_edges(edges, options.threads)
		                                               : keyed_graph(edges, keys.size(), options.threads);
		st.graph_seconds = ms_since(start) / 1e3;
	}
	edges = EdgeList{}; // release the raw edges before the next phases allocate
	st.vertices = index.graph_.vertex_count();
	st.edges = index.graph_.out.edge_count();
	index.keys_ = std::move(keys);
	uint64_t needed = estimate_build_bytes(st.input_edges, st.vertices, st.edges, index.keys_.size(),
	                                       index.keys_.bytes().size(), on_device, options.whole_image, options.labels);
	if (options.memory_limit_bytes != 0 && needed > options.memory_limit_bytes)
		throw Error(ErrorKind::limit_exceeded, "building this index needs about " + std::to_string(needed >> 20) +
		                                           " MB (" + std::to_string(st.vertices) + " vertices, " +
		                                           std::to_string(st.edges) + " edges), more than the limit of " +
		                                           std::to_string(options.memory_limit_bytes >> 20) + " MB");

	// The id table's slots (direct or hashed) depend only on the ids: with helpers, placed on one while this thread
	// finds the components (their numbers fill the slots after); without, made after the labels,
	// when their scratch is gone (keyed graphs need no hash table: a vertex's id is the vertex,
	// keys.hpp, found by its key). Declared after the index, so that a throw joins it before the
	// index goes.
	bool hashed = index.keys_.kind() == KeyKind::integer;
	uint64_t hash_seed = options.id_hash_seed != 0 ? options.id_hash_seed : fresh_seed(&index);
	bool beside = options.threads > 0;
	Background placing;
	if (hashed && beside)
		placing.start(true,
		              [&index, hash_seed, &options] { index.place_hash(hash_seed, nullptr, options.direct_ids); });

	start = now_ms();
	if (on_device) {
		index.components_ = std::move(built.components);
		index.dag_ = std::move(built.dag);
		st.scc_seconds = built.scc_seconds;
	} else {
		index.components_ =
		    options.components ? options.components(index.graph_.out) : strongly_connected_components(index.graph_.out);
		index.dag_ = condensation(index.graph_.out, index.components_, options.threads);
		st.scc_seconds = ms_since(start) / 1e3;
	}
	st.components = index.components_.count();
	st.dag_edges = index.dag_.edge_count();
	if (hashed && beside) {
		placing.wait();
		index.fill_hash_components();
	}

	// The lookup records' backward order needs only the DAG: with helpers, made on one while this
	// thread and the rest make the labels; without, by LookupLabels::build. Declared after the
	// order, so that a throw joins it before the order goes.
	LookupLabels::BackwardOrder backward;
	Background ordering;
	if (beside)
		ordering.start(true, [&index, &backward] { backward = LookupLabels::backward_order(index.dag_); });

	start = now_ms();
	if (options.label_builder) {
		index.labels_ = options.label_builder(index.dag_, options.labels, options.seed);
		// Checked rather than trusted: a wrong label would give a wrong "no" to every query it covers.
		// Labels that GrailLabels::build made (a builder that chose the host) are exact by
		// construction: their checks, two more passes over the DAG per traversal, are skipped.
		const GrailLabels &labels = index.labels_;
		if (labels.label_count() != options.labels || labels.data().size() != st.components * labels.record_width())
			throw Error(ErrorKind::internal, "the label builder returned labels of the wrong shape");
		if (!labels.built_here()) {
			std::string broken = labels.first_inconsistent_edge(index.dag_);
			if (!broken.empty())
				throw Error(ErrorKind::internal, "the label builder returned invalid labels at DAG edge " + broken);
			broken = labels.first_inexact_label(index.dag_);
			if (!broken.empty())
				throw Error(ErrorKind::internal, "the label builder returned inexact labels: " + broken);
		}
	} else {
		index.labels_ = GrailLabels::build(index.dag_, options.labels, options.seed, options.label_threads());
	}
	{
		std::vector<uint32_t> post(st.components);
		for (size_t v = 0; v < post.size(); v++)
			post[v] = index.labels_.record(vid_t(v))[0];
		index.bloom_ = BloomLabels::build(index.dag_, post, options.label_threads() > 0);
	}
	st.label_seconds = ms_since(start) / 1e3;
	start = now_ms();
	{
		const GrailLabels &labels = index.labels_;
		const BloomLabels &bloom = index.bloom_;
		unsigned d = labels.label_count();
		auto decided = [&](vid_t u, vid_t v) {
			return pruning::step(bloom.record(u), labels.record(u), bloom.record(v), labels.record(v), d) !=
			       pruning::Step::expand;
		};
		index.lookup_ = LookupLabels::build(index.dag_, options.supports, {}, decided, options.seed, !beside,
		                                    options.label_threads() > 0);
	}
	st.lookup_seconds = ms_since(start) / 1e3;
	st.label_seconds += st.lookup_seconds;

	// (The hash counts with the lookup labels: what a lookup needs beside the labels.)
	start = now_ms();
	if (beside) {
		ordering.wait();
		index.lookup_.set_order(backward);
	} else if (hashed) {
		index.build_hash(hash_seed, options.direct_ids);
	}
	st.lookup_seconds += ms_since(start) / 1e3;
	st.label_seconds += ms_since(start) / 1e3;
	return index;
}

// (The components are read through const views: they may be borrowed, a build's parts where the GPU
// service's answer lies, and a borrowed array takes no write access.)
void
Index::build_hash(uint64_t seed, bool direct) {
	const Array<uint32_t> &of_vertex = components_.of_vertex;
	place_hash(seed, of_vertex.data(), direct);
}

void
Index::fill_hash_components() {
	const Array<uint32_t> &components = components_.of_vertex;
	const uint32_t *of_vertex = components.data();
	if (!id_table_.empty()) {
		const Array<int64_t> &ids = graph_.ids;
		for (size_t v = 0; v < ids.size(); v++) {
			if (v % 65536 == 0)
				poll_cancel();
			id_table_[uint64_t(ids[v]) - uint64_t(id_first_)].component = of_vertex[v];
		}
		return;
	}
	for (size_t slot = 0; slot < hash_.size(); slot++) {
		if (slot % 65536 == 0)
			poll_cancel();
		vid_t v = hash_[slot].vertex;
		if (v != kNoVertex)
			hash_[slot].component = of_vertex[v];
	}
}

void
Index::place_hash(uint64_t seed, const uint32_t *components, bool direct) {
	size_t n = graph_.ids.size();
	hash_.clear();
	id_table_.clear();
	id_first_ = 0;
	hash_seeded_ = true;
	hash_seed_ = seed;
	if (n == 0)
		return;
	// Read through const views: the arrays may be borrowed (a build's parts where the GPU service's
	// answer lies), and a borrowed array takes no write access.
	const Array<int64_t> &ids = graph_.ids;
	// (Ascending ids: the span is the last less the first, taken unsigned so that it cannot overflow.)
	uint64_t span = uint64_t(ids[n - 1]) - uint64_t(ids[0]) + 1;
	if (direct && span != 0 && span <= kDenseSpan * n) {
		id_first_ = ids[0];
		hash_shift_ = 0;
		id_table_.assign(span, IdSlot{kNoVertex, 0});
		for (size_t v = 0; v < n; v++) {
			if (v % 65536 == 0)
				poll_cancel();
			id_table_[uint64_t(ids[v]) - uint64_t(id_first_)] = {vid_t(v), components != nullptr ? components[v] : 0};
		}
		return;
	}
	unsigned bits = 1;
	while ((size_t(1) << bits) < 2 * n)
		bits++;
	hash_shift_ = 64 - bits;
	hash_.assign(size_t(1) << bits, HashSlot{0, kNoVertex, 0});
	size_t mask = hash_.size() - 1;
	for (size_t v = 0; v < n; v++) {
		if (v % 4096 == 0)
			poll_cancel();
		size_t slot = hash_slot(ids[v]);
		while (hash_[slot].vertex != kNoVertex)
			slot = (slot + 1) & mask;
		hash_[slot] = {ids[v], vid_t(v), components != nullptr ? components[v] : 0};
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

bool
Index::resolve(int64_t id, vid_t *vertex, uint32_t *component) const noexcept {
	if (keys_.kind() != KeyKind::integer) {
		if (id < 0 || uint64_t(id) >= graph_.ids.size())
			return false;
		*vertex = vid_t(id);
		*component = components_.of_vertex[size_t(id)];
		return true;
	}
	if (!id_table_.empty()) {
		const IdSlot *d = direct_slot(id);
		if (d == nullptr || d->vertex == kNoVertex)
			return false;
		*vertex = d->vertex;
		*component = d->component;
		return true;
	}
	const HashSlot *s = lookup(id);
	if (s == nullptr)
		return false;
	*vertex = s->vertex;
	*component = s->component;
	return true;
}

void
Index::prefetch_resolve(int64_t id) const noexcept {
	if (keys_.kind() != KeyKind::integer) {
		if (id >= 0 && uint64_t(id) < graph_.ids.size())
			__builtin_prefetch(&components_.of_vertex[size_t(id)]);
	} else if (!id_table_.empty()) {
		if (const IdSlot *d = direct_slot(id))
			__builtin_prefetch(d);
	} else if (!hash_.empty()) {
		__builtin_prefetch(&hash_[hash_slot(id)]);
	}
}

int64_t
Index::find(int64_t id) const noexcept {
	vid_t vertex;
	uint32_t component;
	return resolve(id, &vertex, &component) ? int64_t(vertex) : -1;
}

size_t
Index::longest_probe() const noexcept {
	size_t longest = 0, mask = hash_.size() - 1;
	for (size_t slot = 0; slot < hash_.size(); slot++) {
		if (hash_[slot].vertex == kNoVertex)
			continue;
		size_t walked = ((slot - hash_slot(hash_[slot].id)) & mask) + 1;
		longest = std::max(longest, walked);
	}
	return longest;
}

int64_t
Index::component_id(int64_t id) const noexcept {
	int64_t v = find(id);
	if (v < 0)
		return id;
	return graph_.ids[components_.smallest_vertex[components_.of_vertex[size_t(v)]]];
}

size_t
Index::array_bytes() const noexcept {
	auto bytes = [](const auto &array) { return array.size() * sizeof(array[0]); };
	return bytes(graph_.ids) + bytes(graph_.out.offsets) + bytes(graph_.out.targets) + bytes(graph_.repeated) +
	       bytes(components_.of_vertex) + bytes(components_.smallest_vertex) + bytes(dag_.offsets) +
	       bytes(dag_.targets) + bytes(labels_.data()) + bytes(bloom_.data()) + bytes(hash_) + bytes(id_table_) +
	       bytes(keys_.offsets()) + bytes(keys_.bytes()) + bytes(keys_.hash()) + bytes(lookup_.records());
}

} // namespace grail
