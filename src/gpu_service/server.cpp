#include "server.hpp"

#include "built_file.hpp"

#include "clock.hpp"
#include "device.hpp"
#include "device_policy.hpp"
#include "gpu.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#ifdef GRAIL_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace grail::service {

static uint64_t
csr_bytes(const Csr &csr) {
	return (csr.vertex_count() + 1) * sizeof(eid_t) + csr.edge_count() * sizeof(vid_t);
}

const Csr &
Resident::reversed() {
	std::lock_guard<std::mutex> lock(parts_);
	if (!in_edges_) {
		in_edges_ = std::make_unique<Csr>(index->graph().out.reversed());
		part_bytes += csr_bytes(*in_edges_);
	}
	return *in_edges_;
}

std::unique_ptr<Reach>
Resident::take_reach() {
	{
		std::lock_guard<std::mutex> lock(parts_);
		if (!idle_reach_.empty()) {
			std::unique_ptr<Reach> r = std::move(idle_reach_.back());
			idle_reach_.pop_back();
			return r;
		}
	}
	return std::make_unique<Reach>(*index);
}

void
Resident::give_back(std::unique_ptr<Reach> reach) {
	std::lock_guard<std::mutex> lock(parts_);
	idle_reach_.push_back(std::move(reach));
}

Resident::~Resident() {
	// What borrows from the index and the mapping goes first.
	device_reach.reset();
	device_search.reset();
	device_graph.reset();
	idle_reach_.clear();
	in_edges_.reset();
	index.reset();
	if (fd >= 0)
		close(fd);
}

