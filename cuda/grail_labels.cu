// GPU GRAIL labelling by breadth-first passes (papers/gpu-grail-reachability.txt section 4, after
// Naumov et al.'s parallel DFS for DAGs). One Kahn pass (topological_levels(), kahn.cuh) lists the
// DAG's vertices by topological level; every later pass walks those levels, top-down or bottom-up,
// one launch per level for all labels at once (a launch per level and label would cost more than
// the work on DAGs hundreds of levels deep):
//   step 1  DAG -> tree: each vertex keeps the in-neighbour that ends its lexicographically
//           smallest root path (the DFS tree of the keyed order in label_order.hpp). Paths are not
//           stored: the tree built so far is, with binary-lifting ancestor tables, and two paths
//           compare by the keys of the edges just below their lowest common ancestor, in
//           O(log depth) reads and O(n log depth) memory whatever the path lengths.
//   step 2  subtree sizes, bottom-up (each vertex adds its size to its parent's).
//   step 3  post-order ranks: children sorted by key (one radix sort), a segmented prefix sum of
//           their sizes gives each vertex's offset among its siblings, top-down sums give the first
//           rank of its subtree.
//   step 4  min-post labels, bottom-up over all DAG edges, every label in the same pass.
// Steps 1-3 build one tree per label: sharing one tree between labels (the paper factorises steps
// 1-2) would give post-orders that are not DFS post-orders, for which an edge u -> v can have
// post(v) > post(u), a containment failure and so a wrong "no".
#include "error.hpp"
#include "frontier.cuh"
#include "kahn.cuh"
#include "rng.hpp"
#include "gpu.hpp"
#include "label_order.hpp"
#include "primitives.cuh"
#include "probe.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>

namespace grail {

using namespace cuda;

namespace {

// The trees of all labels as built so far; label i's arrays start at i * n (i * lift_levels * n
// for up). up[k * n + v] is v's 2^k-th ancestor (a root's ancestors are itself), key[v] the sort
// key of the edge into v (of v among the roots, for a root).
struct Trees {
	vid_t *up;
	uint64_t *key;
	uint32_t *depth;
	size_t n;
	unsigned lift_levels; // 2^lift_levels > the largest depth
	uint64_t seed[kMaxLabels];

	__device__ vid_t *
	ancestors(unsigned label) const {
		return up + size_t(label) * lift_levels * n;
	}
};

// One label's tree.
struct Tree {
	const vid_t *up;
	const uint64_t *key;
	const uint32_t *depth;
	size_t n;
	unsigned lift_levels;
	uint64_t seed;

