#include "error.hpp"
#include "gpu.hpp"

#include <exception>

namespace grail {

namespace {

[[noreturn]] void
no_cuda() {
	throw Error(ErrorKind::invalid_input, "pg_grail was built without CUDA, so it cannot run on a GPU",
	            "rebuild with a CUDA toolkit installed, or use the CPU");
}

} // namespace

BfsResult
bfs_gpu(const Csr &, vid_t, uint32_t, GpuBfsTimings *) {
	no_cuda();
}

struct GpuGraph::State {};

GpuGraph::GpuGraph(const Csr &) {
	no_cuda();
}

GpuGraph::~GpuGraph() = default;

BfsResult
GpuGraph::bfs(vid_t, uint32_t, bool, GpuBfsTimings *) {
	no_cuda();
}

size_t
GpuGraph::device_bytes() const noexcept {
	return 0;
}

bool
GpuGraph::has_in_edges() const noexcept {
	return false;
}

Components
strongly_connected_components_gpu(const Csr &, GpuSccTimings *) {
	no_cuda();
}

size_t
gpu_graph_build_bytes(size_t rows) noexcept {
	return 56 * rows;
}

BuiltGraph
build_graph_gpu(const int64_t *, const int64_t *, size_t, GpuGraphTimings *, PartPlacer *) {
	no_cuda();
}

GrailLabels
grail_labels_gpu(const Csr &, unsigned, uint64_t, GpuLabelTimings *, PartPlacer *) {
	no_cuda();
}

struct GpuReachability::State {};

GpuReachability::GpuReachability(const Index &, unsigned) {
	no_cuda();
}

GpuReachability::~GpuReachability() = default;

void
GpuReachability::search(const std::vector<vid_t> &, const std::vector<vid_t> &, std::vector<uint8_t> &,
                        GpuQueryTimings *) {
	no_cuda();
}

size_t
GpuReachability::device_bytes() const noexcept {
	return 0;
}

std::vector<uint64_t>
count_chordless_cycles_gpu(const Csr &, uint32_t, size_t, GpuChordlessTimings *) {
	no_cuda();
}

class GpuChordlessCycleEnumerator::Search {};

GpuChordlessCycleEnumerator::GpuChordlessCycleEnumerator(const Csr &, uint32_t, uint32_t, size_t) {
	no_cuda();
}

GpuChordlessCycleEnumerator::~GpuChordlessCycleEnumerator() = default;

bool
GpuChordlessCycleEnumerator::next(CycleBatch &, size_t, size_t) {
	no_cuda();
}

size_t
GpuChordlessCycleEnumerator::next_block() {
	no_cuda();
}

const GpuChordlessTimings &
GpuChordlessCycleEnumerator::timings() const noexcept {
	std::terminate(); // unreachable: the constructor has thrown
}

} // namespace grail
