#include "client.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace grail::service {

namespace {

struct Socket {
	int fd = -1;
	~Socket() {
		if (fd >= 0)
			close(fd);
	}
};

// A connected socket to path, or Unavailable.
void
connect_to(const std::string &path, Socket &s) {
	struct sockaddr_un addr;
	std::memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	if (path.empty() || path.size() >= sizeof addr.sun_path)
		throw Unavailable("the service's socket path is empty or too long");
	std::memcpy(addr.sun_path, path.c_str(), path.size());
	s.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s.fd < 0)
		throw Unavailable(std::string("cannot make a socket: ") + std::strerror(errno));
	// A Unix socket connects at once or fails (EAGAIN: the listen queue is full).
	if (connect(s.fd, reinterpret_cast<struct sockaddr *>(&addr), sizeof addr) != 0)
		throw Unavailable(std::string("cannot connect to the GPU service: ") + std::strerror(errno));
}

// Reads the result frames of a request until its end frame, each chunk's bytes to sink where one
// is given, else joined into the returned bytes; a shared frame's file to whole, where given;
// started frames to started, where given.
std::vector<uint8_t>
receive(int fd, const WaitFn &wait, const std::function<void()> &started, const ChunkSink &sink,
        const SharedSink &whole = nullptr) {
	std::vector<uint8_t> result, payload;
	size_t received = 0;
	for (;;) {
		FrameType got;
		SharedBytes shared;
		if (!recv_frame(fd, got, payload, kMaxChunk + 65536, wait, &shared))
			throw ProtocolError("the GPU service closed the connection before its answer was complete");
		if (got == FrameType::chunk || got == FrameType::shared) {
			const uint8_t *bytes = got == FrameType::chunk ? payload.data() : shared.data();
			size_t n = got == FrameType::chunk ? payload.size() : shared.size();
			if ((got == FrameType::chunk && n > kMaxChunk) || received + n > kMaxResult)
				throw ProtocolError("the GPU service sent an oversized chunk");
			received += n;
			if (got == FrameType::shared && whole)
				whole(std::move(shared));
			else if (sink)
				sink(bytes, n);
			else
				result.insert(result.end(), bytes, bytes + n);
		} else if (got == FrameType::started && started && payload.empty() && received == 0) {
			started();
		} else if (got == FrameType::end) {
			if (!payload.empty())
				throw ProtocolError("the GPU service sent a malformed end frame");
			return result;
		} else if (got == FrameType::error) {
			throw_error(payload.data(), payload.size());
		} else {
			throw ProtocolError("the GPU service sent an unknown frame");
		}
	}
}

} // namespace

std::vector<uint8_t>
call(const std::string &path, FrameType type, const std::vector<uint8_t> &request, const WaitFn &wait) {
	Socket s;
	connect_to(path, s);
	send_frame(s.fd, type, request.data(), request.size(), wait);
	return receive(s.fd, wait, nullptr, nullptr);
}

void
call(const std::string &path, FrameType type, const std::vector<uint8_t> &request, const WaitFn &wait,
     const ChunkSink &sink) {
	Socket s;
	connect_to(path, s);
	send_frame(s.fd, type, request.data(), request.size(), wait);
	receive(s.fd, wait, nullptr, sink);
}

Stream::Stream(const std::string &path, FrameType type, const std::vector<uint8_t> &request, const WaitFn &wait) {
	Socket s;
	connect_to(path, s);
	send_frame(s.fd, type, request.data(), request.size(), wait);
	fd_ = s.fd;
	s.fd = -1;
}

Stream::~Stream() {
	close_connection();
}

void
Stream::close_connection() noexcept {
	if (fd_ >= 0)
		close(fd_);
	fd_ = -1;
}

bool
Stream::next(const WaitFn &wait, const ChunkSink &sink) {
	if (fd_ < 0)
		return false;
	FrameType got;
	if (!recv_frame(fd_, got, payload_, kMaxChunk + 65536, wait))
		throw ProtocolError("the GPU service closed the connection before its answer was complete");
	if (got == FrameType::chunk) {
		if (payload_.size() > kMaxChunk)
			throw ProtocolError("the GPU service sent an oversized chunk");
		received_ += payload_.size();
		sink(payload_.data(), payload_.size());
		return true;
	}
	if (got == FrameType::end) {
		if (!payload_.empty())
			throw ProtocolError("the GPU service sent a malformed end frame");
		close_connection();
		return false;
	}
	if (got == FrameType::error)
		throw_error(payload_.data(), payload_.size());
	throw ProtocolError("the GPU service sent an unknown frame");
}

namespace {

// A build request whose rows go by send_rows (their two shared frames), its answer read.
void
send_build(const std::string &path, const BuildRequest &request, const std::function<void(int fd)> &send_rows,
           const WaitFn &wait, const std::function<void()> &started, const ChunkSink &sink, const SharedSink &whole) {
	Socket s;
	connect_to(path, s);
	try {
		std::vector<uint8_t> header = encode(request);
		send_frame(s.fd, FrameType::build, header.data(), header.size(), wait);
		send_rows(s.fd);
	} catch (const ProtocolError &lost) {
		// The server may have refused the request and closed: its error frame says why.
		FrameType got;
		std::vector<uint8_t> payload;
		bool answered = false;
		try {
			answered = recv_frame(s.fd, got, payload, kMaxChunk + 65536, wait) && got == FrameType::error;
		} catch (const ProtocolError &) {
		}
		if (answered)
			throw_error(payload.data(), payload.size());
		throw;
	}
	receive(s.fd, wait, started, sink, whole);
}

} // namespace

void
call_build(const std::string &path, const BuildRequest &request, const int64_t *source, const int64_t *target,
           const WaitFn &wait, const std::function<void()> &started, const ChunkSink &sink, const SharedSink &whole) {
	size_t n = size_t(request.rows) * sizeof(int64_t);
	send_build(
	    path, request,
	    [&](int fd) {
		    send_shared(fd, {{source, n}}, wait);
		    send_shared(fd, {{target, n}}, wait);
	    },
	    wait, started, sink, whole);
}

void
call_build(const std::string &path, const BuildRequest &request, const RowsFile &rows, const WaitFn &wait,
           const std::function<void()> &started, const ChunkSink &sink, const SharedSink &whole) {
	if (!rows.sealed() || rows.size() != request.rows)
		throw ProtocolError("a build's rows file must be sealed and hold the request's rows");
	uint64_t n = request.rows * sizeof(int64_t);
	send_build(
	    path, request,
	    [&](int fd) {
		    send_shared_file(fd, rows.source_fd(), n, wait);
		    send_shared_file(fd, rows.target_fd(), n, wait);
	    },
	    wait, started, sink, whole);
}

} // namespace grail::service
