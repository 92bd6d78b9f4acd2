#include "build_delta.hpp"

#include "error.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

namespace grail {

namespace {

constexpr char kMagic[8] = {'P', 'G', 'G', 'R', 'D', 'L', 'T', '\0'};
constexpr uint32_t kDeltaVersion = 1;

std::string
integer_key(int64_t id) {
	std::string key(8, '\0');
	uint64_t u = uint64_t(id);
	for (int i = 0; i < 8; i++)
		key[size_t(i)] = char((u >> (8 * i)) & 0xff);
	return key;
}

int64_t
integer_of(const std::string &key) {
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u |= uint64_t(uint8_t(key[size_t(i)])) << (8 * i);
	return int64_t(u);
}

std::string
key_of(const Index &index, vid_t v) {
	if (index.keys().kind() == KeyKind::integer)
		return integer_key(index.graph().ids[v]);
	return std::string(index.keys().key(v));
}

// The vertex of a key in index, or -1.
int64_t
vertex_of(const Index &index, const std::string &key) {
	if (index.keys().kind() == KeyKind::integer)
		return key.size() == 8 ? index.graph().find(integer_of(key)) : -1;
	return index.keys().find(key.data(), key.size());
}

class Writer {
public:
	void
	u32(uint32_t v) {
		put(&v, sizeof v);
	}
	void
	u64(uint64_t v) {
		put(&v, sizeof v);
	}
	void
	bytes(const std::string &s) {
		u32(uint32_t(s.size()));
		put(s.data(), s.size());
	}
	void
	put(const void *p, size_t n) {
		const auto *b = static_cast<const uint8_t *>(p);
		out.insert(out.end(), b, b + n);
	}
	std::vector<uint8_t> out;
};

class Reader {
public:
	Reader(const uint8_t *p, size_t n) : p_(p), n_(n) {
	}
	void
	get(void *dst, size_t n) {
		if (n > n_ - at_)
			fail("it ends early");
		if (n != 0) // an empty destination may have no storage, which memcpy must not be given
			memcpy(dst, p_ + at_, n);
		at_ += n;
	}
	uint32_t
	u32() {
		uint32_t v;
		get(&v, sizeof v);
		return v;
	}
	uint64_t
	u64() {
		uint64_t v;
		get(&v, sizeof v);
		return v;
	}
	std::string
	bytes() {
		uint32_t n = u32();
		if (n > n_ - at_)
			fail("a key runs past its end");
		std::string s(reinterpret_cast<const char *>(p_ + at_), n);
		at_ += n;
		return s;
	}
	// A count of records of at least min_bytes each, checked against what is left.
	uint64_t
	count(size_t min_bytes) {
		uint64_t c = u64();
		if (c > (n_ - at_) / min_bytes)
			fail("a count is larger than its bytes");
		return c;
	}
	size_t
	left() const noexcept {
		return n_ - at_;
	}
	[[noreturn]] static void
	fail(const char *why) {
		throw Error(ErrorKind::corrupt_index, std::string("the stored delta of a pg_grail build is damaged: ") + why);
	}

private:
	const uint8_t *p_;
	size_t n_;
	size_t at_ = 0;
};

} // namespace

std::vector<uint8_t>
BuildDelta::serialize() const {
	Writer w;
	w.put(kMagic, sizeof kMagic);
	w.u32(kDeltaVersion);
	w.u32(uint32_t(kind));
	w.u32(labels);
	w.u32(image_format);
	w.u64(id_hash_seed);
	w.u64(key_seed);
	w.u64(image_bytes);
	w.u64(image_checksum);
	w.u64(added_vertices.size());
	for (const std::string &k : added_vertices)
		w.bytes(k);
	w.u64(removed_vertices.size());
	for (const std::string &k : removed_vertices)
		w.bytes(k);
	w.u64(edges.size());
	for (const EdgeRows &e : edges) {
		w.bytes(e.source);
		w.bytes(e.target);
		w.u64(e.rows);
	}
	uint64_t sum = Index::checksum(w.out.data(), w.out.size());
	w.u64(sum);
	return std::move(w.out);
}

BuildDelta
BuildDelta::parse(const uint8_t *bytes, size_t size) {
	if (size < sizeof kMagic + 8 || memcmp(bytes, kMagic, sizeof kMagic) != 0)
		Reader::fail("it does not begin as one");
	uint64_t sum;
	memcpy(&sum, bytes + size - 8, 8);
	if (Index::checksum(bytes, size - 8) != sum)
		Reader::fail("its checksum does not match");
	Reader r(bytes + sizeof kMagic, size - sizeof kMagic - 8);
	if (r.u32() != kDeltaVersion)
		Reader::fail("its version is unknown");
	BuildDelta d;
	uint32_t kind = r.u32();
	if (kind > uint32_t(KeyKind::uuid))
		Reader::fail("its key kind is unknown");
	d.kind = KeyKind(kind);
	d.labels = r.u32();
	if (d.labels < 1 || d.labels > kMaxLabels)
		Reader::fail("its label count is out of range");
	d.image_format = r.u32();
	if (d.image_format == 0)
		d.image_format = 7;
	if (d.image_format != 7 && d.image_format != Index::kFormatVersion)
		Reader::fail("its image format is unknown");
	d.id_hash_seed = r.u64();
	d.key_seed = r.u64();
	d.image_bytes = r.u64();
	d.image_checksum = r.u64();
	auto check_key = [&](const std::string &k) {
		if ((d.kind == KeyKind::integer && k.size() != 8) || (d.kind == KeyKind::uuid && k.size() != kUuidBytes))
			Reader::fail("a key has the wrong length");
		return k;
	};
	for (int list = 0; list < 2; list++) {
		std::vector<std::string> &keys = list == 0 ? d.added_vertices : d.removed_vertices;
		uint64_t n = r.count(4);
		keys.reserve(n);
		for (uint64_t i = 0; i < n; i++)
			keys.push_back(check_key(r.bytes()));
	}
	uint64_t n = r.count(16);
	d.edges.reserve(n);
	for (uint64_t i = 0; i < n; i++) {
		EdgeRows e;
		e.source = check_key(r.bytes());
		e.target = check_key(r.bytes());
		e.rows = r.u64();
		if (e.source == e.target)
			Reader::fail("it holds a self-loop");
		d.edges.push_back(std::move(e));
	}
	if (r.left() != 0)
		Reader::fail("bytes follow its end");
	return d;
}

std::optional<BuildDelta>
diff_builds(const Index &base, const Index &fresh, size_t limit) {
	const Graph &b = base.graph(), &f = fresh.graph();
	if (base.keys().kind() != fresh.keys().kind() || !b.rows_known || !f.rows_known)
		return std::nullopt;
	BuildDelta d;
	d.kind = base.keys().kind();
	size_t nb = b.vertex_count(), nf = f.vertex_count();
	// fresh's vertex -> base's (or -1), and whether each base vertex is still there.
	std::vector<int64_t> in_base(nf);
	std::vector<int64_t> in_fresh(nb, -1);
	for (size_t v = 0; v < nf; v++) {
		std::string key = key_of(fresh, vid_t(v));
		int64_t w = vertex_of(base, key);
		in_base[v] = w;
		if (w >= 0)
			in_fresh[size_t(w)] = int64_t(v);
		else {
			d.added_vertices.push_back(std::move(key));
			if (d.changes() > limit)
				return std::nullopt;
		}
	}
	for (size_t w = 0; w < nb; w++)
		if (in_fresh[w] < 0) {
			d.removed_vertices.push_back(key_of(base, vid_t(w)));
			if (d.changes() > limit)
				return std::nullopt;
		}
	// Edges of fresh whose count differs from base's.
	for (size_t u = 0; u < nf; u++)
		for (const vid_t *t = f.out.begin(vid_t(u)); t != f.out.end(vid_t(u)); t++) {
			int64_t rows = f.rows_of(vid_t(u), *t);
			int64_t bu = in_base[u], bt = in_base[*t];
			int64_t before = bu >= 0 && bt >= 0 ? b.rows_of(vid_t(bu), vid_t(bt)) : 0;
			if (rows != before) {
				d.edges.push_back({key_of(fresh, vid_t(u)), key_of(fresh, *t), uint64_t(rows)});
				if (d.changes() > limit)
					return std::nullopt;
			}
		}
	// Edges of base that fresh lacks.
	for (size_t u = 0; u < nb; u++)
		for (const vid_t *t = b.out.begin(vid_t(u)); t != b.out.end(vid_t(u)); t++) {
			int64_t fu = in_fresh[u], ft = in_fresh[*t];
			if (fu >= 0 && ft >= 0 && f.rows_of(vid_t(fu), vid_t(ft)) > 0)
				continue;
			d.edges.push_back({key_of(base, vid_t(u)), key_of(base, *t), 0});
			if (d.changes() > limit)
				return std::nullopt;
		}
	return d;
}

std::optional<BuildDelta>
diff_rows(const Index &base, const EdgeList &rows, const KeyDictionary &keys, size_t limit) {
	const Graph &b = base.graph();
	const KeyKind kind = keys.kind();
	if (base.keys().kind() != kind || !b.rows_known)
		return std::nullopt;
	const bool integer = kind == KeyKind::integer;
	// The rows' graph, ids and CSR only (the build's first, cache-friendly step: no components, no
	// labels): both graphs number their vertices in key order, so one walk of each pairs them.
	const Graph f = Graph::from_edges(rows);
	const size_t nb = b.vertex_count(), nf = f.vertex_count();
	auto fresh_key = [&](vid_t v) { return integer ? integer_key(f.ids[v]) : std::string(keys.key(size_t(f.ids[v]))); };
	BuildDelta d;
	d.kind = kind;
	auto over = [&] { return d.changes() > limit; };
	// The rows' vertex -> base's (or -1), and back; ascending both ways.
	std::vector<int64_t> in_base(nf, -1), in_fresh(nb, -1);
	if (integer) {
		for (size_t v = 0, w = 0; v < nf; v++) {
			while (w < nb && b.ids[w] < f.ids[v])
				w++;
			if (w < nb && b.ids[w] == f.ids[v]) {
				in_base[v] = int64_t(w);
				in_fresh[w] = int64_t(v);
			}
		}
	} else {
		for (size_t v = 0; v < nf; v++) {
			std::string_view key = keys.key(size_t(f.ids[v]));
			int64_t w = base.keys().find(key.data(), key.size());
			in_base[v] = w;
			if (w >= 0)
				in_fresh[size_t(w)] = int64_t(v);
		}
	}
	for (size_t v = 0; v < nf; v++)
		if (in_base[v] < 0) {
			d.added_vertices.push_back(fresh_key(vid_t(v)));
			if (over())
				return std::nullopt;
		}
	for (size_t w = 0; w < nb; w++)
		if (in_fresh[w] < 0) {
			d.removed_vertices.push_back(key_of(base, vid_t(w)));
			if (over())
				return std::nullopt;
		}
	// Each graph's edges with their rows, in CSR order (the repeated ones walked alongside).
	struct RowsWalk {
		const RepeatedEdge *at, *end;
		uint64_t
		rows(eid_t e) {
			while (at != end && at->edge < e)
				at++;
			return at != end && at->edge == e ? at->rows : 1;
		}
	};
	RowsWalk fresh_rows{f.repeated.begin(), f.repeated.end()}, base_rows{b.repeated.begin(), b.repeated.end()};
	auto changed = [&](std::string source, std::string target, uint64_t rows) {
		d.edges.push_back({std::move(source), std::move(target), rows});
		return over();
	};
	// Base vertices the rows lack: every edge of theirs is gone.
	for (size_t w = 0; w < nb; w++)
		if (in_fresh[w] < 0)
			for (eid_t e = b.out.offsets[w]; e < b.out.offsets[w + 1]; e++)
				if (changed(key_of(base, vid_t(w)), key_of(base, b.out.targets[e]), 0))
					return std::nullopt;
	for (size_t v = 0; v < nf; v++) {
		if ((v & 0xffff) == 0xffff)
			poll_cancel();
		eid_t fe = f.out.offsets[v], fend = f.out.offsets[v + 1];
		int64_t w = in_base[v];
		eid_t be = w >= 0 ? b.out.offsets[size_t(w)] : 0, bend = w >= 0 ? b.out.offsets[size_t(w) + 1] : 0;
		// Both lists ascend, and so does in_base over the rows' vertices: a merge of the two.
		while (fe < fend || be < bend) {
			int64_t ft = fe < fend ? in_base[f.out.targets[fe]] : INT64_MAX;
			if (fe < fend && ft < 0) { // to a vertex new to base: a new edge
				if (changed(fresh_key(vid_t(v)), fresh_key(f.out.targets[fe]), fresh_rows.rows(fe)))
					return std::nullopt;
				fe++;
				continue;
			}
			int64_t bt = be < bend ? int64_t(b.out.targets[be]) : INT64_MAX;
			if (ft < bt) { // an edge the base lacks
				if (changed(fresh_key(vid_t(v)), fresh_key(f.out.targets[fe]), fresh_rows.rows(fe)))
					return std::nullopt;
				fe++;
			} else if (bt < ft) { // a base edge the rows lack
				if (changed(key_of(base, vid_t(w)), key_of(base, vid_t(bt)), 0))
					return std::nullopt;
				be++;
			} else {
				uint64_t now = fresh_rows.rows(fe), before = base_rows.rows(be);
				if (now != before && changed(fresh_key(vid_t(v)), fresh_key(f.out.targets[fe]), now))
					return std::nullopt;
				fe++;
				be++;
			}
		}
	}
	return d;
}

std::vector<uint8_t>
apply_delta(const Index &base, BuildDelta &delta, uint64_t memory_limit_bytes, BuildStats *stats) {
	const Graph &b = base.graph();
	if (base.keys().kind() != delta.kind)
		throw Error(ErrorKind::corrupt_index,
		            "the stored delta of a pg_grail build has keys of another kind than its base");
	if (!b.rows_known)
		throw Error(ErrorKind::corrupt_index, "the base of a pg_grail delta build does not record its edges' rows");
	// The changed edges between vertices of the base, by (u, v) of the base; the others are new.
	std::unordered_map<uint64_t, uint64_t> changed;
	for (const BuildDelta::EdgeRows &e : delta.edges) {
		int64_t u = vertex_of(base, e.source), v = vertex_of(base, e.target);
		if (u >= 0 && v >= 0)
			changed[uint64_t(u) << 32 | uint64_t(v)] = e.rows;
	}
	std::unordered_set<std::string> removed(delta.removed_vertices.begin(), delta.removed_vertices.end());

	EdgeList edges;
	edges.reserve(b.out.edge_count() + b.vertex_count() + delta.edges.size() + delta.added_vertices.size());
	std::unique_ptr<KeyDictionaryBuilder> keys;
	if (delta.kind != KeyKind::integer)
		keys = std::make_unique<KeyDictionaryBuilder>(delta.kind, delta.key_seed);
	auto id_of = [&](const std::string &key) -> int64_t {
		if (!keys)
			return integer_of(key);
		int64_t id = keys->add(key.data(), key.size());
		if (id < 0)
			throw Error(ErrorKind::limit_exceeded, "out of memory while making a pg_grail delta build's keys");
		return id;
	};
	auto append = [&](int64_t s, int64_t t, uint64_t rows) {
		for (uint64_t i = 0; i < rows; i++)
			if (!edges.append(s, t))
				throw Error(ErrorKind::limit_exceeded, "out of memory while making a pg_grail delta build's edges");
	};
	// Each vertex kept as a self-loop row (the build keeps its vertex, not the loop), then its edges.
	std::vector<int64_t> ids(b.vertex_count());
	std::vector<char> kept(b.vertex_count());
	for (size_t v = 0; v < b.vertex_count(); v++) {
		std::string key = key_of(base, vid_t(v));
		kept[v] = removed.count(key) == 0;
		if (kept[v]) {
			ids[v] = id_of(key);
			append(ids[v], ids[v], 1);
		}
	}
	for (const std::string &key : delta.added_vertices) {
		int64_t id = id_of(key);
		append(id, id, 1);
	}
	const RepeatedEdge *repeated = b.repeated.begin(), *repeated_end = b.repeated.end();
	for (size_t u = 0; u < b.vertex_count(); u++)
		for (const vid_t *t = b.out.begin(vid_t(u)); t != b.out.end(vid_t(u)); t++) {
			// The edge's rows, the repeated edges walked alongside (b.rows_of, without its searches).
			eid_t e = eid_t(t - b.out.targets.data());
			while (repeated != repeated_end && repeated->edge < e)
				repeated++;
			uint64_t rows = repeated != repeated_end && repeated->edge == e ? repeated->rows : 1;
			if (!changed.empty()) {
				auto found = changed.find(uint64_t(u) << 32 | uint64_t(*t));
				if (found != changed.end())
					rows = found->second;
			}
			if (rows > 0 && (!kept[u] || !kept[*t]))
				throw Error(ErrorKind::corrupt_index,
				            "the stored delta of a pg_grail build keeps an edge of a vertex it removes");
			if (rows > 0)
				append(ids[u], ids[*t], rows);
		}
	// The edges new to the base (one endpoint at least new), in the delta's order; a changed edge
	// between two base vertices that the base lacks is new too.
	for (const auto &entry : changed)
		if (entry.second > 0 && b.rows_of(vid_t(entry.first >> 32), vid_t(entry.first & 0xffffffffu)) == 0 &&
		    (!kept[entry.first >> 32] || !kept[entry.first & 0xffffffffu]))
			throw Error(ErrorKind::corrupt_index,
			            "the stored delta of a pg_grail build keeps an edge of a vertex it removes");
	for (const BuildDelta::EdgeRows &e : delta.edges) {
		int64_t u = vertex_of(base, e.source), v = vertex_of(base, e.target);
		bool between_base = u >= 0 && v >= 0;
		if (e.rows > 0 && (!between_base || b.rows_of(vid_t(u), vid_t(v)) == 0))
			append(id_of(e.source), id_of(e.target), e.rows);
	}
	BuildOptions options;
	options.labels = delta.labels;
	options.id_hash_seed = delta.id_hash_seed;
	options.direct_ids = delta.image_format >= 8;
	options.memory_limit_bytes = memory_limit_bytes;
	options.whole_image = true;
	KeyDictionary dictionary = keys ? keys->finish(edges) : KeyDictionary();
	keys.reset();
	Index index = Index::build(std::move(edges), options, stats, std::move(dictionary));
	std::vector<uint8_t> image = index.serialize(delta.image_format);
	uint64_t sum = Index::checksum(image.data(), image.size());
	if (delta.image_bytes == 0) {
		delta.image_bytes = image.size();
		delta.image_checksum = sum;
	} else if (delta.image_bytes != image.size() || delta.image_checksum != sum) {
		throw Error(ErrorKind::corrupt_index,
		            "a pg_grail delta build made again differs from the image its merge made (" +
		                std::to_string(image.size()) + " bytes, " + std::to_string(delta.image_bytes) +
		                " recorded): the merge ran under another build of pg_grail, or its stored parts are damaged");
	}
	return image;
}

} // namespace grail
