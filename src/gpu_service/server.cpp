#include "server.hpp"

#include "device.hpp"
#include "device_policy.hpp"
#include "gpu.hpp"

#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>

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

const Csr &
Resident::reversed() {
	if (!in_edges)
		in_edges = std::make_unique<Csr>(index->graph().out.reversed());
	return *in_edges;
}

Reach &
Resident::reachability() {
	if (!reach)
		reach = std::make_unique<Reach>(*index);
	return *reach;
}

Resident::Resident(Resident &&other) noexcept
    : ref(std::move(other.ref)), bytes(std::move(other.bytes)), size(other.size), index(std::move(other.index)),
      in_edges(std::move(other.in_edges)), reach(std::move(other.reach)), last_use(other.last_use),
      requests(other.requests), fd(other.fd) {
	other.fd = -1;
}

Resident::~Resident() {
	// The reachability object and the index borrow from the mapping: they go first.
	reach.reset();
	in_edges.reset();
	index.reset();
	if (fd >= 0)
		close(fd);
}

static uint64_t
csr_bytes(const Csr &csr) {
	return (csr.vertex_count() + 1) * sizeof(eid_t) + csr.edge_count() * sizeof(vid_t);
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
	bfs(const Csr &edges, vid_t source, uint32_t max_depth) override {
		return grail::bfs(edges, source, max_depth);
	}
	Components
	scc(const Csr &graph) override {
		return strongly_connected_components(graph);
	}
	void
	reach(Resident &image, const ReachRequest &request, bool *answers) override {
		DevicePolicy cpu;
		cpu.mode = DeviceMode::cpu;
		image.reachability().reachable_many(request.from.data(), request.to.data(), request.from.size(), answers, cpu,
		                                    [](const char *, const std::string &) {});
	}
	uint64_t
	resident_bytes(const Resident &image) const override {
		return image.size + (image.in_edges ? csr_bytes(*image.in_edges) : 0);
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
	BfsResult
	bfs(const Csr &edges, vid_t source, uint32_t max_depth) override {
		return bfs_gpu(edges, source, max_depth);
	}
	Components
	scc(const Csr &graph) override {
		return strongly_connected_components_gpu(graph);
	}
	void
	reach(Resident &image, const ReachRequest &request, bool *answers) override {
		DevicePolicy policy;
		policy.mode = request.mode == 0 ? DeviceMode::cpu : request.mode == 1 ? DeviceMode::gpu : DeviceMode::automatic;
		policy.min_edges = request.min_edges;
		policy.min_searches = request.min_searches;
		image.reachability().reachable_many(request.from.data(), request.to.data(), request.from.size(), answers,
		                                    policy, [](const char *, const std::string &) {});
	}
	uint64_t
	resident_bytes(const Resident &image) const override {
		return image.reach ? image.reach->device_bytes() : 0;
	}

private:
	std::string description_;
	uint64_t memory_ = 0;
};

// The connection of the request being answered, whose hang-up cancels it (the engine polls
// between steps). Per thread: a unit test's own engine calls see none.
thread_local int current_client = -1;

bool
client_gone() {
	if (current_client < 0)
		return false;
	struct pollfd p = {current_client, short(POLLRDHUP), 0};
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)) != 0;
}

struct ClientScope {
	explicit ClientScope(int fd) {
		current_client = fd;
	}
	~ClientScope() {
		current_client = -1;
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
		struct pollfd p = {listen_fd_, POLLIN, 0};
		int ready = poll(&p, 1, 100);
		if (ready <= 0)
			continue;
		int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
		if (fd >= 0)
			handle(fd);
	}
}

void
Server::handle(int fd) {
	int timeout = options_.io_timeout_ms;
	WaitFn wait = [timeout](int socket, bool for_write) {
		struct pollfd p = {socket, short(for_write ? POLLOUT : POLLIN), 0};
		int ready;
		while ((ready = poll(&p, 1, timeout)) < 0 && errno == EINTR) {
		}
		if (ready == 0)
			throw ProtocolError("the client neither sent nor read for too long");
	};
	ClientScope scope(fd);
	try {
		FrameType type;
		std::vector<uint8_t> payload;
		if (recv_frame(fd, type, payload, kMaxRequest, wait)) {
			std::vector<uint8_t> result;
			bool ok = false;
			try {
				result = answer(type, payload, fd);
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
				send_result(fd, result, wait);
			}
		}
	} catch (const std::exception &) {
		// The client left (a cancel) or sent garbage: drop the request, serve the next.
	}
	close(fd);
}

