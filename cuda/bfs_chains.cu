#include "bfs_chains.cuh"
#include "frontier_push.cuh"
#include "primitives.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>

#include <algorithm>

namespace grail::cuda::bfs {

namespace {

constexpr ChainLink kOffsetUnit = 1ull << 32;
// Offsets saturate here: only the unranked links of cycles made of chain vertices alone (which
// nothing outside reaches) grow without bound, and they must not spill into kRanked.
constexpr uint32_t kMaxOffset = 0x7FFFFFFFu;

__global__ void
count_in_edges(CsrView g, uint32_t *in_degree) {
	for_each_edge(g, grid_warp(), grid_warps(), [&](vid_t, vid_t w, bool valid, eid_t) {
		if (valid)
			atomicAdd(&in_degree[w], 1u);
	});
}

// A warp per 32 vertices: the chain vertices' bits, one plain store per word, and their count.
__global__ void
mark_members(CsrView g, const uint32_t *in_degree, vid_t source, uint32_t *member, uint32_t *count) {
	const size_t words = Bitmap::words_for(g.vertices);
	const unsigned lane = threadIdx.x % 32;
	uint32_t found = 0;
	for (size_t word = grid_warp(); word < words; word += grid_warps()) {
		vid_t v = vid_t(word * 32 + lane);
		bool chain = v < g.vertices && v != source && in_degree[v] == 1 && g.offsets[v + 1] - g.offsets[v] == 1;
		unsigned bits = __ballot_sync(kFullMask, chain);
		if (lane == 0) {
			member[word] = bits;
			found += __popc(bits);
		}
	}
	if (lane == 0 && found)
		atomicAdd(count, found);
}

// Every chain vertex w learns its one in-neighbour u: the first vertex of its chain is w itself
// when u is no chain vertex, else unknown yet (offset 1 from u).
__global__ void
link_predecessors(CsrView g, Bitmap member, ChainLink *link) {
	for_each_edge(g, grid_warp(), grid_warps(), [&](vid_t u, vid_t w, bool valid, eid_t) {
		if (valid && member.test(w))
			link[w] = member.test(u) ? (ChainLink(u) | kOffsetUnit) : (ChainLink(w) | kRanked);
	});
}

// One round of pointer jumping, in place: a link read while its owner rewrites it is the old or
// the new pair, both true (an ancestor and the distance to it), so rounds only converge faster.
// 64-bit loads and stores keep the pair whole. remaining[round] counts the links still unranked;
// a round after one that left none returns at once (the host launches a fixed number).
__global__ void
jump(vid_t n, Bitmap member, ChainLink *link, uint32_t round, uint32_t *remaining) {
	if (round > 0 && remaining[round - 1] == 0)
		return;
	uint32_t left = 0;
	for (size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n; v += size_t(gridDim.x) * blockDim.x) {
		if (!member.test(vid_t(v)))
			continue;
		ChainLink mine = __ldcg(&link[v]);
		if (mine & kRanked)
			continue;
		ChainLink theirs = __ldcg(&link[vid_t(mine)]);
		ChainLink offset = (mine >> 32) + ((theirs & ~kRanked) >> 32);
		if (offset > kMaxOffset)
			offset = kMaxOffset;
		__stcg(&link[v], ChainLink(vid_t(theirs)) | (offset << 32) | (theirs & kRanked));
		left += !(theirs & kRanked);
	}
	for (int shift = 16; shift > 0; shift >>= 1)
		left += __shfl_down_sync(kFullMask, left, shift);
	if (threadIdx.x % 32 == 0 && left)
		atomicAdd(&remaining[round], left);
}

// The last vertex of each chain (the one whose out-neighbour is no chain vertex) gives its chain
// its span and end. Cycles of chain vertices alone stay unranked and have neither.
__global__ void
find_ends(CsrView g, Bitmap member, const ChainLink *link, uint32_t *span, vid_t *end) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v >= g.vertices || !member.test(vid_t(v)) || !(link[v] & kRanked))
		return;
	vid_t next = g.targets[g.offsets[v]];
	if (member.test(next))
		return;
	vid_t first = vid_t(link[v]);
	span[first] = uint32_t((link[v] & ~kRanked) >> 32) + 1;
	end[first] = next;
}

__global__ void
list_chains(vid_t n, Bitmap member, const ChainLink *link, const vid_t *start, vid_t *list) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v >= n || !member.test(vid_t(v)) || !(link[v] & kRanked))
		return;
	list[start[vid_t(link[v])] + uint32_t((link[v] & ~kRanked) >> 32)] = vid_t(v);
}

__global__ void
fill_chain_depths(BfsArrays a, Bitmap member, const ChainLink *link, uint32_t max_depth, uint32_t *deepest) {
	using Reduce = cub::BlockReduce<uint32_t, kBlockThreads>;
	__shared__ typename Reduce::TempStorage scratch;
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	uint32_t depth = 0;
	if (v < a.out.vertices && member.test(vid_t(v)) && (link[v] & kRanked) && a.depth[v] == kUnreached) {
		uint32_t from = a.depth[vid_t(link[v])];
		uint32_t offset = uint32_t((link[v] & ~kRanked) >> 32);
		if (from != kUnreached && offset <= max_depth - from) {
			depth = from + offset;
			a.depth[v] = depth;
		}
	}
	uint32_t block_deepest = Reduce(scratch).Reduce(depth, ::cuda::maximum<>{});
	if (threadIdx.x == 0 && block_deepest)
		atomicMax(deepest, block_deepest);
}

} // namespace

