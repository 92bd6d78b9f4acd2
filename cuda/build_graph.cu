// A graph built on the device from its raw rows: what Index::build needs before the labels, with
// only the finished parts coming back to the host.
//   1. ids: the 2m endpoints (source rows, then target rows) as order-preserving unsigned keys
//      less the smallest, radix-sorted with their positions over only the bits they use; a run
//      head starts a new vertex, so a scan gives every endpoint its dense vertex, and the heads
//      the sorted unique ids (Graph::from_edges' assignment, exactly).
//   2. CSR: every row u->v with u != v as the word (u << 32 | v), radix-sorted; a run-length
//      encoding gives the distinct edges in CSR order (rows ascending, each list ascending) and
//      how many rows held each (Graph::repeated); a binary search per vertex gives the offsets.
//   3. components: the device SCC (scc.cuh) over the CSR already there.
//   4. condensation: every edge between components as (cu << 32 | cv), sorted, deduplicated, the
//      DAG's CSR made like step 2's (condensation() of the same components, exactly).
// Every step frees what it no longer needs before the next allocates; free memory is checked
// against each step's arrays before it allocates them (Error(limit_exceeded)).
#include "clock.hpp"
#include "error.hpp"
#include "gpu.hpp"
#include "launch.cuh"
#include "primitives.cuh"
#include "scc.cuh"

#include <cub/cub.cuh>

#include <cstring>
#include <utility>

#include <optional>
#include <string>

namespace grail {

using namespace cuda;

namespace {

constexpr uint64_t kSignBit = uint64_t(1) << 63;
constexpr uint64_t kNoEdge = ~uint64_t(0); // a self-loop's word in step 2, an inner edge's in step 4

// Step 1. keys[p]: the id's bits as an order-preserving unsigned key; positions[p] = p.
__global__ void
order_keys(uint64_t *keys, uint32_t *positions, size_t count) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= count)
		return;
	keys[i] ^= kSignBit;
	positions[i] = uint32_t(i);
}

__global__ void
subtract(uint64_t *keys, size_t count, const uint64_t *smallest) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count)
		keys[i] -= *smallest;
}

__global__ void
run_heads(const uint64_t *sorted, size_t count, uint32_t *head) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count)
		head[i] = i == 0 || sorted[i] != sorted[i - 1];
}

// rank[i]: the inclusive count of heads up to i, so the vertex of sorted endpoint i is rank[i] - 1.
__global__ void
assign_vertices(const uint64_t *sorted, const uint32_t *positions, const uint32_t *rank, size_t count,
                const uint64_t *smallest, uint32_t *dense, int64_t *ids) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i >= count)
		return;
	uint32_t v = rank[i] - 1;
	dense[positions[i]] = v;
	if (i == 0 || sorted[i] != sorted[i - 1])
		ids[v] = int64_t((sorted[i] + *smallest) ^ kSignBit);
}

// Step 2. dense[e] and dense[m + e]: row e's endpoints.
__global__ void
edge_words(const uint32_t *dense, size_t m, uint64_t *words) {
	size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (e >= m)
		return;
	uint32_t u = dense[e], v = dense[m + e];
	words[e] = u == v ? kNoEdge : (uint64_t(u) << 32 | v);
}

struct IsEdge {
	__device__ bool
	operator()(uint64_t word) const {
		return word != kNoEdge;
	}
};

// offsets[v] = the first word whose row is v or greater, for v in 0..n.
__global__ void
row_offsets(const uint64_t *words, eid_t count, vid_t n, eid_t *offsets) {
	size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (v > n)
		return;
	uint64_t key = uint64_t(v) << 32;
	eid_t lo = 0, hi = count;
	while (lo < hi) {
		eid_t mid = lo + (hi - lo) / 2;
		if (words[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	offsets[v] = lo;
}

__global__ void
low_words(const uint64_t *words, eid_t count, vid_t *targets) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count)
		targets[i] = vid_t(words[i]);
}

__global__ void
repeated_flags(const uint32_t *rows, eid_t count, uint32_t *flag) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count)
		flag[i] = rows[i] > 1;
}

// The layout of grail::RepeatedEdge, which the host copies into place.
struct DeviceRepeated {
	unsigned long long edge, rows;
};
static_assert(sizeof(DeviceRepeated) == sizeof(RepeatedEdge), "RepeatedEdge's layout");

