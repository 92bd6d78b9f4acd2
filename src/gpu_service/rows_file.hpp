// A build's rows written once, where the GPU service reads them: the backend's read appends each
// row straight into two memory files (sources, targets), mapped read-write while it reads, and
// seals them; their descriptors cross the socket and the service maps them. Before, the rows went
// into host vectors and were then copied into a sealed file (seal_bytes): a second pass over a
// gigabyte on the build's path.
#pragma once
#include "cpp_only.hpp"

#include "graph.hpp"

#include <cstddef>
#include <cstdint>

namespace grail::service {

class RowsFile {
public:
	RowsFile() = default;
	~RowsFile();
	RowsFile(RowsFile &&other) noexcept;
	RowsFile &operator=(RowsFile &&other) noexcept;
	RowsFile(const RowsFile &) = delete;
	RowsFile &operator=(const RowsFile &) = delete;

	// Room for rows rows at once (the planner's estimate): address space and a sparse file, no
	// memory until written. False when the system refuses (the rows then grow as they come).
	bool reserve(size_t rows) noexcept;

	// Never throws, as EdgeList::append: false when the files cannot grow (out of memory or
	// descriptors) or once sealed. Growing moves no bytes: the files are lengthened and their
	// mappings remapped (mremap), where a vector copies what it holds.
	bool
	append(int64_t source, int64_t target) noexcept {
		if (rows_ >= capacity_ && !grow()) // (sealed: no capacity left, and no growth)
			return false;
		source_.map[rows_] = source;
		target_.map[rows_] = target;
		rows_++;
		return true;
	}

	size_t
	size() const noexcept {
		return rows_;
	}

	// Ends the writing: unmaps both files, cuts each to its rows (rows * 8 bytes) and seals it
	// against writes and resizing, so that the service may map it (SharedBytes::map refuses a file
	// that could change). Once sealed, appends fail; sealing again does nothing. A ProtocolError
	// when the system refuses.
	void seal();
	bool
	sealed() const noexcept {
		return sealed_;
	}
	// The sealed files' descriptors (owned here: the sender passes copies).
	int
	source_fd() const noexcept {
		return source_.fd;
	}
	int
	target_fd() const noexcept {
		return target_.fd;
	}

	// The rows moved into edges (which must be empty) for a build on the host's CPU (the policy or
	// the service declined them after the read): sealed, then each file copied and closed in turn,
	// so that at most one file's bytes are held twice. The files are gone afterwards. Throws
	// ProtocolError (the system refused) or std::bad_alloc.
	void move_to(grail::EdgeList &edges);

private:
	struct Column {
		int fd = -1;
		int64_t *map = nullptr; // mapped entries while writing, none once sealed
		size_t mapped = 0;
	};
	bool grow() noexcept;
	bool make_files() noexcept;
	void release() noexcept;

	Column source_, target_;
	size_t rows_ = 0;
	size_t capacity_ = 0;
	bool sealed_ = false;
};

} // namespace grail::service
