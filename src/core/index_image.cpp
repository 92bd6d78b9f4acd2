// The flat index image: format, writer, reader and validation (see index.hpp).
//
// Version 8 (0.7.0) is version 7 where the id table may be direct: its header's second field is a
// kind (0: an unseeded hash table, 1: a seeded one, 2: a direct table), and a direct table is an
// Index::IdSlot for each number from the first vertex id (in the header's last field) to the last,
// made where the ids span at most Index::kDenseSpan numbers a vertex. Older images are read as
// they were, with a hash table whatever their ids.
// Version 7 (0.7.0) is version 6 with 32-byte lookup records (LookupRecord, grail_labels.hpp):
// the 24 bytes of version 6 (its last four bytes reserved, 0) and the backward DFS order,
// {back_post, back_first, back_lo} u32. A version 6 image is read by copying its records into
// that layout with order fields that decide nothing (LookupLabels::kNoOrder*): its queries go
// without the backward order; written again, it gets one.
// Version 6 (0.7.0) is version 5 with two last sections: the lookup labels' supports
// (u32[kMaxSupports], kNoVertex where unused) and a LookupRecord per component (grail_labels.hpp).
// Older images are read without them: their queries go without back levels and supports.
// Version 5 (0.7.0 before version 6) is version 4 with a seeded id hash table: its header is {shift u32, seeded
// u32, seed u64}, and ids are placed by XXH64 of the id with that seed, so that no one can
// prepare ids that collide. Older versions placed them by an unseeded Fibonacci hash; their
// tables are still read as they are (seeded 0).
// Version 4 (0.5.0) is version 3 with a last section, the edges that several rows held
// ({edge u64, rows u64}, by ascending edge; the one entry {2^64 - 1, 0} where that is unknown). Version 3 (0.4.0) is
// read in place: a 64-byte header, a table of sections, then each section at a 64-byte-aligned offset, so that an Index
// can borrow its arrays from wherever the image lies (one buffer, a file mapped by many processes) instead of copying
// them out, and the hash tables (ids; keys) are sections rather than rebuilt by every reader. Its
// last four sections are the key dictionary: {kind u32, hash shift u32, hash seed u64}, key
// offsets u64[n + 1], key bytes, the key hash table of KeyDictionary::Slot (the last three empty
// for integer keys). Version 2 (0.3.0, 0.4.0) is version 3 without the dictionary: read in place
// as integer keys. Version 1 (0.1.0, 0.2.0) had 8-byte alignment and no hash table: it is still
// read, by copying, and builds its hash.
#include "index.hpp"
#include "error.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the index format is little-endian");

namespace grail {

namespace {

constexpr char kMagic[8] = {'P', 'G', 'G', 'R', 'A', 'I', 'L', '\0'};
constexpr size_t kHeaderV1 = 32;
constexpr size_t kHeaderV2 = 64;
constexpr size_t kAlign = 64;      // of every version 2 section: a Bloom record's alignment
constexpr size_t kTableEntry = 24; // {tag u32, reserved u32, offset u64, bytes u64}
// The repeated-edges section of an index read from an image older than version 4, which did not
// count rows: rewritten, it still says it does not know.
constexpr RepeatedEdge kRowsUnknown = {UINT64_MAX, 0};

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
	kTagCountV1 = kBloom,
	kHashMeta, // version 2: {hash shift u32, 0 u32}; version 5: HashMeta
	kHash,     // version 2: the open-addressing table of Index::HashSlot; version 8: or Index::IdSlot
	kTagCountV2 = kHash,
	kKeyMeta,    // version 3: KeyMeta
	kKeyOffsets, // version 3: u64[n + 1], or none for integer keys
	kKeyBytes,   // version 3
	kKeyHash,    // version 3: the open-addressing table of KeyDictionary::Slot
	kTagCountV3 = kKeyHash,
	kRepeatedEdges, // version 4: RepeatedEdge, by ascending edge
	kTagCountV5 = kRepeatedEdges,
	kLookupMeta, // version 6: the supports, u32[kMaxSupports], kNoVertex where unused
	kLookup,     // version 6: LookupRecordV6 per component; version 7: LookupRecord
	kTagCount = kLookup,
};

struct HashMeta {
	uint32_t shift; // 0 for a direct table
	uint32_t kind;
	uint64_t seed; // a direct table's first id
};
enum HashKind : uint32_t {
	kUnseededHash = 0, // an older image's table: slots by an unseeded Fibonacci hash
	kSeededHash = 1,   // slots by XXH64 of the id with seed
	kDirectTable = 2,  // version 8: slot k for id seed + k
};

struct KeyMeta {
	uint32_t kind;
	uint32_t hash_shift;
	uint64_t seed;
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
	                              "Bloom labels",
	                              "hash header",
	                              "id hash table",
	                              "key header",
	                              "key offsets",
	                              "key bytes",
	                              "key hash table",
	                              "repeated edges",
	                              "lookup header",
	                              "lookup labels"};
	return tag <= kTagCount ? names[tag] : "unknown";
}

} // namespace