	__device__
	Tree(const Trees &t, unsigned label)
	    : up(t.ancestors(label)), key(t.key + label * t.n), depth(t.depth + label * t.n), n(t.n),
	      lift_levels(t.lift_levels), seed(t.seed[label]) {
	}
	__device__ vid_t
	parent(vid_t v) const {
		return up[v];
	}
	__device__ vid_t
	ancestor(vid_t v, uint32_t steps) const {
		for (unsigned k = 0; steps != 0; k++, steps >>= 1)
			if (steps & 1)
				v = up[k * n + v];
		return v;
	}
	// Whether the root path of a, then a -> u, is smaller than the root path of b, then b -> u
	// (a != b, both already in the tree).
	__device__ bool
	path_less(vid_t a, vid_t b, vid_t u) const {
		uint32_t da = depth[a], db = depth[b];
		if (da > db) {
			vid_t below = ancestor(a, da - db - 1);
			if (parent(below) == b) // b is an ancestor of a: its edge to u against the way to a
				return key[below] < child_key(seed, b, u);
			a = parent(below);
		} else if (db > da) {
			vid_t below = ancestor(b, db - da - 1);
			if (parent(below) == a)
				return child_key(seed, a, u) < key[below];
			b = parent(below);
		}
		// Same depth, a != b: climb to the children of the lowest common ancestor (or to two
		// different roots), where the paths part.
		for (unsigned k = lift_levels; k-- > 0;) {
			vid_t x = up[k * n + a], y = up[k * n + b];
			if (x != y) {
				a = x;
				b = y;
			}
		}
		return key[a] < key[b];
	}
};

// Work items of a level for all labels: item t is vertex vertices[t % count] in label t / count.
struct LevelItem {
	vid_t vertex;
	unsigned label;
	__device__
	LevelItem(const vid_t *vertices, vid_t count, size_t t)
	    : vertex(vertices[t % count]), label(unsigned(t / count)) {
	}
};

__global__ void
init_roots(const vid_t *roots, vid_t count, unsigned labels, Trees trees) {
	size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= size_t(count) * labels)
		return;
	LevelItem item(roots, count, t);
	size_t n = trees.n, at = item.label * n + item.vertex;
	vid_t *up = trees.ancestors(item.label);
	for (unsigned k = 0; k < trees.lift_levels; k++)
		up[k * n + item.vertex] = item.vertex;
	trees.key[at] = child_key(trees.seed[item.label], kInvalid, item.vertex);
	trees.depth[at] = 0;
}

// Step 1 for one level: a warp per vertex and label, each lane keeps the smallest of its share of
// the in-neighbours, then the warp reduces (the order is total: every lane ends with the same one).
__global__ void
choose_parents(CsrView in, const vid_t *vertices, vid_t count, unsigned labels, Trees trees) {
	size_t w = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
	unsigned lane = threadIdx.x % 32;
	if (w >= size_t(count) * labels)
		return;
	LevelItem item(vertices, count, w);
	const Tree tree(trees, item.label);
	vid_t u = item.vertex, best = kInvalid;
	for (eid_t e = in.offsets[u] + lane; e < in.offsets[u + 1]; e += 32) {
		vid_t p = in.targets[e];
		if (best == kInvalid || tree.path_less(p, best, u))
			best = p;
	}
	for (int offset = 16; offset > 0; offset /= 2) {
		vid_t other = __shfl_xor_sync(0xFFFFFFFFu, best, offset);
		if (other != kInvalid && (best == kInvalid || tree.path_less(other, best, u)))
			best = other;
	}
	if (lane != 0)
		return;
	size_t n = trees.n;
	vid_t *up = trees.ancestors(item.label);
	up[u] = best;
	for (unsigned j = 1; j < trees.lift_levels; j++)
		up[j * n + u] = up[(j - 1) * n + up[(j - 1) * n + u]];
	trees.key[item.label * n + u] = child_key(tree.seed, best, u);
	trees.depth[item.label * n + u] = tree.depth[best] + 1;
}

__global__ void
fill_u32(uint32_t *values, size_t count, uint32_t value) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count)
		values[i] = value;
}

// Step 2 for one level >= 1 (whose vertices all have a parent): their subtrees are complete,
// since their tree children lie on deeper levels. size: label i's sizes start at i * n.
__global__ void
add_to_parent(const vid_t *vertices, vid_t count, unsigned labels, Trees trees, uint32_t *size) {
	size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= size_t(count) * labels)
		return;
	LevelItem item(vertices, count, t);
	size_t base = item.label * trees.n;
	atomicAdd(&size[base + trees.ancestors(item.label)[item.vertex]], size[base + item.vertex]);
}

// Step 3, one label: children grouped by parent (the roots last, under kInvalid), ordered by the
// hash half of their key; the sort is stable over ascending vertices, which breaks hash ties as
// the key does.
__global__ void
sibling_sort_keys(const vid_t *up, const uint64_t *key, const uint32_t *depth, vid_t n, uint64_t *sort_key,
                  vid_t *vertex) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v >= n)
		return;
	uint64_t parent = depth[v] == 0 ? kInvalid : up[v];
	sort_key[v] = (parent << 32) | (key[v] >> 32);
	vertex[v] = vid_t(v);
}

// before = exclusive prefix sum of the sizes in sibling order; base[parent] = its value at the
// parent's first child (base[n] for the roots).
__global__ void
sibling_bases(const uint64_t *sort_key, vid_t n, const uint32_t *before, uint32_t *base) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	uint32_t parent = uint32_t(sort_key[i] >> 32);
	if (i == 0 || uint32_t(sort_key[i - 1] >> 32) != parent)
		base[parent == kInvalid ? n : parent] = before[i];
}