__global__ void
gather_repeated(const uint32_t *rows, const uint32_t *flag, const uint32_t *place, eid_t count, DeviceRepeated *out) {
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < count && flag[i])
		out[place[i]] = {i, rows[i]};
}

// Step 4. The edge at place e of the CSR, between components: its word, else kNoEdge.
__global__ void
component_words(CsrView g, const uint32_t *component, uint64_t *words) {
	size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (e >= g.edges)
		return;
	uint32_t cu = component[row_of(g.offsets, 0, g.vertices, e)], cv = component[g.targets[e]];
	words[e] = cu == cv ? kNoEdge : (uint64_t(cu) << 32 | cv);
}

// A device word count, read back by a synchronising copy.
template <class T>
T
read_back(const T *device, cudaStream_t stream) {
	T value;
	CUDA_CHECK(cudaMemcpyAsync(&value, device, sizeof(T), cudaMemcpyDeviceToHost, stream));
	CUDA_CHECK(cudaStreamSynchronize(stream));
	return value;
}

// Sorted words (count of them, in words.Current()) as a CSR over n rows: distinct words only, the
// rows that held each counted when rows_of is given (then words.Alternate() receives the distinct
// ones). Returns the CSR's edges.
struct WordsCsr {
	DeviceCsr csr;
	DeviceBuffer<DeviceRepeated> repeated;
	size_t repeated_count = 0;
};

void
words_to_csr(cub::DoubleBuffer<uint64_t> &words, size_t count, vid_t n, bool count_rows, TempStorage &temp,
             cudaStream_t s, WordsCsr &out) {
	if (count == 0) {
		out.csr.allocate(n, 0);
		CUDA_CHECK(cudaMemsetAsync(const_cast<eid_t *>(out.csr.view().offsets), 0, (size_t(n) + 1) * sizeof(eid_t), s));
		return;
	}
	DeviceBuffer<unsigned long long> found(1);
	const uint64_t *distinct = words.Alternate();
	DeviceBuffer<uint32_t> rows;
	if (count_rows) {
		rows.resize(count);
		cub_call(temp, [&](void *t, size_t &b) {
			return cub::DeviceRunLengthEncode::Encode(t, b, words.Current(), words.Alternate(), rows.data(),
			                                          found.data(), count, s);
		});
	} else {
		cub_call(temp, [&](void *t, size_t &b) {
			return cub::DeviceSelect::Unique(t, b, words.Current(), words.Alternate(), found.data(), count, s);
		});
	}
	eid_t edges = eid_t(read_back(found.data(), s));
	out.csr.allocate(n, edges);
	CsrView view = out.csr.view();
	row_offsets<<<blocks_for(size_t(n) + 1), kBlockThreads, 0, s>>>(distinct, edges, n,
	                                                                const_cast<eid_t *>(view.offsets));
	CUDA_CHECK_LAUNCH();
	low_words<<<blocks_for(edges), kBlockThreads, 0, s>>>(distinct, edges, const_cast<vid_t *>(view.targets));
	CUDA_CHECK_LAUNCH();
	if (!count_rows || edges == 0)
		return;
	// The repeated edges by ascending place: a flag per edge and its exclusive sum.
	DeviceBuffer<uint32_t> flag(edges), place(edges);
	repeated_flags<<<blocks_for(edges), kBlockThreads, 0, s>>>(rows.data(), edges, flag.data());
	CUDA_CHECK_LAUNCH();
	cub_call(temp, [&](void *t, size_t &b) {
		return cub::DeviceScan::ExclusiveSum(t, b, flag.data(), place.data(), edges, s);
	});
	uint32_t last_place = read_back(place.data() + edges - 1, s), last_flag = read_back(flag.data() + edges - 1, s);
	out.repeated_count = size_t(last_place) + last_flag;
	out.repeated.resize(out.repeated_count);
	if (out.repeated_count > 0) {
		gather_repeated<<<blocks_for(edges), kBlockThreads, 0, s>>>(rows.data(), flag.data(), place.data(), edges,
		                                                            out.repeated.data());
		CUDA_CHECK_LAUNCH();
	}
}

