// Graph builds through the GPU service without PostgreSQL: the rows streamed to its server (the CPU
// stand-in in a thread; the GPU executor where a GPU is usable), the parts it sends back adopted by
// Index::build exactly as the host's own steps make them on random graphs, the result codec refusing
// bytes of the wrong shape, and requests that are malformed, refused while their rows still come,
// or left by either side in the middle of the rows.
#include "error.hpp"
#include "generate.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "reach.hpp"
#include "process_resources.hpp"
#include "rng.hpp"
#include "scc.hpp"
#include "service_fixture.hpp"

#include "gpu_service/built_file.hpp"
#include "gpu_service/client.hpp"
#include "gpu_service/protocol.hpp"
#include "gpu_service/server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace grail;
using namespace grail::service;

namespace {

// The scratch directory of these tests (service_fixture.hpp).
struct Scratch : grail_test::ServiceScratch {
	Scratch() : ServiceScratch("grail_svcb") {
	}
};

// The server of these tests: held while the scratch's hold file exists, a client silent for 5 s dropped.
struct RunningServer : grail_test::RunningServer {
	RunningServer(const Scratch &s, std::unique_ptr<Executor> executor)
	    : grail_test::RunningServer(s, std::move(executor), s.hold, 0, 5000) {
	}
};

BuildRequest
request_for(const EdgeList &rows, unsigned labels = kDefaultLabels, uint8_t mode = 1) {
	BuildRequest q;
	q.mode = mode;
	q.labels = labels;
	q.seed = BuildOptions{}.seed;
	q.rows = rows.size();
	return q;
}

// How a test's rows go to the service: from the edge list's arrays, or written into a rows file as
// the backend's read writes them (sealed, passed as it lies).
enum class RowsWay { arrays, rows_file };

// The service's build of rows, adopted by Index::build as the glue does (service/build_index.cpp).
Index
service_index(const std::string &socket, EdgeList rows, unsigned labels, BuildStats *stats = nullptr,
              RowsWay way = RowsWay::arrays) {
	bool started = false;
	BuiltReceiver receiver;
	auto sink = [&](const uint8_t *bytes, size_t n) { receiver.take(bytes, n); };
	auto whole = [&](SharedBytes &&bytes) {
		auto kept = std::make_shared<const SharedBytes>(std::move(bytes));
		receiver.adopt(kept->data(), kept->size(), kept);
	};
	if (way == RowsWay::arrays) {
		call_build(
		    socket, request_for(rows, labels), rows.source.data(), rows.target.data(), nullptr, [&] { started = true; },
		    sink, whole);
	} else {
		RowsFile file;
		for (size_t i = 0; i < rows.size(); i++)
			EXPECT_TRUE(file.append(rows.source[i], rows.target[i]));
		// Unsealed, or holding another count than the request's: refused before anything is sent.
		EXPECT_THROW(call_build(socket, request_for(rows, labels), file, nullptr, nullptr, sink, whole), ProtocolError);
		file.seal();
		BuildRequest other = request_for(rows, labels);
		other.rows++;
		EXPECT_THROW(call_build(socket, other, file, nullptr, nullptr, sink, whole), ProtocolError);
		call_build(
		    socket, request_for(rows, labels), file, nullptr, [&] { started = true; }, sink, whole);
	}
	EXPECT_TRUE(started);
	BuiltParts parts = receiver.finish();
	BuildOptions options;
	options.labels = labels;
	bool labelled = false;
	options.graph_builder = [&](EdgeList &, BuiltGraph &built) {
		built = std::move(parts.graph);
		return true;
	};
	options.label_builder = [&](const Csr &, unsigned, uint64_t) {
		labelled = true;
		return std::move(parts.labels);
	};
	Index index = Index::build(std::move(rows), options, stats);
	EXPECT_TRUE(labelled);
	return index;
}

template <typename A, typename B>
bool
same(const A &a, const B &b) {
	return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// The service's index is the host's: every part equal (the labels too: the stand-in labels with the
// host's rule and seed), and its answers the oracle's.
void
expect_equal_builds(const std::string &socket, const grail_test::TestGraph &t, unsigned labels,
                    RowsWay way = RowsWay::arrays) {
	BuildOptions host_options;
	host_options.labels = labels;
	Index host = Index::build(t.edges, host_options);
	Index got = service_index(socket, t.edges, labels, nullptr, way);
	EXPECT_TRUE(same(got.graph().ids, host.graph().ids)) << t.shape;
	EXPECT_TRUE(same(got.graph().out.offsets, host.graph().out.offsets)) << t.shape;
	EXPECT_TRUE(same(got.graph().out.targets, host.graph().out.targets)) << t.shape;
	EXPECT_TRUE(same(got.graph().repeated, host.graph().repeated)) << t.shape;
	EXPECT_TRUE(same(got.components().of_vertex, host.components().of_vertex)) << t.shape;
	EXPECT_TRUE(same(got.components().smallest_vertex, host.components().smallest_vertex)) << t.shape;
	EXPECT_TRUE(same(got.dag().offsets, host.dag().offsets)) << t.shape;
	EXPECT_TRUE(same(got.dag().targets, host.dag().targets)) << t.shape;
	EXPECT_TRUE(same(got.labels().data(), host.labels().data())) << t.shape;
	grail_test::Oracle oracle(t.edges);
	ReachabilityQuery q(got);
	for (int64_t a : t.query_ids)
		for (int64_t b : t.query_ids)
			EXPECT_EQ(q.reachable(a, b), oracle.reachable(a, b)) << t.shape << " " << a << " -> " << b;
	// Its image round-trips as any build's.
	std::vector<uint8_t> image = got.serialize();
	Index back = Index::deserialize(image.data(), image.size());
	EXPECT_EQ(back.graph().vertex_count(), host.graph().vertex_count());
}

TEST(GpuServiceBuild, StandInBuildsEqualTheHostsOnRandomGraphs) {
	Scratch s;
	RunningServer running(s, cpu_stand_in());
	for (uint64_t seed = 1; seed <= 60; seed++)
		expect_equal_builds(s.socket, grail_test::random_graph(seed, 80), unsigned(1 + seed % 16));
}

// The same from rows written into a rows file, as the backend's read writes them for the service.
TEST(GpuServiceBuild, StandInBuildsFromARowsFileEqualTheHosts) {
	Scratch s;
	RunningServer running(s, cpu_stand_in());
	for (uint64_t seed = 61; seed <= 100; seed++)
		expect_equal_builds(s.socket, grail_test::random_graph(seed, 80), unsigned(1 + seed % 16), RowsWay::rows_file);
}

// Keyed graphs' rows come as their dictionary's numbers 0..k-1 (each an endpoint): vertex v is key v.
TEST(GpuServiceBuild, DictionaryNumbersAreTheirOwnVertices) {
	Scratch s;
	RunningServer running(s, cpu_stand_in());
	Rng rng(7);
	EdgeList rows;
	const int64_t keys = 500;
	for (int64_t k = 0; k < keys; k++)
		rows.append(k, int64_t(rng.below(uint64_t(keys))));
	rows.append(3, 3);
	rows.append(4, 5);
	rows.append(4, 5);
	Index got = service_index(s.socket, rows, kDefaultLabels);
	ASSERT_EQ(got.graph().vertex_count(), size_t(keys));
	for (int64_t k = 0; k < keys; k++)
		EXPECT_EQ(got.graph().ids[size_t(k)], k);
	EXPECT_EQ(got.graph().rows_of(got.graph().find(4), got.graph().find(5)), 2);
}

// No rows, and rows whose columns straddle chunk frames (1 MiB each).
TEST(GpuServiceBuild, EmptyAndMultiChunkRows) {
	Scratch s;
	RunningServer running(s, cpu_stand_in());
	BuildStats stats;
	Index empty = service_index(s.socket, EdgeList{}, kDefaultLabels, &stats);
	EXPECT_EQ(empty.graph().vertex_count(), 0u);
	EXPECT_EQ(empty.components().count(), 0u);

	EdgeList rows;
	Rng rng(11);
	for (size_t i = 0; i < 300001; i++)
		rows.append(int64_t(rng.below(90000)) - 45000, int64_t(rng.below(90000)) - 45000);
	rows.append(INT64_MIN, INT64_MAX);
	rows.append(INT64_MAX, INT64_MIN);
	Index host = Index::build(rows, BuildOptions{});
	Index got = service_index(s.socket, rows, kDefaultLabels, &stats);
	EXPECT_EQ(stats.input_edges, rows.size());
	// From a rows file that grew while written (300,003 rows past its first 65,536): the same.
	Index from_file = service_index(s.socket, rows, kDefaultLabels, nullptr, RowsWay::rows_file);
	EXPECT_TRUE(same(from_file.graph().ids, host.graph().ids));
	EXPECT_TRUE(same(from_file.graph().out.offsets, host.graph().out.offsets));
	EXPECT_TRUE(same(from_file.graph().out.targets, host.graph().out.targets));
	EXPECT_TRUE(same(from_file.components().of_vertex, host.components().of_vertex));
	EXPECT_TRUE(same(from_file.labels().data(), host.labels().data()));
	Index empty_file = service_index(s.socket, EdgeList{}, kDefaultLabels, nullptr, RowsWay::rows_file);
	EXPECT_EQ(empty_file.graph().vertex_count(), 0u);
	EXPECT_TRUE(same(got.graph().ids, host.graph().ids));
	EXPECT_TRUE(same(got.graph().out.targets, host.graph().out.targets));
	EXPECT_TRUE(same(got.components().of_vertex, host.components().of_vertex));
	EXPECT_TRUE(same(got.labels().data(), host.labels().data()));
	EXPECT_EQ(got.component_id(INT64_MIN), got.component_id(INT64_MAX));
}

// The host's parts of a build of edges, as an executor returns them.
BuiltParts
host_parts(const EdgeList &edges, unsigned labels) {
	BuildOptions options;
	options.labels = labels;
	Index host = Index::build(edges, options);
	BuiltParts parts;
	parts.graph.graph = host.graph();
	parts.graph.components = host.components();
	parts.graph.dag = host.dag();
	parts.labels = host.labels();
	return parts;
}

// A part copied to its place in the file, then borrowed from there, as build_graph_gpu downloads it.
template <typename T>
void
place_in(BuiltFile &file, Array<T> &part) {
	Array<T> made = part;
	T *at = static_cast<T *>(file.place(made.size() * sizeof(T)));
	if (!made.empty())
		std::memcpy(at, made.data(), made.size() * sizeof(T));
	part = Array<T>::borrow(at, made.size(), nullptr);
}

// The sealed result's bytes.
std::vector<uint8_t>
sealed_bytes(BuiltFile &file, BuiltParts parts) {
	uint64_t n = file.seal(std::move(parts));
	EXPECT_EQ(fcntl(file.fd(), F_GET_SEALS) & (F_SEAL_WRITE | F_SEAL_SHRINK), F_SEAL_WRITE | F_SEAL_SHRINK);
	SharedBytes mapped = SharedBytes::map(dup(file.fd()), n);
	return std::vector<uint8_t>(mapped.data(), mapped.data() + mapped.size());
}

// A build's result written into its file, whether the executor placed each device part there (the
// GPU's download) or left them all on the host (the stand-in, copied in at the seal), holds the
// bytes of encode_built() exactly; a part placed out of the layout's order, or past the room, is an
// internal error rather than a wrong result.
TEST(GpuServiceBuild, ResultFilesHoldTheEncodedParts) {
	for (uint64_t seed = 1; seed <= 30; seed++) {
		grail_test::TestGraph t = seed == 1 ? grail_test::TestGraph{} : grail_test::random_graph(seed, 80);
		unsigned labels = unsigned(1 + seed % 16);
		BuiltParts parts = host_parts(t.edges, labels);
		std::vector<uint8_t> want = encode_built(parts);
		{
			BuiltFile file(t.edges.size(), labels);
			EXPECT_EQ(sealed_bytes(file, parts), want) << "copied, seed " << seed;
		}
		BuiltFile file(t.edges.size(), labels);
		BuiltParts placed = parts;
		place_in(file, placed.graph.graph.ids);
		place_in(file, placed.graph.graph.out.offsets);
		place_in(file, placed.graph.graph.out.targets);
		place_in(file, placed.graph.graph.repeated);
		place_in(file, placed.graph.components.of_vertex);
		place_in(file, placed.graph.components.smallest_vertex);
		place_in(file, placed.graph.dag.offsets);
		place_in(file, placed.graph.dag.targets);
		EXPECT_EQ(sealed_bytes(file, std::move(placed)), want) << "placed, seed " << seed;
	}
	// Files let go whether sealed, refused or dropped mid-build: no descriptor or mapping stays.
	size_t fds_before = grail_test::open_descriptors(), maps_before = grail_test::memfd_mappings();
	{
		BuiltFile dropped(1 << 20, 16); // a build that failed after its first download
		std::memset(dropped.place(4096), 1, 4096);
	}
	{
		BuiltParts parts = host_parts(grail_test::random_graph(5, 80).edges, 5);
		BuiltFile swapped(80 * 80, 5);
		place_in(swapped, parts.graph.graph.out.offsets); // where the ids go
		place_in(swapped, parts.graph.graph.ids);
		EXPECT_THROW(swapped.seal(std::move(parts)), Error);
	}
	{
		BuiltFile small(1, 1);
		EXPECT_THROW(small.place(BuiltFile::room_for(1, 1)), Error);
	}
	{
		BuiltFile sealed(100, 5);
		(void)sealed.seal(host_parts(grail_test::random_graph(6, 80).edges, 5));
	}
	EXPECT_EQ(grail_test::open_descriptors(), fds_before);
	EXPECT_EQ(grail_test::memfd_mappings(), maps_before);
}

TEST(GpuServiceBuild, GpuExecutorBuildsAnswerAsTheHost) {
	std::string why;
	std::unique_ptr<Executor> gpu = gpu_executor(&why);
	if (!gpu)
		GTEST_SKIP() << "no usable GPU: " << why;
	Scratch s;
	RunningServer running(s, std::move(gpu));
	for (uint64_t seed = 1; seed <= 40; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, 80);
		Index host = Index::build(t.edges, BuildOptions{});
		Index got = service_index(s.socket, t.edges, kDefaultLabels);
		// The device's labels differ from the host's (both valid: Index::build checked them), and so
		// does its numbering of the components (another topological order): the same components
		// (named by their smallest vertex) and as many DAG edges.
		EXPECT_TRUE(same(got.graph().ids, host.graph().ids)) << t.shape;
		EXPECT_TRUE(same(got.graph().out.targets, host.graph().out.targets)) << t.shape;
		const Components &gc = got.components(), &hc = host.components();
		ASSERT_EQ(gc.count(), hc.count()) << t.shape;
		for (size_t v = 0; v < got.graph().vertex_count(); v++)
			EXPECT_EQ(gc.smallest_vertex[gc.of_vertex[v]], hc.smallest_vertex[hc.of_vertex[v]]) << t.shape;
		EXPECT_EQ(got.dag().edge_count(), host.dag().edge_count()) << t.shape;
		grail_test::Oracle oracle(t.edges);
		ReachabilityQuery q(got);
		for (int64_t a : t.query_ids)
			for (int64_t b : t.query_ids)
				EXPECT_EQ(q.reachable(a, b), oracle.reachable(a, b)) << t.shape;
	}
}

// The result codec: every array's shape checked; no byte pattern reads out of bounds.
TEST(GpuServiceBuild, MalformedResultsAreRefused) {
	grail_test::TestGraph t = grail_test::random_graph(5, 60);
	Index host = Index::build(t.edges, BuildOptions{});
	BuiltParts parts;
	parts.graph.graph = host.graph();
	parts.graph.components = host.components();
	parts.graph.dag = host.dag();
	parts.labels = host.labels();
	std::vector<uint8_t> good = encode_built(parts);
	BuiltParts back = decode_built(good);
	EXPECT_TRUE(same(back.graph.graph.out.targets, host.graph().out.targets));
	EXPECT_TRUE(same(back.labels.data(), host.labels().data()));
	EXPECT_FALSE(back.graph.graph.ids.borrowed()); // taken: copied into owned arrays

	// Adopted whole: the same parts, borrowed from the bytes; cut or lengthened, refused; only as the
	// first bytes.
	{
		auto bytes = std::make_shared<const std::vector<uint8_t>>(good);
		BuiltReceiver r;
		r.adopt(bytes->data(), bytes->size(), bytes);
		BuiltParts p = r.finish();
		EXPECT_TRUE(p.graph.graph.ids.borrowed());
		EXPECT_TRUE(same(p.graph.graph.out.targets, host.graph().out.targets));
		EXPECT_TRUE(same(p.graph.components.of_vertex, host.components().of_vertex));
		EXPECT_TRUE(same(p.labels.data(), host.labels().data()));
		// Index::build over borrowed parts (its id hash reads them) answers as the host's index.
		BuildOptions options;
		options.threads = 1;
		options.graph_builder = [&](EdgeList &, BuiltGraph &built) {
			built = std::move(p.graph);
			return true;
		};
		options.label_builder = [&](const Csr &, unsigned, uint64_t) { return std::move(p.labels); };
		Index adopted = Index::build(t.edges, options);
		EXPECT_TRUE(same(adopted.graph().out.targets, host.graph().out.targets));
		for (int64_t id = -1; id <= 61; id++)
			EXPECT_EQ(adopted.find(id), host.find(id)) << id;
		for (size_t cut : {size_t(0), kBuiltHeaderBytes - 1, kBuiltHeaderBytes, good.size() - 1, good.size() + 1}) {
			std::vector<uint8_t> b(good);
			b.resize(cut);
			BuiltReceiver s;
			auto kept = std::make_shared<const std::vector<uint8_t>>(b);
			EXPECT_THROW(s.adopt(kept->data(), kept->size(), kept), ProtocolError) << cut;
		}
		BuiltReceiver twice;
		twice.take(good.data(), 8);
		EXPECT_THROW(twice.adopt(bytes->data(), bytes->size(), bytes), ProtocolError);
	}

	// Fed in pieces of any size, the same parts.
	Rng pieces(9);
	for (int round = 0; round < 20; round++) {
		BuiltReceiver r;
		for (size_t at = 0; at < good.size();) {
			size_t n = std::min(good.size() - at, size_t(1 + pieces.below(round < 10 ? 16 : 4096)));
			r.take(good.data() + at, n);
			at += n;
		}
		BuiltParts p = r.finish();
		EXPECT_TRUE(same(p.graph.dag.targets, host.dag().targets));
		EXPECT_TRUE(same(p.graph.graph.repeated, host.graph().repeated));
		EXPECT_TRUE(same(p.labels.data(), host.labels().data()));
	}

	// Truncated anywhere, or one byte longer: refused.
	for (size_t cut = 0; cut < good.size(); cut += 7) {
		std::vector<uint8_t> b(good.begin(), good.begin() + long(cut));
		EXPECT_THROW(decode_built(b), ProtocolError) << cut;
	}
	std::vector<uint8_t> longer = good;
	longer.push_back(0);
	EXPECT_THROW(decode_built(longer), ProtocolError);

	// Any byte changed: refused, or (a time, a label value) decoded into arrays within bounds.
	Rng rng(3);
	for (int round = 0; round < 3000; round++) {
		std::vector<uint8_t> b = good;
		size_t at = size_t(rng.below(b.size()));
		b[at] ^= uint8_t(1 + rng.below(255));
		try {
			BuiltParts p = decode_built(b);
			size_t n = p.graph.graph.ids.size();
			for (vid_t v : p.graph.graph.out.targets)
				ASSERT_LT(v, n);
			for (uint32_t c : p.graph.components.of_vertex)
				ASSERT_LT(c, p.graph.components.count());
		} catch (const ProtocolError &) {
		}
	}

	// Targeted: an edge to no vertex, a component the result lacks, labels of the wrong count.
	auto corrupt = [&](auto change) {
		BuiltParts p;
		p.graph.graph = host.graph();
		p.graph.components = host.components();
		p.graph.dag = host.dag();
		p.labels = host.labels();
		change(p);
		return encode_built(p);
	};
	EXPECT_THROW(decode_built(corrupt([](BuiltParts &p) {
		             std::vector<vid_t> t(p.graph.graph.out.targets.begin(), p.graph.graph.out.targets.end());
		             t[0] = vid_t(p.graph.graph.ids.size());
		             p.graph.graph.out.targets = Array<vid_t>(t);
	             })),
	             ProtocolError);
	EXPECT_THROW(decode_built(corrupt([](BuiltParts &p) {
		             std::vector<uint32_t> c(p.graph.components.of_vertex.begin(), p.graph.components.of_vertex.end());
		             c[0] = uint32_t(p.graph.components.count());
		             p.graph.components.of_vertex = Array<uint32_t>(c);
	             })),
	             ProtocolError);
	EXPECT_THROW(decode_built(corrupt([](BuiltParts &p) {
		             std::vector<int64_t> ids(p.graph.graph.ids.begin(), p.graph.graph.ids.end());
		             std::swap(ids[0], ids[1]);
		             p.graph.graph.ids = Array<int64_t>(ids);
	             })),
	             ProtocolError);
	EXPECT_THROW(decode_built(corrupt([](BuiltParts &p) {
		             std::vector<uint32_t> d(p.labels.data().begin(),
		                                     p.labels.data().end() - long(p.labels.record_width()));
		             p.labels = GrailLabels::from_data(p.labels.label_count(), Array<uint32_t>(d));
	             })),
	             ProtocolError);
}

// A raw connection, for requests the client would not send.
struct Raw {
	int fd = -1;
	explicit Raw(const std::string &path) {
		struct sockaddr_un addr;
		std::memset(&addr, 0, sizeof addr);
		addr.sun_family = AF_UNIX;
		std::memcpy(addr.sun_path, path.c_str(), path.size());
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(fd, reinterpret_cast<struct sockaddr *>(&addr), sizeof addr) != 0)
			throw std::runtime_error("connect");
	}
	~Raw() {
		close(fd);
	}
	void
	send(FrameType type, const std::vector<uint8_t> &payload) {
		send_frame(fd, type, payload.data(), payload.size(), nullptr);
	}
	// A frame with descriptors passed on its first byte.
	void
	send_passing(FrameType type, const std::vector<uint8_t> &payload, std::vector<int> fds) {
		std::vector<uint8_t> frame(8 + payload.size());
		uint32_t header[2] = {uint32_t(payload.size()), uint32_t(type)};
		std::memcpy(frame.data(), header, 8);
		std::memcpy(frame.data() + 8, payload.data(), payload.size());
		struct iovec iov = {frame.data(), frame.size()};
		std::vector<char> control(CMSG_SPACE(fds.size() * sizeof(int)), 0);
		struct msghdr message = {};
		message.msg_iov = &iov;
		message.msg_iovlen = 1;
		message.msg_control = control.data();
		message.msg_controllen = control.size();
		struct cmsghdr *c = CMSG_FIRSTHDR(&message);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
		std::memcpy(CMSG_DATA(c), fds.data(), fds.size() * sizeof(int));
		ASSERT_EQ(sendmsg(fd, &message, MSG_NOSIGNAL), ssize_t(frame.size()));
		for (int f : fds)
			close(f);
	}
	// A shared frame announcing count bytes, with the memory file fd.
	void
	send_shared_file(uint64_t count, int file) {
		std::vector<uint8_t> payload(8);
		std::memcpy(payload.data(), &count, 8);
		send_passing(FrameType::shared, payload, {file});
	}
	// The answer's error message, or "" when the answer is no error frame.
	std::string
	error() {
		FrameType type;
		std::vector<uint8_t> payload;
		try {
			while (recv_frame(fd, type, payload, kMaxChunk + 65536, nullptr)) {
				if (type == FrameType::error)
					return decode_error(payload.data(), payload.size()).what();
				if (type != FrameType::started)
					return "";
			}
		} catch (const ProtocolError &e) {
			return std::string("lost: ") + e.what();
		}
		return "closed";
	}
};

