// The persisted pg_grail index of one graph: vertex ids, the graph's CSR, its strongly
// connected components, the condensation DAG, GRAIL and Bloom-filter labels over it, an id table
// (direct where the ids are dense, a hash table otherwise) and, for text or uuid keys, their dictionary (keys.hpp).
// Built once per create/refresh into a flat image of versioned, checksummed sections (index_image.cpp), which is
// queried where it lies: an Index attached to an image borrows its arrays from it (array.hpp), so many readers can
// share one image.
#pragma once
#include "cpp_only.hpp"
#include "bfs.hpp"
#include "grail_labels.hpp"
#include "graph.hpp"
#include "keys.hpp"
#include "pruned_search.hpp"
#include "scc.hpp"

// xxHash header-only (nothing linked at run time): the id hash below is inlined where a query
// resolves an id.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <functional>
#include <memory>

namespace grail {

// What Index::build makes before the labels, when a hook makes it in one piece (e.g. on a GPU,
// from the raw rows): the graph, its components and the condensation DAG, exactly as the host's
// steps would make them (Graph::from_edges; components that keep the Components contract;
// condensation()), with the seconds each took.
struct BuiltGraph {
	Graph graph;
	Components components;
	Csr dag;
	double graph_seconds = 0;
	double scc_seconds = 0;
};

struct BuildOptions {
	unsigned labels = kDefaultLabels; // GRAIL traversals, 1..kMaxLabels
	// Reachability supports of the lookup labels (grail_labels.hpp), 0..kMaxSupports.
	unsigned supports = kMaxSupports;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	// The id hash table's seed: a random value from the host (PostgreSQL's pg_strong_random), so
	// that no one can prepare ids that collide; 0: one drawn here from the clock.
	uint64_t id_hash_seed = 0;
	// Dense integer ids get a direct id table (Index::IdSlot); false: the hash table whatever the
	// ids, as images before format 8 had (a delta of such an image made again, build_delta.hpp).
	bool direct_ids = true;
	// Refuse, with Error(limit_exceeded), a build whose estimated peak memory is larger; 0: no limit.
	uint64_t memory_limit_bytes = 0;
	// The caller makes the image whole after the build (a merge, for the image cache): counted in
	// the estimate (estimate_build_bytes).
	bool whole_image = false;
	// Helper threads beside the calling one for the steps that split; 0: none. One places the ids
	// in the hash table while the calling thread finds the components, then makes the lookup
	// records' backward order (it needs only the DAG) while the calling thread and the rest make
	// the labels: the GRAIL traversals at once, the two passes of the Bloom filters and sweeps. The
	// index is the same byte for byte whatever the number (parallel.hpp: helpers only compute, and
	// are joined before build returns or throws).
	unsigned threads = 0;
	// Of those, the helpers a label builder may run its traversals on.
	unsigned
	label_threads() const noexcept {
		return threads > 0 ? threads - 1 : 0;
	}
	// Computes the components, e.g. on a GPU; empty: the CPU Tarjan. It must keep the Components
	// contract (topological numbering, smallest vertex per component).
	std::function<Components(const Csr &)> components;
	// Computes the GRAIL labels of the condensation, e.g. on a GPU; empty: GrailLabels::build.
	// Any valid labels will do (every DAG edge's intervals nested, the record layout of GrailLabels).
	std::function<GrailLabels(const Csr &dag, unsigned labels, uint64_t seed)> label_builder;
	// Makes the graph, its components and the DAG from the rows in one piece (e.g. on a GPU) and
	// returns true, or returns false (edges untouched) to leave them to the host's steps (then
	// components is used). It may release the edges once it has what it needs. Text and uuid keys
	// come to it as their dictionary's numbers 0..keys-1 (numbered on the host while reading).
	std::function<bool(EdgeList &edges, BuiltGraph &built)> graph_builder;
};

// Peak host memory of a build, a conservative estimate: reading and mapping the rows (the edge
// list and the radix sort's buffers), or the index's own arrays and what storing them holds beside
// them: the whole image where the caller makes it (whole_image: a merge, which leaves it in the
// image cache), else the chunk rows of the stretches being compressed (at most two batches, about
// 70 MB, and never more than the image); with text or uuid keys, plus their dictionary (keys
// distinct keys of key_bytes bytes in all): the builder's copy and the sorted one, with about 100
// bytes per key of offsets, hash tables and sort entries. The arrays, as if every vertex were a
// component: 8 bytes an edge (its CSR and DAG targets) and, a vertex, 204 bytes (id, offsets and
// component; Bloom and lookup records; the hash table at its largest, 4 slots a vertex) and the
// labels' records (12 + 8 a label); 16 bytes an edge that several rows held.
// With rows_on_device (integer keys whose graph a device makes from the rows: graph_builder),
// reading holds only the rows, 16 bytes each, and up to a quarter more of room to grow
// (EdgeList::append grows by a quarter): the sort that maps ids to vertices runs on the device.
// (Measured: create_graph of a random DAG of 1M vertices and 5M edges, 5 labels, peaked at 293 MiB
// of anonymous memory in its backend; this says 354 MiB, and said 486 MiB when create_graph made
// the image whole.)
constexpr uint64_t
estimate_build_bytes(uint64_t rows, uint64_t vertices, uint64_t edges, uint64_t keys = 0, uint64_t key_bytes = 0,
                     bool rows_on_device = false, bool whole_image = false, unsigned labels = kMaxLabels) noexcept {
	uint64_t reading = (rows_on_device ? 20 : 80) * rows;
	uint64_t repeated = rows > edges ? rows - edges : 0;
	uint64_t arrays =
	    8 * edges + (204 + 12 + 8 * uint64_t(labels)) * vertices + 16 * (repeated < edges ? repeated : edges);
	uint64_t stored_rows = uint64_t(72) << 20;
	uint64_t indexing = arrays + (whole_image || arrays < stored_rows ? arrays : stored_rows);
	return (reading > indexing ? reading : indexing) + 2 * key_bytes + 100 * keys;
}

struct BuildStats {
	uint64_t input_edges = 0; // rows read, duplicates and self-loops included
	uint64_t vertices = 0;
	uint64_t edges = 0; // distinct edges u->v, u != v
	uint64_t components = 0;
	uint64_t dag_edges = 0;
	double graph_seconds = 0;  // ids and CSR
	double scc_seconds = 0;    // components and condensation
	double label_seconds = 0;  // GRAIL, Bloom and lookup labels
	double lookup_seconds = 0; // of which the lookup labels (choosing the supports, their sweeps), the id hash
};

// An index's image, serialize()'s bytes, as the pieces it is made of: the header and section
// table (checksum included), then the index's own arrays. A writer copies the image a stretch at a
// time (a few MB) instead of making it whole first: a 1M-vertex graph's image is hundreds of MB.
// It points into the index, which must outlive it unchanged. Bytes already whole (a merge's image,
// kept for the cache; a delta's bytes) are one piece (of()), so that a writer has one way to read.
class ImagePieces {
public:
	ImagePieces(ImagePieces &&) = default;
	ImagePieces &operator=(ImagePieces &&) = default;
	// size bytes at bytes as one piece; they must outlive it unchanged.
	static ImagePieces of(const uint8_t *bytes, size_t size);
	size_t
	size() const noexcept {
		return size_;
	}
	// Copies the image's bytes [offset, offset + n) to out; the range lies within size().
	void copy(size_t offset, size_t n, uint8_t *out) const noexcept;
	// The image's bytes [offset, offset + n) where they lie in one piece, else nullptr (then copy
	// them): most stretches of a large image are read where they are.
	const uint8_t *find(size_t offset, size_t n) const noexcept;

private:
	friend class Index;
	ImagePieces() = default;
	struct Piece {
		const uint8_t *data;
		uint64_t bytes;  // then zeros to its 64-byte boundary
		uint64_t offset; // in the image
	};
	std::vector<uint8_t> head_;                // the header and section table, with their padding
	std::vector<uint8_t> small_;               // the headers of sections (label, hash, key, lookup ...)
	std::vector<LookupRecord> ordered_lookup_; // a version 6 image's lookup records, given their order
	std::vector<Piece> pieces_;                // by offset
	size_t size_ = 0;
};

class Index {
public:
	// Consumes the edge list (its memory is released as soon as the CSR exists). With text or uuid
	// keys, the edges' ids are the keys' ranks (KeyDictionaryBuilder::finish): vertex v is key v and
	// id v, and an id that is no key's rank is Error(internal).
	static Index build(EdgeList edges, const BuildOptions &options, BuildStats *stats = nullptr,
	                   KeyDictionary keys = {});

