// The GPU service's supervisor (src/pg/entry/gpu_service_worker.cpp).
#pragma once

namespace grail::pg {

// Registers the supervisor; from _PG_init while the library is being preloaded.
void register_gpu_service();

} // namespace grail::pg