TEST(GpuServiceBuild, MalformedRequestsAreErrors) {
	Scratch s;
	RunningServer running(s, cpu_stand_in());
	EdgeList rows;
	for (int i = 0; i < 10; i++)
		rows.append(i, i + 1);
	// The rows' two files: sources and targets, 80 bytes each.
	std::vector<uint8_t> sources(80), targets(80);
	std::memcpy(sources.data(), rows.source.data(), 80);
	std::memcpy(targets.data(), rows.target.data(), 80);
	// A memory file holding bytes, sealed (seal_bytes) or not.
	auto unsealed = [](const std::vector<uint8_t> &bytes) {
		int f = memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		EXPECT_EQ(write(f, bytes.data(), bytes.size()), ssize_t(bytes.size()));
		return f;
	};
	auto sealed = [](const std::vector<uint8_t> &bytes) { return seal_bytes({{bytes.data(), bytes.size()}}); };
	{ // fewer rows than it says
		Raw r(s.socket);
		BuildRequest q = request_for(rows);
		q.rows = 11;
		r.send(FrameType::build, encode(q));
		r.send_shared_file(sources.size(), sealed(sources));
		EXPECT_NE(r.error().find("sources are 80 bytes, not the 88 of its 11 rows"), std::string::npos);
	}
	{ // more rows than it says
		Raw r(s.socket);
		BuildRequest q = request_for(rows);
		q.rows = 9;
		r.send(FrameType::build, encode(q));
		r.send_shared_file(sources.size(), sealed(sources));
		EXPECT_NE(r.error().find("sources are 80 bytes, not the 72 of its 9 rows"), std::string::npos);
	}
	{ // targets of another count than the sources (a file too long, then one too short)
		for (size_t n : {size_t(88), size_t(72)}) {
			Raw r(s.socket);
			r.send(FrameType::build, encode(request_for(rows)));
			r.send_shared_file(sources.size(), sealed(sources));
			std::vector<uint8_t> other(n, 1);
			r.send_shared_file(other.size(), sealed(other));
			EXPECT_NE(r.error().find("targets are " + std::to_string(n) + " bytes, not the 80 of its 10 rows"),
			          std::string::npos);
		}
	}
	{ // the sources alone: the targets' frame missing, or another frame in its place
		Raw r(s.socket);
		r.send(FrameType::build, encode(request_for(rows)));
		r.send_shared_file(sources.size(), sealed(sources));
		r.send(FrameType::end, {});
		EXPECT_NE(r.error().find("targets are not in a shared frame"), std::string::npos);
	}
	{ // a file of another size than its frame announces
		Raw r(s.socket);
		r.send(FrameType::build, encode(request_for(rows)));
		r.send_shared_file(sources.size() + 8, sealed(sources));
		EXPECT_NE(r.error().find("not the 88 it announced"), std::string::npos);
	}
	{ // a file its sender could still write or shrink: the sources, or the targets
		for (int unsealed_one = 0; unsealed_one < 2; unsealed_one++) {
			Raw r(s.socket);
			r.send(FrameType::build, encode(request_for(rows)));
			r.send_shared_file(sources.size(), unsealed_one == 0 ? unsealed(sources) : sealed(sources));
			if (unsealed_one == 1)
				r.send_shared_file(targets.size(), unsealed(targets));
			EXPECT_NE(r.error().find("not sealed"), std::string::npos);
		}
	}
	{ // a shared frame without its file
		Raw r(s.socket);
		r.send(FrameType::build, encode(request_for(rows)));
		std::vector<uint8_t> count(8);
		uint64_t n = sources.size();
		std::memcpy(count.data(), &n, 8);
		r.send(FrameType::shared, count);
		EXPECT_NE(r.error().find("without its memory file"), std::string::npos);
	}
	{ // two files on one frame
		Raw r(s.socket);
		r.send(FrameType::build, encode(request_for(rows)));
		std::vector<uint8_t> count(8);
		uint64_t n = sources.size();
		std::memcpy(count.data(), &n, 8);
		r.send_passing(FrameType::shared, count, {sealed(sources), sealed(sources)});
		EXPECT_NE(r.error().find("more descriptors than one"), std::string::npos);
	}
	{ // two files on the targets' frame
		Raw r(s.socket);
		r.send(FrameType::build, encode(request_for(rows)));
		r.send_shared_file(sources.size(), sealed(sources));
		std::vector<uint8_t> count(8);
		uint64_t n = targets.size();
		std::memcpy(count.data(), &n, 8);
		r.send_passing(FrameType::shared, count, {sealed(targets), sealed(targets)});
		EXPECT_NE(r.error().find("more descriptors than one"), std::string::npos);
	}
	{ // a file on a frame that shares nothing
		Raw r(s.socket);
		r.send(FrameType::build, encode(request_for(rows)));
		r.send_passing(FrameType::chunk, std::vector<uint8_t>(16, 1), {sealed(sources)});
		EXPECT_NE(r.error().find("shares no bytes came with a descriptor"), std::string::npos);
	}
	{ // the rows as chunk frames, or another frame, in place of the shared frame
		for (FrameType other : {FrameType::chunk, FrameType::info}) {
			Raw r(s.socket);
			r.send(FrameType::build, encode(request_for(rows)));
			r.send(other, other == FrameType::chunk ? std::vector<uint8_t>(16, 1) : std::vector<uint8_t>());
			EXPECT_NE(r.error().find("not in a shared frame"), std::string::npos);
		}
	}
	{ // a shared frame whose payload is not a count
		Raw r(s.socket);
		r.send(FrameType::build, encode(request_for(rows)));
		r.send_passing(FrameType::shared, std::vector<uint8_t>(7, 0), {sealed(sources)});
		EXPECT_NE(r.error().find("not its byte count"), std::string::npos);
	}
	{ // 2^31 rows and more: refused before any is read
		Raw r(s.socket);
		BuildRequest q = request_for(rows);
		q.rows = kMaxBuildRows + 1;
		r.send(FrameType::build, encode(q));
		EXPECT_NE(r.error().find("fewer than 2^31 rows"), std::string::npos);
	}
	{ // labels out of range
		Raw r(s.socket);
		BuildRequest q = request_for(rows);
		q.labels = 17;
		r.send(FrameType::build, encode(q));
		EXPECT_NE(r.error().find("number of labels"), std::string::npos);
	}
	{ // another protocol version
		Raw r(s.socket);
		std::vector<uint8_t> header = encode(request_for(rows));
		header[0] ^= 1;
		r.send(FrameType::build, header);
		EXPECT_NE(r.error().find("protocol version"), std::string::npos);
	}
	// A request the server refuses while many rows are still coming: the client reports the
	// server's error, not the broken connection.
	EdgeList many;
	for (int64_t i = 0; i < 2000000; i++)
		many.append(i, i + 1);
	BuildRequest bad = request_for(many, 0);
	try {
		call_build(
		    s.socket, bad, many.source.data(), many.target.data(), nullptr, nullptr, [](const uint8_t *, size_t) {},
		    nullptr);
		ADD_FAILURE() << "a build with 0 labels was answered";
	} catch (const Error &e) {
		EXPECT_NE(std::string(e.what()).find("number of labels"), std::string::npos) << e.what();
	}
	// The server serves on.
	Index after = service_index(s.socket, rows, kDefaultLabels);
	EXPECT_EQ(after.graph().vertex_count(), 11u);
}

