// The GPU service's server (docs/architecture.md, The GPU service): the process that owns the
// server's only CUDA context. It accepts connections on a Unix domain socket and serves each in a
// thread of its own (so that one long request delays no other connection's), answers each one's
// request (protocol.hpp) from images of the shared cache that it maps read-only, as backends do,
// and keeps them resident with their device copies, least recently used evicted beyond its memory
// limit. The GPU executor runs one request's device work at a time. Everything it receives is checked: a bad request is
// an error frame, never a crash. No PostgreSQL here: the unit tests run it in a thread.
#pragma once
#include "cpp_only.hpp"
#include "bfs.hpp"
#include "chordless.hpp"
#include "gpu.hpp"
#include "index.hpp"
#include "reach.hpp"
#include "scc.hpp"

#include "protocol.hpp"

#include <atomic>
#include <condition_variable>
#include <ctime>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace grail::service {

// One image the server keeps: the mapped file, the index attached to it, and what requests made
// of it (the reversed edges, reachability objects, the device copies). Shared by the requests
// that use it (an image evicted while in use lives until its last request ends); its lazy parts
// are made under its own lock.
struct Resident {
	ImageRef ref;
	std::shared_ptr<const uint8_t> bytes; // the mapping
	size_t size = 0;
	std::unique_ptr<Index> index;
	int fd = -1; // kept open to see the file removed from the cache (its link count 0)
	std::atomic<int64_t> last_use{0};
	std::atomic<uint64_t> requests{0};
	// Bytes its executor's parts hold beyond the mapping (the stand-in: host copies; the GPU:
	// device memory), kept by the executor.
	std::atomic<uint64_t> part_bytes{0};

	Resident() = default;
	Resident(const Resident &) = delete;
	Resident &operator=(const Resident &) = delete;
	~Resident();

	// The reversed edges, made by the first call (host memory).
	const Csr &reversed();
	// A reachability object of the index for one request at a time: an idle one or a new one
	// (Reach keeps search state, so concurrent requests each take their own).
	std::unique_ptr<Reach> take_reach();
	void give_back(std::unique_ptr<Reach> reach);

	// The GPU executor's parts, touched only under its device lock.
	std::unique_ptr<Reach> device_reach;            // with its device copy, made by the first batch
	std::unique_ptr<GpuGraph> device_graph;         // the CSR (and its reverse) on the device
	std::unique_ptr<GpuReachability> device_search; // the DAG and labels, made by the first search

private:
	std::mutex parts_;
	std::unique_ptr<Csr> in_edges_;
	std::vector<std::unique_ptr<Reach>> idle_reach_;
};

// A chordless enumeration in progress: ChordlessCycleEnumerator::next(), on whichever engine.
class CycleSource {
public:
	virtual ~CycleSource() = default;
	virtual bool next(CycleBatch &batch, size_t max_cycles, size_t max_vertices) = 0;
};

// A build's rows as the backend sent them: its sources and its targets, each a sealed memory file
// mapped here (of the request's rows * 8 bytes).
struct BuildRows {
	SharedBytes source;
	SharedBytes target;
};

// What runs the algorithms: the GPU engine, or the CPU engine as its stand-in (tests, machines
// without a GPU). Both give the CPU engine's rows. Called from several connections' threads at
// once: each executor serialises what must be.
class Executor {
public:
	virtual ~Executor() = default;
	virtual std::string name() const = 0;
	virtual std::string device() const = 0;
	virtual uint64_t device_memory() const = 0;
	// reverse: against edge direction. source is a vertex of the image's graph.
	virtual BfsResult bfs(Resident &image, bool reverse, vid_t source, uint32_t max_depth) = 0;
	virtual Components scc(Resident &image) = 0;
	virtual void reach(Resident &image, const ReachRequest &request, bool *answers) = 0;
	// answers[i] = whether component from[i] reaches component to[i] of the image's DAG: pairs its
	// labels leave undecided (from[i] < to[i], checked by the caller), searched only. Returns the
	// seconds the search took.
	virtual double search(Resident &image, const std::vector<vid_t> &from, const std::vector<vid_t> &to,
	                      bool *answers) = 0;
	// A graph build from its rows (the request's count of sources and as many targets; released
	// once the graph is made): the graph, components, DAG (build_graph_gpu, or the host's steps) and
	// the labels (grail_labels_gpu where the request's policy picks the device for the DAG, else
	// GrailLabels::build). started() is called when the device work begins (the GPU: under its lock).
	// Parts downloaded from a device go where into places them (the result's file: build_graph_gpu's
	// placer); the server copies the others there.
	virtual BuiltParts build(const BuildRequest &request, BuildRows &rows, const std::function<void()> &started,
	                         PartPlacer &into) = 0;
	// The chordless cycles of the image's graph, enumerated a batch per next() (the GPU: each batch
	// under its lock, so that a stream its client reads slowly holds no other request back), and
	// their counts by length.
	virtual std::unique_ptr<CycleSource> chordless(Resident &image, uint32_t min_length, uint32_t max_length) = 0;
	virtual std::vector<uint64_t> chordless_counts(Resident &image, uint32_t max_length) = 0;
	// The memory an image holds on the device (the stand-in: its host copies).
	virtual uint64_t resident_bytes(const Resident &image) const = 0;
};