// first[v] = how many vertices precede v's subtree among its siblings' subtrees.
__global__ void
sibling_offsets(const uint64_t *sort_key, const vid_t *sorted, vid_t n, const uint32_t *before, const uint32_t *base,
                uint32_t *first) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	uint32_t parent = uint32_t(sort_key[i] >> 32);
	first[sorted[i]] = before[i] - base[parent == kInvalid ? n : parent];
}

// Step 3 for one level >= 1: the first rank of v's subtree, now that its parent's is final.
// first: label i's ranks start at i * n.
__global__ void
add_parent_first(const vid_t *vertices, vid_t count, unsigned labels, Trees trees, uint32_t *first) {
	size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (t >= size_t(count) * labels)
		return;
	LevelItem item(vertices, count, t);
	size_t base = item.label * trees.n;
	first[base + item.vertex] += first[base + trees.ancestors(item.label)[item.vertex]];
}

// Writes each label's post-order rank as both ends of v's interval, and from label 0 the record's
// post rank, tree interval start and level (the record layout of GrailLabels).
__global__ void
write_ranks(vid_t n, unsigned labels, const uint32_t *first, const uint32_t *size, const uint32_t *level,
            unsigned width, uint32_t *records) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v >= n)
		return;
	uint32_t *r = records + v * width;
	for (unsigned i = 0; i < labels; i++) {
		size_t at = size_t(i) * n + v;
		uint32_t post = first[at] + size[at] - 1;
		r[3 + 2 * i] = post;
		r[4 + 2 * i] = post;
	}
	r[0] = r[4];
	r[1] = first[v];
	r[2] = level[v];
}

// Step 4 for one level, every label: lo(u) = min(lo(u), lo(c)) over u's DAG children, all on
// deeper levels and final. A warp per vertex.
__global__ void
min_post(CsrView out, const vid_t *vertices, vid_t count, unsigned labels, unsigned width, uint32_t *records) {
	size_t w = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
	unsigned lane = threadIdx.x % 32;
	if (w >= count)
		return;
	vid_t u = vertices[w];
	uint32_t *r = records + size_t(u) * width;
	for (unsigned i = 0; i < labels; i++) {
		uint32_t lo = r[3 + 2 * i];
		for (eid_t e = out.offsets[u] + lane; e < out.offsets[u + 1]; e += 32)
			lo = min(lo, records[size_t(out.targets[e]) * width + 3 + 2 * i]);
		lo = __reduce_min_sync(0xFFFFFFFFu, lo);
		if (lane == 0)
			r[3 + 2 * i] = lo;
	}
}

// Device bytes of a labelling, the in-edges' transposition excluded: both CSRs, the level order,
// d trees with their sizes and first ranks, one label's sort buffers, the records.
// Where the timing probe marks the run, for GpuLabelTimings.
enum Mark : size_t {
	mark_begin,
	mark_uploaded,
	mark_levels,
	mark_tree,
	mark_sizes,
	mark_post,
	mark_min_post,
	mark_downloaded,
	mark_count
};

size_t
labelling_bytes(size_t n, size_t m, unsigned d, unsigned lift_levels) {
	size_t width = 3 + 2 * size_t(d);
	return 2 * DeviceCsr::bytes_for(n, m) + 3 * 4 * n + d * (4 * lift_levels + 8 + 4 + 4 + 4) * n +
	       (2 * 8 + 2 * 4 + 4 + 4) * n + 4 * width * n;
}

} // namespace

