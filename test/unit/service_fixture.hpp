// The GPU service's unit tests (test_gpu_service*.cpp) share this: a scratch directory holding the
// server's image cache, socket and hold file, images written into its cache, and a server serving
// in a thread.
#pragma once
#include "index.hpp"

#include "gpu_service/protocol.hpp"
#include "gpu_service/server.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace grail_test {

// The file of build 1 of a graph's image under uuid, as the service names it.
inline std::string
image_name(int graph, const char *uuid) {
	return "1_" + std::to_string(graph) + "_1_" + uuid + ".img";
}

// A temporary directory (/tmp/PREFIX_XXXXXX) holding the cache directory, the socket and the hold
// file, removed at the end; the images it writes carry uuid.
struct ServiceScratch {
	std::string dir, cache, socket, hold;
	const char *uuid;
	explicit ServiceScratch(const std::string &prefix, const char *uuid = "") : uuid(uuid) {
		std::string pattern = "/tmp/" + prefix + "_XXXXXX";
		dir = mkdtemp(pattern.data());
		cache = dir + "/cache";
		socket = dir + "/s";
		hold = dir + "/hold";
		mkdir(cache.c_str(), 0700);
	}
	~ServiceScratch() {
		std::string command = "rm -rf '" + dir + "'";
		if (std::system(command.c_str()) != 0)
			std::fprintf(stderr, "could not remove %s\n", dir.c_str());
	}
	ServiceScratch(const ServiceScratch &) = delete;
	ServiceScratch &operator=(const ServiceScratch &) = delete;

	// The index as the image of build 1 of graph, in the cache.
	grail::service::ImageRef
	write(const grail::Index &index, int graph) const {
		std::vector<uint8_t> bytes = index.serialize();
		grail::service::ImageRef ref{image_name(graph, uuid), uuid};
		std::ofstream out(cache + "/" + ref.file, std::ios::binary);
		out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
		return ref;
	}
	// While the hold file exists, a server given it (RunningServer's hold) holds each request.
	void
	hold_on() const {
		std::ofstream(hold.c_str()) << "hold";
	}
	void
	hold_off() const {
		unlink(hold.c_str());
	}
};

// A server on the scratch's socket and cache, serving in a thread until destroyed. hold:
// ServerOptions's test hook (a request waits while that file exists); memory_limit and
// io_timeout_ms as ServerOptions's.
struct RunningServer {
	std::atomic<bool> stop{false};
	grail::service::Server server;
	std::thread thread;
	explicit RunningServer(const ServiceScratch &s,
	                       std::unique_ptr<grail::service::Executor> executor = grail::service::cpu_stand_in(),
	                       std::string hold = "", uint64_t memory_limit = 0, int io_timeout_ms = 2000)
	    : server(grail::service::ServerOptions{s.socket, s.cache, memory_limit, io_timeout_ms, 64, std::move(hold)},
	             std::move(executor)) {
		server.listen();
		thread = std::thread([this] { server.serve(stop); });
	}
	~RunningServer() {
		stop.store(true);
		thread.join();
	}
};

} // namespace grail_test
