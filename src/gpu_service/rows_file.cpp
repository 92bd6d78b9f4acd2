#include "rows_file.hpp"

#include "protocol.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace grail::service {

namespace {

constexpr int kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
// The first room when no estimate gave one: 64K rows (512 KB a file), then doubled, which costs
// no copy and no memory until written.
constexpr size_t kFirstRows = size_t(1) << 16;

[[noreturn]] void
refuse(const std::string &what) {
	throw ProtocolError(what + ": " + std::strerror(errno));
}

// The column's file lengthened to rows entries and its mapping remapped over them; false, with
// the mapping as it was, when the system refuses.
bool
lengthen(int fd, int64_t *&map, size_t &mapped, size_t rows) noexcept {
	size_t bytes = rows * sizeof(int64_t);
	if (ftruncate(fd, off_t(bytes)) != 0)
		return false;
	void *p = map == nullptr ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
	                         : mremap(map, mapped * sizeof(int64_t), bytes, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return false;
	map = static_cast<int64_t *>(p);
	mapped = rows;
	return true;
}

} // namespace

RowsFile::~RowsFile() {
	release();
}

RowsFile::RowsFile(RowsFile &&other) noexcept
    : source_(other.source_), target_(other.target_), rows_(other.rows_), capacity_(other.capacity_),
      sealed_(other.sealed_) {
	other.source_ = other.target_ = Column{};
	other.rows_ = other.capacity_ = 0;
	other.sealed_ = false;
}

RowsFile &
RowsFile::operator=(RowsFile &&other) noexcept {
	if (this != &other) {
		release();
		source_ = other.source_;
		target_ = other.target_;
		rows_ = other.rows_;
		capacity_ = other.capacity_;
		sealed_ = other.sealed_;
		other.source_ = other.target_ = Column{};
		other.rows_ = other.capacity_ = 0;
		other.sealed_ = false;
	}
	return *this;
}

void
RowsFile::release() noexcept {
	for (Column *c : {&source_, &target_}) {
		if (c->map != nullptr)
			munmap(c->map, c->mapped * sizeof(int64_t));
		if (c->fd >= 0)
			close(c->fd);
		*c = Column{};
	}
	rows_ = capacity_ = 0;
}

bool
RowsFile::make_files() noexcept {
	for (Column *c : {&source_, &target_})
		if (c->fd < 0) {
			c->fd = memfd_create("pg_grail rows", MFD_CLOEXEC | MFD_ALLOW_SEALING);
			if (c->fd < 0)
				return false;
		}
	return true;
}

bool
RowsFile::reserve(size_t rows) noexcept {
	if (sealed_ || rows <= capacity_ || rows > (SIZE_MAX / sizeof(int64_t)) || !make_files())
		return false;
	// A failure on the second file leaves the first longer than the room: harmless, sealing cuts it.
	for (Column *c : {&source_, &target_})
		if (c->mapped < rows && !lengthen(c->fd, c->map, c->mapped, rows))
			return false;
	capacity_ = rows;
	return true;
}

bool
RowsFile::grow() noexcept {
	if (sealed_)
		return false;
	size_t rows = capacity_ < kFirstRows / 2 ? kFirstRows : 2 * capacity_;
	return reserve(rows);
}

void
RowsFile::seal() {
	if (sealed_)
		return;
	if (!make_files())
		refuse("cannot make a memory file for a build's rows");
	for (Column *c : {&source_, &target_}) {
		// No writable mapping may remain for F_SEAL_WRITE.
		if (c->map != nullptr)
			munmap(c->map, c->mapped * sizeof(int64_t));
		c->map = nullptr;
		c->mapped = 0;
	}
	capacity_ = 0;
	sealed_ = true;
	for (Column *c : {&source_, &target_}) {
		if (ftruncate(c->fd, off_t(rows_ * sizeof(int64_t))) != 0)
			refuse("cannot cut a build's rows file to its rows");
		if (fcntl(c->fd, F_ADD_SEALS, kSeals) != 0)
			refuse("cannot seal a build's rows file");
	}
}

void
RowsFile::move_to(grail::EdgeList &edges) {
	seal();
	size_t bytes = rows_ * sizeof(int64_t);
	for (auto [column, into] : {std::pair{&source_, &edges.source}, std::pair{&target_, &edges.target}}) {
		if (bytes > 0) {
			void *p = mmap(nullptr, bytes, PROT_READ, MAP_SHARED | MAP_POPULATE, column->fd, 0);
			if (p == MAP_FAILED)
				refuse("cannot map a build's rows file");
			const int64_t *rows = static_cast<const int64_t *>(p);
			try {
				into->assign(rows, rows + rows_);
			} catch (...) {
				munmap(p, bytes);
				throw;
			}
			munmap(p, bytes);
		}
		close(column->fd);
		column->fd = -1;
	}
	release();
}

} // namespace grail::service