uint64_t
Index::checksum(const uint8_t *p, size_t len) noexcept {
	return XXH64(p, len, 0);
}

namespace {

[[noreturn]] void
corrupt(const std::string &what) {
	throw Error(ErrorKind::corrupt_index, "corrupt pg_grail index: " + what, "Rebuild the index from its edge table.");
}

size_t
aligned(size_t n) {
	return (n + kAlign - 1) / kAlign * kAlign;
}

struct Section {
	const uint8_t *data = nullptr;
	uint64_t bytes = 0;
	bool present = false;
};

// count elements of a section: borrowed from the image when it may be (version 2), else copied.
template <typename T>
Array<T>
section_array(const Section &s, uint32_t tag, uint64_t count, const std::shared_ptr<const void> &keep) {
	if (s.bytes % sizeof(T) != 0 || s.bytes / sizeof(T) != count)
		corrupt(std::string(tag_name(tag)) + " section has " + std::to_string(s.bytes) + " bytes, expected " +
		        std::to_string(count * sizeof(T)));
	if (keep)
		return Array<T>::borrow(reinterpret_cast<const T *>(s.data), count, keep);
	std::vector<T> v(count);
	if (count)
		std::memcpy(static_cast<void *>(v.data()), s.data, s.bytes);
	return v;
}

uint64_t
count_of(const Section &s, size_t element, uint32_t tag) {
	if (s.bytes % element != 0)
		corrupt(std::string(tag_name(tag)) + " section size is not a multiple of " + std::to_string(element));
	return s.bytes / element;
}

// Offsets start at 0, never decrease and end at the edge count; targets are < n, each list
// strictly ascending, without self-loops.
void
check_csr(const Csr &csr, size_t n, const char *what) {
	if (csr.offsets.size() != n + 1 || csr.offsets[0] != 0 || csr.offsets[n] != csr.targets.size())
		corrupt(std::string(what) + " offsets do not span the target array");
	for (size_t v = 0; v < n; v++) {
		if (v % 4096 == 0)
			poll_cancel();
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

// Version 1: sections follow the header, each {tag, reserved, bytes} and its bytes padded to 8.
void
read_sections_v1(const uint8_t *bytes, size_t size, uint32_t section_count, Section *sections) {
	if (section_count != kTagCountV1)
		corrupt("has " + std::to_string(section_count) + " sections, expected " + std::to_string(kTagCountV1));
	size_t pos = kHeaderV1;
	for (uint32_t k = 0; k < section_count; k++) {
		if (size - pos < 16)
			corrupt("section " + std::to_string(k) + " header is truncated");
		uint32_t tag, reserved;
		uint64_t len;
		std::memcpy(&tag, bytes + pos, 4);
		std::memcpy(&reserved, bytes + pos + 4, 4);
		std::memcpy(&len, bytes + pos + 8, 8);
		pos += 16;
		if (tag < 1 || tag > kTagCountV1)
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
}

// Versions 2 and 3: a table of {tag, reserved, offset, bytes} after the header; sections in tag
// order at 64-byte-aligned offsets, zeros between them.
void
read_sections(const uint8_t *bytes, size_t size, uint32_t section_count, uint32_t expected, Section *sections) {
	if (section_count != expected)
		corrupt("has " + std::to_string(section_count) + " sections, expected " + std::to_string(expected));
	size_t table_end = aligned(kHeaderV2 + kTableEntry * section_count);
	if (size < table_end)
		corrupt("section table is truncated");
	size_t pos = table_end;
	for (uint32_t k = 0; k < section_count; k++) {
		const uint8_t *entry = bytes + kHeaderV2 + kTableEntry * k;
		uint32_t tag, reserved;
		uint64_t offset, len;
		std::memcpy(&tag, entry, 4);
		std::memcpy(&reserved, entry + 4, 4);
		std::memcpy(&offset, entry + 8, 8);
		std::memcpy(&len, entry + 16, 8);
		if (tag != k + 1)
			corrupt("section " + std::to_string(k) + " has tag " + std::to_string(tag));
		if (reserved != 0)
			corrupt(std::string(tag_name(tag)) + " section has a nonzero reserved field");
		if (offset != pos)
			corrupt(std::string(tag_name(tag)) + " section is at " + std::to_string(offset) + ", expected " +
			        std::to_string(pos));
		if (len > size - pos || aligned(len) > size - pos)
			corrupt(std::string(tag_name(tag)) + " section runs past the end");
		sections[tag] = {bytes + pos, len, true};
		pos += aligned(len);
	}
	if (pos != size)
		corrupt(std::to_string(size - pos) + " bytes follow the last section");
}

} // namespace

// Builds an Index from the sections of an image: borrowing its arrays when keep holds the image
// (version 2), copying them otherwise. verify: every structural invariant a query relies on,
// so that a damaged image is refused with a precise message rather than read out of bounds.
struct ImageReader {
	static Index
	assemble(const Section *sections, uint32_t version, const std::shared_ptr<const void> &keep, bool verify) {
		Index index;
		Graph &g = index.graph_;
		size_t n = count_of(sections[kIds], 8, kIds);
		if (n >= UINT32_MAX)
			corrupt("too many vertices");
		g.ids = section_array<int64_t>(sections[kIds], kIds, n, keep);
		g.out.offsets = section_array<eid_t>(sections[kOutOffsets], kOutOffsets, n + 1, keep);
		g.out.targets = section_array<vid_t>(sections[kOutTargets], kOutTargets,
		                                     count_of(sections[kOutTargets], 4, kOutTargets), keep);
		Components &comp = index.components_;
		comp.of_vertex = section_array<uint32_t>(sections[kComponentOf], kComponentOf, n, keep);
		size_t c = count_of(sections[kComponentSmallest], 4, kComponentSmallest);
		if (c > n)
			corrupt("more components than vertices");
		comp.smallest_vertex = section_array<vid_t>(sections[kComponentSmallest], kComponentSmallest, c, keep);
		Csr &dag = index.dag_;
		dag.offsets = section_array<eid_t>(sections[kDagOffsets], kDagOffsets, c + 1, keep);
		dag.targets = section_array<vid_t>(sections[kDagTargets], kDagTargets,
		                                   count_of(sections[kDagTargets], 4, kDagTargets), keep);
		Array<uint32_t> meta = section_array<uint32_t>(sections[kLabelMeta], kLabelMeta, 2, nullptr);
		if (meta[0] < 1 || meta[0] > kMaxLabels || meta[1] != 0)
			corrupt("label header is invalid (" + std::to_string(meta[0]) + " labels)");
		unsigned d = meta[0];
		index.labels_ = GrailLabels::from_data(
		    d, section_array<uint32_t>(sections[kLabels], kLabels, c * (3 + 2 * size_t(d)), keep));
		Array<uint32_t> bloom_meta = section_array<uint32_t>(sections[kBloomMeta], kBloomMeta, 2, nullptr);
		if (bloom_meta[0] != kBloomBits || bloom_meta[1] != 0)
			corrupt("Bloom header is invalid (" + std::to_string(bloom_meta[0]) + " bits)");
		index.bloom_ = BloomLabels::from_data(section_array<BloomRecord>(sections[kBloom], kBloom, c, keep));
		bool direct = false;
		if (version >= 5) {
			HashMeta hash_meta = section_array<HashMeta>(sections[kHashMeta], kHashMeta, 1, nullptr)[0];
			direct = hash_meta.kind == kDirectTable;
			if (hash_meta.kind > (version >= 8 ? kDirectTable : kSeededHash) ||
			    (hash_meta.kind == kUnseededHash && hash_meta.seed != 0) || (direct && hash_meta.shift != 0))
				corrupt("id hash header is invalid (kind " + std::to_string(hash_meta.kind) + ")");
			index.hash_shift_ = hash_meta.shift;
			index.hash_seeded_ = hash_meta.kind != kUnseededHash;
			index.hash_seed_ = direct ? 0 : hash_meta.seed;
			index.id_first_ = direct ? int64_t(hash_meta.seed) : 0;
		} else if (version >= 2) {
			Array<uint32_t> hash_meta = section_array<uint32_t>(sections[kHashMeta], kHashMeta, 2, nullptr);
			index.hash_shift_ = hash_meta[0];
			index.hash_seeded_ = false;
			index.hash_seed_ = 0;
		}
		if (direct)
			index.id_table_ = section_array<Index::IdSlot>(
			    sections[kHash], kHash, count_of(sections[kHash], sizeof(Index::IdSlot), kHash), keep);
		else if (version >= 2)
			index.hash_ = section_array<Index::HashSlot>(
			    sections[kHash], kHash, count_of(sections[kHash], sizeof(Index::HashSlot), kHash), keep);
		if (version >= 3)
			index.keys_ = keys(sections, n, keep);
		g.rows_known = version >= 4;
		if (version >= 4) {
			g.repeated = section_array<RepeatedEdge>(
			    sections[kRepeatedEdges], kRepeatedEdges,
			    count_of(sections[kRepeatedEdges], sizeof(RepeatedEdge), kRepeatedEdges), keep);
			const Array<RepeatedEdge> &repeated = g.repeated;
			if (repeated.size() == 1 && repeated[0] == kRowsUnknown) {
				g.repeated = Array<RepeatedEdge>();
				g.rows_known = false;
			}
		}
		if (version >= 6) {
			Array<uint32_t> slots = section_array<uint32_t>(sections[kLookupMeta], kLookupMeta, kMaxSupports, nullptr);
			std::vector<uint32_t> supports;
			for (uint32_t s : slots)
				if (s != kNoVertex)
					supports.push_back(s);
			// No records: an index that had none (read from an older image) written again.
			size_t records = sections[kLookup].bytes == 0 ? 0 : c;
			if (version >= 7)
				index.lookup_ = LookupLabels::from_data(
				    Array<uint32_t>(supports), section_array<LookupRecord>(sections[kLookup], kLookup, records, keep));
			else
				index.lookup_ = LookupLabels::from_data(Array<uint32_t>(supports),
				                                        without_order(sections[kLookup], records), false);
		}
		if (verify) {
			check(index);
			check_keys(index);
			if (version >= 6)
				check_lookup(index);
		}
		if (version < 2)
			index.build_hash(fresh_seed(&index));
		else if (verify)
			check_hash(index);
		return index;
	}

	// A version 6 image's lookup records, copied into the current layout without a backward order.
	static Array<LookupRecord>
	without_order(const Section &s, size_t count) {
		Array<LookupRecordV6> old = section_array<LookupRecordV6>(s, kLookup, count, nullptr);
		std::vector<LookupRecord> records(count);
		for (size_t v = 0; v < count; v++) {
			if (old[v].reserved != 0)
				corrupt("lookup record of component " + std::to_string(v) + " has a nonzero reserved field");
			records[v] = LookupRecord{old[v].reaches,
			                          old[v].reached_by,
			                          old[v].back_level,
			                          LookupLabels::kNoOrderPost,
			                          LookupLabels::kNoOrderFirst,
			                          LookupLabels::kNoOrderLo};
		}
		return Array<LookupRecord>(std::move(records));
	}

	static KeyDictionary
	keys(const Section *sections, size_t n, const std::shared_ptr<const void> &keep) {
		KeyMeta meta = section_array<KeyMeta>(sections[kKeyMeta], kKeyMeta, 1, nullptr)[0];
		if (meta.kind > uint32_t(KeyKind::uuid))
			corrupt("key header is invalid (kind " + std::to_string(meta.kind) + ")");
		KeyKind kind = KeyKind(meta.kind);
		size_t offsets = kind == KeyKind::integer ? 0 : n + 1;
		return KeyDictionary(kind, meta.seed, meta.hash_shift,
		                     section_array<uint64_t>(sections[kKeyOffsets], kKeyOffsets, offsets, keep),
		                     section_array<uint8_t>(sections[kKeyBytes], kKeyBytes, sections[kKeyBytes].bytes, keep),
		                     section_array<KeyDictionary::Slot>(
		                         sections[kKeyHash], kKeyHash,
		                         count_of(sections[kKeyHash], sizeof(KeyDictionary::Slot), kKeyHash), keep));
	}

	// The dictionary on its own, then the numbering it implies: vertex v is id v.
	static void
	check_keys(const Index &index) {
		const Graph &g = index.graph_;
		std::string broken = index.keys_.first_inconsistency(g.vertex_count());
		if (!broken.empty())
			corrupt(broken);
		if (index.keys_.kind() == KeyKind::integer)
			return;
		for (size_t v = 0; v < g.vertex_count(); v++) {
			if (v % 4096 == 0)
				poll_cancel();
			if (g.ids[v] != int64_t(v))
				corrupt("vertex " + std::to_string(v) + " of a graph with text or uuid keys has id " +
				        std::to_string(g.ids[v]));
		}
	}

	static void
	check(const Index &index) {
		const Graph &g = index.graph_;
		size_t n = g.ids.size();
		for (size_t v = 1; v < n; v++) {
			if (v % 4096 == 0)
				poll_cancel();
			if (g.ids[v - 1] >= g.ids[v])
				corrupt("vertex ids are not strictly ascending at index " + std::to_string(v));
		}
		check_csr(g.out, n, "graph");
		for (size_t i = 0; i < g.repeated.size(); i++)
			if (g.repeated[i].edge >= g.out.edge_count() || g.repeated[i].rows < 2 ||
			    (i > 0 && g.repeated[i - 1].edge >= g.repeated[i].edge))
				corrupt("repeated edge " + std::to_string(i) + " is out of order, out of range or held by one row");
		const Components &comp = index.components_;
		size_t c = comp.count();
		{
			std::vector<vid_t> smallest(c, kNoVertex);
			for (size_t v = 0; v < n; v++) {
				if (v % 4096 == 0)
					poll_cancel();
				if (comp.of_vertex[v] >= c)
					corrupt("vertex " + std::to_string(v) + " has component " + std::to_string(comp.of_vertex[v]) +
					        " of " + std::to_string(c));
				smallest[comp.of_vertex[v]] = std::min(smallest[comp.of_vertex[v]], vid_t(v));
			}
			if (!std::equal(smallest.begin(), smallest.end(), comp.smallest_vertex.begin()))
				corrupt("component smallest vertices do not match the vertex components");
		}
		const Csr &dag = index.dag_;
		check_csr(dag, c, "DAG");
		for (size_t a = 0; a < c; a++) {
			if (a % 4096 == 0)
				poll_cancel();
			for (const vid_t *b = dag.begin(vid_t(a)); b != dag.end(vid_t(a)); b++)
				if (*b <= a)
					corrupt("DAG edge " + std::to_string(a) + "->" + std::to_string(*b) + " breaks topological order");
		}
		// Every graph edge between components must be a DAG edge, or queries would miss paths.
		for (size_t v = 0; v < n; v++) {
			if (v % 4096 == 0)
				poll_cancel();
			uint32_t cv = comp.of_vertex[v];
			for (const vid_t *w = g.out.begin(vid_t(v)); w != g.out.end(vid_t(v)); w++) {
				uint32_t cw = comp.of_vertex[*w];
				if (cw != cv && !std::binary_search(dag.begin(cv), dag.end(cv), cw))
					corrupt("graph edge " + std::to_string(v) + "->" + std::to_string(*w) + " has no DAG edge");
			}
		}
		const GrailLabels &labels = index.labels_;
		unsigned d = labels.label_count();
		for (size_t v = 0; v < c; v++) {
			if (v % 4096 == 0)
				poll_cancel();
			const uint32_t *r = labels.record(vid_t(v));
			if (r[0] >= c || r[1] > r[0] || r[4] != r[0])
				corrupt("label record of component " + std::to_string(v) + " has an invalid tree interval");
			for (unsigned i = 0; i < d; i++)
				if (r[3 + 2 * i] > r[4 + 2 * i] || r[4 + 2 * i] >= c)
					corrupt("label " + std::to_string(i) + " of component " + std::to_string(v) + " is invalid");
		}
		std::string broken = labels.first_inconsistent_edge(dag);
		if (!broken.empty())
			corrupt("labels of DAG edge " + broken + " are inconsistent");
		broken = labels.first_inexact_label(dag);
		if (!broken.empty())
			corrupt("GRAIL labels are inexact: " + broken);
		// Subset order along every DAG edge implies it along every path, which is all a query relies on.
		const BloomLabels &bloom = index.bloom_;
		for (size_t a = 0; a < c; a++) {
			if (a % 4096 == 0)
				poll_cancel();
			for (const vid_t *b = dag.begin(vid_t(a)); b != dag.end(vid_t(a)); b++)
				if (!BloomLabels::may_reach(bloom.record(vid_t(a)), bloom.record(*b)))
					corrupt("Bloom labels of DAG edge " + std::to_string(a) + "->" + std::to_string(*b) +
					        " are inconsistent");
		}
	}

	// The lookup labels are what the build makes of their supports: recomputed and compared.
	static void
	check_lookup(const Index &index) {
		const Array<uint32_t> &supports = index.lookup_.supports();
		size_t c = index.dag_.vertex_count();
		if (index.lookup_.empty()) {
			if (!supports.empty())
				corrupt("lookup header names supports but there are no lookup labels");
			return;
		}
		for (size_t i = 0; i < supports.size(); i++)
			if (supports[i] >= c || std::count(supports.begin(), supports.end(), supports[i]) != 1)
				corrupt("lookup support " + std::to_string(supports[i]) + " is out of range or repeated");
		LookupLabels expected =
		    LookupLabels::build(index.dag_, 0, std::vector<vid_t>(supports.begin(), supports.end()));
		const LookupRecord *want = expected.records().data(), *have = index.lookup_.records().data();
		bool order = index.lookup_.has_order();
		for (size_t v = 0; v < c; v++) {
			if (v % 4096 == 0)
				poll_cancel();
			if (have[v].reaches != want[v].reaches || have[v].reached_by != want[v].reached_by ||
			    have[v].back_level != want[v].back_level)
				corrupt("lookup labels do not match the DAG and their supports");
			if (order && (have[v].back_post != want[v].back_post || have[v].back_first != want[v].back_first ||
			              have[v].back_lo != want[v].back_lo))
				corrupt("the backward order of the lookup labels does not match the DAG (component " +
				        std::to_string(v) + ")");
		}
	}

	// The stored id table (hashed or direct) finds every vertex (with its component) and holds
	// nothing else; a graph with text or uuid keys has none (its ids are its vertices).
	static void
	check_hash(const Index &index) {
		size_t n = index.graph_.ids.size();
		size_t capacity = index.hash_.size();
		if (!index.id_table_.empty()) {
			check_direct(index);
			return;
		}
		if (index.keys_.kind() != KeyKind::integer) {
			if (capacity != 0)
				corrupt("id hash table of a graph keyed by its dictionary is not empty");
			return;
		}
		if (n == 0) {
			if (capacity != 0)
				corrupt("id hash table of an empty graph is not empty");
			return;
		}
		if (capacity < 2 * n || (capacity & (capacity - 1)) != 0 || index.hash_shift_ < 1 || index.hash_shift_ > 63 ||
		    (size_t(1) << (64 - index.hash_shift_)) != capacity)
			corrupt("id hash table has " + std::to_string(capacity) + " slots and shift " +
			        std::to_string(index.hash_shift_) + " for " + std::to_string(n) + " vertices");
		size_t used = 0;
		for (size_t k = 0; k < capacity; k++) {
			if (k % 4096 == 0)
				poll_cancel();
			const Index::HashSlot &slot = index.hash_[k];
			if (slot.vertex == kNoVertex)
				continue;
			used++;
			if (slot.vertex >= n || index.graph_.ids[slot.vertex] != slot.id ||
			    slot.component != index.components_.of_vertex[slot.vertex])
				corrupt("id hash table has a wrong entry for id " + std::to_string(slot.id));
		}
		if (used != n)
			corrupt("id hash table holds " + std::to_string(used) + " ids, expected " + std::to_string(n));
		// Polled at every vertex: in a table of an older image, crafted ids can make each lookup
		// walk most of the table.
		for (size_t v = 0; v < n; v++) {
			poll_cancel();
			const Index::HashSlot *slot = index.lookup(index.graph_.ids[v]);
			if (slot == nullptr || slot->vertex != v)
				corrupt("id hash table does not find vertex " + std::to_string(v));
		}
	}

	// A direct table spans the ids from the first to the last (ids strictly ascending, check()),
	// within Index::kDenseSpan numbers a vertex, with each vertex in its id's slot: n distinct ids
	// in n used slots is every vertex.
	static void
	check_direct(const Index &index) {
		const Array<int64_t> &ids = index.graph_.ids;
		const Array<Index::IdSlot> &table = index.id_table_;
		size_t n = ids.size();
		if (index.keys_.kind() != KeyKind::integer || n == 0 || !index.hash_.empty())
			corrupt("a direct id table where there should be none");
		uint64_t span = uint64_t(ids[n - 1]) - uint64_t(ids[0]) + 1;
		if (index.id_first_ != ids[0] || table.size() != span || span > Index::kDenseSpan * n)
			corrupt("direct id table has " + std::to_string(table.size()) + " slots from id " +
			        std::to_string(index.id_first_) + " for " + std::to_string(n) + " vertices from " +
			        std::to_string(ids[0]) + " to " + std::to_string(ids[n - 1]));
		size_t used = 0;
		for (size_t k = 0; k < table.size(); k++) {
			if (k % 4096 == 0)
				poll_cancel();
			const Index::IdSlot &slot = table[k];
			int64_t id = int64_t(uint64_t(index.id_first_) + k);
			if (slot.vertex == kNoVertex) {
				if (slot.component != 0)
					corrupt("direct id table has a component in the empty slot of id " + std::to_string(id));
				continue;
			}
			used++;
			if (slot.vertex >= n || ids[slot.vertex] != id ||
			    slot.component != index.components_.of_vertex[slot.vertex])
				corrupt("direct id table has a wrong entry for id " + std::to_string(id));
		}
		if (used != n)
			corrupt("direct id table holds " + std::to_string(used) + " ids, expected " + std::to_string(n));
	}
};

ImagePieces
Index::image_pieces() const {
	struct Part {
		uint32_t tag;
		const void *data;
		uint64_t bytes;
	};
	ImagePieces image;
	uint32_t label_meta[2] = {labels_.label_count(), 0};
	uint32_t bloom_meta[2] = {kBloomBits, 0};
	bool direct = !id_table_.empty();
	HashMeta hash_meta = direct ? HashMeta{0, kDirectTable, uint64_t(id_first_)}
	                            : HashMeta{hash_shift_, hash_seeded_ ? kSeededHash : kUnseededHash, hash_seed_};
	KeyMeta key_meta = {uint32_t(keys_.kind()), keys_.hash_shift(), keys_.seed()};
	uint32_t lookup_meta[kMaxSupports];
	std::fill(lookup_meta, lookup_meta + kMaxSupports, kNoVertex);
	std::copy(lookup_.supports().begin(), lookup_.supports().end(), lookup_meta);
	// Records read from a version 6 image get their backward order here.
	const LookupRecord *lookup_records = lookup_.records().data();
	if (!lookup_.empty() && !lookup_.has_order()) {
		image.ordered_lookup_.assign(lookup_.records().begin(), lookup_.records().end());
		LookupLabels::order(dag_, image.ordered_lookup_.data());
		lookup_records = image.ordered_lookup_.data();
	}
	Part parts[kTagCount] = {
	    {kIds, graph_.ids.data(), graph_.ids.size() * sizeof(int64_t)},
	    {kOutOffsets, graph_.out.offsets.data(), graph_.out.offsets.size() * sizeof(eid_t)},
	    {kOutTargets, graph_.out.targets.data(), graph_.out.targets.size() * sizeof(vid_t)},
	    {kComponentOf, components_.of_vertex.data(), components_.of_vertex.size() * sizeof(uint32_t)},
	    {kComponentSmallest, components_.smallest_vertex.data(), components_.smallest_vertex.size() * sizeof(vid_t)},
	    {kDagOffsets, dag_.offsets.data(), dag_.offsets.size() * sizeof(eid_t)},
	    {kDagTargets, dag_.targets.data(), dag_.targets.size() * sizeof(vid_t)},
	    {kLabelMeta, label_meta, sizeof label_meta},
	    {kLabels, labels_.data().data(), labels_.data().size() * sizeof(uint32_t)},
	    {kBloomMeta, bloom_meta, sizeof bloom_meta},
	    {kBloom, bloom_.data().data(), bloom_.data().size() * sizeof(BloomRecord)},
	    {kHashMeta, &hash_meta, sizeof hash_meta},
	    direct ? Part{kHash, id_table_.data(), id_table_.size() * sizeof(IdSlot)}
	           : Part{kHash, hash_.data(), hash_.size() * sizeof(HashSlot)},
	    {kKeyMeta, &key_meta, sizeof key_meta},
	    {kKeyOffsets, keys_.offsets().data(), keys_.offsets().size() * sizeof(uint64_t)},
	    {kKeyBytes, keys_.bytes().data(), keys_.bytes().size()},
	    {kKeyHash, keys_.hash().data(), keys_.hash().size() * sizeof(KeyDictionary::Slot)},
	    graph_.rows_known ? Part{kRepeatedEdges, graph_.repeated.data(), graph_.repeated.size() * sizeof(RepeatedEdge)}
	                      : Part{kRepeatedEdges, &kRowsUnknown, sizeof kRowsUnknown},
	    {kLookupMeta, lookup_meta, sizeof lookup_meta},
	    {kLookup, lookup_records, lookup_.records().size() * sizeof(LookupRecord)},
	};
	// The section headers made here (on this stack) go with the pieces: copied into small_, once,
	// before any pointer into it is taken.
	auto local = [&](const void *p) {
		return p == label_meta || p == bloom_meta || p == &hash_meta || p == &key_meta || p == lookup_meta;
	};
	size_t small_bytes = 0;
	for (const Part &part : parts)
		if (local(part.data))
			small_bytes += part.bytes;
	image.small_.resize(small_bytes);
	for (size_t k = 0, at = 0; k < kTagCount; k++)
		if (local(parts[k].data)) {
			std::memcpy(image.small_.data() + at, parts[k].data, parts[k].bytes);
			parts[k].data = image.small_.data() + at;
			at += parts[k].bytes;
		}
	size_t head = aligned(kHeaderV2 + kTableEntry * kTagCount);
	image.head_.assign(head, 0);
	size_t pos = head;
	for (uint32_t k = 0; k < kTagCount; k++) {
		uint8_t *entry = image.head_.data() + kHeaderV2 + kTableEntry * k;
		uint64_t offset = pos;
		std::memcpy(entry, &parts[k].tag, 4);
		std::memcpy(entry + 8, &offset, 8);
		std::memcpy(entry + 16, &parts[k].bytes, 8);
		if (parts[k].bytes)
			image.pieces_.push_back({static_cast<const uint8_t *>(parts[k].data), parts[k].bytes, offset});
		pos += aligned(parts[k].bytes);
	}
	image.size_ = pos;
	// The payload's checksum over the pieces as they lie, with the zeros between them.
	static const uint8_t zeros[kAlign] = {};
	XXH64_state_t sum;
	XXH64_reset(&sum, 0);
	XXH64_update(&sum, image.head_.data() + kHeaderV2, head - kHeaderV2);
	for (const ImagePieces::Piece &piece : image.pieces_) {
		XXH64_update(&sum, piece.data, piece.bytes);
		XXH64_update(&sum, zeros, aligned(piece.bytes) - piece.bytes);
	}
	uint32_t version = kFormatVersion, sections = kTagCount;
	uint64_t payload = pos - kHeaderV2, checksum = XXH64_digest(&sum);
	std::memcpy(image.head_.data(), kMagic, 8);
	std::memcpy(image.head_.data() + 8, &version, 4);
	std::memcpy(image.head_.data() + 12, &sections, 4);
	std::memcpy(image.head_.data() + 16, &payload, 8);
	std::memcpy(image.head_.data() + 24, &checksum, 8);
	return image;
}

ImagePieces
ImagePieces::of(const uint8_t *bytes, size_t size) {
	ImagePieces whole;
	if (size > 0)
		whole.pieces_.push_back({bytes, size, 0});
	whole.size_ = size;
	return whole;
}

void
ImagePieces::copy(size_t offset, size_t n, uint8_t *out) const noexcept {
	size_t end = offset + n;
	auto part = [&](size_t begin, size_t bytes, size_t padded, const uint8_t *data) {
		// This piece's [begin, begin + padded) against [offset, end): data, then zeros.
		size_t from = std::max(offset, begin), to = std::min(end, begin + padded);
		if (from >= to)
			return;
		size_t data_to = std::min(to, begin + bytes);
		if (from < data_to)
			std::memcpy(out + (from - offset), data + (from - begin), data_to - from);
		size_t zeros_from = std::max(from, begin + bytes);
		if (zeros_from < to)
			std::memset(out + (zeros_from - offset), 0, to - zeros_from);
	};
	part(0, head_.size(), head_.size(), head_.data());
	// (A section of no bytes has no piece, and takes no room: nothing lies between pieces.)
	for (const Piece &piece : pieces_) {
		if (piece.offset >= end)
			break;
		part(piece.offset, piece.bytes, aligned(piece.bytes), piece.data);
	}
}

const uint8_t *
ImagePieces::find(size_t offset, size_t n) const noexcept {
	if (offset + n <= head_.size())
		return head_.data() + offset;
	for (const Piece &piece : pieces_)
		if (offset >= piece.offset && offset + n <= piece.offset + piece.bytes)
			return piece.data + (offset - piece.offset);
	return nullptr;
}

std::vector<uint8_t>
Index::serialize() const {
	ImagePieces image = image_pieces();
	std::vector<uint8_t> out(image.size());
	image.copy(0, image.size(), out.data());
	return out;
}

std::vector<uint8_t>
Index::serialize(uint32_t format) const {
	if (format == kFormatVersion)
		return serialize();
	if (format != 7 || !id_table_.empty())
		throw Error(ErrorKind::internal, "an index image of format " + std::to_string(format) + " cannot be written" +
		                                     (format == 7 ? " with a direct id table" : ""));
	std::vector<uint8_t> out = serialize();
	std::memcpy(out.data() + 8, &format, 4); // the header's version, outside the checksummed payload
	return out;
}

std::shared_ptr<uint8_t>
Index::image_buffer(size_t size) {
	void *p = std::aligned_alloc(kAlign, aligned(std::max<size_t>(size, 1)));
	if (p == nullptr)
		throw std::bad_alloc();
	return std::shared_ptr<uint8_t>(static_cast<uint8_t *>(p), [](uint8_t *q) { std::free(q); });
}

Index
Index::attach(std::shared_ptr<const uint8_t> image, size_t size, Check check) {
	bool verify = check == Check::full;
	const uint8_t *bytes = image.get();
	if (size < kHeaderV1)
		corrupt("truncated header (" + std::to_string(size) + " bytes)");
	if (std::memcmp(bytes, kMagic, 8) != 0)
		corrupt("bad magic (not a pg_grail index)");
	uint32_t version, section_count;
	uint64_t payload, sum;
	std::memcpy(&version, bytes + 8, 4);
	std::memcpy(&section_count, bytes + 12, 4);
	std::memcpy(&payload, bytes + 16, 8);
	std::memcpy(&sum, bytes + 24, 8);
	if (version < 1 || version > kFormatVersion)
		throw Error(ErrorKind::corrupt_index,
		            "pg_grail index format version " + std::to_string(version) + " is not supported (expected " +
		                std::to_string(kFormatVersion) + ")",
		            "Rebuild the index with this version of pg_grail.");
	size_t header = version == 1 ? kHeaderV1 : kHeaderV2;
	if (size < header)
		corrupt("truncated header (" + std::to_string(size) + " bytes)");
	for (size_t i = kHeaderV1; i < header; i++)
		if (bytes[i] != 0)
			corrupt("reserved header bytes are not zero");
	if (payload != size - header)
		corrupt("payload is " + std::to_string(size - header) + " bytes, header says " + std::to_string(payload));
	if (check != Check::header && checksum(bytes + header, payload) != sum)
		corrupt("checksum mismatch");
	Section sections[kTagCount + 1];
	if (version == 1) {
		read_sections_v1(bytes, size, section_count, sections);
		return ImageReader::assemble(sections, version, nullptr, verify);
	}
	if (reinterpret_cast<uintptr_t>(bytes) % kAlign != 0)
		throw Error(ErrorKind::internal, "an index image must lie at a 64-byte boundary to be read in place");
	read_sections(bytes, size, section_count,
	              version == 2   ? kTagCountV2
	              : version == 3 ? kTagCountV3
	              : version <= 5 ? kTagCountV5
	                             : kTagCount,
	              sections);
	return ImageReader::assemble(sections, version, std::shared_ptr<const void>(image, image.get()), verify);
}

Index
Index::deserialize(const uint8_t *bytes, size_t size) {
	std::shared_ptr<uint8_t> copy = image_buffer(size);
	if (size)
		std::memcpy(copy.get(), bytes, size);
	return attach(copy, size, Check::full);
}

} // namespace grail