namespace {

// The CPU engine standing in for the GPU: the same service, for tests and machines without one.
class CpuStandIn : public Executor {
public:
	std::string
	name() const override {
		return "cpu stand-in";
	}
	std::string
	device() const override {
		return "the CPU (stand-in for a GPU)";
	}
	uint64_t
	device_memory() const override {
		return 0;
	}
	BfsResult
	bfs(Resident &image, bool reverse, vid_t source, uint32_t max_depth) override {
		return grail::bfs(reverse ? image.reversed() : image.index->graph().out, source, max_depth);
	}
	Components
	scc(Resident &image) override {
		return strongly_connected_components(image.index->graph().out);
	}
	void
	reach(Resident &image, const ReachRequest &request, bool *answers) override {
		DevicePolicy cpu;
		cpu.mode = DeviceMode::cpu;
		// Requests on one image run at once, each with a reachability object of its own.
		std::unique_ptr<Reach> reach = image.take_reach();
		reach->reachable_many(request.from.data(), request.to.data(), request.from.size(), answers, cpu,
		                      [](const char *, const std::string &) {});
		image.give_back(std::move(reach));
	}
	double
	search(Resident &image, const std::vector<vid_t> &from, const std::vector<vid_t> &to, bool *answers) override {
		ReachabilityQuery::Undecided pairs;
		pairs.pair.resize(from.size());
		for (size_t k = 0; k < pairs.pair.size(); k++)
			pairs.pair[k] = k;
		pairs.from = from;
		pairs.to = to;
		std::unique_ptr<Reach> reach = image.take_reach();
		double start = now_ms();
		reach->search_each(pairs, answers);
		double seconds = ms_since(start) / 1e3;
		image.give_back(std::move(reach));
		return seconds;
	}
	BuiltParts
	build(const BuildRequest &request, BuildRows &rows, const std::function<void()> &started,
	      PartPlacer & /* made on the host: the server copies them into the result */) override {
		started();
		BuiltParts parts;
		BuiltGraph &b = parts.graph;
		double start = now_ms();
		{
			EdgeList edges;
			const int64_t *source = reinterpret_cast<const int64_t *>(rows.source.data());
			const int64_t *target = reinterpret_cast<const int64_t *>(rows.target.data());
			edges.source.assign(source, source + request.rows);
			edges.target.assign(target, target + request.rows);
			rows = BuildRows();
			b.graph = Graph::from_edges(edges);
		}
		b.graph_seconds = ms_since(start) / 1e3;
		start = now_ms();
		b.components = strongly_connected_components(b.graph.out);
		b.dag = condensation(b.graph.out, b.components);
		b.scc_seconds = ms_since(start) / 1e3;
		start = now_ms();
		parts.labels = GrailLabels::build(b.dag, request.labels, request.seed);
		parts.label_seconds = ms_since(start) / 1e3;
		return parts;
	}
	std::unique_ptr<CycleSource>
	chordless(Resident &image, uint32_t min_length, uint32_t max_length) override {
		struct Cycles : CycleSource {
			Cycles(const Csr &g, uint32_t min_length, uint32_t max_length) : search(g, min_length, max_length) {
			}
			bool
			next(CycleBatch &batch, size_t max_cycles, size_t max_vertices) override {
				return search.next(batch, max_cycles, max_vertices);
			}
			ChordlessCycleEnumerator search;
		};
		return std::make_unique<Cycles>(image.index->graph().out, min_length, max_length);
	}
	std::vector<uint64_t>
	chordless_counts(Resident &image, uint32_t max_length) override {
		return count_chordless_cycles(image.index->graph().out, max_length);
	}
	uint64_t
	resident_bytes(const Resident &image) const override {
		return image.size + image.part_bytes.load();
	}
};

class GpuExecutor : public Executor {
public:
	explicit GpuExecutor(std::string description) : description_(std::move(description)) {
#ifdef GRAIL_WITH_CUDA
		size_t free_bytes = 0, total = 0;
		if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess)
			memory_ = total;
#endif
	}
	std::string
	name() const override {
		return "gpu";
	}
	std::string
	device() const override {
		return description_;
	}
	uint64_t
	device_memory() const override {
		return memory_;
	}
	// The graph's CSR stays on the device with the image (its in-edges too, once a search wanted
	// them): a search uploads nothing.
	BfsResult
	bfs(Resident &image, bool reverse, vid_t source, uint32_t max_depth) override {
		std::lock_guard<std::mutex> lock(device_);
		if (!image.device_graph)
			image.device_graph = std::make_unique<GpuGraph>(image.index->graph().out);
		BfsResult rows;
		try {
			rows = image.device_graph->bfs(source, max_depth, reverse);
		} catch (...) {
			count(image);
			throw;
		}
		count(image);
		return rows;
	}
	Components
	scc(Resident &image) override {
		std::lock_guard<std::mutex> lock(device_);
		return strongly_connected_components_gpu(image.index->graph().out);
	}
	void
	reach(Resident &image, const ReachRequest &request, bool *answers) override {
		DevicePolicy policy;
		policy.mode = request.mode == 0 ? DeviceMode::cpu : request.mode == 1 ? DeviceMode::gpu : DeviceMode::automatic;
		policy.min_edges = request.min_edges;
		policy.min_searches = request.min_searches;
		std::lock_guard<std::mutex> lock(device_);
		if (!image.device_reach)
			image.device_reach = std::make_unique<Reach>(*image.index);
		try {
			image.device_reach->reachable_many(request.from.data(), request.to.data(), request.from.size(), answers,
			                                   policy, [](const char *, const std::string &) {});
		} catch (...) {
			count(image);
			throw;
		}
		count(image);
	}
	// The build's DAG and labels stay on the device with the image: a search uploads only its pairs.
	double
	search(Resident &image, const std::vector<vid_t> &from, const std::vector<vid_t> &to, bool *answers) override {
		std::lock_guard<std::mutex> lock(device_);
		std::vector<uint8_t> reached;
		GpuQueryTimings timings;
		try {
			if (!image.device_search)
				image.device_search = std::make_unique<GpuReachability>(*image.index);
			image.device_search->search(from, to, reached, &timings);
		} catch (...) {
			count(image);
			throw;
		}
		count(image);
		if (reached.size() != from.size())
			throw Error(ErrorKind::internal, "the device search answered the wrong number of pairs");
		for (size_t k = 0; k < reached.size(); k++)
			answers[k] = reached[k] != 0;
		return timings.search_ms / 1e3;
	}
	// The graph made on the device from the rows (only its parts come back), then the labels where
	// the policy picks the device for the DAG; a device that cannot hold the labels under auto
	// leaves them to the host. Its device memory is freed when the request ends.
	BuiltParts
	build(const BuildRequest &request, BuildRows &rows, const std::function<void()> &started,
	      PartPlacer &into) override {
		std::lock_guard<std::mutex> lock(device_);
		started();
		BuiltParts parts;
		parts.graph = build_graph_gpu(reinterpret_cast<const int64_t *>(rows.source.data()),
		                              reinterpret_cast<const int64_t *>(rows.target.data()), size_t(request.rows),
		                              nullptr, &into);
		rows = BuildRows();
		DevicePolicy policy;
		policy.mode = request.mode == 0 ? DeviceMode::cpu : request.mode == 1 ? DeviceMode::gpu : DeviceMode::automatic;
		policy.min_edges = request.min_edges;
		double start = now_ms();
		const Csr &dag = parts.graph.dag;
		parts.labels = run_on_device(
		    policy, "the GRAIL labels", dag,
		    [&] { return grail_labels_gpu(dag, request.labels, request.seed, nullptr, &into); },
		    [&] { return GrailLabels::build(dag, request.labels, request.seed); },
		    [](const char *, const std::string &) {});
		parts.label_seconds = ms_since(start) / 1e3;
		return parts;
	}
	// The enumeration's device memory (its own copy of the graph, paths and found cycles, within the
	// enumerator's budget) lives until the stream ends; the device lock is held only while a batch
	// is made, so other requests run between a slow reader's batches.
	std::unique_ptr<CycleSource>
	chordless(Resident &image, uint32_t min_length, uint32_t max_length) override {
		struct Cycles : CycleSource {
			Cycles(std::mutex &device, const Csr &g, uint32_t min_length, uint32_t max_length) : device(device) {
				std::lock_guard<std::mutex> lock(device);
				search = std::make_unique<GpuChordlessCycleEnumerator>(g, min_length, max_length);
			}
			~Cycles() override {
				std::lock_guard<std::mutex> lock(device);
				search.reset();
			}
			bool
			next(CycleBatch &batch, size_t max_cycles, size_t max_vertices) override {
				std::lock_guard<std::mutex> lock(device);
				return search->next(batch, max_cycles, max_vertices);
			}
			std::mutex &device;
			std::unique_ptr<GpuChordlessCycleEnumerator> search;
		};
		return std::make_unique<Cycles>(device_, image.index->graph().out, min_length, max_length);
	}
	std::vector<uint64_t>
	chordless_counts(Resident &image, uint32_t max_length) override {
		std::lock_guard<std::mutex> lock(device_);
		return count_chordless_cycles_gpu(image.index->graph().out, max_length);
	}
	uint64_t
	resident_bytes(const Resident &image) const override {
		return image.part_bytes.load();
	}

private:
	// The device memory of an image's parts, kept where eviction and info() read it without the
	// device lock. Under the device lock.
	static void
	count(Resident &image) {
		image.part_bytes = (image.device_reach ? image.device_reach->device_bytes() : 0) +
		                   (image.device_search ? image.device_search->device_bytes() : 0) +
		                   (image.device_graph ? image.device_graph->device_bytes() : 0);
	}