// A client that leaves before its rows are all sent (held by the test hook after the request frame)
// cancels the request; a server that stops meanwhile leaves its client with an error, not a hang.
TEST(GpuServiceBuild, EitherSideLeavingMidTransfer) {
	Scratch s;
	EdgeList many;
	for (int64_t i = 0; i < 1000000; i++)
		many.append(i, (i * 7919) % 1000000);
	{
		RunningServer running(s, cpu_stand_in());
		s.hold_on();
		{
			Raw r(s.socket);
			r.send(FrameType::build, encode(request_for(many)));
			// Half a frame header, where the rows' shared frame would be.
			ASSERT_EQ(write(r.fd, "\x08\0\0\0", 4), 4);
			for (int i = 0; i < 200 && running.server.active_connections() == 0; i++)
				usleep(10000);
			EXPECT_EQ(running.server.active_connections(), 1u);
		} // closed in the middle of the rows
		for (int i = 0; i < 500 && running.server.active_connections() > 0; i++)
			usleep(10000);
		EXPECT_EQ(running.server.active_connections(), 0u) << "the held build was not cancelled";
		s.hold_off();
		EdgeList small;
		small.append(1, 2);
		small.append(2, 1);
		Index after = service_index(s.socket, small, 5);
		EXPECT_EQ(after.components().count(), 1u);
	}
	std::atomic<bool> failed{false};
	std::string message;
	{
		auto running = std::make_unique<RunningServer>(s, cpu_stand_in());
		s.hold_on();
		std::thread client([&] {
			try {
				call_build(
				    s.socket, request_for(many), many.source.data(), many.target.data(), nullptr, nullptr,
				    [](const uint8_t *, size_t) {}, nullptr);
			} catch (const std::exception &e) {
				message = e.what();
				failed = true;
			}
		});
		for (int i = 0; i < 200 && running->server.active_connections() == 0; i++)
			usleep(10000);
		running.reset(); // stops: the held request is cancelled and its connection closed
		client.join();
		s.hold_off();
	}
	EXPECT_TRUE(failed.load());
	EXPECT_FALSE(message.empty());
}

} // namespace
