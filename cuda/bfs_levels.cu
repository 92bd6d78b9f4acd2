#include "bfs_levels.cuh"
#include "frontier_push.cuh"

#include <algorithm>

namespace grail::cuda::bfs {

namespace {

// Walks a chain from u at level: while the frontier is one vertex with one out-edge to an
// unvisited vertex, that vertex is the next frontier. One thread, the rest of the block waiting:
// its plain stores to the bitmap are safe, and the whole level costs a few cached loads.
__device__ void
walk_chain(const BfsArrays &a, vid_t &u, uint32_t &level, vid_t &count, uint32_t max_depth, uint32_t &budget) {
	while (level < max_depth && budget > 0) {
		eid_t begin = a.out.offsets[u];
		if (a.out.offsets[u + 1] - begin != 1)
			return;
		vid_t w = a.out.targets[begin];
		uint32_t bit = 1u << (w & 31), word = a.visited.words[w >> 5];
		budget--;
		level++;
		if (word & bit) {
			count = 0;
			return;
		}
		a.visited.words[w >> 5] = word | bit;
		a.depth[w] = level;
		u = w;
	}
}

// The block's counters rotate over three slots, so that the slot thread 0 clears was last read
// two levels ago: each level needs two barriers, not three.
__global__ void
__launch_bounds__(kNarrowThreads) narrow_kernel(BfsArrays a, vid_t *frontier, vid_t count, uint32_t level,
                                                uint32_t max_depth, LevelCounters *counters) {
	__shared__ vid_t queue[2][kNarrowCapacity];
	__shared__ vid_t next_count[3];
	__shared__ unsigned long long edges[3];
	__shared__ vid_t chain_count;
	__shared__ uint32_t chain_level, chain_budget;
	for (vid_t i = threadIdx.x; i < count; i += blockDim.x)
		queue[0][i] = frontier[i];
	if (threadIdx.x == 0) {
		next_count[0] = 0;
		edges[0] = 0;
	}
	__syncthreads();
	int cur = 0, slot = 0;
	uint32_t budget = kNarrowBudget, exit = narrow_budget;
	while (budget > 0) {
		if (count == 0 || level >= max_depth) {
			exit = narrow_done;
			break;
		}
		if (count > kNarrowCapacity) {
			exit = narrow_too_wide;
			break;
		}
		if (count == 1) {
			if (threadIdx.x == 0) {
				vid_t u = queue[cur][0], c = 1;
				uint32_t l = level, b = budget;
				walk_chain(a, u, l, c, max_depth, b);
				chain_count = c;
				chain_level = l;
				chain_budget = b;
				queue[cur][0] = u;
			}
			__syncthreads();
			bool walked = chain_level != level;
			level = chain_level;
			count = chain_count;
			budget = chain_budget;
			// Every thread has read the walk's result before thread 0 may start the next walk.
			__syncthreads();
			if (walked)
				continue; // the chain's end is the frontier: check the exits again
		}
		int spare = (slot + 1) % 3;
		if (threadIdx.x == 0) {
			next_count[spare] = 0;
			edges[spare] = 0;
		}
		eid_t mine = 0;
		for (vid_t i = threadIdx.x; i < count; i += blockDim.x)
			mine += degree(a.out, queue[cur][i]);
		if (mine)
			atomicAdd(&edges[slot], (unsigned long long)mine);
		__syncthreads();
		if (edges[slot] > kNarrowEdges) {
			exit = narrow_too_wide;
			break;
		}
		for (vid_t i = threadIdx.x; i < count; i += blockDim.x) {
			vid_t u = queue[cur][i];
			for (eid_t e = a.out.offsets[u]; e < a.out.offsets[u + 1]; e++) {
				vid_t w = a.out.targets[e];
				if (!a.visited.try_set(w))
					continue;
				a.depth[w] = level + 1;
				vid_t at = atomicAdd(&next_count[slot], 1u);
				if (at < kNarrowCapacity)
					queue[cur ^ 1][at] = w;
				else
					frontier[at] = w;
			}
		}
		__syncthreads();
		count = next_count[slot];
		level++;
		budget--;
		cur ^= 1;
		slot = spare;
	}
	vid_t kept = count < kNarrowCapacity ? count : kNarrowCapacity;
	for (vid_t i = threadIdx.x; i < kept; i += blockDim.x)
		frontier[i] = queue[cur][i];
	__syncthreads();
	// The host chooses the next step by the frontier's out-edges.
	unsigned long long mine = 0;
	if (exit != narrow_done)
		for (vid_t i = threadIdx.x; i < count; i += blockDim.x)
			mine += degree(a.out, frontier[i]);
	if (threadIdx.x == 0)
		*counters = {0, count, level, exit};
	__syncthreads();
	add_counts(counters, mine, 0);
}

// A warp per bitmap word: the warp owns the word of visited and of next_bits, so it writes them
// with plain stores.
__global__ void
pull_kernel(BfsArrays a, const uint32_t *frontier_bits, uint32_t *next_bits, uint32_t level, LevelCounters *counters) {
	const vid_t n = a.out.vertices;
	const size_t words = Bitmap::words_for(n);
	const unsigned lane = threadIdx.x % 32;
	const size_t warps = size_t(gridDim.x) * blockDim.x / 32;
	unsigned long long edges = 0;
	uint32_t found = 0;
	for (size_t word = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; word < words; word += warps) {
		vid_t v = vid_t(word * 32 + lane);
		uint32_t seen = a.visited.words[word];
		bool hit = false;
		if (v < n && !((seen >> lane) & 1u)) {
			eid_t end = a.in.offsets[v + 1];
			for (eid_t e = a.in.offsets[v]; e < end; e++) {
				vid_t u = a.in.targets[e];
				if ((frontier_bits[u >> 5] >> (u & 31)) & 1u) {
					a.parent[v] = u;
					a.depth[v] = level + 1;
					hit = true;
					break;
				}
			}
		}
		unsigned mask = __ballot_sync(kFullMask, hit);
		if (lane == 0) {
			next_bits[word] = mask;
			if (mask)
				a.visited.words[word] = seen | mask;
			found += __popc(mask);
		}
		if (hit)
			edges += degree(a.out, v);
	}
	add_counts(counters, edges, found);
}

__global__ void
queue_to_bits_kernel(const vid_t *queue, vid_t count, uint32_t *bits) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count)
		atomicOr(&bits[queue[i] >> 5], 1u << (queue[i] & 31));
}

