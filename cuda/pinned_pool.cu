#include "check.cuh"
#include "pinned_pool.cuh"

#include <algorithm>

namespace grail::cuda {

PinnedPool &
PinnedPool::instance() {
	static PinnedPool pool; // freed at exit, before the CUDA runtime's own teardown
	return pool;
}

PinnedPool::Buffer
PinnedPool::take(size_t need, size_t size) {
	{
		std::lock_guard<std::mutex> lock(mutex_);
		auto best = kept_.end();
		for (auto k = kept_.begin(); k != kept_.end(); ++k)
			if (k->bytes >= need && (best == kept_.end() || k->bytes < best->bytes))
				best = k;
		if (best != kept_.end()) {
			Buffer b = *best;
			kept_.erase(best);
			return b;
		}
	}
	Buffer b;
	CUDA_CHECK(cudaMallocHost(&b.data, size));
	b.bytes = size;
	return b;
}

void
PinnedPool::give(Buffer b) noexcept {
	if (!b.data)
		return;
	if (b.bytes > kLargestKept) {
		cudaFreeHost(b.data);
		return;
	}
	Buffer spare{};
	{
		std::lock_guard<std::mutex> lock(mutex_);
		kept_.push_back(b);
		if (kept_.size() > kKept) {
			auto smallest = std::min_element(kept_.begin(), kept_.end(),
			                                 [](const Buffer &x, const Buffer &y) { return x.bytes < y.bytes; });
			spare = *smallest;
			kept_.erase(smallest);
		}
	}
	if (spare.data)
		cudaFreeHost(spare.data);
}

PinnedPool::~PinnedPool() {
	for (const Buffer &b : kept_)
		cudaFreeHost(b.data);
}

} // namespace grail::cuda
