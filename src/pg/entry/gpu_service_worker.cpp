// The GPU service's supervisor (docs/architecture.md, The GPU service): a background worker,
// registered at server start when pg_grail is preloaded, that starts the service's server process
// (pg_grail_gpu_server, installed next to the module: src/gpu_service/main.cpp) and starts it again,
// after a short wait, whenever it exits. The server, not this worker, owns the CUDA context: it is
// no PostgreSQL process and does not attach shared memory, so its crash (a segfault, kill -9, an
// abort in a driver) is only its own, where a crash of a process attached to shared memory makes
// the postmaster restart the whole cluster and end every connection.
//
// The server gets PR_SET_PDEATHSIG, so that it never outlives this worker, which exits with the
// postmaster. A server that finds no usable GPU exits with kExitNoGpu: the state says so, and this
// worker exits too (freeing its worker slot), not to be restarted. The state, for backends and grail.device_info(), is
// in shared memory (store/gpu_service_state.hpp); the server is "running" once its socket accepts a connection.
//
// Written as PostgreSQL's own background workers are: C-style, no C++ exception leaves a call.
#include "gpu_service/server.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "store/gpu_service_state.hpp"
#include "entry/gpu_service_worker.hpp"
#include "boundary/settings.hpp"
#include "boundary/guard.hpp"

extern "C" {
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

PGDLLEXPORT void grail_gpu_service_main(Datum arg);
}

using namespace grail::pg;

namespace {

pid_t server = 0;

// Starts the server; its pid, or 0 (why in the state).
pid_t
start_server(const char *executor) {
	// The cache directory's parents may not exist yet: PostgreSQL makes base/pgsql_tmp on demand.
	MakePGDirectory("base/" PG_TEMP_FILES_DIR);
	MakePGDirectory(kGpuServiceCacheDir);
	std::string program = std::string(pkglib_path) + "/pg_grail_gpu_server";
	std::string limit = std::to_string(uint64_t(settings.gpu_memory_limit_mb) << 20);
	std::vector<std::string> args = {program,       "--socket",          kGpuServiceSocket,
	                                 "--cache-dir", kGpuServiceCacheDir, "--memory-limit",
	                                 limit,         "--executor",        executor};
	std::vector<char *> argv;
	for (std::string &a : args)
		argv.push_back(a.data());
	argv.push_back(nullptr);
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		// The child: only async-signal-safe calls until exec.
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, nullptr);
		for (int sig : {SIGPIPE, SIGUSR1, SIGUSR2, SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGCHLD})
			signal(sig, SIG_DFL);
		// No descriptor of the worker's (the postmaster's pipe, files) past exec.
		long max_fd = sysconf(_SC_OPEN_MAX);
		for (int fd = 3; fd < (max_fd > 0 ? max_fd : 1024); fd++)
			close(fd);
		execv(argv[0], argv.data());
		_exit(127);
	}
	if (pid < 0) {
		set_gpu_service_state(GpuServiceState::restarting, 0, std::string("fork failed: ") + strerror(errno));
		return 0;
	}
	set_gpu_service_state(GpuServiceState::starting, int(pid), "");
	return pid;
}

// Whether the server's socket accepts a connection (it listens).
bool
listening() {
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return false;
	struct sockaddr_un addr;
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	strlcpy(addr.sun_path, kGpuServiceSocket, sizeof addr.sun_path);
	bool ok = connect(fd, reinterpret_cast<struct sockaddr *>(&addr), sizeof addr) == 0;
	close(fd);
	return ok;
}

void
stop_server() {
	if (server <= 0)
		return;
	kill(server, SIGTERM);
	for (int i = 0; i < 50; i++) {
		if (waitpid(server, nullptr, WNOHANG) == server) {
			server = 0;
			return;
		}
		pg_usleep(100000L);
	}
	kill(server, SIGKILL);
	waitpid(server, nullptr, 0);
	server = 0;
}