ChainIndex::ChainIndex(CsrView graph, vid_t source, vid_t share, TempStorage &temp, cudaStream_t stream)
    : vertices_(graph.vertices) {
	const vid_t n = graph.vertices;
	// Offsets take 31 bits of a link.
	if (n == 0 || n > kMaxOffset)
		return;
	static const unsigned walkers = resident_blocks(reinterpret_cast<const void *>(count_in_edges), kBlockThreads);
	counter_.resize(1);
	member_.resize(Bitmap::words_for(n));
	DeviceBuffer<uint32_t> in_degree(n);
	CUDA_CHECK(cudaMemsetAsync(in_degree.data(), 0, in_degree.bytes(), stream));
	CUDA_CHECK(cudaMemsetAsync(counter_.data(), 0, counter_.bytes(), stream));
	count_in_edges<<<walkers, kBlockThreads, 0, stream>>>(graph, in_degree.data());
	CUDA_CHECK_LAUNCH();
	mark_members<<<blocks_for(size_t(member_.size()) * 32), kBlockThreads, 0, stream>>>(
	    graph, in_degree.data(), source, member_.data(), counter_.data());
	CUDA_CHECK_LAUNCH();
	CUDA_CHECK(
	    cudaMemcpyAsync(&chain_vertices_, counter_.data(), sizeof chain_vertices_, cudaMemcpyDeviceToHost, stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	if (chain_vertices_ == 0 || chain_vertices_ < n / share)
		return;
	// The in-degrees are spent: their buffer becomes the spans.
	size_t free_bytes = 0, total_bytes = 0;
	CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
	size_t need = size_t(n) * (sizeof(ChainLink) + 2 * sizeof(vid_t)) + 3 * size_t(chain_vertices_) * sizeof(vid_t);
	if (need + (64 << 20) + free_bytes / 50 > free_bytes)
		return;
	span_ = std::move(in_degree);
	link_.resize(n);
	end_.resize(n);
	start_.resize(n);
	list_.resize(chain_vertices_);
	in_flight_[0].resize(chain_vertices_);
	in_flight_[1].resize(chain_vertices_);
	Bitmap member{member_.data()};

	link_predecessors<<<walkers, kBlockThreads, 0, stream>>>(graph, member, link_.data());
	CUDA_CHECK_LAUNCH();
	// In-place jumping converges at least as fast as Wyllie's rounds: ceil(log2(longest chain))
	// of them, and a chain has at most chain_vertices_ vertices.
	const uint32_t rounds = bits_for(chain_vertices_) + 1;
	static const unsigned jumpers = resident_blocks(reinterpret_cast<const void *>(jump), kBlockThreads);
	DeviceBuffer<uint32_t> remaining(rounds);
	CUDA_CHECK(cudaMemsetAsync(remaining.data(), 0, remaining.bytes(), stream));
	for (uint32_t round = 0; round < rounds; round++) {
		jump<<<std::min(blocks_for(n), jumpers), kBlockThreads, 0, stream>>>(n, member, link_.data(), round,
		                                                                     remaining.data());
		CUDA_CHECK_LAUNCH();
	}
	CUDA_CHECK(cudaMemsetAsync(span_.data(), 0, span_.bytes(), stream));
	find_ends<<<blocks_for(n), kBlockThreads, 0, stream>>>(graph, member, link_.data(), span_.data(), end_.data());
	CUDA_CHECK_LAUNCH();
	cub_call(temp, [&](void *t, size_t &bytes) {
		return cub::DeviceScan::ExclusiveSum(t, bytes, span_.data(), start_.data(), int64_t(n), stream);
	});
	list_chains<<<blocks_for(n), kBlockThreads, 0, stream>>>(n, member, link_.data(), start_.data(), list_.data());
	CUDA_CHECK_LAUNCH();
}

ChainView
ChainIndex::view() const noexcept {
	return {Bitmap{member_.data()},
	        link_.data(),
	        span_.data(),
	        end_.data(),
	        start_.data(),
	        list_.data(),
	        {in_flight_[0].data(), in_flight_[1].data()}};
}

uint32_t
ChainIndex::fill_depths(const BfsArrays &a, uint32_t max_depth, uint32_t deepest, cudaStream_t stream) const {
	CUDA_CHECK(cudaMemcpyAsync(counter_.data(), &deepest, sizeof deepest, cudaMemcpyHostToDevice, stream));
	fill_chain_depths<<<blocks_for(vertices_), kBlockThreads, 0, stream>>>(a, Bitmap{member_.data()}, link_.data(),
	                                                                       max_depth, counter_.data());
	CUDA_CHECK_LAUNCH();
	CUDA_CHECK(cudaMemcpyAsync(&deepest, counter_.data(), sizeof deepest, cudaMemcpyDeviceToHost, stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	return deepest;
}

} // namespace grail::cuda::bfs