// Sorts count words in words.Current() (on bits below end_bit) and drops those equal to kNoEdge
// first; returns how many are left, sorted, in words.Current().
size_t
sort_edge_words(cub::DoubleBuffer<uint64_t> &words, size_t count, unsigned end_bit, TempStorage &temp, cudaStream_t s) {
	DeviceBuffer<unsigned long long> kept(1);
	cub_call(temp, [&](void *t, size_t &b) {
		return cub::DeviceSelect::If(t, b, words.Current(), words.Alternate(), kept.data(), count, IsEdge(), s);
	});
	size_t left = size_t(read_back(kept.data(), s));
	words.selector ^= 1;
	if (left > 1)
		cub_call(temp, [&](void *t, size_t &b) {
			return cub::DeviceRadixSort::SortKeys(t, b, words, left, 0, int(end_bit), s);
		});
	return left;
}

// Room for count elements of a part: where placer puts it (the part then borrows it), else the
// part's own.
template <typename T>
T *
room_for(Array<T> &part, size_t count, PartPlacer *placer) {
	if (placer == nullptr) {
		part.resize(count);
		return part.data();
	}
	T *p = static_cast<T *>(placer->place(count * sizeof(T)));
	part = Array<T>::borrow(p, count, nullptr);
	return p;
}

// A part made on the host, copied to where placer puts it (none: left as it is).
template <typename T>
void
place_copy(Array<T> &part, PartPlacer *placer) {
	if (placer == nullptr)
		return;
	Array<T> made = std::move(part);
	T *p = room_for(part, made.size(), placer);
	if (!made.empty())
		std::memcpy(p, made.data(), made.size() * sizeof(T));
}

void
download_csr(const DeviceCsr &d, Csr &host, cudaStream_t s, PartPlacer *placer) {
	CsrView v = d.view();
	eid_t *offsets = room_for(host.offsets, size_t(v.vertices) + 1, placer);
	vid_t *targets = room_for(host.targets, v.edges, placer);
	CUDA_CHECK(
	    cudaMemcpyAsync(offsets, v.offsets, (size_t(v.vertices) + 1) * sizeof(eid_t), cudaMemcpyDeviceToHost, s));
	if (v.edges > 0)
		CUDA_CHECK(cudaMemcpyAsync(targets, v.targets, v.edges * sizeof(vid_t), cudaMemcpyDeviceToHost, s));
}

} // namespace

size_t
gpu_graph_build_bytes(size_t rows) noexcept {
	// Step 1's peak: two 8-byte keys and two 4-byte positions per endpoint (the sort's double
	// buffers), and the ids, at most one per endpoint: 64 bytes per row. Later steps need less per
	// row and are checked again with the sizes then known.
	return 64 * rows;
}