	std::string description_;
	uint64_t memory_ = 0;
	// One request's device work at a time: the device's memory is checked before each step
	// allocates, which two requests at once would race.
	std::mutex device_;
};

// The connection of the request being answered, whose hang-up cancels it (the engine polls
// between steps). Per thread: a unit test's own engine calls see none.
thread_local int current_client = -1;
thread_local const std::atomic<bool> *current_stop = nullptr;

bool
client_gone() {
	if (current_client < 0)
		return false;
	if (current_stop != nullptr && current_stop->load())
		return true; // the server stops: its requests are cancelled
	struct pollfd p = {current_client, short(POLLRDHUP), 0};
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)) != 0;
}

struct ClientScope {
	ClientScope(int fd, const std::atomic<bool> *stop) {
		current_client = fd;
		current_stop = stop;
	}
	~ClientScope() {
		current_client = -1;
		current_stop = nullptr;
	}
};

} // namespace

std::unique_ptr<Executor>
cpu_stand_in() {
	return std::make_unique<CpuStandIn>();
}

std::unique_ptr<Executor>
gpu_executor(std::string *why) {
	GpuProbe probe = probe_gpu();
	if (!probe.usable) {
		*why = probe.description;
		return nullptr;
	}
	return std::make_unique<GpuExecutor>(probe.description);
}

