// Bulk bytes between a backend and the GPU service (a build's rows, a build's parts, a bfs's rows):
// written once into a sealed memory file (memfd) whose descriptor crosses the socket in a
// FrameType::shared frame, and mapped by the reader. Through the socket itself, a gigabyte of rows
// takes thousands of wakeups of both processes (its buffer holds a few hundred kilobytes), which
// on a busy server cost seconds; a mapping costs one copy in and none out.
#pragma once
#include "cpp_only.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace grail::service {

// A piece of the bytes to seal, in order.
struct BytePiece {
	const void *data;
	size_t size;
};

// A sealed memory file holding the pieces' bytes in order: no one can write, shrink or grow it any
// more, so a reader's mapping stays valid and unchanged. Returns its descriptor (close-on-exec; the
// caller closes it once sent); a ProtocolError when the system refuses (out of memory).
int seal_bytes(const std::vector<BytePiece> &pieces);

// The bytes of a sealed memory file that the peer sent, mapped read-only. map() takes the
// descriptor (closing it) and refuses, with a ProtocolError, a file that is not sealed against
// writes and shrinking (its pages could change or vanish under the reader) or whose size is not
// the one announced.
class SharedBytes {
public:
	SharedBytes() = default;
	static SharedBytes map(int fd, uint64_t size);
	~SharedBytes();
	SharedBytes(SharedBytes &&other) noexcept;
	SharedBytes &operator=(SharedBytes &&other) noexcept;
	SharedBytes(const SharedBytes &) = delete;
	SharedBytes &operator=(const SharedBytes &) = delete;

	const uint8_t *
	data() const noexcept {
		return data_;
	}
	size_t
	size() const noexcept {
		return size_;
	}

private:
	const uint8_t *data_ = nullptr;
	size_t size_ = 0;
};

} // namespace grail::service
