// Pinned host buffers kept by the process between GPU searches: cudaMallocHost costs about 0.3 ms
// per MiB here and cudaFreeHost as much, more than a small graph's whole chordless search. A
// search takes buffers for its downloads and gives them back when it ends; the pool keeps the two
// largest of at most kLargestKept bytes (8 MiB together) for the next search of the process and
// frees the rest.
#pragma once
#include <cstddef>
#include <mutex>
#include <vector>

namespace grail::cuda {

class PinnedPool {
public:
	struct Buffer {
		void *data = nullptr;
		size_t bytes = 0;
	};

	// Larger buffers are freed when given back (a graph with very long rows needs them rarely).
	static constexpr size_t kLargestKept = size_t(4) << 20;

	static PinnedPool &instance();

	// A buffer of at least `need` bytes: the smallest kept one that is large enough, else a new
	// one of `size` bytes (size >= need).
	Buffer take(size_t need, size_t size);

	// Never throws: runs while an Error unwinds.
	void give(Buffer b) noexcept;

	~PinnedPool();

private:
	static constexpr size_t kKept = 2;
	std::mutex mutex_;
	std::vector<Buffer> kept_;
};

} // namespace grail::cuda