	// The image (format version 8): a 64-byte header (magic "PGGRAIL\0", format version, section
	// count, payload bytes, 64-bit checksum of the payload), a table of sections {tag, offset,
	// bytes}, then the sections, each at a 64-byte boundary: vertex ids, CSR, components, DAG,
	// labels, Bloom labels, id table header {shift u32, kind u32, seed or first id u64} and table
	// (kind 1: a seeded hash table of HashSlot; kind 2, version 8: a direct table of IdSlot, one
	// per id from the first to the last), and the key dictionary (meta
	// {kind u32, hash shift u32, hash seed u64}, key offsets u64[n + 1], key bytes, key hash table; the last three
	// empty for integer keys), the edges several rows held (RepeatedEdge, by ascending place), and the
	// lookup labels (the supports u32[kMaxSupports], kNoVertex where unused; LookupRecord per component, with
	// the backward DFS order). A version 6 image (24-byte lookup records, no backward order) is read
	// by copying its records, and answers without the backward order; a version 7 image has a hash
	// table whatever its ids.
	std::vector<uint8_t> serialize() const;
	// The same image in pieces, for a writer that stores it a stretch at a time.
	ImagePieces image_pieces() const;
	// The image as format 7 wrote it, for a delta build that an earlier 0.7.0 merge stored
	// (build_delta.hpp): format 8's bytes but the version, of an index built without a direct id
	// table (BuildOptions::direct_ids false), which format 7 did not have; Error(internal) for one
	// with a direct table or another format.
	std::vector<uint8_t> serialize(uint32_t format) const;
	// How much of an image attach() checks, besides its header and section table: its checksum and
	// every structural invariant a query relies on (an image from the catalog), its checksum (an
	// image that was checked in full before, e.g. by the process that wrote it), or nothing more.
	// A failed check throws Error(corrupt_index) with a precise message; nothing is read out of
	// bounds whatever the bytes.
	enum class Check { full, checksum, header };
	// An Index over an image that lies at a 64-byte boundary (image_buffer() or a mapping gives
	// one), borrowing its arrays from the image, which it keeps alive. A version 2 image (0.3.0,
	// 0.4.0: integer keys, no dictionary) is read in place too; a version 1 image (0.1.0, 0.2.0) is
	// copied out instead.
	static Index attach(std::shared_ptr<const uint8_t> image, size_t size, Check check);
	// attach(Check::full) over a copy of bytes.
	static Index deserialize(const uint8_t *bytes, size_t size);
	// size bytes at a 64-byte boundary, for an image to be attached.
	static std::shared_ptr<uint8_t> image_buffer(size_t size);
	// The header's checksum of a payload (XXH64, seed 0).
	static uint64_t checksum(const uint8_t *bytes, size_t size) noexcept;
	static constexpr uint32_t kFormatVersion = 8;