BuiltGraph
build_graph_gpu(const int64_t *source, const int64_t *target, size_t m, GpuGraphTimings *timings, PartPlacer *placer) {
	require_device("a graph build");
	GpuGraphTimings local;
	GpuGraphTimings &t = timings ? *timings : local;
	t = GpuGraphTimings{};
	BuiltGraph built;
	if (m == 0) { // (nothing placed: a placer's user copies what is not in place)
		built.graph.out.offsets.assign(1, 0);
		built.dag.offsets.assign(1, 0);
		return built;
	}
	if (m >= (size_t(1) << 31))
		throw Error(ErrorKind::limit_exceeded,
		            "a graph build on the GPU takes fewer than 2147483648 rows, not " + std::to_string(m),
		            "build it on the CPU (grail.device = cpu)");
	t.device_bytes = gpu_graph_build_bytes(m);
	require_device_memory(t.device_bytes, "the graph's rows", "building the graph",
	                      "build it on the CPU (grail.device = cpu)");
	const size_t total = 2 * m;
	Stream stream;
	cudaStream_t s = stream.get();
	TimingProbe probe(timings != nullptr, 7, s);
	TempStorage temp;
	double start = now_ms();

	// 1. ids.
	probe.mark(0);
	DeviceBuffer<uint64_t> key[2] = {DeviceBuffer<uint64_t>(total), DeviceBuffer<uint64_t>(total)};
	DeviceBuffer<uint32_t> position[2] = {DeviceBuffer<uint32_t>(total), DeviceBuffer<uint32_t>(total)};
	CUDA_CHECK(cudaMemcpyAsync(key[0].data(), source, m * sizeof(int64_t), cudaMemcpyHostToDevice, s));
	CUDA_CHECK(cudaMemcpyAsync(key[0].data() + m, target, m * sizeof(int64_t), cudaMemcpyHostToDevice, s));
	probe.mark(1);
	order_keys<<<blocks_for(total), kBlockThreads, 0, s>>>(key[0].data(), position[0].data(), total);
	CUDA_CHECK_LAUNCH();
	DeviceBuffer<uint64_t> bounds(2); // smallest, largest key
	cub_call(temp, [&](void *tp, size_t &b) {
		return cub::DeviceReduce::Min(tp, b, key[0].data(), bounds.data(), total, s);
	});
	cub_call(temp, [&](void *tp, size_t &b) {
		return cub::DeviceReduce::Max(tp, b, key[0].data(), bounds.data() + 1, total, s);
	});
	uint64_t range[2];
	CUDA_CHECK(cudaMemcpyAsync(range, bounds.data(), sizeof range, cudaMemcpyDeviceToHost, s));
	stream.synchronize();
	poll_cancel();
	subtract<<<blocks_for(total), kBlockThreads, 0, s>>>(key[0].data(), total, bounds.data());
	CUDA_CHECK_LAUNCH();
	cub::DoubleBuffer<uint64_t> keys(key[0].data(), key[1].data());
	cub::DoubleBuffer<uint32_t> positions(position[0].data(), position[1].data());
	cub_call(temp, [&](void *tp, size_t &b) {
		return cub::DeviceRadixSort::SortPairs(tp, b, keys, positions, total, 0, int(bits_for(range[1] - range[0])), s);
	});
	// The free halves: heads and then the endpoints' vertices in the positions', ranks in the keys'.
	uint32_t *head = positions.Alternate();
	uint32_t *rank = reinterpret_cast<uint32_t *>(keys.Alternate());
	run_heads<<<blocks_for(total), kBlockThreads, 0, s>>>(keys.Current(), total, head);
	CUDA_CHECK_LAUNCH();
	cub_call(temp, [&](void *tp, size_t &b) { return cub::DeviceScan::InclusiveSum(tp, b, head, rank, total, s); });
	const vid_t n = read_back(rank + total - 1, s);
	poll_cancel();
	DeviceBuffer<int64_t> ids(n);
	uint32_t *dense = head; // the heads are spent: the scan has read them
	assign_vertices<<<blocks_for(total), kBlockThreads, 0, s>>>(keys.Current(), positions.Current(), rank, total,
	                                                            bounds.data(), dense, ids.data());
	CUDA_CHECK_LAUNCH();
	int64_t *host_ids = room_for(built.graph.ids, n, placer);
	CUDA_CHECK(cudaMemcpyAsync(host_ids, ids.data(), size_t(n) * sizeof(int64_t), cudaMemcpyDeviceToHost, s));
	// The vertices of the rows to the front of a buffer that stays; the rest goes.
	DeviceBuffer<uint32_t> &dense_owner = positions.selector == 0 ? position[1] : position[0];
	DeviceBuffer<uint32_t> vertices = std::move(dense_owner);
	key[0].release();
	key[1].release();
	position[0].release();
	position[1].release();
	ids.release(); // ordered after the copy on the stream: cudaFree waits for the device
	probe.mark(2);
	poll_cancel();

	// 2. CSR.
	require_device_memory(m * (2 * sizeof(uint64_t) + 3 * sizeof(uint32_t)) + DeviceCsr::bytes_for(n, m),
	                      "the graph's rows", "building the graph's CSR", "build it on the CPU (grail.device = cpu)");
	DeviceBuffer<uint64_t> word[2] = {DeviceBuffer<uint64_t>(m), DeviceBuffer<uint64_t>(m)};
	edge_words<<<blocks_for(m), kBlockThreads, 0, s>>>(vertices.data(), m, word[0].data());
	CUDA_CHECK_LAUNCH();
	vertices.release();
	cub::DoubleBuffer<uint64_t> words(word[0].data(), word[1].data());
	unsigned vertex_bits = bits_for(n > 1 ? n - 1 : 1);
	size_t loopless = sort_edge_words(words, m, 32 + vertex_bits, temp, s);
	WordsCsr graph;
	words_to_csr(words, loopless, n, true, temp, s, graph);
	word[0].release();
	word[1].release();
	const eid_t edges = graph.csr.edge_count();
	download_csr(graph.csr, built.graph.out, s, placer);
	RepeatedEdge *repeated = room_for(built.graph.repeated, graph.repeated_count, placer);
	if (graph.repeated_count > 0)
		CUDA_CHECK(cudaMemcpyAsync(repeated, graph.repeated.data(), graph.repeated_count * sizeof(DeviceRepeated),
		                           cudaMemcpyDeviceToHost, s));
	probe.mark(3);
	stream.synchronize(); // the host needs the CSR if the numbering falls back to it
	built.graph_seconds = ms_since(start) / 1e3;
	start = now_ms();
	graph.repeated.release();
	poll_cancel();

	// 3. components, over the CSR where it lies.
	require_device_memory(scc::SccDevice::bytes_for(n, edges) - DeviceCsr::bytes_for(n, edges), "the graph", "SCC",
	                      "compute the components on the CPU (grail.device = cpu)");
	DeviceBuffer<uint32_t> component(n);
	DeviceCsr csr;
	{
		scc::SccDevice d(std::move(graph.csr), s);
		GpuSccTimings st;
		scc::detect_components(d, s, st);
		TimingProbe none(false, 0, s);
		scc::DeviceNumbering numbering = scc::number_on_device(d, s, none);
		Components &c = built.components;
		if (numbering.done) {
			uint32_t *of_vertex = room_for(c.of_vertex, n, placer);
			vid_t *smallest = room_for(c.smallest_vertex, numbering.components, placer);
			CUDA_CHECK(cudaMemcpyAsync(of_vertex, numbering.of_vertex, size_t(n) * sizeof(uint32_t),
			                           cudaMemcpyDeviceToHost, s));
			CUDA_CHECK(cudaMemcpyAsync(smallest, numbering.smallest_vertex,
			                           size_t(numbering.components) * sizeof(vid_t), cudaMemcpyDeviceToHost, s));
			CUDA_CHECK(cudaMemcpyAsync(component.data(), numbering.of_vertex, size_t(n) * sizeof(uint32_t),
			                           cudaMemcpyDeviceToDevice, s));
		} else {
			std::vector<vid_t> label(n);
			CUDA_CHECK(
			    cudaMemcpyAsync(label.data(), d.label.data(), size_t(n) * sizeof(vid_t), cudaMemcpyDeviceToHost, s));
			stream.synchronize();
			c = number_components(built.graph.out, label);
			place_copy(c.of_vertex, placer);
			place_copy(c.smallest_vertex, placer);
			CUDA_CHECK(cudaMemcpyAsync(component.data(), std::as_const(c.of_vertex).data(),
			                           size_t(n) * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
			t.host_numbering = true;
		}
		csr = std::move(d.graph);
		probe.mark(4);
		stream.synchronize(); // d's buffers are freed next, and c must be complete
	}
	poll_cancel();

	// 4. condensation.
	const size_t k = built.components.count();
	require_device_memory(2 * size_t(edges) * sizeof(uint64_t) + DeviceCsr::bytes_for(k, edges), "the graph",
	                      "its condensation", "build it on the CPU (grail.device = cpu)");
	if (edges > 0) {
		word[0].resize(edges);
		word[1].resize(edges);
		component_words<<<blocks_for(edges), kBlockThreads, 0, s>>>(csr.view(), component.data(), word[0].data());
		CUDA_CHECK_LAUNCH();
	}
	csr = DeviceCsr{};
	component.release();
	cub::DoubleBuffer<uint64_t> cross(word[0].data(), word[1].data());
	size_t between = edges > 0 ? sort_edge_words(cross, edges, 32 + bits_for(k > 1 ? k - 1 : 1), temp, s) : 0;
	WordsCsr dag;
	words_to_csr(cross, between, vid_t(k), false, temp, s, dag);
	word[0].release();
	word[1].release();
	probe.mark(5);
	download_csr(dag.csr, built.dag, s, placer);
	probe.mark(6);
	stream.synchronize();
	built.scc_seconds = ms_since(start) / 1e3;
	if (timings) {
		t.upload_ms = probe.between(0, 1);
		t.ids_ms = probe.between(1, 2);
		t.csr_ms = probe.between(2, 3);
		t.scc_ms = probe.between(3, 4);
		t.condensation_ms = probe.between(4, 5);
		t.download_ms = probe.between(5, 6);
	}
	return built;
}

} // namespace grail
