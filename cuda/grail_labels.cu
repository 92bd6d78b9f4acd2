// GPU GRAIL labelling by breadth-first passes (papers/gpu-grail-reachability.txt section 4, after
// Naumov et al.'s parallel DFS for DAGs). One Kahn pass lists the DAG's vertices by topological
// level with the shared frontier operators; every later pass walks those levels, top-down or
// bottom-up, a launch per level:
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
// Steps 1-3 run once per label, since each label has its own tree: sharing one tree between
// labels (the paper factorises steps 1-2) would give post-orders that are not DFS post-orders,
// for which an edge u -> v can have post(v) > post(u), a containment failure and so a wrong "no".
#include "error.hpp"
#include "frontier_impl.cuh"
#include "gpu.hpp"
#include "host_util.hpp"
#include "label_order.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>

namespace grail {

using namespace cuda;
using cuda_host::mib;
using cuda_host::now_ms;

namespace {

unsigned
blocks_for(size_t items) {
	return unsigned((items + kBlockThreads - 1) / kBlockThreads);
}

// The tree of one label as built so far. up[k * n + v] is v's 2^k-th ancestor (a root's ancestors
// are itself), key[v] the sort key of the edge into v (of v among the roots, for a root).
struct Tree {
	const vid_t *up;
	const uint64_t *key;
	const uint32_t *depth;
	size_t n;
	unsigned lift_levels; // 2^lift_levels > the largest depth
	uint64_t seed;

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
	// Whether root path of a, then a -> u, is smaller than root path of b, then b -> u (a != b,
	// both already in the tree).
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

struct TreeArrays {
	DeviceBuffer<vid_t> up;
	DeviceBuffer<uint64_t> key;
	DeviceBuffer<uint32_t> depth;
	Tree
	view(size_t n, unsigned lift_levels, uint64_t seed) const {
		return {up.data(), key.data(), depth.data(), n, lift_levels, seed};
	}
};

__global__ void
count_in_degrees(CsrView in, uint32_t *remaining) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v < in.vertices)
		remaining[v] = uint32_t(in.offsets[v + 1] - in.offsets[v]);
}

struct IsSource {
	const uint32_t *remaining;
	__device__ bool
	operator()(vid_t v) const {
		return remaining[v] == 0;
	}
};

// Kahn: true for the one edge that takes w's last unvisited in-edge, so w enters the next level once.
struct ReleaseOp {
	uint32_t *remaining;
	__device__ bool
	operator()(vid_t, vid_t w) const {
		return atomicSub(&remaining[w], 1u) == 1u;
	}
};

__global__ void
set_level(const vid_t *vertices, vid_t count, uint32_t level, uint32_t *out) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count)
		out[vertices[i]] = level;
}

__global__ void
init_roots(const vid_t *roots, vid_t count, vid_t *up, size_t n, unsigned lift_levels, uint64_t *key, uint32_t *depth,
           uint64_t seed) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= count)
		return;
	vid_t r = roots[i];
	for (unsigned k = 0; k < lift_levels; k++)
		up[k * n + r] = r;
	key[r] = child_key(seed, kInvalid, r);
	depth[r] = 0;
}

// Step 1 for one level: a warp per vertex, each lane keeps the smallest of its share of the
// in-neighbours, then the warp reduces (the order is total, so every lane ends with the same one).
__global__ void
choose_parents(CsrView in, const vid_t *vertices, vid_t count, Tree tree, vid_t *up, uint64_t *key, uint32_t *depth) {
	size_t k = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
	unsigned lane = threadIdx.x % 32;
	if (k >= count)
		return;
	vid_t u = vertices[k];
	vid_t best = kInvalid;
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
	size_t n = tree.n;
	up[u] = best;
	for (unsigned j = 1; j < tree.lift_levels; j++)
		up[j * n + u] = up[(j - 1) * n + up[(j - 1) * n + u]];
	key[u] = child_key(tree.seed, best, u);
	depth[u] = depth[best] + 1;
}

__global__ void
fill_u32(uint32_t *values, size_t count, uint32_t value) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count)
		values[i] = value;
}

