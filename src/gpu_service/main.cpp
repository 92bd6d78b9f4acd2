// pg_grail_gpu_server: the GPU service's server process (server.hpp), started and restarted by the
// "pg_grail gpu service" background worker (src/pg/entry/gpu_service_worker.cpp) with the data
// directory as its working directory:
//   pg_grail_gpu_server --socket PATH --cache-dir DIR [--memory-limit BYTES] [--executor gpu|cpu]
// Exits kExitNoGpu when --executor gpu finds no usable GPU; SIGTERM or SIGINT stop it.
#include "server.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::atomic<bool> stop{false};

void
on_signal(int) {
	stop.store(true);
}

} // namespace

int
main(int argc, char **argv) {
	using namespace grail::service;
	ServerOptions options;
	std::string executor = "gpu";
	for (int i = 1; i + 1 < argc; i += 2) {
		std::string flag = argv[i];
		if (flag == "--socket")
			options.socket_path = argv[i + 1];
		else if (flag == "--cache-dir")
			options.cache_dir = argv[i + 1];
		else if (flag == "--memory-limit")
			options.memory_limit = std::strtoull(argv[i + 1], nullptr, 10);
		else if (flag == "--executor")
			executor = argv[i + 1];
		else {
			std::fprintf(stderr, "pg_grail_gpu_server: unknown option %s\n", flag.c_str());
			return kExitUsage;
		}
	}
	if (options.socket_path.empty() || options.cache_dir.empty() || (executor != "gpu" && executor != "cpu")) {
		std::fprintf(stderr, "usage: pg_grail_gpu_server --socket PATH --cache-dir DIR [--memory-limit BYTES] "
		                     "[--executor gpu|cpu]\n");
		return kExitUsage;
	}
	// The tests' hold (ServerOptions::hold_file): from the environment only, which only whoever
	// starts PostgreSQL sets.
	if (const char *hold = std::getenv("GRAIL_GPU_SERVER_TEST_HOLD"))
		options.hold_file = hold;
	std::signal(SIGPIPE, SIG_IGN);
	std::signal(SIGTERM, on_signal);
	std::signal(SIGINT, on_signal);
	std::unique_ptr<Executor> engine;
	if (executor == "gpu") {
		std::string why;
		engine = gpu_executor(&why);
		if (!engine) {
			std::fprintf(stderr, "pg_grail_gpu_server: no usable GPU: %s\n", why.c_str());
			return kExitNoGpu;
		}
		// 0: 80% of the device's memory.
		if (options.memory_limit == 0)
			options.memory_limit = engine->device_memory() / 10 * 8;
	} else {
		engine = cpu_stand_in();
	}
	try {
		Server server(options, std::move(engine));
		server.listen();
		server.serve(stop);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "pg_grail_gpu_server: %s\n", e.what());
		return kExitFailed;
	}
	return 0;
}
