// The GPU service's server (docs/architecture.md, The GPU service): the process that owns the
// server's only CUDA context. It accepts one connection at a time on a Unix domain socket, answers
// its one request (protocol.hpp) from images of the shared cache that it maps read-only, as
// backends do, and keeps resident with their device copies, least recently used evicted beyond its
// memory limit. Everything it receives is checked: a bad request is an error frame, never a crash.
// No PostgreSQL here: the unit tests run it in a thread.
#pragma once
#include "cpp_only.hpp"
#include "bfs.hpp"
#include "index.hpp"
#include "reach.hpp"
#include "scc.hpp"

#include "protocol.hpp"

#include <atomic>
#include <ctime>
#include <list>
#include <memory>
#include <string>

namespace grail::service {

// One image the server keeps: the mapped file, the index attached to it, and what requests made
// of it (the reversed edges, the reachability object with its device copy).
struct Resident {
	ImageRef ref;
	std::shared_ptr<const uint8_t> bytes; // the mapping
	size_t size = 0;
	std::unique_ptr<Index> index;
	std::unique_ptr<Csr> in_edges; // made by the first bfs against edge direction
	std::unique_ptr<Reach> reach;  // made by the first reachability batch
	time_t last_use = 0;
	uint64_t requests = 0;
	int fd = -1; // kept open to see the file removed from the cache (its link count 0)

	Resident() = default;
	Resident(Resident &&other) noexcept;
	Resident &operator=(Resident &&) = delete;
	~Resident();

	const Csr &reversed();
	Reach &reachability();
};

// What runs the algorithms: the GPU engine, or the CPU engine as its stand-in (tests, machines
// without a GPU). Both give the CPU engine's rows.
class Executor {
public:
	virtual ~Executor() = default;
	virtual std::string name() const = 0;
	virtual std::string device() const = 0;
	virtual uint64_t device_memory() const = 0;
	virtual BfsResult bfs(const Csr &edges, vid_t source, uint32_t max_depth) = 0;
	virtual Components scc(const Csr &graph) = 0;
	virtual void reach(Resident &image, const ReachRequest &request, bool *answers) = 0;
	// The memory an image holds on the device (the stand-in: its host copies).
	virtual uint64_t resident_bytes(const Resident &image) const = 0;
};

std::unique_ptr<Executor> cpu_stand_in();
// The GPU executor, or null when no GPU is usable (why: the probe's description).
std::unique_ptr<Executor> gpu_executor(std::string *why);

struct ServerOptions {
	std::string socket_path;   // bound here (relative to the working directory, or absolute)
	std::string cache_dir;     // the image cache directory; images are opened only from it
	uint64_t memory_limit = 0; // resident bytes before the least recently used images go; 0: none
	int io_timeout_ms = 30000; // a client that neither sends nor reads for this long is dropped
};

class Server {
public:
	Server(ServerOptions options, std::unique_ptr<Executor> executor);
	~Server();
	Server(const Server &) = delete;
	Server &operator=(const Server &) = delete;

	// Binds and listens (a stale socket file is replaced); throws std::runtime_error on failure.
	void listen();
	// Accepts and answers connections until stop is set (looked at every 100 ms).
	void serve(const std::atomic<bool> &stop);
	// Answers the one request of a connected socket, then closes it.
	void handle(int fd);

	ServiceInfo info() const;
	size_t
	resident_images() const noexcept {
		return images_.size();
	}

private:
	Resident &image(const ImageRef &ref);
	void evict(const Resident *in_use);
	// Lets go of images whose file left the cache (evicted, or its graph dropped or rebuilt), so
	// that their disk space and memory are freed.
	void forget_removed();
	std::vector<uint8_t> answer(FrameType type, const std::vector<uint8_t> &payload, int fd);

	ServerOptions options_;
	std::unique_ptr<Executor> executor_;
	std::list<Resident> images_; // most recently used first
	int listen_fd_ = -1;
	uint64_t requests_ = 0;
};

// The server's exit statuses (main.cpp), which the supervisor tells apart.
constexpr int kExitNoGpu = 3;  // no usable GPU: the supervisor stops retrying
constexpr int kExitUsage = 4;  // bad command line
constexpr int kExitFailed = 5; // could not listen

} // namespace grail::service
