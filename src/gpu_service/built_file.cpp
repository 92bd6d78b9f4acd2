#include "built_file.hpp"

#include "error.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace grail::service {

namespace {

constexpr int kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;

[[noreturn]] void
refuse(const std::string &what) {
	throw ProtocolError(what + ": " + std::strerror(errno));
}

constexpr uint64_t
padded(uint64_t bytes) noexcept {
	return (bytes + 7) & ~uint64_t(7);
}

} // namespace

uint64_t
BuiltFile::room_for(uint64_t rows, unsigned labels) noexcept {
	// Every vertex an endpoint of some row, every edge (of the graph, repeated, of the DAG) a row's,
	// every component a vertex: at most 2 rows' vertices and components, rows edges.
	uint64_t n = 2 * rows, m = rows;
	uint64_t arrays = 8 * n + 8 * (n + 1) + 4 * m + sizeof(RepeatedEdge) * m + 4 * n + 4 * n + 8 * (n + 1) + 4 * m +
	                  4 * (3 + 2 * uint64_t(labels)) * n;
	return kBuiltHeaderBytes + arrays + 8 * kBuiltArrays;
}

BuiltFile::BuiltFile(uint64_t rows, unsigned labels) {
	fd_ = memfd_create("pg_grail built", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd_ < 0)
		refuse("cannot make a memory file for a build's result");
	room_ = size_t(room_for(rows, labels));
	void *p = MAP_FAILED;
	if (ftruncate(fd_, off_t(room_)) == 0)
		p = mmap(nullptr, room_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
	if (p == MAP_FAILED) {
		int was = errno;
		close(fd_);
		errno = was;
		refuse("cannot map a memory file of " + std::to_string(room_) + " bytes for a build's result");
	}
	map_ = static_cast<uint8_t *>(p);
	placed_ = kBuiltHeaderBytes;
}

BuiltFile::~BuiltFile() {
	unmap();
	if (fd_ >= 0)
		close(fd_);
}

void
BuiltFile::unmap() noexcept {
	if (map_ != nullptr)
		munmap(map_, room_);
	map_ = nullptr;
}

void *
BuiltFile::place(size_t bytes) {
	if (map_ == nullptr || padded(bytes) > room_ - placed_)
		throw Error(ErrorKind::internal, "a build's parts outgrew the room of their result file");
	void *at = map_ + placed_;
	placed_ += size_t(padded(bytes));
	return at;
}

uint64_t
BuiltFile::seal(BuiltParts parts) {
	if (map_ == nullptr)
		throw Error(ErrorKind::internal, "a build's result file was sealed twice");
	uint8_t header[kBuiltHeaderBytes];
	uint64_t at = 0;
	for (const BytePiece &piece : built_pieces(parts, header)) {
		if (piece.size > room_ - at)
			throw Error(ErrorKind::internal, "a build's result outgrew the room of its file");
		const uint8_t *from = static_cast<const uint8_t *>(piece.data);
		bool in_file = from >= map_ && from < map_ + room_;
		if (in_file && from != map_ + at)
			throw Error(ErrorKind::internal, "a build's part lies elsewhere than its place in the result");
		if (!in_file && piece.size > 0)
			std::memcpy(map_ + at, from, piece.size);
		at += piece.size;
	}
	parts = BuiltParts{}; // its placed arrays borrow from the mapping, which goes now
	unmap();
	// No writable mapping left: the file is cut to the result and sealed.
	if (ftruncate(fd_, off_t(at)) != 0)
		refuse("cannot cut a build's result file");
	if (fcntl(fd_, F_ADD_SEALS, kSeals) != 0)
		refuse("cannot seal a build's result file");
	return at;
}

} // namespace grail::service
