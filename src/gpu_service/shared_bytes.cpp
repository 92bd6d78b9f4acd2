#include "shared_bytes.hpp"

#include "protocol.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace grail::service {

namespace {

constexpr int kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;

struct Descriptor {
	int fd = -1;
	~Descriptor() {
		if (fd >= 0)
			close(fd);
	}
	int
	release() noexcept {
		int kept = fd;
		fd = -1;
		return kept;
	}
};

[[noreturn]] void
refuse(const std::string &what) {
	throw ProtocolError(what + ": " + std::strerror(errno));
}

} // namespace

int
seal_bytes(const std::vector<BytePiece> &pieces) {
	Descriptor file;
	file.fd = memfd_create("pg_grail", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (file.fd < 0)
		refuse("cannot make a memory file");
	size_t total = 0;
	for (const BytePiece &piece : pieces)
		total += piece.size;
	// Sized once, then filled: no write has to grow the file.
	if (ftruncate(file.fd, off_t(total)) != 0)
		refuse("cannot size a memory file of " + std::to_string(total) + " bytes");
	off_t at = 0;
	for (const BytePiece &piece : pieces) {
		const uint8_t *p = static_cast<const uint8_t *>(piece.data);
		for (size_t left = piece.size; left > 0;) {
			ssize_t done = pwrite(file.fd, p, left, at);
			if (done < 0 && errno == EINTR)
				continue;
			if (done <= 0)
				refuse("cannot fill a memory file");
			p += done;
			at += done;
			left -= size_t(done);
		}
	}
	if (fcntl(file.fd, F_ADD_SEALS, kSeals) != 0)
		refuse("cannot seal a memory file");
	return file.release();
}

SharedBytes
SharedBytes::map(int fd, uint64_t size) {
	Descriptor file;
	file.fd = fd;
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_WRITE)) != (F_SEAL_SHRINK | F_SEAL_WRITE))
		throw ProtocolError("the peer sent a memory file that is not sealed");
	struct stat st;
	if (fstat(fd, &st) != 0)
		refuse("cannot read a memory file's size");
	if (st.st_size < 0 || uint64_t(st.st_size) != size)
		throw ProtocolError("the peer sent a memory file of " + std::to_string(st.st_size) + " bytes, not the " +
		                    std::to_string(size) + " it announced");
	SharedBytes bytes;
	if (size == 0)
		return bytes;
	// Populated at once: a gigabyte faulted in page by page costs more than the reading.
	void *p = mmap(nullptr, size_t(size), PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED)
		refuse("cannot map a memory file of " + std::to_string(size) + " bytes");
	bytes.data_ = static_cast<const uint8_t *>(p);
	bytes.size_ = size_t(size);
	return bytes;
}

SharedBytes::~SharedBytes() {
	if (data_ != nullptr)
		munmap(const_cast<uint8_t *>(data_), size_);
}

SharedBytes::SharedBytes(SharedBytes &&other) noexcept : data_(other.data_), size_(other.size_) {
	other.data_ = nullptr;
	other.size_ = 0;
}

SharedBytes &
SharedBytes::operator=(SharedBytes &&other) noexcept {
	if (this != &other) {
		if (data_ != nullptr)
			munmap(const_cast<uint8_t *>(data_), size_);
		data_ = other.data_;
		size_ = other.size_;
		other.data_ = nullptr;
		other.size_ = 0;
	}
	return *this;
}

} // namespace grail::service