Server::Server(ServerOptions options, std::unique_ptr<Executor> executor)
    : options_(std::move(options)), executor_(std::move(executor)) {
	set_cancel_hook(client_gone);
}

Server::~Server() {
	stopping_.store(true);
	{
		std::unique_lock<std::mutex> lock(connections_mutex_);
		connections_done_.wait(lock, [this] { return connections_ == 0; });
	}
	images_.clear();
	if (listen_fd_ >= 0)
		close(listen_fd_);
}

void
Server::listen() {
	struct sockaddr_un addr;
	std::memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	if (options_.socket_path.empty() || options_.socket_path.size() >= sizeof addr.sun_path)
		throw std::runtime_error("the socket path is empty or too long: " + options_.socket_path);
	std::memcpy(addr.sun_path, options_.socket_path.c_str(), options_.socket_path.size());
	listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd_ < 0)
		throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
	unlink(options_.socket_path.c_str()); // a former server's
	mode_t old = umask(0077);             // the socket only for this user
	int bound = bind(listen_fd_, reinterpret_cast<struct sockaddr *>(&addr), sizeof addr);
	umask(old);
	if (bound != 0 || ::listen(listen_fd_, SOMAXCONN) != 0)
		throw std::runtime_error("cannot listen on " + options_.socket_path + ": " + std::strerror(errno));
}

void
Server::serve(const std::atomic<bool> &stop) {
	while (!stop.load()) {
		{
			// At most max_connections threads: the others wait in the listen queue (and a client
			// whose connect finds it full tries again).
			std::unique_lock<std::mutex> lock(connections_mutex_);
			if (connections_ >= std::max<size_t>(options_.max_connections, 1)) {
				connections_done_.wait_for(lock, std::chrono::milliseconds(100));
				continue;
			}
		}
		struct pollfd p = {listen_fd_, POLLIN, 0};
		int ready = poll(&p, 1, 100);
		if (ready <= 0)
			continue;
		int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		{
			std::lock_guard<std::mutex> lock(connections_mutex_);
			connections_++;
		}
		try {
			std::thread([this, fd] {
				handle(fd);
				std::lock_guard<std::mutex> lock(connections_mutex_);
				connections_--;
				connections_done_.notify_all();
			}).detach();
		} catch (const std::system_error &) {
			// No thread to be had: this connection is answered here, as before threads.
			handle(fd);
			std::lock_guard<std::mutex> lock(connections_mutex_);
			connections_--;
		}
	}
	// Requests in progress see the stop at their next cancel point; serve returns once every
	// connection's thread has ended.
	stopping_.store(true);
	std::unique_lock<std::mutex> lock(connections_mutex_);
	connections_done_.wait(lock, [this] { return connections_ == 0; });
	stopping_.store(false);
}

size_t
Server::active_connections() const {
	std::lock_guard<std::mutex> lock(connections_mutex_);
	return connections_;
}

size_t
Server::resident_images() const {
	std::lock_guard<std::mutex> lock(images_mutex_);
	return images_.size();
}

void
Server::hold() const {
	if (options_.hold_file.empty())
		return;
	while (access(options_.hold_file.c_str(), F_OK) == 0) {
		poll_cancel(); // a hang-up, or the server's stop
		usleep(10000);
	}
}

