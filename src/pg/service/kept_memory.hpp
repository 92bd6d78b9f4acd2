// What this backend keeps of graphs between statements (loaded private images, live graphs'
// snapshot rebuilds and overlays, reversed edges), counted where each is made, for the budget
// grail.backend_memory_limit puts on their sum (open_graph.cpp keeps them within it).
#pragma once

#include <cstddef>

namespace grail::pg {

// The bytes one kept object holds, counted into the backend's total while it lives.
class KeptBytes {
public:
	KeptBytes() = default;
	KeptBytes(const KeptBytes &) = delete;
	KeptBytes &operator=(const KeptBytes &) = delete;
	~KeptBytes();
	void add(size_t bytes) noexcept;
	size_t
	bytes() const noexcept {
		return bytes_;
	}

private:
	size_t bytes_ = 0;
};

// The bytes of every KeptBytes alive in this backend.
size_t kept_bytes_total() noexcept;

// How much this process's heap grew from its making to bytes() (malloc's bytes in use, in its
// arenas and its own mappings; 0 where it shrank): the memory an object made in between holds,
// its temporaries freed, without the engine counting each of its arrays. The image cache's
// shared mappings are files, not heap, and not counted.
class HeapGrowth {
public:
	HeapGrowth() noexcept;
	size_t bytes() const noexcept;

private:
	size_t start_;
};

} // namespace grail::pg
