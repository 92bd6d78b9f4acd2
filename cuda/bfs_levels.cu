#include "bfs_chains.cuh"
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

// A chain vertex w reached at depth d takes its chain off (bfs_chains.cuh): w's first vertex
// holds the chain's depth (w is that vertex, or the chain was entered before), and the chain's end
// is due at depth(first) + span. Flights that would land past max_depth, or on a vertex already
// reached, are not kept.
__device__ void
take_off(const BfsArrays &a, const ChainView &chains, vid_t w, uint32_t d, uint32_t max_depth, vid_t *in_flight,
         uint32_t *flights, uint32_t *earliest) {
	vid_t first = chains.first(w);
	uint32_t offset = chains.offset(w);
	if (offset == 0)
		a.depth[first] = d;
	uint32_t arrival = d - offset + chains.span[first];
	if (arrival > max_depth || a.visited.test(chains.end[first]))
		return;
	in_flight[atomicAdd(flights, 1u)] = first;
	atomicMin(earliest, arrival);
}

constexpr uint32_t kNoArrival = 0xFFFFFFFFu;

// The block's counters rotate over three slots, so that the slot thread 0 clears was last read
// two levels ago: each level needs two barriers, not three. With kChains, chain vertices take off
// instead of joining the next level, no thread walks chains, and each level lands the flights due.
template <bool kChains>
__global__ void
__launch_bounds__(kNarrowThreads)
    narrow_kernel(BfsArrays a, ChainView chains, vid_t *frontier, vid_t count, uint32_t level, uint32_t max_depth,
                  uint32_t budget, LevelCounters *counters) {
	__shared__ vid_t queue[2][kNarrowCapacity];
	__shared__ vid_t next_count[3];
	__shared__ unsigned long long edges[3];
	__shared__ vid_t chain_count;
	__shared__ uint32_t chain_level, chain_budget;
	// The flights: how many are in list `list`, the earliest arrival among them, and the same for
	// the list that a landing fills with the flights it keeps.
	__shared__ uint32_t flights, earliest, kept, kept_earliest;
	__shared__ int list;
	for (vid_t i = threadIdx.x; i < count; i += blockDim.x)
		queue[0][i] = frontier[i];
	if (threadIdx.x == 0) {
		next_count[0] = 0;
		edges[0] = 0;
		flights = kept = 0;
		earliest = kept_earliest = kNoArrival;
		list = 0;
	}
	__syncthreads();
	int cur = 0, slot = 0;
	uint32_t exit = narrow_budget;
	// The next level's queue: shared memory while it fits, then the global frontier.
	auto join_next = [&](vid_t w) {
		vid_t at = atomicAdd(&next_count[slot], 1u);
		if (at < kNarrowCapacity)
			queue[cur ^ 1][at] = w;
		else
			frontier[at] = w;
	};
	while (budget > 0) {
		if (count == 0 || level >= max_depth) {
			exit = narrow_done;
			break;
		}
		if (count > kNarrowCapacity) {
			exit = narrow_too_wide;
			break;
		}
		if (!kChains && count == 1) {
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
				if (kChains && chains.member.test(w)) {
					take_off(a, chains, w, level + 1, max_depth, chains.in_flight[list], &flights, &earliest);
					continue;
				}
				if (!a.visited.try_set(w))
					continue;
				a.depth[w] = level + 1;
				join_next(w);
			}
		}
		__syncthreads();
		count = next_count[slot];
		level++;
		budget--;
		// Land the flights due at this level, or, when nothing else is left, jump to the earliest
		// arrival. A flight taken off this level lands two levels on at the earliest.
		while (kChains && flights > 0 && (earliest == level || count == 0)) {
			if (count == 0)
				level = earliest;
			const vid_t *from = chains.in_flight[list];
			vid_t *to = chains.in_flight[list ^ 1];
			for (uint32_t i = threadIdx.x; i < flights; i += blockDim.x) {
				vid_t first = from[i];
				uint32_t arrival = a.depth[first] + chains.span[first];
				if (arrival != level) {
					to[atomicAdd(&kept, 1u)] = first;
					atomicMin(&kept_earliest, arrival);
					continue;
				}
				vid_t w = chains.end[first];
				if (a.visited.try_set(w)) {
					a.depth[w] = level;
					join_next(w);
				}
			}
			__syncthreads();
			if (threadIdx.x == 0) {
				flights = kept;
				earliest = kept_earliest;
				kept = 0;
				kept_earliest = kNoArrival;
				list ^= 1;
			}
			__syncthreads();
			count = next_count[slot];
		}
		cur ^= 1;
		slot = spare;
	}
	vid_t kept_queue = count < kNarrowCapacity ? count : kNarrowCapacity;
	for (vid_t i = threadIdx.x; i < kept_queue; i += blockDim.x)
		frontier[i] = queue[cur][i];
	// Flights still pending when the launch ends land back on the graph: the vertex each chain
	// has reached joins the frontier at this level, and the next steps go on from there.
	if (kChains && flights > 0) {
		const vid_t *from = chains.in_flight[list];
		for (uint32_t i = threadIdx.x; i < flights; i += blockDim.x) {
			vid_t first = from[i];
			vid_t c = chains.vertices[chains.start[first] + (level - a.depth[first])];
			a.visited.try_set(c);
			a.depth[c] = level;
			frontier[count + atomicAdd(&kept, 1u)] = c;
		}
		__syncthreads();
		count += kept;
	}
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
		queue[warp_reserve(cooperative_groups::coalesced_threads(), tail)] = vid_t(v);
}

} // namespace

void
narrow_levels(const BfsArrays &a, const ChainView &chains, vid_t *frontier, vid_t count, uint32_t level,
              uint32_t max_depth, uint32_t budget, LevelCounters *counters, cudaStream_t stream) {
	if (chains.member.words)
		narrow_kernel<true>
		    <<<1, kNarrowThreads, 0, stream>>>(a, chains, frontier, count, level, max_depth, budget, counters);
	else
		narrow_kernel<false>
		    <<<1, kNarrowThreads, 0, stream>>>(a, chains, frontier, count, level, max_depth, budget, counters);
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
