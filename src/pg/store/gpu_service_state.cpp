#include <cstring>

#include "store/gpu_service_state.hpp"
#include "boundary/guard.hpp"

extern "C" {
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "storage/fd.h"
}

namespace grail::pg {

// Relative paths: every backend's and the server's working directory is the data directory (mode
// 0700, so only the server's user can reach the socket), and sun_path's 108 bytes never bind.
const char *const kGpuServiceSocket = "base/" PG_TEMP_FILES_DIR "/" PG_TEMP_FILE_PREFIX "_grail_gpu.sock";
const char *const kGpuServiceCacheDir = "base/" PG_TEMP_FILES_DIR "/" PG_TEMP_FILE_PREFIX "_grail";

namespace {

struct Shared {
	slock_t mutex;
	int state;
	int supervisor_pid;
	int server_pid;
	uint64_t restarts;
	char executor[32];
	char message[256];
};

Shared *shared = nullptr;

void
copy(char *to, size_t size, const char *from) {
	std::strncpy(to, from, size - 1);
	to[size - 1] = '\0';
}

} // namespace

void
request_gpu_service_shmem() {
	RequestAddinShmemSpace(sizeof(Shared));
}

void
attach_gpu_service_shmem() {
	bool found;
	shared = static_cast<Shared *>(ShmemInitStruct("pg_grail gpu service", sizeof(Shared), &found));
	if (!found) {
		std::memset(shared, 0, sizeof(Shared));
		SpinLockInit(&shared->mutex);
	}
}

GpuServiceStatus
gpu_service_status() {
	GpuServiceStatus s;
	if (shared == nullptr)
		return s;
	s.preloaded = true;
	Shared copy_of;
	SpinLockAcquire(&shared->mutex);
	std::memcpy(&copy_of, shared, sizeof copy_of);
	SpinLockRelease(&shared->mutex);
	s.state = GpuServiceState(copy_of.state);
	s.supervisor_pid = copy_of.supervisor_pid;
	s.server_pid = copy_of.server_pid;
	s.restarts = copy_of.restarts;
	s.executor = copy_of.executor;
	s.message = copy_of.message;
	return s;
}

bool
gpu_service_running() {
	if (shared == nullptr)
		return false;
	SpinLockAcquire(&shared->mutex);
	bool running = shared->state == int(GpuServiceState::running);
	SpinLockRelease(&shared->mutex);
	return running;
}

void
set_gpu_service_state(GpuServiceState state, int server_pid, const std::string &message) {
	if (shared == nullptr)
		return;
	SpinLockAcquire(&shared->mutex);
	shared->state = int(state);
	shared->server_pid = server_pid;
	copy(shared->message, sizeof shared->message, message.c_str());
	SpinLockRelease(&shared->mutex);
}

void
set_gpu_service_supervisor(int pid, const char *executor) {
	if (shared == nullptr)
		return;
	SpinLockAcquire(&shared->mutex);
	shared->supervisor_pid = pid;
	copy(shared->executor, sizeof shared->executor, executor);
	SpinLockRelease(&shared->mutex);
}

void
count_gpu_service_restart() {
	if (shared == nullptr)
		return;
	SpinLockAcquire(&shared->mutex);
	shared->restarts++;
	SpinLockRelease(&shared->mutex);
}

const char *
gpu_service_state_name(GpuServiceState state) {
	switch (state) {
	case GpuServiceState::not_started:
		return "not started";
	case GpuServiceState::off:
		return "off";
	case GpuServiceState::starting:
		return "starting";
	case GpuServiceState::running:
		return "running";
	case GpuServiceState::restarting:
		return "restarting";
	case GpuServiceState::no_gpu:
		return "no usable GPU";
	case GpuServiceState::stopped:
		return "stopped";
	}
	return "unknown";
}

} // namespace grail::pg
