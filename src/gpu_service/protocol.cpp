#include "protocol.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <type_traits>

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

namespace grail::service {

// The byte order is the host's (both ends are processes of one machine).
void
Writer::u8(uint8_t v) {
	buf_.push_back(v);
}
void
Writer::u32(uint32_t v) {
	bytes(&v, sizeof v);
}
void
Writer::u64(uint64_t v) {
	bytes(&v, sizeof v);
}
void
Writer::i64(int64_t v) {
	bytes(&v, sizeof v);
}
void
Writer::str(const std::string &s) {
	u32(uint32_t(s.size()));
	bytes(s.data(), s.size());
}
void
Writer::bytes(const void *p, size_t n) {
	const uint8_t *b = static_cast<const uint8_t *>(p);
	buf_.insert(buf_.end(), b, b + n);
}

void
Writer::align(size_t a) {
	while (buf_.size() % a != 0)
		buf_.push_back(0);
}

void
Reader::align(size_t a) {
	size_t pad = (a - at_ % a) % a;
	bytes(pad);
}

const uint8_t *
Reader::bytes(size_t n) {
	if (n > n_ - at_)
		throw ProtocolError("a message is shorter than its contents say");
	const uint8_t *p = p_ + at_;
	at_ += n;
	return p;
}
uint8_t
Reader::u8() {
	return *bytes(1);
}
uint32_t
Reader::u32() {
	uint32_t v;
	std::memcpy(&v, bytes(sizeof v), sizeof v);
	return v;
}
uint64_t
Reader::u64() {
	uint64_t v;
	std::memcpy(&v, bytes(sizeof v), sizeof v);
	return v;
}
int64_t
Reader::i64() {
	int64_t v;
	std::memcpy(&v, bytes(sizeof v), sizeof v);
	return v;
}
std::string
Reader::str(size_t max_length) {
	uint32_t n = u32();
	if (n > max_length)
		throw ProtocolError("a string of a message is too long");
	const uint8_t *p = bytes(n);
	return std::string(reinterpret_cast<const char *>(p), n);
}
void
Reader::finish() const {
	if (at_ != n_)
		throw ProtocolError("a message is longer than its contents say");
}

void
put_version(Writer &w) {
	w.u32(kProtocolVersion);
}

void
check_version(Reader &r) {
	uint32_t version = r.u32();
	if (version == kProtocolVersion)
		return;
	std::string theirs = (version >> 16) == (kProtocolVersion >> 16)
	                         ? "version " + std::to_string(version & 0xffff)
	                         : "an unknown version (before 2, or not pg_grail's)";
	throw VersionMismatch("the GPU service speaks protocol version " + std::to_string(kProtocolVersion & 0xffff) +
	                      ", the request " + theirs +
	                      ": the server and the module come from different pg_grail installations");
}

std::vector<uint8_t>
encode_info_request() {
	Writer w;
	put_version(w);
	return std::move(w.buffer());
}

void
decode_info_request(const uint8_t *p, size_t n) {
	Reader r(p, n);
	check_version(r);
	r.finish();
}

void
put_image(Writer &w, const ImageRef &image) {
	w.str(image.file);
	w.str(image.build_uuid);
}

ImageRef
get_image(Reader &r) {
	ImageRef image;
	image.file = r.str(256);
	image.build_uuid = r.str(64);
	if (!valid_image_name(image.file, image.build_uuid))
		throw Error(ErrorKind::invalid_input, "not an image file of the shared cache: \"" + image.file + "\"");
	return image;
}

static bool
is_digit(char c) {
	return c >= '0' && c <= '9';
}
static bool
is_hex(char c) {
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

bool
valid_image_name(const std::string &file, const std::string &build_uuid) {
	// The uuid: 8-4-4-4-12 lowercase hex digits.
	if (build_uuid.size() != 36)
		return false;
	for (size_t i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? build_uuid[i] != '-' : !is_hex(build_uuid[i]))
			return false;
	}
	// Three runs of digits, each followed by '_', then the uuid and ".img".
	size_t at = 0;
	for (int run = 0; run < 3; run++) {
		size_t start = at;
		while (at < file.size() && is_digit(file[at]))
			at++;
		if (at == start || at - start > 20 || at >= file.size() || file[at] != '_')
			return false;
		at++;
	}
	return file.size() - at == 36 + 4 && file.compare(at, 36, build_uuid) == 0 && file.compare(at + 36, 4, ".img") == 0;
}

static void
put_i64s(Writer &w, const std::vector<int64_t> &v) {
	w.bytes(v.data(), v.size() * sizeof(int64_t));
}

std::vector<uint8_t>
encode(const BfsRequest &r) {
	Writer w;
	put_version(w);
	put_image(w, r.image);
	w.u32(r.source);
	w.u32(r.max_depth);
	w.u8(r.reverse ? 1 : 0);
	return std::move(w.buffer());
}

std::vector<uint8_t>
encode(const SccRequest &r) {
	Writer w;
	put_version(w);
	put_image(w, r.image);
	return std::move(w.buffer());
}

std::vector<uint8_t>
encode(const ReachRequest &r) {
	if (r.from.size() != r.to.size())
		throw Error(ErrorKind::internal, "a reachability request needs as many sources as targets");
	Writer w;
	put_version(w);
	put_image(w, r.image);
	w.u8(r.mode);
	w.u64(r.min_edges);
	w.u64(r.min_searches);
	w.u64(r.from.size());
	put_i64s(w, r.from);
	put_i64s(w, r.to);
	return std::move(w.buffer());
}

std::vector<uint8_t>
encode(const SearchRequest &r) {
	if (r.from.size() != r.to.size())
		throw Error(ErrorKind::internal, "a search request needs as many sources as targets");
	Writer w;
	put_version(w);
	put_image(w, r.image);
	w.u64(r.from.size());
	w.bytes(r.from.data(), r.from.size() * sizeof(vid_t));
	w.bytes(r.to.data(), r.to.size() * sizeof(vid_t));
	return std::move(w.buffer());
}

std::vector<uint8_t>
encode(const BuildRequest &r) {
	Writer w;
	put_version(w);
	w.u8(r.mode);
	w.u64(r.min_edges);
	w.u32(r.labels);
	w.u64(r.seed);
	w.u64(r.rows);
	return std::move(w.buffer());
}

std::vector<uint8_t>
encode(const ChordlessRequest &r) {
	Writer w;
	put_version(w);
	put_image(w, r.image);
	w.u32(r.min_length);
	w.u32(r.max_length);
	w.u8(r.counts ? 1 : 0);
	return std::move(w.buffer());
}

ChordlessRequest
decode_chordless(const uint8_t *p, size_t n) {
	Reader r(p, n);
	check_version(r);
	ChordlessRequest q;
	q.image = get_image(r);
	q.min_length = r.u32();
	q.max_length = r.u32();
	uint8_t counts = r.u8();
	r.finish();
	if (counts > 1)
		throw ProtocolError("a chordless request asks for neither cycles nor counts");
	q.counts = counts == 1;
	if (q.min_length < 3 || q.max_length < q.min_length || (q.counts && q.min_length != 3))
		throw ProtocolError("a chordless request's lengths are not 3 <= min_length <= max_length");
	return q;
}

BuildRequest
decode_build(const uint8_t *p, size_t n) {
	Reader r(p, n);
	check_version(r);
	BuildRequest q;
	q.mode = r.u8();
	if (q.mode > 2)
		throw ProtocolError("a build request's device mode is unknown");
	q.min_edges = r.u64();
	q.labels = r.u32();
	if (q.labels < 1 || q.labels > kMaxLabels)
		throw ProtocolError("a build request's number of labels is not between 1 and 16");
	q.seed = r.u64();
	q.rows = r.u64();
	if (q.rows > kMaxBuildRows)
		throw Error(ErrorKind::limit_exceeded,
		            "the GPU service builds graphs of fewer than 2^31 rows, not " + std::to_string(q.rows));
	r.finish();
	return q;
}

BfsRequest
decode_bfs(const uint8_t *p, size_t n) {
	Reader r(p, n);
	check_version(r);
	BfsRequest q;
	q.image = get_image(r);
	q.source = r.u32();
	q.max_depth = r.u32();
	uint8_t direction = r.u8();
	if (direction > 1)
		throw ProtocolError("a bfs request's direction is neither out nor in");
	q.reverse = direction == 1;
	r.finish();
	return q;
}

SccRequest
decode_scc(const uint8_t *p, size_t n) {
	Reader r(p, n);
	check_version(r);
	SccRequest q;
	q.image = get_image(r);
	r.finish();
	return q;
}

template <typename T>
static void
read_array(Reader &r, std::vector<T> &out, uint64_t count) {
	out.resize(count);
	const uint8_t *bytes = r.bytes(count * sizeof(T));
	if (count != 0) // an empty vector's data() may be null, which memcpy must not be given
		std::memcpy(out.data(), bytes, count * sizeof(T));
}

ReachRequest
decode_reach(const uint8_t *p, size_t n) {
	Reader r(p, n);
	check_version(r);
	ReachRequest q;
	q.image = get_image(r);
	q.mode = r.u8();
	if (q.mode > 2)
		throw ProtocolError("a reachability request's device mode is unknown");
	q.min_edges = r.u64();
	q.min_searches = r.u64();
	uint64_t count = r.u64();
	if (count > r.left() / (2 * sizeof(int64_t)))
		throw ProtocolError("a reachability request holds fewer pairs than it says");
	read_array(r, q.from, count);
	read_array(r, q.to, count);
	r.finish();
	return q;
}

SearchRequest
decode_search(const uint8_t *p, size_t n) {
	Reader r(p, n);
	check_version(r);
	SearchRequest q;
	q.image = get_image(r);
	uint64_t count = r.u64();
	if (count > r.left() / (2 * sizeof(vid_t)))
		throw ProtocolError("a search request holds fewer pairs than it says");
	read_array(r, q.from, count);
	read_array(r, q.to, count);
	r.finish();
	return q;
}

std::vector<uint8_t>
encode_bfs_rows(const vid_t *vertex, const uint32_t *depth, const vid_t *parent, size_t count) {
	Writer w;
	w.u64(count);
	w.bytes(vertex, count * sizeof(vid_t));
	w.bytes(depth, count * sizeof(uint32_t));
	w.bytes(parent, count * sizeof(vid_t));
	return std::move(w.buffer());
}

void
BfsReceiver::take(const uint8_t *p, size_t n) {
	while (n > 0) {
		if (received_ < sizeof header_) {
			size_t k = std::min(n, size_t(sizeof header_ - received_));
			std::memcpy(header_ + received_, p, k);
			received_ += k;
			p += k;
			n -= k;
			if (received_ == sizeof header_)
				start();
			continue;
		}
		if (n > total_ - received_)
			throw ProtocolError("a bfs result is longer than it says");
		// The array where received_ lies (count_ > 0 here: a result of no rows has no bytes after its
		// count), and the place in it.
		uint64_t at = received_ - sizeof header_, array_bytes = count_ * sizeof(uint32_t);
		int array = int(at / array_bytes);
		size_t in = size_t(at - uint64_t(array) * array_bytes), k = std::min(n, size_t(array_bytes) - in);
		uint32_t *to = array == 0 ? rows_.vertex.data() : array == 1 ? rows_.depth.data() : rows_.parent.data();
		std::memcpy(reinterpret_cast<uint8_t *>(to) + in, p, k);
		// The elements these bytes completed (one may have begun in the bytes before).
		if (shape_)
			check(array, in / sizeof(uint32_t), (in + k) / sizeof(uint32_t));
		received_ += k;
		p += k;
		n -= k;
	}
}

void
BfsReceiver::start() {
	std::memcpy(&count_, header_, sizeof count_);
	if (count_ > (kMaxResult - sizeof header_) / 12)
		throw ProtocolError("a bfs result is larger than allowed");
	if (shape_ && count_ > shape_->vertices)
		throw ProtocolError("a bfs result holds more rows than the graph has vertices");
	total_ = sizeof header_ + 12 * count_;
	rows_.vertex.resize(size_t(count_));
	rows_.depth.resize(size_t(count_));
	rows_.parent.resize(size_t(count_));
}

void
BfsReceiver::check(int array, size_t from, size_t to) const {
	const BfsShape &s = *shape_;
	if (array == 0) {
		const vid_t *vertex = rows_.vertex.data();
		for (size_t i = from; i < to; i++)
			if (vertex[i] >= s.vertices)
				throw ProtocolError("a bfs result names a vertex the graph does not have");
	} else if (array == 1) {
		const uint32_t *depth = rows_.depth.data();
		for (size_t i = from; i < to; i++)
			if (depth[i] > s.max_depth || (i > 0 && depth[i] < depth[i - 1]))
				throw ProtocolError("a bfs result's depths decrease or pass the largest depth asked for");
	} else {
		const vid_t *parent = rows_.parent.data();
		for (size_t i = from; i < to; i++)
			if (parent[i] >= s.vertices && parent[i] != kNoVertex)
				throw ProtocolError("a bfs result names a parent the graph does not have");
	}
}

BfsResult
BfsReceiver::finish() {
	if (received_ < sizeof header_ || received_ != total_)
		throw ProtocolError("a bfs result is shorter than it says");
	if (shape_ && (count_ == 0 || rows_.vertex[0] != shape_->source || rows_.depth[0] != 0))
		throw ProtocolError("a bfs result does not begin with its source at depth 0");
	return std::move(rows_);
}

BfsRows
decode_bfs_rows(const std::vector<uint8_t> &bytes) {
	BfsReceiver r;
	r.take(bytes.data(), bytes.size());
	return r.finish();
}

void
append_cycles(const CycleBatch &batch, std::vector<uint8_t> &out) {
	size_t at = out.size();
	out.resize(at + 4 * (batch.size() + batch.vertices.size()));
	uint8_t *to = out.data() + at;
	for (size_t i = 0; i < batch.size(); i++) {
		uint32_t length = uint32_t(batch.end(i) - batch.begin(i));
		std::memcpy(to, &length, 4);
		to += 4;
		if (length != 0)
			std::memcpy(to, batch.begin(i), 4 * size_t(length));
		to += 4 * size_t(length);
	}
}

void
CycleReceiver::take(const uint8_t *p, size_t n, CycleBatch &batch) {
	// A value split across chunks first, then whole values in place.
	while (n > 0 && partial_bytes_ > 0) {
		partial_[partial_bytes_++] = *p++;
		n--;
		if (partial_bytes_ == 4) {
			uint32_t v;
			std::memcpy(&v, partial_, 4);
			partial_bytes_ = 0;
			value(v, batch);
		}
	}
	for (; n >= 4; p += 4, n -= 4) {
		uint32_t v;
		std::memcpy(&v, p, 4);
		value(v, batch);
	}
	for (; n > 0; n--)
		partial_[partial_bytes_++] = *p++;
}

void
CycleReceiver::value(uint32_t v, CycleBatch &batch) {
	if (!in_cycle_) {
		if (v < std::max<uint32_t>(shape_.min_length, 3) || v > shape_.max_length || v > shape_.vertices)
			throw ProtocolError("a chordless cycle's length is outside the lengths asked for");
		length_ = v;
		in_cycle_ = true;
		cycle_.clear();
		cycle_.reserve(v);
		return;
	}
	if (v >= shape_.vertices)
		throw ProtocolError("a chordless cycle names a vertex the graph does not have");
	// Canonical form: the first vertex smaller than every other, its second smaller than its last.
	if (!cycle_.empty() && v <= cycle_[0])
		throw ProtocolError("a chordless cycle does not begin at its smallest vertex");
	cycle_.push_back(v);
	if (cycle_.size() < length_)
		return;
	if (cycle_[1] >= cycle_[length_ - 1])
		throw ProtocolError("a chordless cycle does not go towards the smaller neighbour of its first vertex");
	batch.vertices.insert(batch.vertices.end(), cycle_.begin(), cycle_.end());
	batch.starts.push_back(batch.vertices.size());
	in_cycle_ = false;
	cycles_++;
}

void
CycleReceiver::finish() const {
	if (in_cycle_ || partial_bytes_ != 0)
		throw ProtocolError("a chordless stream ends in the middle of a cycle");
}

std::vector<uint8_t>
encode_counts(const std::vector<uint64_t> &counts) {
	Writer w;
	w.u64(counts.size());
	w.bytes(counts.data(), counts.size() * sizeof(uint64_t));
	return std::move(w.buffer());
}

std::vector<uint64_t>
decode_counts(const std::vector<uint8_t> &bytes, size_t vertices, uint32_t max_length) {
	Reader r(bytes.data(), bytes.size());
	uint64_t count = r.u64();
	if (count > r.left() / sizeof(uint64_t))
		throw ProtocolError("a chordless counts result holds fewer counts than it says");
	std::vector<uint64_t> counts;
	read_array(r, counts, count);
	r.finish();
	if (counts.empty())
		return counts;
	uint64_t longest = counts.size() - 1;
	if (longest < 3 || longest > max_length || longest > vertices || counts.back() == 0 || counts[0] != 0 ||
	    counts[1] != 0 || counts[2] != 0)
		throw ProtocolError("a chordless counts result counts cycles of lengths no cycle of the graph can have");
	return counts;
}

std::vector<uint8_t>
encode_components(const uint32_t *of_vertex, size_t vertices, const vid_t *smallest, size_t components) {
	Writer w;
	w.u64(vertices);
	w.u64(components);
	w.bytes(of_vertex, vertices * sizeof(uint32_t));
	w.bytes(smallest, components * sizeof(vid_t));
	return std::move(w.buffer());
}

ComponentRows
decode_components(const std::vector<uint8_t> &bytes) {
	Reader r(bytes.data(), bytes.size());
	uint64_t vertices = r.u64(), components = r.u64();
	if (vertices > r.left() / 4 || components > (r.left() - vertices * 4) / 4)
		throw ProtocolError("a components result holds fewer rows than it says");
	ComponentRows rows;
	read_array(r, rows.of_vertex, vertices);
	read_array(r, rows.smallest_vertex, components);
	r.finish();
	for (uint32_t c : rows.of_vertex)
		if (c >= components)
			throw ProtocolError("a components result names a component it does not have");
	return rows;
}

std::vector<uint8_t>
encode_bits(const bool *answers, size_t count) {
	Writer w;
	w.u64(count);
	std::vector<uint8_t> bits((count + 7) / 8, 0);
	for (size_t i = 0; i < count; i++)
		if (answers[i])
			bits[i / 8] |= uint8_t(1u << (i % 8));
	w.bytes(bits.data(), bits.size());
	return std::move(w.buffer());
}

void
decode_bits(const std::vector<uint8_t> &bytes, bool *answers, size_t count) {
	Reader r(bytes.data(), bytes.size());
	if (r.u64() != count)
		throw ProtocolError("a reachability result has not one answer per pair");
	const uint8_t *bits = r.bytes((count + 7) / 8);
	r.finish();
	for (size_t i = 0; i < count; i++)
		answers[i] = (bits[i / 8] >> (i % 8)) & 1;
}

namespace {

double
seconds_of(uint64_t bits) {
	double s;
	std::memcpy(&s, &bits, sizeof s);
	return s >= 0 && s < 1e9 ? s : 0; // a time only: NaN or nonsense shown as 0
}

uint64_t
bits_of(double s) {
	uint64_t bits;
	std::memcpy(&bits, &s, sizeof bits);
	return bits;
}

constexpr size_t
padded(size_t n) {
	return (n + 7) / 8 * 8;
}

// A CSR over n vertices whose targets are below n: offsets from 0, never decreasing, ending at
// the edge count (no offsets at all for no vertices).
void
check_csr(const Csr &c, size_t n, const char *what) {
	if (c.offsets.empty() ? n != 0 : c.offsets.size() != n + 1)
		throw ProtocolError(std::string("a build result's ") + what + " has not one offset per vertex");
	if (c.offsets.empty()) {
		if (!c.targets.empty())
			throw ProtocolError(std::string("a build result's ") + what + " has edges but no vertices");
		return;
	}
	if (c.offsets[0] != 0 || c.offsets[n] != c.targets.size())
		throw ProtocolError(std::string("a build result's ") + what + " has offsets that do not span its edges");
	for (size_t v = 0; v < n; v++)
		if (c.offsets[v + 1] < c.offsets[v])
			throw ProtocolError(std::string("a build result's ") + what + " has decreasing offsets");
	for (vid_t t : c.targets)
		if (t >= n)
			throw ProtocolError(std::string("a build result's ") + what + " has an edge to no vertex");
}

} // namespace

std::vector<uint8_t>
encode_searched(const bool *answers, size_t count, double search_seconds) {
	Writer w;
	w.u64(bits_of(search_seconds));
	std::vector<uint8_t> bits = encode_bits(answers, count);
	w.bytes(bits.data(), bits.size());
	return std::move(w.buffer());
}

double
decode_searched(const std::vector<uint8_t> &bytes, bool *answers, size_t count) {
	if (bytes.size() < sizeof(uint64_t))
		throw ProtocolError("a search result is too short");
	Reader r(bytes.data(), sizeof(uint64_t));
	double seconds = seconds_of(r.u64());
	decode_bits(std::vector<uint8_t>(bytes.begin() + sizeof(uint64_t), bytes.end()), answers, count);
	return seconds;
}

// The arrays of a build result, in their order on the wire, with their element sizes.
enum BuiltArray { kIds, kOffsets, kTargets, kRepeated, kOfVertex, kSmallest, kDagOffsets, kDagTargets, kLabels };
static constexpr size_t kElementBytes[kBuiltArrays] = {sizeof(int64_t),      sizeof(eid_t),    sizeof(vid_t),
                                                       sizeof(RepeatedEdge), sizeof(uint32_t), sizeof(vid_t),
                                                       sizeof(eid_t),        sizeof(vid_t),    sizeof(uint32_t)};

std::vector<BytePiece>
built_pieces(const BuiltParts &parts, uint8_t (&header)[kBuiltHeaderBytes]) {
	const BuiltGraph &b = parts.graph;
	struct Part {
		const void *data;
		size_t count;
	};
	const Part arrays[kBuiltArrays] = {{b.graph.ids.data(), b.graph.ids.size()},
	                                   {b.graph.out.offsets.data(), b.graph.out.offsets.size()},
	                                   {b.graph.out.targets.data(), b.graph.out.targets.size()},
	                                   {b.graph.repeated.data(), b.graph.repeated.size()},
	                                   {b.components.of_vertex.data(), b.components.of_vertex.size()},
	                                   {b.components.smallest_vertex.data(), b.components.smallest_vertex.size()},
	                                   {b.dag.offsets.data(), b.dag.offsets.size()},
	                                   {b.dag.targets.data(), b.dag.targets.size()},
	                                   {parts.labels.data().data(), parts.labels.data().size()}};
	static const uint8_t zeros[8] = {};
	uint64_t total = kBuiltHeaderBytes;
	for (int a = 0; a < kBuiltArrays; a++)
		total += padded(arrays[a].count * kElementBytes[a]);
	Writer w;
	w.u64(total);
	w.u64(bits_of(b.graph_seconds));
	w.u64(bits_of(b.scc_seconds));
	w.u64(bits_of(parts.label_seconds));
	w.u64(b.graph.rows_known ? 1 : 0);
	w.u64(parts.labels.label_count());
	for (const Part &a : arrays)
		w.u64(a.count);
	std::memcpy(header, w.buffer().data(), kBuiltHeaderBytes);
	std::vector<BytePiece> pieces = {{header, kBuiltHeaderBytes}};
	for (int a = 0; a < kBuiltArrays; a++) {
		size_t bytes = arrays[a].count * kElementBytes[a];
		pieces.push_back({arrays[a].data, bytes});
		pieces.push_back({zeros, padded(bytes) - bytes});
	}
	return pieces;
}

std::vector<uint8_t>
encode_built(const BuiltParts &parts) {
	uint8_t header[kBuiltHeaderBytes];
	std::vector<uint8_t> bytes;
	for (const BytePiece &piece : built_pieces(parts, header)) {
		const uint8_t *p = static_cast<const uint8_t *>(piece.data);
		bytes.insert(bytes.end(), p, p + piece.size);
	}
	return bytes;
}

void
BuiltReceiver::take(const uint8_t *p, size_t n) {
	while (n > 0) {
		if (received_ < kBuiltHeaderBytes) {
			size_t k = std::min(n, kBuiltHeaderBytes - received_);
			std::memcpy(header_ + received_, p, k);
			received_ += k;
			p += k;
			n -= k;
			if (received_ == kBuiltHeaderBytes)
				start();
			continue;
		}
		if (received_ + n > total_)
			throw ProtocolError("a build result is longer than it says");
		// The next bytes go to the array (or its padding) where received_ lies.
		while (part_ < kBuiltArrays && received_ >= ends_[part_])
			part_++;
		if (part_ == kBuiltArrays)
			throw ProtocolError("a build result is longer than it says");
		size_t begin = ends_[part_] - padded(bytes_[part_]); // the array's first byte
		size_t at = received_ - begin, k = std::min(n, size_t(ends_[part_] - received_));
		if (at < bytes_[part_])
			std::memcpy(destination_[part_] + at, p, std::min(k, bytes_[part_] - at));
		received_ += k;
		p += k;
		n -= k;
	}
}

// visit(array, a) for each of the parts' arrays, in the order of the bytes.
template <typename Visit>
void
BuiltReceiver::each_array(Visit &&visit) {
	BuiltGraph &b = parts_.graph;
	visit(b.graph.ids, kIds);
	visit(b.graph.out.offsets, kOffsets);
	visit(b.graph.out.targets, kTargets);
	visit(b.graph.repeated, kRepeated);
	visit(b.components.of_vertex, kOfVertex);
	visit(b.components.smallest_vertex, kSmallest);
	visit(b.dag.offsets, kDagOffsets);
	visit(b.dag.targets, kDagTargets);
	visit(label_data_, kLabels);
}

void
BuiltReceiver::adopt(const uint8_t *p, size_t n, std::shared_ptr<const void> keep) {
	if (received_ != 0)
		throw ProtocolError("a build result came in pieces and whole");
	if (n < kBuiltHeaderBytes)
		throw ProtocolError("a build result is shorter than it says");
	std::memcpy(header_, p, kBuiltHeaderBytes);
	received_ = kBuiltHeaderBytes;
	lay_out();
	if (n != total_)
		throw ProtocolError(n < total_ ? "a build result is shorter than it says"
		                               : "a build result is longer than it says");
	// Every array begins a multiple of 8 bytes past p, which lies at an 8-byte boundary (a mapping,
	// at a page's): each is aligned for its elements.
	if (reinterpret_cast<uintptr_t>(p) % 8 != 0)
		throw Error(ErrorKind::internal, "a build result to adopt does not lie at an 8-byte boundary");
	each_array([&](auto &array, int a) {
		using T = typename std::remove_reference_t<decltype(array)>::value_type;
		static_assert(alignof(T) <= 8, "a build result's arrays are padded to 8 bytes");
		const T *first = reinterpret_cast<const T *>(p + (ends_[a] - padded(bytes_[a])));
		array = Array<T>::borrow(first, bytes_[a] / sizeof(T), keep);
	});
	received_ = total_;
}

void
BuiltReceiver::lay_out() {
	uint64_t v[kBuiltHeaderBytes / 8];
	std::memcpy(v, header_, sizeof v);
	total_ = v[0];
	if (total_ > kMaxResult)
		throw ProtocolError("a build result is larger than allowed");
	parts_.graph.graph_seconds = seconds_of(v[1]);
	parts_.graph.scc_seconds = seconds_of(v[2]);
	parts_.label_seconds = seconds_of(v[3]);
	if (v[4] > 1 || v[5] < 1 || v[5] > kMaxLabels)
		throw ProtocolError("a build result's header is malformed");
	parts_.graph.graph.rows_known = v[4] == 1;
	labels_ = unsigned(v[5]);
	uint64_t at = kBuiltHeaderBytes;
	for (int a = 0; a < kBuiltArrays; a++) {
		uint64_t count = v[6 + a];
		if (count > (total_ - at) / kElementBytes[a])
			throw ProtocolError("a build result holds fewer elements than it says");
		bytes_[a] = size_t(count * kElementBytes[a]);
		at += padded(bytes_[a]);
		ends_[a] = at;
	}
	if (at != total_)
		throw ProtocolError("a build result is not as long as it says");
}

void
BuiltReceiver::start() {
	lay_out();
	// The arrays, owned, each allocated once at its size.
	each_array([&](auto &array, int a) {
		array.resize(bytes_[a] / kElementBytes[a]);
		destination_[a] = reinterpret_cast<uint8_t *>(array.data());
	});
}

BuiltParts
BuiltReceiver::finish() {
	if (received_ < kBuiltHeaderBytes || received_ != total_)
		throw ProtocolError("a build result is shorter than it says");
	BuiltGraph &b = parts_.graph;
	size_t n = b.graph.ids.size(), c = b.components.smallest_vertex.size();
	const Array<int64_t> &ids = b.graph.ids;
	for (size_t v = 1; v < n; v++)
		if (ids[v - 1] >= ids[v])
			throw ProtocolError("a build result's ids are not strictly ascending");
	check_csr(b.graph.out, n, "graph");
	for (const RepeatedEdge &e : static_cast<const Array<RepeatedEdge> &>(b.graph.repeated))
		if (e.edge >= b.graph.out.targets.size() || e.rows < 2)
			throw ProtocolError("a build result's repeated edges name no edge");
	const Array<uint32_t> &of_vertex = b.components.of_vertex;
	const Array<vid_t> &smallest = b.components.smallest_vertex;
	if (of_vertex.size() != n || (c == 0) != (n == 0) || c > n)
		throw ProtocolError("a build result's components do not cover its vertices");
	for (uint32_t k : of_vertex)
		if (k >= c)
			throw ProtocolError("a build result names a component it does not have");
	for (size_t k = 0; k < c; k++)
		if (smallest[k] >= n || of_vertex[smallest[k]] != k)
			throw ProtocolError("a build result's smallest vertex of a component is not in it");
	check_csr(b.dag, c, "DAG");
	if (label_data_.size() != c * (3 + 2 * size_t(labels_)))
		throw ProtocolError("a build result's labels are not one record per component");
	parts_.labels = GrailLabels::from_data(labels_, std::move(label_data_));
	return std::move(parts_);
}

BuiltParts
decode_built(const std::vector<uint8_t> &bytes) {
	BuiltReceiver r;
	r.take(bytes.data(), bytes.size());
	return r.finish();
}

std::vector<uint8_t>
encode_info(const ServiceInfo &info) {
	Writer w;
	w.str(info.executor);
	w.str(info.device);
	w.u64(info.device_memory);
	w.u64(info.memory_limit);
	w.u64(info.requests);
	w.u64(info.images.size());
	for (const ImageInfo &i : info.images) {
		w.str(i.file);
		w.str(i.build_uuid);
		w.u64(i.host_bytes);
		w.u64(i.device_bytes);
		w.u64(i.last_use);
		w.u64(i.requests);
	}
	return std::move(w.buffer());
}

ServiceInfo
decode_info(const std::vector<uint8_t> &bytes) {
	Reader r(bytes.data(), bytes.size());
	ServiceInfo info;
	info.executor = r.str();
	info.device = r.str();
	info.device_memory = r.u64();
	info.memory_limit = r.u64();
	info.requests = r.u64();
	uint64_t images = r.u64();
	if (images > r.left() / 40)
		throw ProtocolError("an info result holds fewer images than it says");
	for (uint64_t k = 0; k < images; k++) {
		ImageInfo i;
		i.file = r.str(256);
		i.build_uuid = r.str(64);
		i.host_bytes = r.u64();
		i.device_bytes = r.u64();
		i.last_use = r.u64();
		i.requests = r.u64();
		info.images.push_back(std::move(i));
	}
	r.finish();
	return info;
}

std::vector<uint8_t>
encode_error(ErrorKind kind, const std::string &message, const std::string &hint) {
	Writer w;
	w.u8(uint8_t(kind));
	w.str(message.substr(0, 4000));
	w.str(hint.substr(0, 4000));
	return std::move(w.buffer());
}

std::vector<uint8_t>
encode_image_missing(const std::string &message) {
	Writer w;
	w.u8(kImageMissing);
	w.str(message.substr(0, 4000));
	w.str("");
	return std::move(w.buffer());
}

void
throw_error(const uint8_t *p, size_t n) {
	if (n > 0 && p[0] == kImageMissing) {
		Reader r(p, n);
		r.u8();
		std::string message = r.str();
		throw ImageMissing(message);
	}
	throw decode_error(p, n);
}

Error
decode_error(const uint8_t *p, size_t n) {
	Reader r(p, n);
	uint8_t kind = r.u8();
	std::string message = r.str();
	std::string hint = r.str();
	r.finish();
	if (kind > uint8_t(ErrorKind::internal))
		kind = uint8_t(ErrorKind::internal);
	return Error(ErrorKind(kind), message, hint);
}

static void
wait_for(int fd, bool for_write, const WaitFn &wait) {
	if (wait) {
		wait(fd, for_write);
		return;
	}
	struct pollfd p = {fd, short(for_write ? POLLOUT : POLLIN), 0};
	while (poll(&p, 1, -1) < 0 && errno == EINTR) {
	}
}

static void
write_all(int fd, const uint8_t *p, size_t n, const WaitFn &wait) {
	while (n > 0) {
		ssize_t done = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (done > 0) {
			p += done;
			n -= size_t(done);
		} else if (done < 0 && errno == EINTR) {
			continue;
		} else if (done < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			wait_for(fd, true, wait);
		} else {
			throw ProtocolError(std::string("the connection was lost: ") + std::strerror(errno));
		}
	}
}

void
send_frame(int fd, FrameType type, const uint8_t *payload, size_t n, const WaitFn &wait) {
	if (n > UINT32_MAX)
		throw ProtocolError("a frame is too long");
	uint8_t header[kHeaderBytes];
	uint32_t length = uint32_t(n), kind = uint32_t(type);
	std::memcpy(header, &length, 4);
	std::memcpy(header + 4, &kind, 4);
	write_all(fd, header, sizeof header, wait);
	write_all(fd, payload, n, wait);
}

void
send_chunks(int fd, const uint8_t *bytes, size_t n, const WaitFn &wait) {
	for (size_t at = 0; at < n; at += kMaxChunk)
		send_frame(fd, FrameType::chunk, bytes + at, std::min(kMaxChunk, n - at), wait);
}

void
send_shared(int fd, const std::vector<BytePiece> &pieces, const WaitFn &wait) {
	struct File {
		int fd;
		~File() {
			close(fd);
		}
	} file{seal_bytes(pieces)};
	uint64_t count = 0;
	for (const BytePiece &piece : pieces)
		count += piece.size;
	send_shared_file(fd, file.fd, count, wait);
}

void
send_shared_file(int fd, int file, uint64_t count, const WaitFn &wait) {
	uint32_t header[2] = {uint32_t(sizeof count), uint32_t(FrameType::shared)};
	struct iovec iov[2] = {{header, sizeof header}, {&count, sizeof count}};
	// The descriptor rides on the frame's first byte; once some bytes went, the rest go plainly.
	union {
		char buffer[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	std::memset(&control, 0, sizeof control);
	struct msghdr message = {};
	message.msg_iov = iov;
	message.msg_iovlen = 2;
	message.msg_control = control.buffer;
	message.msg_controllen = sizeof control.buffer;
	struct cmsghdr *c = CMSG_FIRSTHDR(&message);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	std::memcpy(CMSG_DATA(c), &file, sizeof(int));
	for (;;) {
		ssize_t done = sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (done > 0) {
			size_t sent = size_t(done), total = sizeof header + sizeof count;
			uint8_t frame[sizeof header + sizeof count];
			std::memcpy(frame, header, sizeof header);
			std::memcpy(frame + sizeof header, &count, sizeof count);
			write_all(fd, frame + sent, total - sent, wait);
			return;
		}
		if (done < 0 && errno == EINTR)
			continue;
		if (done < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			wait_for(fd, true, wait);
		else
			throw ProtocolError(std::string("the connection was lost: ") + std::strerror(errno));
	}
}

void
send_result(int fd, const std::vector<uint8_t> &bytes, const WaitFn &wait) {
	if (bytes.size() > kMaxChunk)
		send_shared(fd, {{bytes.data(), bytes.size()}}, wait);
	else if (!bytes.empty())
		send_frame(fd, FrameType::chunk, bytes.data(), bytes.size(), wait);
	send_frame(fd, FrameType::end, nullptr, 0, wait);
}

// Writes the pieces' bytes in order, gathered (no copy into one buffer); a ProtocolError when the
// peer is gone.
static void
write_pieces(int fd, struct iovec *iov, size_t count, const WaitFn &wait) {
	for (;;) {
		while (count > 0 && iov->iov_len == 0) {
			iov++;
			count--;
		}
		if (count == 0)
			return;
		struct msghdr message = {};
		message.msg_iov = iov;
		message.msg_iovlen = count;
		ssize_t done = sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (done > 0) {
			size_t left = size_t(done);
			while (count > 0 && left >= iov->iov_len) {
				left -= iov->iov_len;
				iov++;
				count--;
			}
			if (count > 0) {
				iov->iov_base = static_cast<uint8_t *>(iov->iov_base) + left;
				iov->iov_len -= left;
			}
		} else if (done < 0 && errno == EINTR) {
			continue;
		} else if (done < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			wait_for(fd, true, wait);
		} else {
			throw ProtocolError(std::string("the connection was lost: ") + std::strerror(errno));
		}
	}
}

void
send_bfs_rows(int fd, const BfsResult &rows, const WaitFn &wait) {
	uint64_t count = rows.vertex.size();
	if (rows.depth.size() != count || rows.parent.size() != count)
		throw Error(ErrorKind::internal, "a bfs result has not one depth and one parent per vertex");
	// The bytes of encode_bfs_rows() as four pieces where they lie.
	std::vector<BytePiece> pieces = {{&count, sizeof count},
	                                 {rows.vertex.data(), count * sizeof(vid_t)},
	                                 {rows.depth.data(), count * sizeof(uint32_t)},
	                                 {rows.parent.data(), count * sizeof(vid_t)}};
	size_t total = sizeof count + 12 * size_t(count);
	if (total > kMaxChunk) {
		send_shared(fd, pieces, wait);
	} else {
		uint32_t header[2] = {uint32_t(total), uint32_t(FrameType::chunk)};
		struct iovec iov[5];
		size_t used = 0;
		iov[used++] = {header, sizeof header};
		for (const BytePiece &piece : pieces)
			iov[used++] = {const_cast<void *>(piece.data), piece.size};
		write_pieces(fd, iov, used, wait);
	}
	send_frame(fd, FrameType::end, nullptr, 0, wait);
}

// Reads n bytes; false if the stream ends before the first one and at_start allows that. A
// descriptor passed with them goes to *passed (-1 if none came); more than one, or one where
// passed is null, is closed and refused.
static bool
read_all(int fd, uint8_t *p, size_t n, bool at_start, const WaitFn &wait, int *passed = nullptr) {
	struct Taken {
		int fd = -1;
		~Taken() {
			if (fd >= 0)
				close(fd);
		}
	} taken;
	size_t got = 0;
	while (got < n) {
		struct iovec iov = {p + got, n - got};
		union {
			char buffer[CMSG_SPACE(4 * sizeof(int))];
			struct cmsghdr align;
		} control;
		struct msghdr message = {};
		message.msg_iov = &iov;
		message.msg_iovlen = 1;
		message.msg_control = control.buffer;
		message.msg_controllen = sizeof control.buffer;
		ssize_t done = recvmsg(fd, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (done >= 0) {
			bool refused = (message.msg_flags & MSG_CTRUNC) != 0;
			for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
				if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
					continue;
				size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				for (size_t k = 0; k < count; k++) {
					int one;
					std::memcpy(&one, CMSG_DATA(c) + k * sizeof(int), sizeof one);
					if (passed != nullptr && taken.fd < 0) {
						taken.fd = one;
					} else {
						close(one);
						refused = true;
					}
				}
			}
			if (refused)
				throw ProtocolError("a frame came with more descriptors than one, or where none belongs");
		}
		if (done > 0) {
			got += size_t(done);
		} else if (done == 0) {
			if (got == 0 && at_start)
				return false;
			throw ProtocolError("the connection was closed in the middle of a message");
		} else if (errno == EINTR) {
			continue;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			wait_for(fd, false, wait);
		} else {
			throw ProtocolError(std::string("the connection was lost: ") + std::strerror(errno));
		}
	}
	if (passed != nullptr) {
		*passed = taken.fd;
		taken.fd = -1;
	}
	return true;
}

bool
recv_frame(int fd, FrameType &type, std::vector<uint8_t> &payload, size_t max_payload, const WaitFn &wait,
           SharedBytes *shared) {
	uint8_t header[kHeaderBytes];
	int passed = -1;
	if (!read_all(fd, header, sizeof header, true, wait, &passed))
		return false;
	struct Passed {
		int fd;
		~Passed() {
			if (fd >= 0)
				close(fd);
		}
	} file{passed};
	uint32_t length, kind;
	std::memcpy(&length, header, 4);
	std::memcpy(&kind, header + 4, 4);
	if (length > max_payload)
		throw ProtocolError("a frame is longer than allowed");
	type = FrameType(kind);
	payload.resize(length);
	read_all(fd, payload.data(), length, false, wait);
	if (type != FrameType::shared) {
		if (file.fd >= 0)
			throw ProtocolError("a frame that shares no bytes came with a descriptor");
		return true;
	}
	if (shared == nullptr)
		throw ProtocolError("a shared frame where none was expected");
	if (file.fd < 0)
		throw ProtocolError("a shared frame came without its memory file");
	uint64_t count;
	if (payload.size() != sizeof count)
		throw ProtocolError("a shared frame's payload is not its byte count");
	std::memcpy(&count, payload.data(), sizeof count);
	int taken = file.fd;
	file.fd = -1;
	*shared = SharedBytes::map(taken, count);
	return true;
}

} // namespace grail::service