__global__ void
bits_to_queue_kernel(const uint32_t *bits, vid_t vertices, vid_t *queue, uint32_t *tail) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v < vertices && ((bits[v >> 5] >> (v & 31)) & 1u))
		append(queue, tail, vid_t(v));
}

} // namespace

void
narrow_levels(const BfsArrays &a, vid_t *frontier, vid_t count, uint32_t level, uint32_t max_depth,
              LevelCounters *counters, cudaStream_t stream) {
	narrow_kernel<<<1, kNarrowThreads, 0, stream>>>(a, frontier, count, level, max_depth, counters);
	CUDA_CHECK_LAUNCH();
}

void
pull_level(const BfsArrays &a, const uint32_t *frontier_bits, uint32_t *next_bits, uint32_t level,
           LevelCounters *counters, cudaStream_t stream) {
	static const unsigned most = resident_blocks(reinterpret_cast<const void *>(pull_kernel), kBlockThreads);
	size_t words = Bitmap::words_for(a.out.vertices);
	unsigned blocks = std::min(blocks_for(words * 32), most);
	pull_kernel<<<blocks, kBlockThreads, 0, stream>>>(a, frontier_bits, next_bits, level, counters);
	CUDA_CHECK_LAUNCH();
}

void
queue_to_bits(const vid_t *queue, vid_t count, uint32_t *bits, vid_t vertices, cudaStream_t stream) {
	CUDA_CHECK(cudaMemsetAsync(bits, 0, Bitmap::words_for(vertices) * sizeof(uint32_t), stream));
	if (count == 0)
		return;
	queue_to_bits_kernel<<<blocks_for(count), kBlockThreads, 0, stream>>>(queue, count, bits);
	CUDA_CHECK_LAUNCH();
}

void
bits_to_queue(const uint32_t *bits, vid_t vertices, vid_t *queue, uint32_t *tail, cudaStream_t stream) {
	bits_to_queue_kernel<<<blocks_for(vertices), kBlockThreads, 0, stream>>>(bits, vertices, queue, tail);
	CUDA_CHECK_LAUNCH();
}

} // namespace grail::cuda::bfs