std::unique_ptr<Executor> cpu_stand_in();
// The GPU executor, or null when no GPU is usable (why: the probe's description).
std::unique_ptr<Executor> gpu_executor(std::string *why);

struct ServerOptions {
	std::string socket_path;     // bound here (relative to the working directory, or absolute)
	std::string cache_dir;       // the image cache directory; images are opened only from it
	uint64_t memory_limit = 0;   // resident bytes before the least recently used images go; 0: none
	int io_timeout_ms = 30000;   // a client that neither sends nor reads for this long is dropped
	size_t max_connections = 64; // connections served at once; more wait in the listen queue
	// A test hook: a reachability or search request waits before its work while this file exists (relative to
	// the working directory), so that tests can hold one request and see others pass it; a build
	// request waits so after its request frame, before reading its rows (its client is held in the
	// middle of sending them). Empty: none. main.cpp takes it from the environment (GRAIL_GPU_SERVER_TEST_HOLD) only.
	std::string hold_file;
};

class Server {
public:
	Server(ServerOptions options, std::unique_ptr<Executor> executor);
	~Server();
	Server(const Server &) = delete;
	Server &operator=(const Server &) = delete;

	// Binds and listens (a stale socket file is replaced); throws std::runtime_error on failure.
	void listen();
	// Accepts connections until stop is set (looked at every 100 ms), each answered in a thread of
	// its own; returns once every connection's thread has ended (requests in progress are
	// cancelled at their next cancel point).
	void serve(const std::atomic<bool> &stop);
	// Answers the one request of a connected socket, then closes it.
	void handle(int fd);

	ServiceInfo info() const;
	size_t resident_images() const;
	// Connections being answered now.
	size_t active_connections() const;

private:
	std::shared_ptr<Resident> image(const ImageRef &ref);
	void evict(const Resident *in_use);
	// The test hook's wait (ServerOptions::hold_file); a hang-up or the server's stop cancels it.
	void hold() const;
	// Lets go of images whose file left the cache (evicted, or its graph dropped or rebuilt), so
	// that their disk space and memory are freed.
	void forget_removed();
	// A request's result: its bytes, or a bfs's rows, sent from their own arrays (send_bfs_rows), or
	// nothing more (streamed: its chunks and end frame were sent as they were made).
	struct Reply {
		std::vector<uint8_t> bytes;
		BfsResult rows;
		bool is_rows = false;
		bool streamed = false;
	};
	// Sends a chordless enumeration's cycles as it finds them (ChordlessRequest), then the end frame,
	// unless the client hangs up first. Waits for a client that reads slowly as long as it stays
	// connected (a cursor's rows are asked for when its user wants them), not io_timeout_ms.
	void stream_cycles(int fd, CycleSource &source);
	Reply answer(FrameType type, const std::vector<uint8_t> &payload, int fd, const WaitFn &wait);
	// A build request's rows: two shared frames (sources, targets) of exactly 8 * rows bytes each.
	static BuildRows receive_rows(int fd, uint64_t rows, const WaitFn &wait);

	ServerOptions options_;
	std::unique_ptr<Executor> executor_;
	mutable std::mutex images_mutex_;
	std::list<std::shared_ptr<Resident>> images_; // most recently used first
	int listen_fd_ = -1;
	std::atomic<uint64_t> requests_{0};
	std::atomic<bool> stopping_{false};
	mutable std::mutex connections_mutex_;
	std::condition_variable connections_done_;
	size_t connections_ = 0;
};

// The server's exit statuses (main.cpp), which the supervisor tells apart.
constexpr int kExitNoGpu = 3;  // no usable GPU: the supervisor stops retrying
constexpr int kExitUsage = 4;  // bad command line
constexpr int kExitFailed = 5; // could not listen

} // namespace grail::service
