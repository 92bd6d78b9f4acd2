#include "client.hpp"

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

} // namespace

std::vector<uint8_t>
call(const std::string &path, FrameType type, const std::vector<uint8_t> &request, const WaitFn &wait) {
	struct sockaddr_un addr;
	std::memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	if (path.empty() || path.size() >= sizeof addr.sun_path)
		throw Unavailable("the service's socket path is empty or too long");
	std::memcpy(addr.sun_path, path.c_str(), path.size());
	Socket s;
	s.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s.fd < 0)
		throw Unavailable(std::string("cannot make a socket: ") + std::strerror(errno));
	// A Unix socket connects at once or fails (EAGAIN: the listen queue is full).
	if (connect(s.fd, reinterpret_cast<struct sockaddr *>(&addr), sizeof addr) != 0)
		throw Unavailable(std::string("cannot connect to the GPU service: ") + std::strerror(errno));
	send_frame(s.fd, type, request.data(), request.size(), wait);
	std::vector<uint8_t> result, payload;
	for (;;) {
		FrameType got;
		if (!recv_frame(s.fd, got, payload, kMaxChunk + 65536, wait))
			throw ProtocolError("the GPU service closed the connection before its answer was complete");
		if (got == FrameType::chunk) {
			if (payload.size() > kMaxChunk || result.size() + payload.size() > kMaxResult)
				throw ProtocolError("the GPU service sent an oversized chunk");
			result.insert(result.end(), payload.begin(), payload.end());
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

} // namespace grail::service
