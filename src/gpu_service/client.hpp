// The backend's end of the GPU service (protocol.hpp): one connection per request. No PostgreSQL
// here: the glue (src/pg/service/gpu_client.cpp) passes a wait function that waits on its latch
// and lets a cancel through, and turns the errors into its own.
#pragma once
#include "cpp_only.hpp"

#include "protocol.hpp"
#include "rows_file.hpp"

#include <functional>
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

// Where a result's chunks go as they arrive.
using ChunkSink = std::function<void(const uint8_t *bytes, size_t n)>;

// The same, the result's chunks to sink as they arrive (a BfsReceiver's take: no joined copy).
// Throws as call() does, and whatever sink throws.
void call(const std::string &path, FrameType type, const std::vector<uint8_t> &request, const WaitFn &wait,
          const ChunkSink &sink);

// A request whose result is read a frame at a time, as its caller wants it (a chordless request's
// cycles, whose reader may stop early): the connection stays open between reads. Destroying the
// stream closes it, which cancels the request in the server if it has not ended.
class Stream {
public:
	// Connects and sends the request (Unavailable when it cannot connect).
	Stream(const std::string &path, FrameType type, const std::vector<uint8_t> &request, const WaitFn &wait);
	~Stream();
	Stream(const Stream &) = delete;
	Stream &operator=(const Stream &) = delete;

	// Reads the next frame: a chunk's bytes to sink and true; false at the end frame (the
	// connection is closed then, and every later call returns false). An error frame is thrown as
	// the server's Error; a broken connection or a malformed frame as a ProtocolError.
	bool next(const WaitFn &wait, const ChunkSink &sink);
	bool
	ended() const noexcept {
		return fd_ < 0;
	}

private:
	void close_connection() noexcept;
	int fd_ = -1;
	size_t received_ = 0;
	std::vector<uint8_t> payload_;
};

// A build request (FrameType::build): the request frame, then the rows from the caller's arrays in
// two shared frames (each array sealed into a memory file: one copy, none through the socket); started() is called when
// the server's started frame comes (the rows are in and its device work begins), and the result's
// chunks go to sink as they arrive (a BuiltReceiver's take: no reassembled copy), or a result sent
// whole in a shared frame to whole (a BuiltReceiver's adopt: no copy at all). Throws as call()
// does, and whatever sink throws; an error frame the server sent while the rows were still going (it
// refused the request) is thrown as that error rather than as the broken connection.
using SharedSink = std::function<void(SharedBytes &&bytes)>;
void call_build(const std::string &path, const BuildRequest &request, const int64_t *source, const int64_t *target,
                const WaitFn &wait, const std::function<void()> &started, const ChunkSink &sink,
                const SharedSink &whole);
// The same, the rows from a sealed rows file (the read wrote them there: no copy at all); it must
// hold request.rows rows (else a ProtocolError, nothing sent), and stays the caller's.
void call_build(const std::string &path, const BuildRequest &request, const RowsFile &rows, const WaitFn &wait,
                const std::function<void()> &started, const ChunkSink &sink, const SharedSink &whole);

} // namespace grail::service
