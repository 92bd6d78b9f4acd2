// The backend's end of the GPU service (protocol.hpp): one connection per request. No PostgreSQL
// here: the glue (src/pg/service/gpu_client.cpp) passes a wait function that waits on its latch
// and lets a cancel through, and turns the errors into its own.
#pragma once
#include "cpp_only.hpp"

#include "protocol.hpp"

#include <string>
#include <vector>

namespace grail::service {

// The service is not there (no socket, nobody listening, or its queue is full).
class Unavailable : public ProtocolError {
public:
	using ProtocolError::ProtocolError;
};

// Sends one request over a new connection to the socket at path and returns the result's bytes
// (its chunks joined). Throws Unavailable when it cannot connect, ProtocolError when the
// connection fails or closes before the end frame, or a malformed frame arrives, and the server's
// Error from an error frame. Whatever wait throws (a cancel) closes the connection, which cancels
// the request in the server.
std::vector<uint8_t> call(const std::string &path, FrameType type, const std::vector<uint8_t> &request,
                          const WaitFn &wait);

} // namespace grail::service