	const Graph &
	graph() const noexcept {
		return graph_;
	}
	const Components &
	components() const noexcept {
		return components_;
	}
	const Csr &
	dag() const noexcept {
		return dag_;
	}
	const GrailLabels &
	labels() const noexcept {
		return labels_;
	}
	const BloomLabels &
	bloom() const noexcept {
		return bloom_;
	}
	// Back levels, supports and the backward DFS order (grail_labels.hpp); empty in an index read
	// from an image older than version 6, whose queries go without them (and without the order from
	// a version 6 image: LookupLabels::has_order()).
	const LookupLabels &
	lookup() const noexcept {
		return lookup_;
	}
	// Text or uuid keys: vertex v's key, and the vertex of a key (whose id is the vertex itself).
	const KeyDictionary &
	keys() const noexcept {
		return keys_;
	}

	// Dense index of a vertex id, or -1. O(1) expected: for integer keys a table indexed by the id
	// where the ids are dense, else an open-addressing hash table, a section of the image (built
	// when a version 1 image is read); for text or uuid keys the id is the vertex (no table).
	int64_t find(int64_t id) const noexcept;

	// Component id of a vertex id: the smallest vertex id of its SCC. An id that is not a
	// vertex is its own component.
	int64_t component_id(int64_t id) const noexcept;

