#include "error.hpp"
#include "gpu.hpp"

namespace grail {

BfsResult
bfs_gpu(const Csr &, vid_t, uint32_t, GpuBfsTimings *) {
	throw Error(ErrorKind::invalid_input, "pg_grail was built without CUDA, so it cannot run on a GPU",
	            "rebuild with a CUDA toolkit installed, or use the CPU");
}

} // namespace grail