// Step 2 for one level (levels >= 1, whose vertices all have a parent): their subtrees are
// complete, since their tree children lie on deeper levels.
__global__ void
add_to_parent(const vid_t *vertices, vid_t count, const vid_t *parent, uint32_t *size) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count) {
		vid_t v = vertices[i];
		atomicAdd(&size[parent[v]], size[v]);
	}
}

// Step 3: children grouped by parent (the roots last, under kInvalid), ordered by the hash half of
// their key; the sort is stable over ascending vertices, which breaks hash ties as the key does.
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

__global__ void
gather_sizes(const vid_t *sorted, vid_t n, const uint32_t *size, uint32_t *out) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = size[sorted[i]];
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
__global__ void
add_parent_first(const vid_t *vertices, vid_t count, const vid_t *parent, uint32_t *first) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count) {
		vid_t v = vertices[i];
		first[v] += first[parent[v]];
	}
}

// Writes label i's post-order rank as both ends of v's interval; label 0 also fills the record's
// post rank, tree interval start and level (the record layout of GrailLabels).
__global__ void
write_ranks(vid_t n, const uint32_t *first, const uint32_t *size, const uint32_t *level, unsigned label, unsigned width,
            uint32_t *records) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v >= n)
		return;
	uint32_t *r = records + v * width;
	uint32_t post = first[v] + size[v] - 1;
	r[3 + 2 * label] = post;
	r[4 + 2 * label] = post;
	if (label == 0) {
		r[0] = post;
		r[1] = first[v];
		r[2] = level[v];
	}
}

// Step 4: lo(u) = min(lo(u), lo(w)) for every label along edge u -> w, w on a deeper level, final.
struct MinPostOp {
	uint32_t *records;
	unsigned width, labels;
	__device__ bool
	operator()(vid_t u, vid_t w) const {
		const uint32_t *child = records + size_t(w) * width;
		uint32_t *parent = records + size_t(u) * width;
		for (unsigned i = 0; i < labels; i++)
			if (child[3 + 2 * i] < parent[3 + 2 * i])
				atomicMin(&parent[3 + 2 * i], child[3 + 2 * i]);
		return false;
	}
};

struct Labelling {
	Labelling(const Csr &dag, cudaStream_t stream)
	    : n(dag.vertex_count()), out(DeviceCsr::upload(dag, stream)), ws(vid_t(n)), level(n), order(n), remaining(n),
	      edges_out(std::max<size_t>(dag.edge_count(), 1)) {
	}
	// Device bytes for a DAG of this size, the in-edges' transposition excluded.
	static size_t
	bytes_for(size_t n, size_t m, unsigned width, unsigned lift_levels_max) {
		return 2 * DeviceCsr::bytes_for(n, m) + FrontierWorkspace::bytes_for(n) + 3 * 4 * n + 4 * m +
		       // one tree, its sizes and first ranks, the sort's keys and vertices, scans and bases
		       (4 * lift_levels_max + 8 + 4) * n + 2 * 4 * n + (2 * 8 + 2 * 4 + 4 + 4) * n + 4 * width * n;
	}

	size_t n;
	DeviceCsr out, in;
	FrontierWorkspace ws;
	DeviceBuffer<uint32_t> level;
	DeviceBuffer<vid_t> order; // vertices by level: level L is order[level_start[L] .. level_start[L + 1])
	DeviceBuffer<uint32_t> remaining;
	DeviceBuffer<vid_t> edges_out;
	std::vector<size_t> level_start;

	const vid_t *
	level_vertices(size_t l) const {
		return order.data() + level_start[l];
	}
	vid_t
	level_size(size_t l) const {
		return vid_t(level_start[l + 1] - level_start[l]);
	}
	size_t
	levels() const {
		return level_start.size() - 1;
	}
};