	// The most slots a lookup of a vertex id walks in the id hash table (0 without one, as where the
	// ids are dense enough for a direct table): small whatever the ids, since the table is seeded
	// per build.
	size_t longest_probe() const noexcept;

	// The bytes of the index's arrays (those its image holds, without the image's padding): what
	// keeping it in memory costs where it owns them.
	size_t array_bytes() const noexcept;

private:
	friend class ReachabilityQuery;
	friend struct ImageReader;
	// The component rides in the slot: a query resolves an id to its component with one cache miss.
	struct HashSlot {
		int64_t id;
		vid_t vertex; // kNoVertex for an empty slot
		uint32_t component;
	};
	// Ids that span at most kDenseSpan times as many numbers as there are vertices (serial keys,
	// with gaps where rows went) are resolved by a table with a slot per number from the first id
	// to the last: no hash to compute, half the bytes of a slot, and never more slots' bytes than
	// the hash table it replaces (at least 2n slots of 16 bytes), so that more of it stays cached.
	struct IdSlot {
		vid_t vertex; // kNoVertex for a number that is no vertex's id
		uint32_t component;
	};
	static constexpr uint64_t kDenseSpan = 4;
	void build_hash(uint64_t seed, bool direct = true);
	// build_hash() in two steps: the ids' slots depend only on the ids and the seed (components
	// null: the slots' components are left for fill_hash_components()), so a build places them
	// while it finds the components.
	// With dense ids and direct, both make the direct table instead (the seed unused).
	void place_hash(uint64_t seed, const uint32_t *components, bool direct);
	void fill_hash_components();
	const HashSlot *lookup(int64_t id) const noexcept; // the hash table; nullptr when id is not a vertex
	// The direct table's slot of id, nullptr outside the span of the ids.
	const IdSlot *
	direct_slot(int64_t id) const noexcept {
		uint64_t k = uint64_t(id) - uint64_t(id_first_);
		return k < id_table_.size() ? &id_table_[k] : nullptr;
	}
	// The vertex and component of a vertex id; false when id is not a vertex. The per-row path.
	bool resolve(int64_t id, vid_t *vertex, uint32_t *component) const noexcept;
	// Asks the cache for the memory resolve(id) reads first (the id's home slot in the hash, or a
	// text or uuid vertex's component), so that a batch overlaps the misses of many ids.
	void prefetch_resolve(int64_t id) const noexcept;
	// A seeded hash, unless the table comes from an image older than version 5: those placed ids
	// by an unseeded Fibonacci hash, which crafted ids can make collide, and are read as written.
	size_t
	hash_slot(int64_t id) const noexcept {
		uint64_t h = hash_seeded_ ? XXH64(&id, sizeof id, hash_seed_) : uint64_t(id) * 0x9e3779b97f4a7c15ull;
		return size_t(h >> hash_shift_);
	}

