// The GPU service's state in shared memory (docs/architecture.md, The GPU service): written by its
// supervisor (src/pg/entry/gpu_service_worker.cpp), read by backends to know whether to send their
// GPU work to it and by grail.device_info(). Exists only when pg_grail is preloaded.
#pragma once

#include <cstdint>
#include <string>

namespace grail::pg {

enum class GpuServiceState : int {
	not_started = 0, // no supervisor ran yet (or the library is not preloaded: no shared memory)
	off,             // grail.gpu_service = off
	starting,        // the server was started and is not yet listening
	running,         // the server listens: backends send it their GPU work
	restarting,      // the server exited; the supervisor starts it again after a short wait
	no_gpu,          // the server found no usable GPU: not retried
	stopped,         // the supervisor exited (server shutdown)
};

struct GpuServiceStatus {
	GpuServiceState state = GpuServiceState::not_started;
	bool preloaded = false; // the shared memory exists
	int supervisor_pid = 0;
	int server_pid = 0;
	uint64_t restarts = 0;
	std::string executor; // "gpu" or "cpu stand-in"
	std::string message;  // the last exit or why there is no service
};

// From the shared-memory hooks (src/pg/store/shared_state.cpp).
void request_gpu_service_shmem();
void attach_gpu_service_shmem();

GpuServiceStatus gpu_service_status();
// Whether backends may send requests now (cheap: one spinlock).
bool gpu_service_running();

// The supervisor's writes.
void set_gpu_service_state(GpuServiceState state, int server_pid, const std::string &message);
void set_gpu_service_supervisor(int pid, const char *executor);
void count_gpu_service_restart();

// The socket the server listens on, relative to the data directory, and the image cache it reads.
extern const char *const kGpuServiceSocket;
extern const char *const kGpuServiceCacheDir;

const char *gpu_service_state_name(GpuServiceState state);

} // namespace grail::pg