Resident &
Server::image(const ImageRef &ref) {
	for (auto it = images_.begin(); it != images_.end(); ++it)
		if (it->ref.file == ref.file && it->ref.build_uuid == ref.build_uuid) {
			images_.splice(images_.begin(), images_, it);
			return images_.front();
		}
	if (!valid_image_name(ref.file, ref.build_uuid))
		throw Error(ErrorKind::invalid_input, "not an image file of the shared cache: \"" + ref.file + "\"");
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
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		throw Error(ErrorKind::invalid_input, "the image file \"" + ref.file + "\" is not a regular file");
	}
	size_t size = size_t(st.st_size);
	void *map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		throw Error(ErrorKind::limit_exceeded, "cannot map the image file \"" + ref.file + "\"");
	}
	std::shared_ptr<const uint8_t> bytes(static_cast<const uint8_t *>(map),
	                                     [size](const uint8_t *p) { munmap(const_cast<uint8_t *>(p), size); });
	Resident r;
	r.fd = fd;
	r.ref = ref;
	r.size = size;
	// Checked in full once: the server trusts no file it is pointed at.
	r.index = std::make_unique<Index>(Index::attach(bytes, size, Index::Check::full));
	r.bytes = std::move(bytes);
	images_.push_front(std::move(r));
	return images_.front();
}

void
Server::forget_removed() {
	for (auto it = images_.begin(); it != images_.end();) {
		struct stat st;
		if (fstat(it->fd, &st) != 0 || st.st_nlink == 0)
			it = images_.erase(it);
		else
			++it;
	}
}

void
Server::evict(const Resident *in_use) {
	if (options_.memory_limit == 0)
		return;
	uint64_t total = 0;
	for (const Resident &r : images_)
		total += executor_->resident_bytes(r);
	// Least recently used first; the one just used too if it alone passes the limit.
	while (total > options_.memory_limit && !images_.empty()) {
		const Resident &last = images_.back();
		if (&last == in_use && images_.size() > 1)
			break;
		total -= executor_->resident_bytes(last);
		images_.pop_back();
	}
}

std::vector<uint8_t>
Server::answer(FrameType type, const std::vector<uint8_t> &payload, int fd) {
	requests_++;
	forget_removed();
	Resident *used = nullptr;
	std::vector<uint8_t> result;
	switch (type) {
	case FrameType::info: {
		Reader(payload.data(), payload.size()).finish();
		return encode_info(info());
	}
	case FrameType::bfs: {
		BfsRequest q = decode_bfs(payload.data(), payload.size());
		Resident &r = image(q.image);
		used = &r;
		const Csr &edges = q.reverse ? r.reversed() : r.index->graph().out;
		if (q.source >= edges.vertex_count())
			throw Error(ErrorKind::invalid_input, "the bfs source is no vertex of the graph");
		BfsResult rows = executor_->bfs(edges, q.source, q.max_depth);
		result = encode_bfs_rows(rows.vertex.data(), rows.depth.data(), rows.parent.data(), rows.vertex.size());
		break;
	}
	case FrameType::scc: {
		SccRequest q = decode_scc(payload.data(), payload.size());
		Resident &r = image(q.image);
		used = &r;
		Components c = executor_->scc(r.index->graph().out);
		result = encode_components(c.of_vertex.data(), c.of_vertex.size(), c.smallest_vertex.data(),
		                           c.smallest_vertex.size());
		break;
	}
	case FrameType::reach: {
		ReachRequest q = decode_reach(payload.data(), payload.size());
		Resident &r = image(q.image);
		used = &r;
		std::unique_ptr<bool[]> answers(new bool[q.from.size() + 1]);
		executor_->reach(r, q, answers.get());
		result = encode_bits(answers.get(), q.from.size());
		break;
	}
	default:
		throw ProtocolError("unknown request type " + std::to_string(uint32_t(type)));
	}
	(void)fd;
	used->last_use = time(nullptr);
	used->requests++;
	evict(used);
	return result;
}

ServiceInfo
Server::info() const {
	ServiceInfo info;
	info.executor = executor_->name();
	info.device = executor_->device();
	info.device_memory = executor_->device_memory();
	info.memory_limit = options_.memory_limit;
	info.requests = requests_;
	for (const Resident &r : images_)
		info.images.push_back(
		    {r.ref.file, r.ref.build_uuid, r.size, executor_->resident_bytes(r), uint64_t(r.last_use), r.requests});
	return info;
}

} // namespace grail::service