GrailLabels
grail_labels_gpu(const Csr &dag, unsigned d, uint64_t seed, GpuLabelTimings *timings, PartPlacer *placer) {
	if (d < 1 || d > kMaxLabels)
		throw Error(ErrorKind::invalid_input, "the number of GRAIL labels must be between 1 and 16");
	size_t n = dag.vertex_count(), m = dag.edge_count();
	if (n >= kInvalid)
		throw Error(ErrorKind::limit_exceeded, "too many components for GRAIL labels");
	GpuLabelTimings local;
	GpuLabelTimings &t = timings ? *timings : local;
	t = GpuLabelTimings{};
	const unsigned width = 3 + 2 * d;
	if (n == 0)
		return GrailLabels::from_data(d, {});
	require_device("GPU GRAIL labelling");
	// The lifting tables need log2(depth) words per vertex and label; depth < n bounds it before
	// the levels are known.
	const size_t free_bytes =
	    require_device_memory(std::max(labelling_bytes(n, m, d, bits_for(n)),
	                                   2 * DeviceCsr::bytes_for(n, m) + DeviceCsr::transpose_peak_bytes(n, m)),
	                          "the DAG", "GRAIL labelling", "label on the CPU")
	        .free_bytes;
	auto note_memory = [&] { t.device_bytes = std::max(t.device_bytes, device_bytes_since(free_bytes)); };
	Stream stream;
	cudaStream_t s = stream.get();
	TimingProbe probe(timings != nullptr, mark_count, s);
	probe.mark(mark_begin);
	DeviceCsr out = DeviceCsr::upload(dag, s), in;
	TempStorage temp;
	{
		TransposeScratch scratch;
		out.transpose_into(in, scratch, temp, s);
	}
	probe.mark(mark_uploaded);

	DeviceBuffer<uint32_t> level(n), remaining(n);
	DeviceBuffer<vid_t> order(n);
	std::vector<size_t> level_start;
	if (topological_levels(out.view(), in.view(), order.data(), level.data(), remaining.data(), level_start, s) != n)
		throw Error(ErrorKind::internal, "GPU GRAIL labelling: the graph is not a DAG");
	remaining.release();
	const size_t levels = level_start.size() - 1;
	auto level_vertices = [&](size_t l) { return order.data() + level_start[l]; };
	auto level_size = [&](size_t l) { return vid_t(level_start[l + 1] - level_start[l]); };
	probe.mark(mark_levels);
	t.levels = uint32_t(levels);

	Trees trees{};
	trees.n = n;
	trees.lift_levels = bits_for(levels);
	Rng seeds(seed);
	for (unsigned i = 0; i < d; i++)
		trees.seed[i] = seeds.next();
	DeviceBuffer<vid_t> up(size_t(d) * trees.lift_levels * n);
	DeviceBuffer<uint64_t> key(size_t(d) * n);
	DeviceBuffer<uint32_t> depth(size_t(d) * n);
	trees.up = up.data();
	trees.key = key.data();
	trees.depth = depth.data();
	CsrView in_view = in.view(), out_view = out.view();

	init_roots<<<blocks_for(size_t(level_size(0)) * d), kBlockThreads, 0, s>>>(level_vertices(0), level_size(0), d,
	                                                                           trees);
	CUDA_CHECK_LAUNCH();
	for (size_t l = 1; l < levels; l++) {
		if ((l & 255) == 0)
			poll_cancel();
		choose_parents<<<blocks_for(size_t(level_size(l)) * d * 32), kBlockThreads, 0, s>>>(in_view, level_vertices(l),
		                                                                                    level_size(l), d, trees);
		CUDA_CHECK_LAUNCH();
	}
	probe.mark(mark_tree);

	DeviceBuffer<uint32_t> size(size_t(d) * n), first(size_t(d) * n);
	fill_u32<<<blocks_for(size.size()), kBlockThreads, 0, s>>>(size.data(), size.size(), 1);
	CUDA_CHECK_LAUNCH();
	for (size_t l = levels; l-- > 1;) {
		add_to_parent<<<blocks_for(size_t(level_size(l)) * d), kBlockThreads, 0, s>>>(level_vertices(l), level_size(l),
		                                                                              d, trees, size.data());
		CUDA_CHECK_LAUNCH();
	}
	probe.mark(mark_sizes);

	{
		DeviceBuffer<uint32_t> before(n), base(n + 1);
		DeviceBuffer<uint64_t> sort_keys(2 * n);
		DeviceBuffer<vid_t> sorted(2 * n);
		const vid_t nv = vid_t(n);
		for (unsigned i = 0; i < d; i++) {
			cub::DoubleBuffer<uint64_t> keys(sort_keys.data(), sort_keys.data() + n);
			cub::DoubleBuffer<vid_t> vertices(sorted.data(), sorted.data() + n);
			sibling_sort_keys<<<blocks_for(n), kBlockThreads, 0, s>>>(
			    up.data() + size_t(i) * trees.lift_levels * n, key.data() + size_t(i) * n, depth.data() + size_t(i) * n,
			    nv, keys.Current(), vertices.Current());
			CUDA_CHECK_LAUNCH();
			cub_call(temp, [&](void *t, size_t &bytes) {
				return cub::DeviceRadixSort::SortPairs(t, bytes, keys, vertices, int64_t(n), 0, 64, s);
			});
			uint32_t *label_first = first.data() + size_t(i) * n;
			gather<<<blocks_for(n), kBlockThreads, 0, s>>>(vertices.Current(), size_t(nv), size.data() + size_t(i) * n,
			                                               label_first);
			CUDA_CHECK_LAUNCH();
			cub_call(temp, [&](void *t, size_t &bytes) {
				return cub::DeviceScan::ExclusiveSum(t, bytes, label_first, before.data(), int64_t(n), s);
			});
			sibling_bases<<<blocks_for(n), kBlockThreads, 0, s>>>(keys.Current(), nv, before.data(), base.data());
			CUDA_CHECK_LAUNCH();
			sibling_offsets<<<blocks_for(n), kBlockThreads, 0, s>>>(keys.Current(), vertices.Current(), nv,
			                                                        before.data(), base.data(), label_first);
			CUDA_CHECK_LAUNCH();
		}
		note_memory();
	}
	for (size_t l = 1; l < levels; l++) {
		add_parent_first<<<blocks_for(size_t(level_size(l)) * d), kBlockThreads, 0, s>>>(
		    level_vertices(l), level_size(l), d, trees, first.data());
		CUDA_CHECK_LAUNCH();
	}
	DeviceBuffer<uint32_t> records(size_t(width) * n);
	write_ranks<<<blocks_for(n), kBlockThreads, 0, s>>>(vid_t(n), d, first.data(), size.data(), level.data(), width,
	                                                    records.data());
	CUDA_CHECK_LAUNCH();
	probe.mark(mark_post);

	for (size_t l = levels - 1; l-- > 0;) {
		if ((l & 255) == 0)
			poll_cancel();
		min_post<<<blocks_for(size_t(level_size(l)) * 32), kBlockThreads, 0, s>>>(
		    out_view, level_vertices(l), level_size(l), d, width, records.data());
		CUDA_CHECK_LAUNCH();
	}
	probe.mark(mark_min_post);
	note_memory();

	const size_t words = size_t(width) * n;
	Array<uint32_t> data;
	uint32_t *to = nullptr;
	if (placer != nullptr) {
		to = static_cast<uint32_t *>(placer->place(words * sizeof(uint32_t)));
		data = Array<uint32_t>::borrow(to, words, nullptr);
	} else {
		data.resize(words);
		to = data.data();
	}
	CUDA_CHECK(cudaMemcpyAsync(to, records.data(), words * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
	probe.mark(mark_downloaded);
	stream.synchronize();
	if (timings) {
		t.upload_ms = probe.between(mark_begin, mark_uploaded);
		t.levels_ms = probe.between(mark_uploaded, mark_levels);
		t.tree_ms = probe.between(mark_levels, mark_tree);
		t.sizes_ms = probe.between(mark_tree, mark_sizes);
		t.post_ms = probe.between(mark_sizes, mark_post);
		t.min_post_ms = probe.between(mark_post, mark_min_post);
		t.download_ms = probe.between(mark_min_post, mark_downloaded);
	}
	return GrailLabels::from_data(d, std::move(data));
}

} // namespace grail