	Graph graph_;
	Components components_;
	Csr dag_;
	GrailLabels labels_;
	BloomLabels bloom_;
	LookupLabels lookup_;
	Array<HashSlot> hash_;     // power-of-two capacity; empty where id_table_ is not
	unsigned hash_shift_ = 63; // 64 - log2(capacity)
	Array<IdSlot> id_table_;   // slot k: the vertex whose id is id_first_ + k
	int64_t id_first_ = 0;
	bool hash_seeded_ = true;
	uint64_t hash_seed_ = 0;
	KeyDictionary keys_;
};

// Answers reachable(a, b) from an Index. Holds the scratch space of the label-pruned search (a
// depth-first search by batches, reachability.cpp), for one search or several interleaved: one
// per thread. Its visit marks and vectors are kept, so that once searches have grown them,
// queries allocate nothing.
class ReachabilityQuery {
public:
	explicit ReachabilityQuery(const Index &index);

	// a reaches a; an id that is not a vertex reaches only itself.
	bool reachable(int64_t source, int64_t target);

	// The pairs of a batch that the labels leave to a search: the pair[k]-th, whose components are
	// from[k] < to[k].
	struct Undecided {
		std::vector<size_t> pair;
		std::vector<vid_t> from, to;
		size_t
		size() const noexcept {
			return pair.size();
		}
		// answers[pair[k]] = reached[k], what a batched search found; Error(internal) unless it
		// answered every pair.
		void answer(const std::vector<uint8_t> &reached, bool *answers) const;
	};
	// answers[i] = reachable(sources[i], targets[i]) where the ids, components and labels decide;
	// the other pairs (answers false) are listed in undecided, for a search. helpers: threads beside
	// the calling one that may take runs of the pairs (a batch of kFewestItemsToSplit pairs or
	// more), each with a query of its own that this one keeps; the same answers and the same
	// undecided list, in order.
	void decide_many(const int64_t *sources, const int64_t *targets, size_t count, bool *answers, Undecided &undecided,
	                 unsigned helpers = 0);
	// Answers the undecided pairs, each by the pruned search; with helpers, those threads take
	// runs of the pairs as the calling one does (where there are enough searches to pay for them).
	void search_each(const Undecided &undecided, bool *answers, unsigned helpers = 0);

	// Searches many component pairs (from[i] < to[i], undecided by the labels) at once, e.g. on a
	// GPU: reached[i] = whether from[i] reaches to[i]. Returns false, reached untouched, to leave
	// them to the CPU's DFS after all.
	using PairSearch = std::function<bool(const std::vector<vid_t> &from, const std::vector<vid_t> &to,
	                                      std::vector<uint8_t> &reached)>;
	// answers[i] = reachable(sources[i], targets[i]): decide_many(), then the undecided pairs go to
	// search_many when it is given and there are at least min_searches of them, else (or when it
	// declines) to search_each(). Returns how many pairs needed a search.
	size_t reachable_many(const int64_t *sources, const int64_t *targets, size_t count, bool *answers,
	                      const PairSearch &search_many = {}, size_t min_searches = 0, unsigned helpers = 0);

	// How the last call was decided, for the benchmark's filter statistics (unknown_vertex: an
	// id that is not a vertex, compared with a different id; bloom: the Bloom-filter labels;
	// interval_end: pruning::end_holds; back_level, supports, back_order: LookupLabels).
	enum class Decided {
		same_component,
		topological,
		level,
		labels,
		tree_interval,
		search,
		unknown_vertex,
		bloom,
		interval_end,
		back_level,
		supports,
		back_order
	};
	static constexpr int kDecidedCount = int(Decided::back_order) + 1;
	Decided
	last_decision() const noexcept {
		return last_;
	}