// Lists the vertices by topological level (Kahn, with advance and compact) and sets level[].
void
topological_levels(Labelling &lab, cudaStream_t s) {
	size_t n = lab.n;
	CsrView in = lab.in.view(), out = lab.out.view();
	count_in_degrees<<<blocks_for(n), kBlockThreads, 0, s>>>(in, lab.remaining.data());
	CUDA_CHECK_LAUNCH();
	size_t bytes = 0;
	thrust::counting_iterator<vid_t> all(0);
	IsSource is_source{lab.remaining.data()};
	eid_t *count_out = lab.ws.counters.data();
	CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, all, lab.order.data(), count_out, int64_t(n), is_source, s));
	CUDA_CHECK(cub::DeviceSelect::If(lab.ws.temp.get(bytes), bytes, all, lab.order.data(), count_out, int64_t(n),
	                                 is_source, s));
	CUDA_CHECK(cudaMemcpyAsync(lab.ws.host_counters.data(), count_out, sizeof(eid_t), cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(cudaStreamSynchronize(s));
	vid_t count = vid_t(lab.ws.host_counters[0]);
	size_t done = 0;
	lab.level_start.assign(1, 0);
	for (uint32_t l = 0; count > 0; l++) {
		poll_cancel();
		vid_t *frontier = lab.order.data() + done;
		set_level<<<blocks_for(count), kBlockThreads, 0, s>>>(frontier, count, l, lab.level.data());
		CUDA_CHECK_LAUNCH();
		done += count;
		lab.level_start.push_back(done);
		DegreeBins bins = bin_frontier(out, frontier, count, lab.ws, s);
		advance(out, frontier, bins, lab.edges_out.data(), ReleaseOp{lab.remaining.data()}, lab.ws, s);
		count = compact(lab.edges_out.data(), bins.edges, lab.order.data() + done, lab.ws, s);
	}
	if (done != n)
		throw Error(ErrorKind::internal, "GPU GRAIL labelling: the graph is not a DAG");
}

unsigned
bits_for(size_t value) {
	unsigned bits = 1;
	while (bits < 64 && (value >> bits) != 0)
		bits++;
	return bits;
}

} // namespace

