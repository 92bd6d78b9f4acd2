#include "device.hpp"

namespace grail {

GpuProbe
probe_gpu() {
	return {false, "pg_grail was built without CUDA (no nvcc was found at build time)"};
}

} // namespace grail