	// Whether component ca reaches component cb (components of this index).
	bool reachable_components(vid_t ca, vid_t cb);

	// The bytes this query keeps for its searches between calls (its visit marks, its slots'
	// vectors) and its helper threads' queries keep for theirs: what a caller that bounds a
	// process's memory counts (the glue: grail.backend_memory_limit).
	size_t scratch_bytes() const noexcept;
	// Frees all of it (the helpers' queries too); the next search makes it again.
	void release_scratch() noexcept;

	// Components the most recent search visited (kept until the next search), for the benchmark.
	uint64_t
	last_search_visits() const noexcept {
		return visits_;
	}

private:
	enum class Verdict { no, yes, search };
	// What the ids, components and labels alone say; ca, cb receive the components of a search.
	Verdict decide(int64_t source, int64_t target, vid_t &ca, vid_t &cb) noexcept;
	// decide()'s first part: the ids to their components, and what they alone say (same id, an
	// unknown id, the same component, the topological order); Verdict::search where the labels of
	// components ca < cb must decide (decide_labels()).
	Verdict decide_ids(int64_t source, int64_t target, vid_t &ca, vid_t &cb) noexcept;
	// decide()'s second part, for components ca < cb: the lookup records, the GRAIL records, the
	// Bloom records.
	Verdict decide_labels(vid_t ca, vid_t cb) noexcept;
	// Asks the cache for the lookup and GRAIL records of component c, which decide_labels() reads.
	void prefetch_labels(vid_t c) const noexcept;
	// The rule of the search at component u about target v (u < v): pruning::step()'s tests, the
	// GRAIL record first, its interval containment and end test in one pass, the Bloom record
	// last. Answers as pruning::step() does.
	pruning::Step rule(vid_t u, vid_t v) const noexcept;

	// A search in progress, advanced one phase at a time by search_step(): its batch's successor
	// lists asked for, then the lists read and their components' records asked for, then those
	// components judged. Between phases the memory they asked for is on its way, while the thread
	// advances other searches (search_range()).
	struct SearchSlot {
		enum class Phase : uint8_t { take, scan, judge };
		vid_t from = 0, to = 0;
		size_t item = 0; // which of the caller's searches
		Phase phase = Phase::take;
		uint64_t visits = 0;
		// The stack, the batch taken off it, the batch's successors to judge, and the components
		// this slot's search marked (in marks_, bit `slot` of the slot's index).
		std::vector<uint32_t> stack, batch, successors, marked;
	};
	enum class Progress { searching, reached, exhausted };
	// Starts slot k's next search (its previous one's marks taken back).
	void start_search(size_t k, vid_t from, vid_t to);
	// alone: no other search runs interleaved with this one (search()), so that nothing else hides
	// its misses: each level then asks for its successors' offsets with their records, and the next
	// batch is the highest of what this one pushed (reachability.cpp says why not otherwise).
	Progress search_step(size_t k, bool alone);
	bool search(vid_t from, vid_t to);
	// Answers the undecided pairs begin .. end - 1 (answers[pair[k]]), several searches at a time.
	void search_range(const Undecided &undecided, size_t begin, size_t end, bool *answers);
	// The query of helper thread k (1 ..), made the first time a batch asks for it and kept.
	ReachabilityQuery &helper(unsigned k);

	const Index &index_;
	// The searches that search_range() interleaves (search() uses the first) and their marks: kept
	// between batches.
	std::vector<SearchSlot> slots_;
	SearchMarks marks_;
	uint64_t steps_ = 0; // searches started and successors judged, for polling for a cancel
	uint64_t visits_ = 0;
	Decided last_ = Decided::same_component;
	// Each helper thread's query: its own visit marks and stack, kept as this query keeps its own.
	std::vector<std::unique_ptr<ReachabilityQuery>> helpers_;
};

} // namespace grail
