#include "protocol.hpp"

#include <cerrno>
#include <cstring>

#include <poll.h>
#include <sys/socket.h>
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
	q.from.resize(count);
	q.to.resize(count);
	std::memcpy(q.from.data(), r.bytes(count * sizeof(int64_t)), count * sizeof(int64_t));
	std::memcpy(q.to.data(), r.bytes(count * sizeof(int64_t)), count * sizeof(int64_t));
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

template <typename T>
static void
read_array(Reader &r, std::vector<T> &out, uint64_t count) {
	out.resize(count);
	std::memcpy(out.data(), r.bytes(count * sizeof(T)), count * sizeof(T));
}

BfsRows
decode_bfs_rows(const std::vector<uint8_t> &bytes) {
	Reader r(bytes.data(), bytes.size());
	uint64_t count = r.u64();
	if (count > r.left() / 12)
		throw ProtocolError("a bfs result holds fewer rows than it says");
	BfsRows rows;
	read_array(r, rows.vertex, count);
	read_array(r, rows.depth, count);
	read_array(r, rows.parent, count);
	r.finish();
	return rows;
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

// Reads n bytes; false if the stream ends before the first one and at_start allows that.
static bool
read_all(int fd, uint8_t *p, size_t n, bool at_start, const WaitFn &wait) {
	size_t got = 0;
	while (got < n) {
		ssize_t done = recv(fd, p + got, n - got, MSG_DONTWAIT);
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
	return true;
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
send_result(int fd, const std::vector<uint8_t> &bytes, const WaitFn &wait) {
	for (size_t at = 0; at < bytes.size(); at += kMaxChunk)
		send_frame(fd, FrameType::chunk, bytes.data() + at, std::min(kMaxChunk, bytes.size() - at), wait);
	send_frame(fd, FrameType::end, nullptr, 0, wait);
}

bool
recv_frame(int fd, FrameType &type, std::vector<uint8_t> &payload, size_t max_payload, const WaitFn &wait) {
	uint8_t header[kHeaderBytes];
	if (!read_all(fd, header, sizeof header, true, wait))
		return false;
	uint32_t length, kind;
	std::memcpy(&length, header, 4);
	std::memcpy(&kind, header + 4, 4);
	if (length > max_payload)
		throw ProtocolError("a frame is longer than allowed");
	type = FrameType(kind);
	payload.resize(length);
	read_all(fd, payload.data(), length, false, wait);
	return true;
}

} // namespace grail::service