void
Server::handle(int fd) {
	int timeout = options_.io_timeout_ms;
	// Waits in slices, so that a stopping server leaves a quiet client at once.
	WaitFn wait = [this, timeout](int socket, bool for_write) {
		struct pollfd p = {socket, short(for_write ? POLLOUT : POLLIN), 0};
		for (int waited = 0;;) {
			int slice = std::min(timeout - waited, 100);
			int ready = poll(&p, 1, std::max(slice, 0));
			if (ready > 0 || (ready < 0 && errno != EINTR))
				return;
			if (stopping_.load())
				throw ProtocolError("the GPU service stops");
			if (ready == 0 && (waited += slice) >= timeout)
				throw ProtocolError("the client neither sent nor read for too long");
		}
	};
	ClientScope scope(fd, &stopping_);
	try {
		FrameType type;
		std::vector<uint8_t> payload;
		if (recv_frame(fd, type, payload, kMaxRequest, wait)) {
			Reply result;
			bool ok = false;
			try {
				result = answer(type, payload, fd, wait);
				ok = true;
			} catch (const ImageMissing &e) {
				std::vector<uint8_t> error = encode_image_missing(e.what());
				send_frame(fd, FrameType::error, error.data(), error.size(), wait);
			} catch (const Error &e) {
				std::vector<uint8_t> error = encode_error(e.kind(), e.what(), e.hint());
				send_frame(fd, FrameType::error, error.data(), error.size(), wait);
			} catch (const ProtocolError &e) {
				std::vector<uint8_t> error = encode_error(ErrorKind::invalid_input, e.what(), "");
				send_frame(fd, FrameType::error, error.data(), error.size(), wait);
			} catch (const std::bad_alloc &) {
				std::vector<uint8_t> error =
				    encode_error(ErrorKind::limit_exceeded, "the GPU service ran out of host memory", "");
				send_frame(fd, FrameType::error, error.data(), error.size(), wait);
			}
			if (ok) {
				payload.clear();
				payload.shrink_to_fit();
				if (result.is_rows)
					send_bfs_rows(fd, result.rows, wait);
				else if (!result.streamed) // a stream's end frame went with its chunks
					send_result(fd, result.bytes, wait);
			}
		}
	} catch (const std::exception &) {
		// The client left (a cancel) or sent garbage: drop the request, serve the next.
	}
	close(fd);
}

