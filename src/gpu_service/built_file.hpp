// A build's result written once, where the backend maps it: the service's executor downloads each
// part of the graph from the device straight into its place in a memory file laid out as
// built_pieces() lays the result out (PartPlacer), and what it made on the host (the labels, a
// numbering the host finished) is copied in at the end; the header goes first once the sizes are
// known, then the file is sealed. Before, the parts were downloaded into host arrays and then copied
// into a sealed file (seal_bytes): a second pass over hundreds of MB on a build's path.
#pragma once
#include "cpp_only.hpp"

#include "gpu.hpp"
#include "protocol.hpp"

#include <cstddef>
#include <cstdint>

namespace grail::service {

class BuiltFile final : public PartPlacer {
public:
	// Room for the result of a build of rows rows with labels labels: a sparse file as long as the
	// largest result such a build can make (no memory until written), mapped read-write. A
	// ProtocolError when the system refuses.
	BuiltFile(uint64_t rows, unsigned labels);
	~BuiltFile() override;
	BuiltFile(const BuiltFile &) = delete;
	BuiltFile &operator=(const BuiltFile &) = delete;

	// The next part's room, in the order of the result's arrays (PartPlacer), padded as the layout
	// pads it. An Error(internal) past the room, or once sealed.
	void *place(size_t bytes) override;

	// Writes the result of parts: the header, and each array where it was placed (it must lie
	// exactly where the layout puts it: an Error(internal) otherwise) or copied there; then unmaps,
	// cuts the file to the result and seals it. Takes the parts, whose placed arrays borrow from the
	// mapping. Returns the result's size in bytes; fd() is then the sealed file.
	uint64_t seal(BuiltParts parts);
	int
	fd() const noexcept {
		return fd_;
	}

	// The bytes reserved for a build of rows rows with labels labels.
	static uint64_t room_for(uint64_t rows, unsigned labels) noexcept;

private:
	void unmap() noexcept;
	int fd_ = -1;
	uint8_t *map_ = nullptr;
	size_t room_ = 0;
	size_t placed_ = 0; // the layout's next offset: the header's end, then past each part placed
	bool sealed_ = false;
};

} // namespace grail::service