GrailLabels
grail_labels_gpu(const Csr &dag, unsigned d, uint64_t seed, GpuLabelTimings *timings) {
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
	double t0 = now_ms();
	int devices = 0;
	if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
		cudaGetLastError();
		throw Error(ErrorKind::invalid_input, "no usable CUDA device for GPU GRAIL labelling");
	}
	size_t free_bytes = 0, total_bytes = 0;
	CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
	// The tree's lifting tables need log2(depth) words per vertex; depth < n bounds it before the
	// levels are known. CUB's temporary storage and allocation granularity come on top.
	const size_t margin = (64 << 20) + free_bytes / 50;
	size_t need = std::max(Labelling::bytes_for(n, m, width, bits_for(n)),
	                       2 * DeviceCsr::bytes_for(n, m) + DeviceCsr::transpose_peak_bytes(n, m)) +
	              margin;
	if (need > free_bytes)
		throw Error(ErrorKind::limit_exceeded,
		            "the DAG needs about " + mib(need) + " of GPU memory for GRAIL labelling, " + mib(free_bytes) +
		                " are free",
		            "label on the CPU");

	Stream stream;
	cudaStream_t s = stream.get();
	Labelling lab(dag, s);
	{
		TransposeScratch scratch;
		lab.out.transpose_into(lab.in, scratch, lab.ws.temp, s);
		stream.synchronize();
	}
	double t1 = now_ms();
	t.upload_ms = t1 - t0;

	topological_levels(lab, s);
	const size_t levels = lab.levels();
	double t2 = now_ms();
	t.levels_ms = t2 - t1;
	t.levels = uint32_t(levels);

	const unsigned lift_levels = bits_for(levels);
	TreeArrays tree;
	tree.up.resize(lift_levels * n);
	tree.key.resize(n);
	tree.depth.resize(n);
	DeviceBuffer<uint32_t> size(n), first(n), before(n), base(n + 1), records(width * n);
	DeviceBuffer<uint64_t> sort_keys(2 * n);
	DeviceBuffer<vid_t> sorted(2 * n);
	const vid_t nv = vid_t(n);
	CsrView in = lab.in.view(), out = lab.out.view();
	for (unsigned label = 0; label < d; label++) {
		const uint64_t label_seed = traversal_seed(seed, label);
		Tree view = tree.view(n, lift_levels, label_seed);
		double a = now_ms();
		init_roots<<<blocks_for(lab.level_size(0)), kBlockThreads, 0, s>>>(
		    lab.level_vertices(0), lab.level_size(0), tree.up.data(), n, lift_levels, tree.key.data(),
		    tree.depth.data(), label_seed);
		CUDA_CHECK_LAUNCH();
		for (size_t l = 1; l < levels; l++) {
			if ((l & 255) == 0)
				poll_cancel();
			vid_t count = lab.level_size(l);
			choose_parents<<<blocks_for(size_t(count) * 32), kBlockThreads, 0, s>>>(
			    in, lab.level_vertices(l), count, view, tree.up.data(), tree.key.data(), tree.depth.data());
			CUDA_CHECK_LAUNCH();
		}
		stream.synchronize();
		double b = now_ms();
		t.tree_ms += b - a;

		fill_u32<<<blocks_for(n), kBlockThreads, 0, s>>>(size.data(), n, 1);
		CUDA_CHECK_LAUNCH();
		for (size_t l = levels; l-- > 1;) {
			add_to_parent<<<blocks_for(lab.level_size(l)), kBlockThreads, 0, s>>>(
			    lab.level_vertices(l), lab.level_size(l), tree.up.data(), size.data());
			CUDA_CHECK_LAUNCH();
		}
		stream.synchronize();
		double c = now_ms();
		t.sizes_ms += c - b;

		cub::DoubleBuffer<uint64_t> keys(sort_keys.data(), sort_keys.data() + n);
		cub::DoubleBuffer<vid_t> vertices(sorted.data(), sorted.data() + n);
		sibling_sort_keys<<<blocks_for(n), kBlockThreads, 0, s>>>(tree.up.data(), tree.key.data(), tree.depth.data(),
		                                                          nv, keys.Current(), vertices.Current());
		CUDA_CHECK_LAUNCH();
		size_t bytes = 0;
		CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vertices, int64_t(n), 0, 64, s));
		CUDA_CHECK(
		    cub::DeviceRadixSort::SortPairs(lab.ws.temp.get(bytes), bytes, keys, vertices, int64_t(n), 0, 64, s));
		gather_sizes<<<blocks_for(n), kBlockThreads, 0, s>>>(vertices.Current(), nv, size.data(), first.data());
		CUDA_CHECK_LAUNCH();
		CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, first.data(), before.data(), int64_t(n), s));
		CUDA_CHECK(
		    cub::DeviceScan::ExclusiveSum(lab.ws.temp.get(bytes), bytes, first.data(), before.data(), int64_t(n), s));
		sibling_bases<<<blocks_for(n), kBlockThreads, 0, s>>>(keys.Current(), nv, before.data(), base.data());
		CUDA_CHECK_LAUNCH();
		sibling_offsets<<<blocks_for(n), kBlockThreads, 0, s>>>(keys.Current(), vertices.Current(), nv, before.data(),
		                                                        base.data(), first.data());
		CUDA_CHECK_LAUNCH();
		for (size_t l = 1; l < levels; l++) {
			add_parent_first<<<blocks_for(lab.level_size(l)), kBlockThreads, 0, s>>>(
			    lab.level_vertices(l), lab.level_size(l), tree.up.data(), first.data());
			CUDA_CHECK_LAUNCH();
		}
		write_ranks<<<blocks_for(n), kBlockThreads, 0, s>>>(nv, first.data(), size.data(), lab.level.data(), label,
		                                                    width, records.data());
		CUDA_CHECK_LAUNCH();
		stream.synchronize();
		t.post_ms += now_ms() - c;
	}

	double t3 = now_ms();
	MinPostOp min_post{records.data(), width, d};
	for (size_t l = levels - 1; l-- > 0;) {
		poll_cancel();
		DegreeBins bins = bin_frontier(out, lab.level_vertices(l), lab.level_size(l), lab.ws, s);
		advance(out, lab.level_vertices(l), bins, nullptr, min_post, lab.ws, s);
	}
	stream.synchronize();
	double t4 = now_ms();
	t.min_post_ms = t4 - t3;
	size_t free_now = 0;
	CUDA_CHECK(cudaMemGetInfo(&free_now, &total_bytes));
	t.device_bytes = free_bytes > free_now ? free_bytes - free_now : 0;

	std::vector<uint32_t> data(width * n);
	CUDA_CHECK(cudaMemcpyAsync(data.data(), records.data(), data.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
	stream.synchronize();
	t.download_ms = now_ms() - t4;
	return GrailLabels::from_data(d, std::move(data));
}

} // namespace grail