void
on_exit_stop_server(int, Datum) {
	stop_server();
	if (gpu_service_status().state != GpuServiceState::no_gpu)
		set_gpu_service_state(GpuServiceState::stopped, 0, "the server is shutting down");
}

std::string
exit_text(int status) {
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status) == 127)
			return "the server program could not be run (pg_grail_gpu_server in " + std::string(pkglib_path) + ")";
		return "the server exited with status " + std::to_string(WEXITSTATUS(status));
	}
	if (WIFSIGNALED(status))
		return std::string("the server was ended by signal ") + std::to_string(WTERMSIG(status)) + " (" +
		       strsignal(WTERMSIG(status)) + ")";
	return "the server ended";
}

} // namespace

void
grail_gpu_service_main(Datum) {
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	pqsignal(SIGCHLD, SIG_DFL); // waitpid() must see the server's exit
	BackgroundWorkerUnblockSignals();

	if (settings.gpu_service == GPU_SERVICE_OFF) {
		set_gpu_service_state(GpuServiceState::off, 0, "grail.gpu_service is off");
		proc_exit(0); // not restarted
	}
	const char *executor = settings.gpu_service == GPU_SERVICE_CPU_STAND_IN ? "cpu" : "gpu";
	set_gpu_service_supervisor(MyProcPid, settings.gpu_service == GPU_SERVICE_CPU_STAND_IN ? "cpu stand-in" : "gpu");
	before_shmem_exit(on_exit_stop_server, 0);

	const long kMinBackoffMs = 100, kMaxBackoffMs = 5000;
	long backoff_ms = kMinBackoffMs;
	TimestampTz next_start = 0, started_at = 0;
	for (;;) {
		if (ShutdownRequestPending)
			proc_exit(0); // on_exit_stop_server ends the server
		if (ConfigReloadPending) {
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		TimestampTz now = GetCurrentTimestamp();
		if (server == 0 && now >= next_start) {
			server = start_server(executor);
			started_at = now;
			if (server == 0)
				next_start = TimestampTzPlusMilliseconds(now, backoff_ms);
		}
		if (server > 0) {
			int status;
			pid_t done = waitpid(server, &status, WNOHANG);
			if (done == server) {
				server = 0;
				if (WIFEXITED(status) && WEXITSTATUS(status) == grail::service::kExitNoGpu) {
					set_gpu_service_state(GpuServiceState::no_gpu, 0,
					                      "the server found none (the server log says why); grail.gpu_service = "
					                      "cpu_stand_in runs the service on the CPU");
					ereport(LOG, (errmsg("pg_grail gpu service: no usable GPU; the service is not started")));
					proc_exit(0); // not restarted: its worker slot is free again
				} else {
					// A server that ran a while starts again at once; one that keeps failing, slower.
					if (TimestampDifferenceExceeds(started_at, now, 30000))
						backoff_ms = kMinBackoffMs;
					count_gpu_service_restart();
					std::string why = exit_text(status);
					set_gpu_service_state(GpuServiceState::restarting, 0, why);
					ereport(LOG, (errmsg("pg_grail gpu service: %s; starting it again", why.c_str())));
					next_start = TimestampTzPlusMilliseconds(now, backoff_ms);
					backoff_ms = std::min(backoff_ms * 2, kMaxBackoffMs);
				}
				continue;
			}
			if (gpu_service_status().state == GpuServiceState::starting && listening())
				set_gpu_service_state(GpuServiceState::running, int(server), "");
		}
		// Running: a look at the server every 100 ms; starting: at its socket every 20 ms.
		long timeout = gpu_service_status().state == GpuServiceState::running ? 100L : 20L;
		(void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, timeout, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

namespace grail::pg {

void
register_gpu_service() {
	BackgroundWorker worker;
	memset(&worker, 0, sizeof worker);
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = 5;
	strlcpy(worker.bgw_library_name, "pg_grail", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "grail_gpu_service_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "pg_grail gpu service", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "pg_grail gpu service", BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

} // namespace grail::pg