std::shared_ptr<Resident>
Server::image(const ImageRef &ref) {
	auto find = [&]() -> std::shared_ptr<Resident> {
		for (auto it = images_.begin(); it != images_.end(); ++it)
			if ((*it)->ref.file == ref.file && (*it)->ref.build_uuid == ref.build_uuid) {
				images_.splice(images_.begin(), images_, it);
				return images_.front();
			}
		return nullptr;
	};
	{
		std::lock_guard<std::mutex> lock(images_mutex_);
		if (std::shared_ptr<Resident> r = find())
			return r;
	}
	if (!valid_image_name(ref.file, ref.build_uuid))
		throw Error(ErrorKind::invalid_input, "not an image file of the shared cache: \"" + ref.file + "\"");
	// Mapped and checked without the lock (a large image's check takes a while): two requests that
	// load the same image at once keep the first one's.
	int dir = open(options_.cache_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		throw Error(ErrorKind::invalid_input, "the image cache directory is missing");
	int fd = openat(dir, ref.file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dir);
	if (fd < 0 && errno == ENOENT)
		throw ImageMissing("the image file \"" + ref.file + "\" is no longer in the shared cache");
	if (fd < 0)
		throw Error(ErrorKind::invalid_input,
		            "the image file \"" + ref.file + "\" cannot be opened: " + std::strerror(errno));
	auto r = std::make_shared<Resident>();
	r->fd = fd; // closed with r
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
		throw Error(ErrorKind::invalid_input, "the image file \"" + ref.file + "\" is not a regular file");
	size_t size = size_t(st.st_size);
	void *map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		throw Error(ErrorKind::limit_exceeded, "cannot map the image file \"" + ref.file + "\"");
	std::shared_ptr<const uint8_t> bytes(static_cast<const uint8_t *>(map),
	                                     [size](const uint8_t *p) { munmap(const_cast<uint8_t *>(p), size); });
	r->ref = ref;
	r->size = size;
	// Checked in full once: the server trusts no file it is pointed at.
	r->index = std::make_unique<Index>(Index::attach(bytes, size, Index::Check::full));
	r->bytes = std::move(bytes);
	std::lock_guard<std::mutex> lock(images_mutex_);
	if (std::shared_ptr<Resident> loaded = find())
		return loaded;
	images_.push_front(r);
	return r;
}

void
Server::forget_removed() {
	std::vector<std::shared_ptr<Resident>> gone; // let go after the lock
	std::lock_guard<std::mutex> lock(images_mutex_);
	for (auto it = images_.begin(); it != images_.end();) {
		struct stat st;
		if (fstat((*it)->fd, &st) != 0 || st.st_nlink == 0) {
			gone.push_back(std::move(*it));
			it = images_.erase(it);
		} else
			++it;
	}
}

void
Server::evict(const Resident *in_use) {
	if (options_.memory_limit == 0)
		return;
	std::vector<std::shared_ptr<Resident>> gone; // let go after the lock: their memory is freed then
	std::lock_guard<std::mutex> lock(images_mutex_);
	uint64_t total = 0;
	for (const std::shared_ptr<Resident> &r : images_)
		total += executor_->resident_bytes(*r);
	// Least recently used first; the one just used too if it alone passes the limit. An image that
	// another request still uses lives until that request ends.
	while (total > options_.memory_limit && !images_.empty()) {
		if (images_.back().get() == in_use && images_.size() > 1)
			break;
		total -= executor_->resident_bytes(*images_.back());
		gone.push_back(std::move(images_.back()));
		images_.pop_back();
	}
}

BuildRows
Server::receive_rows(int fd, uint64_t rows, const WaitFn &wait) {
	BuildRows got;
	const char *names[2] = {"sources", "targets"};
	SharedBytes *columns[2] = {&got.source, &got.target};
	for (int k = 0; k < 2; k++) {
		FrameType type;
		std::vector<uint8_t> payload;
		if (!recv_frame(fd, type, payload, 64, wait, columns[k]))
			throw ProtocolError(std::string("the client closed the connection before a build's ") + names[k]);
		if (type != FrameType::shared)
			throw ProtocolError(std::string("a build request's ") + names[k] + " are not in a shared frame");
		if (columns[k]->size() != rows * sizeof(int64_t))
			throw ProtocolError(std::string("a build request's ") + names[k] + " are " +
			                    std::to_string(columns[k]->size()) + " bytes, not the " +
			                    std::to_string(rows * sizeof(int64_t)) + " of its " + std::to_string(rows) + " rows");
	}
	return got;
}

Server::Reply
Server::answer(FrameType type, const std::vector<uint8_t> &payload, int fd, const WaitFn &wait) {
	requests_++;
	forget_removed();
	std::shared_ptr<Resident> used;
	Reply reply;
	std::vector<uint8_t> &result = reply.bytes;
	switch (type) {
	case FrameType::info: {
		decode_info_request(payload.data(), payload.size());
		result = encode_info(info());
		return reply;
	}
	case FrameType::bfs: {
		BfsRequest q = decode_bfs(payload.data(), payload.size());
		used = image(q.image);
		if (q.source >= used->index->graph().vertex_count())
			throw Error(ErrorKind::invalid_input, "the bfs source is no vertex of the graph");
		// Sent from the search's arrays, not joined into one buffer first.
		reply.rows = executor_->bfs(*used, q.reverse, q.source, q.max_depth);
		if (reply.rows.depth.size() != reply.rows.vertex.size() || reply.rows.parent.size() != reply.rows.vertex.size())
			throw Error(ErrorKind::internal, "the bfs has not one depth and one parent per vertex");
		reply.is_rows = true;
		break;
	}
	case FrameType::scc: {
		SccRequest q = decode_scc(payload.data(), payload.size());
		used = image(q.image);
		Components c = executor_->scc(*used);
		result = encode_components(c.of_vertex.data(), c.of_vertex.size(), c.smallest_vertex.data(),
		                           c.smallest_vertex.size());
		break;
	}
	case FrameType::reach: {
		ReachRequest q = decode_reach(payload.data(), payload.size());
		used = image(q.image);
		hold();
		std::unique_ptr<bool[]> answers(new bool[q.from.size() + 1]);
		executor_->reach(*used, q, answers.get());
		result = encode_bits(answers.get(), q.from.size());
		break;
	}
	case FrameType::search: {
		SearchRequest q = decode_search(payload.data(), payload.size());
		used = image(q.image);
		size_t components = used->index->components().count();
		for (size_t k = 0; k < q.from.size(); k++)
			if (q.from[k] >= q.to[k] || q.to[k] >= components)
				throw Error(ErrorKind::invalid_input, "a search pair is not two components of the graph in order");
		hold();
		std::unique_ptr<bool[]> answers(new bool[q.from.size() + 1]);
		double seconds = executor_->search(*used, q.from, q.to, answers.get());
		result = encode_searched(answers.get(), q.from.size(), seconds);
		break;
	}
	case FrameType::chordless: {
		ChordlessRequest q = decode_chordless(payload.data(), payload.size());
		used = image(q.image);
		hold();
		if (q.counts) {
			result = encode_counts(executor_->chordless_counts(*used, q.max_length));
			break;
		}
		std::unique_ptr<CycleSource> source = executor_->chordless(*used, q.min_length, q.max_length);
		stream_cycles(fd, *source);
		reply.streamed = true;
		break;
	}
	case FrameType::build: {
		BuildRequest q = decode_build(payload.data(), payload.size());
		hold(); // the tests' hold: the client is left in the middle of sending its rows
		BuildRows rows = receive_rows(fd, q.rows, wait);
		// The result's file first: the executor's device downloads the parts straight into it.
		BuiltFile result(q.rows, q.labels);
		uint64_t bytes = result.seal(executor_->build(
		    q, rows, [&] { send_frame(fd, FrameType::started, nullptr, 0, wait); }, result));
		send_shared_file(fd, result.fd(), bytes, wait);
		send_frame(fd, FrameType::end, nullptr, 0, wait);
		reply.streamed = true;
		return reply;
	}
	default:
		throw ProtocolError("unknown request type " + std::to_string(uint32_t(type)));
	}
	used->last_use = int64_t(time(nullptr));
	used->requests++;
	evict(used.get());
	return reply;
}

void
Server::stream_cycles(int fd, CycleSource &source) {
	// No timeout: the client reads as its rows are asked for. A hang-up ends the wait (poll reports
	// it, and the send then fails), as does the server's stop.
	WaitFn wait = [this](int socket, bool for_write) {
		struct pollfd p = {socket, short(for_write ? POLLOUT : POLLIN), 0};
		for (;;) {
			int ready = poll(&p, 1, 100);
			if (ready > 0 || (ready < 0 && errno != EINTR))
				return;
			if (stopping_.load())
				throw ProtocolError("the GPU service stops");
		}
	};
	CycleBatch batch;
	std::vector<uint8_t> bytes;
	// One cycle first, so that the first row comes as soon as one is found, then twice as many each
	// time.
	for (size_t cycles = 1; source.next(batch, cycles, kStreamBatchVertices);
	     cycles = std::min(2 * cycles, kStreamBatchCycles)) {
		bytes.clear();
		append_cycles(batch, bytes);
		send_chunks(fd, bytes.data(), bytes.size(), wait);
		poll_cancel(); // a client gone while its last batch fitted in the socket's buffer
	}
	// The end frame with the same wait: a reader that has not yet asked for the last rows may leave
	// the socket's buffer full for as long as it likes.
	send_frame(fd, FrameType::end, nullptr, 0, wait);
}

ServiceInfo
Server::info() const {
	ServiceInfo info;
	info.executor = executor_->name();
	info.device = executor_->device();
	info.device_memory = executor_->device_memory();
	info.memory_limit = options_.memory_limit;
	info.requests = requests_.load();
	std::lock_guard<std::mutex> lock(images_mutex_);
	for (const std::shared_ptr<Resident> &r : images_)
		info.images.push_back({r->ref.file, r->ref.build_uuid, r->size, executor_->resident_bytes(*r),
		                       uint64_t(r->last_use.load()), r->requests.load()});
	return info;
}

} // namespace grail::service
