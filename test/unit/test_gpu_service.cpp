// The GPU service without PostgreSQL: its framing and codecs, and its server (with the CPU
// stand-in, in a thread) answering bfs, scc and reachability batches as the engine's CPU functions
// do on random graphs, through chunked results, bad requests, and clients or servers that go away
// in the middle of a request.
#include "bfs.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "reach.hpp"
#include "rng.hpp"
#include "scc.hpp"
#include "service_fixture.hpp"

#include "gpu_service/client.hpp"
#include "gpu_service/protocol.hpp"
#include "gpu_service/server.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace grail;
using namespace grail::service;

namespace {

const char *const kUuid = "0123abcd-0000-4000-8000-00000000beef";

std::string
image_name(int graph) {
	return grail_test::image_name(graph, kUuid);
}

// The scratch directory of these tests (service_fixture.hpp).
struct Scratch : grail_test::ServiceScratch {
	Scratch() : ServiceScratch("grail_svc", kUuid) {
	}
};

using grail_test::RunningServer;

Index
build(const EdgeList &edges) {
	return Index::build(edges, BuildOptions{});
}

TEST(GpuServiceProtocol, ValuesRoundTrip) {
	Writer w;
	w.u8(7);
	w.u32(0xdeadbeef);
	w.u64(UINT64_MAX);
	w.i64(INT64_MIN);
	w.str("grail");
	Reader r(w.buffer().data(), w.buffer().size());
	EXPECT_EQ(r.u8(), 7);
	EXPECT_EQ(r.u32(), 0xdeadbeefu);
	EXPECT_EQ(r.u64(), UINT64_MAX);
	EXPECT_EQ(r.i64(), INT64_MIN);
	EXPECT_EQ(r.str(), "grail");
	r.finish();
	EXPECT_THROW(r.u8(), ProtocolError);
}

TEST(GpuServiceProtocol, RequestsRoundTrip) {
	BfsRequest b{{image_name(5), kUuid}, 17, 3, true};
	BfsRequest b2 = decode_bfs(encode(b).data(), encode(b).size());
	EXPECT_EQ(b2.image.file, b.image.file);
	EXPECT_EQ(b2.source, 17u);
	EXPECT_EQ(b2.max_depth, 3u);
	EXPECT_TRUE(b2.reverse);

	ReachRequest q;
	q.image = {image_name(6), kUuid};
	q.mode = 1;
	q.min_edges = 9;
	q.min_searches = 4;
	q.from = {INT64_MIN, 0, INT64_MAX};
	q.to = {1, 2, 3};
	std::vector<uint8_t> bytes = encode(q);
	ReachRequest q2 = decode_reach(bytes.data(), bytes.size());
	EXPECT_EQ(q2.from, q.from);
	EXPECT_EQ(q2.to, q.to);
	EXPECT_EQ(q2.mode, 1);
	EXPECT_EQ(q2.min_edges, 9u);
	EXPECT_EQ(q2.min_searches, 4u);

	bool answers[11] = {true, false, false, true, true, true, false, true, false, false, true};
	bool back[11];
	decode_bits(encode_bits(answers, 11), back, 11);
	EXPECT_TRUE(std::equal(answers, answers + 11, back));
	EXPECT_THROW(decode_bits(encode_bits(answers, 11), back, 10), ProtocolError);

	Error e = decode_error(encode_error(ErrorKind::limit_exceeded, "m", "h").data(), 1 + 4 + 1 + 4 + 1);
	EXPECT_EQ(e.kind(), ErrorKind::limit_exceeded);
	EXPECT_STREQ(e.what(), "m");
	EXPECT_EQ(e.hint(), "h");
}

TEST(GpuServiceProtocol, MalformedPayloadsAreRefused) {
	BfsRequest b{{image_name(5), kUuid}, 17, 3, false};
	std::vector<uint8_t> bytes = encode(b);
	// Every truncation and one extra byte.
	for (size_t n = 0; n < bytes.size(); n++)
		EXPECT_ANY_THROW(decode_bfs(bytes.data(), n)) << n;
	bytes.push_back(0);
	EXPECT_THROW(decode_bfs(bytes.data(), bytes.size()), ProtocolError);
	// A direction that is neither.
	bytes.pop_back();
	bytes.back() = 2;
	EXPECT_THROW(decode_bfs(bytes.data(), bytes.size()), ProtocolError);
	// A pair count larger than the payload.
	ReachRequest q;
	q.image = {image_name(6), kUuid};
	q.from = {1, 2};
	q.to = {3, 4};
	bytes = encode(q);
	uint64_t huge = UINT64_MAX / 8;
	std::memcpy(bytes.data() + bytes.size() - 4 * 8 - 8, &huge, 8);
	EXPECT_THROW(decode_reach(bytes.data(), bytes.size()), ProtocolError);
	// Random bytes never crash a decoder.
	Rng rng(7);
	for (int k = 0; k < 2000; k++) {
		std::vector<uint8_t> junk(rng.below(200));
		for (uint8_t &c : junk)
			c = uint8_t(rng.below(256));
		try {
			decode_reach(junk.data(), junk.size());
		} catch (const std::exception &) {
		}
		try {
			decode_bfs(junk.data(), junk.size());
		} catch (const std::exception &) {
		}
		try {
			decode_info(junk);
		} catch (const std::exception &) {
		}
		try {
			decode_components(junk);
		} catch (const std::exception &) {
		}
	}
}

TEST(GpuServiceProtocol, ImageNamesStayInTheCache) {
	EXPECT_TRUE(valid_image_name(image_name(12), kUuid));
	EXPECT_FALSE(valid_image_name(image_name(12), "0123abcd-0000-4000-8000-00000000beee"));
	EXPECT_FALSE(valid_image_name("../1_2_3_" + std::string(kUuid) + ".img", kUuid));
	EXPECT_FALSE(valid_image_name("1_2_3_" + std::string(kUuid) + ".img/..", kUuid));
	EXPECT_FALSE(valid_image_name("1_2_" + std::string(kUuid) + ".img", kUuid));
	EXPECT_FALSE(valid_image_name("1_2_3_" + std::string(kUuid) + ".tmp", kUuid));
	EXPECT_FALSE(valid_image_name("1_2_3_" + std::string(kUuid) + ".img", "../../../../etc/passwd"));
	EXPECT_FALSE(valid_image_name("/1_2_3_" + std::string(kUuid) + ".img", kUuid));
}

// Frames over a socket pair: a result of many chunks is joined again.
// A long result comes as one shared frame (its bytes in a sealed memory file), a stream's bytes as
// chunk frames of at most kMaxChunk.
TEST(GpuServiceProtocol, LargeResultsComeSharedStreamsInChunks) {
	int fds[2];
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	std::vector<uint8_t> big(kMaxChunk * 5 + 12345);
	for (size_t i = 0; i < big.size(); i++)
		big[i] = uint8_t(i * 131 + 7);
	std::thread writer([&] {
		send_result(fds[0], big, nullptr);
		send_chunks(fds[0], big.data(), big.size(), nullptr);
		send_frame(fds[0], FrameType::end, nullptr, 0, nullptr);
	});
	std::vector<uint8_t> payload;
	FrameType type;
	SharedBytes shared;
	ASSERT_TRUE(recv_frame(fds[1], type, payload, kMaxChunk, nullptr, &shared));
	ASSERT_EQ(type, FrameType::shared);
	ASSERT_EQ(shared.size(), big.size());
	EXPECT_EQ(std::memcmp(shared.data(), big.data(), big.size()), 0);
	ASSERT_TRUE(recv_frame(fds[1], type, payload, kMaxChunk, nullptr, &shared));
	EXPECT_EQ(type, FrameType::end);
	std::vector<uint8_t> joined;
	size_t chunks = 0;
	while (recv_frame(fds[1], type, payload, kMaxChunk, nullptr) && type == FrameType::chunk) {
		EXPECT_LE(payload.size(), kMaxChunk);
		joined.insert(joined.end(), payload.begin(), payload.end());
		chunks++;
	}
	writer.join();
	EXPECT_EQ(type, FrameType::end);
	EXPECT_EQ(chunks, 6u);
	EXPECT_EQ(joined, big);
	close(fds[0]);
	close(fds[1]);
}

TEST(GpuServiceProtocol, OversizedFramesAreRefused) {
	int fds[2];
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	uint32_t header[2] = {0xffffffffu, uint32_t(FrameType::bfs)};
	ASSERT_EQ(write(fds[0], header, sizeof header), ssize_t(sizeof header));
	std::vector<uint8_t> payload;
	FrameType type;
	EXPECT_THROW(recv_frame(fds[1], type, payload, kMaxRequest, nullptr), ProtocolError);
	close(fds[0]);
	close(fds[1]);
}

// The server answers as the engine's CPU functions on random graphs, several graphs resident: with
// the CPU stand-in, and with the GPU executor where a GPU is usable (skipped elsewhere).
void
answers_equal_the_engine(std::unique_ptr<Executor> executor, const char *name) {
	Scratch s;
	RunningServer running(s, std::move(executor));
	for (uint64_t seed = 1; seed <= 40; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, 60);
		Index index = build(t.edges);
		ImageRef ref = s.write(index, int(seed));
		const Csr &out = index.graph().out;
		Csr in = out.reversed();
		for (vid_t v = 0; v < out.vertex_count(); v += 3) {
			for (bool reverse : {false, true}) {
				uint32_t depth = v % 2 ? UINT32_MAX : v % 5;
				BfsRows rows = decode_bfs_rows(
				    call(s.socket, FrameType::bfs, encode(BfsRequest{ref, v, depth, reverse}), nullptr));
				BfsResult want = bfs(reverse ? in : out, v, depth);
				EXPECT_EQ(rows.vertex, want.vertex) << t.shape;
				EXPECT_EQ(rows.depth, want.depth) << t.shape;
				EXPECT_EQ(rows.parent, want.parent) << t.shape;
			}
		}
		ComponentRows c = decode_components(call(s.socket, FrameType::scc, encode(SccRequest{ref}), nullptr));
		Components want = strongly_connected_components(out);
		ASSERT_EQ(c.of_vertex.size(), out.vertex_count());
		for (vid_t v = 0; v < out.vertex_count(); v++)
			EXPECT_EQ(c.smallest_vertex[c.of_vertex[v]], want.smallest_vertex[want.of_vertex[v]]) << t.shape;

		ReachRequest q;
		q.image = ref;
		q.mode = 1; // the GPU executor searches every undecided pair on the device
		grail_test::Oracle oracle(t.edges);
		for (int64_t a : t.query_ids)
			for (int64_t b : t.query_ids) {
				q.from.push_back(a);
				q.to.push_back(b);
			}
		std::unique_ptr<bool[]> got(new bool[q.from.size()]);
		decode_bits(call(s.socket, FrameType::reach, encode(q), nullptr), got.get(), q.from.size());
		for (size_t i = 0; i < q.from.size(); i++)
			EXPECT_EQ(got[i], oracle.reachable(q.from[i], q.to[i])) << t.shape << " " << q.from[i] << " -> " << q.to[i];
	}
	ServiceInfo info = decode_info(call(s.socket, FrameType::info, encode_info_request(), nullptr));
	EXPECT_EQ(info.executor, name);
	EXPECT_EQ(info.images.size(), 40u);
}

TEST(GpuServiceServer, AnswersEqualTheEngine) {
	answers_equal_the_engine(cpu_stand_in(), "cpu stand-in");
}

TEST(GpuServiceServer, GpuExecutorAnswersEqualTheEngine) {
	std::string why;
	std::unique_ptr<Executor> gpu = gpu_executor(&why);
	if (!gpu)
		GTEST_SKIP() << "no usable GPU: " << why;
	answers_equal_the_engine(std::move(gpu), "gpu");
}

// A result of many chunks through the server: a long path's bfs.
TEST(GpuServiceServer, LongResultsStream) {
	Scratch s;
	RunningServer running(s);
	EdgeList path;
	for (int64_t i = 0; i < 300000; i++)
		path.append(i, i + 1);
	Index index = build(path);
	ImageRef ref = s.write(index, 1);
	std::vector<uint8_t> bytes = call(s.socket, FrameType::bfs, encode(BfsRequest{ref, 0, UINT32_MAX, false}), nullptr);
	EXPECT_GT(bytes.size(), 3 * kMaxChunk);
	BfsRows rows = decode_bfs_rows(bytes);
	BfsResult want = bfs(index.graph().out, 0);
	EXPECT_EQ(rows.vertex, want.vertex);
	EXPECT_EQ(rows.depth, want.depth);
	EXPECT_EQ(rows.parent, want.parent);
}

// Bad requests are error frames; the server goes on.
TEST(GpuServiceServer, BadRequestsAreErrors) {
	Scratch s;
	RunningServer running(s);
	Index index = build(grail_test::random_graph(3, 30).edges);
	ImageRef ref = s.write(index, 1);
	auto expect_error = [&](FrameType type, const std::vector<uint8_t> &payload, ErrorKind kind) {
		try {
			call(s.socket, type, payload, nullptr);
			ADD_FAILURE() << "no error";
		} catch (const Error &e) {
			EXPECT_EQ(e.kind(), kind) << e.what();
		}
	};
	// A vertex past the graph's.
	expect_error(FrameType::bfs, encode(BfsRequest{ref, vid_t(index.graph().vertex_count()), 1, false}),
	             ErrorKind::invalid_input);
	// A file that is not there, a name outside the cache, a directory, a damaged image.
	EXPECT_THROW(call(s.socket, FrameType::scc, encode(SccRequest{{image_name(2), kUuid}}), nullptr), ImageMissing);
	Writer w;
	put_version(w);
	w.str("../cache/" + image_name(1));
	w.str(kUuid);
	expect_error(FrameType::scc, w.buffer(), ErrorKind::invalid_input);
	ASSERT_EQ(mkdir((s.cache + "/" + image_name(3)).c_str(), 0700), 0);
	expect_error(FrameType::scc, encode(SccRequest{{image_name(3), kUuid}}), ErrorKind::invalid_input);
	{
		std::ofstream junk(s.cache + "/" + image_name(4), std::ios::binary);
		junk << "PGGRAIL this is no image at all, only some bytes";
	}
	expect_error(FrameType::scc, encode(SccRequest{{image_name(4), kUuid}}), ErrorKind::corrupt_index);
	ASSERT_EQ(symlink((s.cache + "/" + image_name(1)).c_str(), (s.cache + "/" + image_name(5)).c_str()), 0);
	expect_error(FrameType::scc, encode(SccRequest{{image_name(5), kUuid}}), ErrorKind::invalid_input);
	// Unknown request types, truncated payloads.
	expect_error(FrameType(77), {}, ErrorKind::invalid_input);
	expect_error(FrameType::info, {1, 2}, ErrorKind::invalid_input);
	std::vector<uint8_t> cut = encode(BfsRequest{ref, 0, 1, false});
	cut.pop_back();
	expect_error(FrameType::bfs, cut, ErrorKind::invalid_input);
	// Garbage on the socket: the server drops the connection and answers the next.
	for (int k = 0; k < 20; k++) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un addr = {};
		addr.sun_family = AF_UNIX;
		std::strcpy(addr.sun_path, s.socket.c_str());
		ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
		uint8_t junk[13] = {uint8_t(k), 0xff, 0xff, 0xff, 2, 0, 0, 0, 1, 2, 3, 4, 5};
		ASSERT_EQ(write(fd, junk, k % 13), ssize_t(k % 13));
		close(fd);
	}
	BfsRows rows = decode_bfs_rows(call(s.socket, FrameType::bfs, encode(BfsRequest{ref, 0, 1, false}), nullptr));
	EXPECT_EQ(rows.vertex, bfs(index.graph().out, 0, 1).vertex);
}

// A client that leaves in the middle of a long answer cancels it; the next client is answered.
TEST(GpuServiceServer, ClientDisconnectMidStream) {
	Scratch s;
	RunningServer running(s);
	EdgeList path;
	for (int64_t i = 0; i < 400000; i++)
		path.append(i, i + 1);
	Index index = build(path);
	ImageRef ref = s.write(index, 1);
	std::vector<uint8_t> request = encode(BfsRequest{ref, 0, UINT32_MAX, false});
	for (int k = 0; k < 3; k++) {
		// Takes the 4.8 MB answer's shared frame, or (k = 0) nothing, then hangs up before the end.
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un addr = {};
		addr.sun_family = AF_UNIX;
		std::strcpy(addr.sun_path, s.socket.c_str());
		ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
		send_frame(fd, FrameType::bfs, request.data(), request.size(), nullptr);
		if (k > 0) {
			FrameType type;
			std::vector<uint8_t> payload;
			SharedBytes shared;
			ASSERT_TRUE(recv_frame(fd, type, payload, kMaxChunk, nullptr, &shared));
			EXPECT_EQ(type, FrameType::shared);
			EXPECT_EQ(shared.size(), 8 + 12 * 400001u);
		}
		close(fd);
	}
	BfsRows rows = decode_bfs_rows(call(s.socket, FrameType::bfs, encode(BfsRequest{ref, 5, 3, false}), nullptr));
	EXPECT_EQ(rows.vertex, (std::vector<vid_t>{5, 6, 7, 8}));
}

// A server that goes away in the middle of a request: the client gets a clean error.
TEST(GpuServiceServer, ServerGoneMidRequest) {
	Scratch s;
	int listener = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un addr = {};
	addr.sun_family = AF_UNIX;
	std::strcpy(addr.sun_path, s.socket.c_str());
	ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
	ASSERT_EQ(listen(listener, 4), 0);
	std::thread fake([&] {
		for (int k = 0; k < 2; k++) {
			int fd = accept(listener, nullptr, nullptr);
			FrameType type;
			std::vector<uint8_t> payload;
			recv_frame(fd, type, payload, kMaxRequest, nullptr);
			if (k == 1) {
				std::vector<uint8_t> some(1000, 1);
				send_frame(fd, FrameType::chunk, some.data(), some.size(), nullptr);
			}
			close(fd); // no end frame
		}
	});
	for (int k = 0; k < 2; k++)
		EXPECT_THROW(call(s.socket, FrameType::info, encode_info_request(), nullptr), ProtocolError);
	fake.join();
	close(listener);
	unlink(s.socket.c_str());
	EXPECT_THROW(call(s.socket, FrameType::info, encode_info_request(), nullptr), Unavailable);
}

// A memory limit below one image: every request still answers, at most one image stays.
TEST(GpuServiceServer, EvictionKeepsAnswering) {
	Scratch s;
	RunningServer running(s, cpu_stand_in(), "", 1);
	std::vector<Index> indexes;
	std::vector<ImageRef> refs;
	for (int g = 0; g < 5; g++) {
		indexes.push_back(build(grail_test::random_graph(100 + g, 50).edges));
		refs.push_back(s.write(indexes.back(), g));
	}
	for (int round = 0; round < 3; round++)
		for (int g = 0; g < 5; g++) {
			BfsRows rows =
			    decode_bfs_rows(call(s.socket, FrameType::bfs, encode(BfsRequest{refs[g], 0, 2, true}), nullptr));
			Csr in = indexes[g].graph().out.reversed();
			EXPECT_EQ(rows.vertex, bfs(in, 0, 2).vertex);
			ServiceInfo info = decode_info(call(s.socket, FrameType::info, encode_info_request(), nullptr));
			EXPECT_LE(info.images.size(), 1u);
		}
}

} // namespace

namespace {

// An image whose file left the cache (evicted, or its graph dropped) is let go at the next request.
TEST(GpuServiceServer, RemovedFilesAreLetGo) {
	Scratch s;
	RunningServer running(s);
	Index a = build(grail_test::random_graph(7, 40).edges), b = build(grail_test::random_graph(8, 40).edges);
	ImageRef ra = s.write(a, 1), rb = s.write(b, 2);
	call(s.socket, FrameType::scc, encode(SccRequest{ra}), nullptr);
	call(s.socket, FrameType::scc, encode(SccRequest{rb}), nullptr);
	EXPECT_EQ(decode_info(call(s.socket, FrameType::info, encode_info_request(), nullptr)).images.size(), 2u);
	unlink((s.cache + "/" + ra.file).c_str());
	ServiceInfo info = decode_info(call(s.socket, FrameType::info, encode_info_request(), nullptr));
	ASSERT_EQ(info.images.size(), 1u);
	EXPECT_EQ(info.images[0].file, rb.file);
	EXPECT_THROW(call(s.socket, FrameType::scc, encode(SccRequest{ra}), nullptr), ImageMissing);
}

} // namespace

namespace {

bool
exists(const std::string &path) {
	return access(path.c_str(), F_OK) == 0;
}

void
touch(const std::string &path) {
	std::ofstream(path) << "hold";
}

// Waits (without a bound on time: the test's own timeout is the bound) until done() holds.
template <typename Done>
void
wait_until(Done done) {
	while (!done())
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

ReachRequest
all_pairs(const ImageRef &ref, const grail_test::TestGraph &t) {
	ReachRequest q;
	q.image = ref;
	q.mode = 0;
	for (int64_t a : t.query_ids)
		for (int64_t b : t.query_ids) {
			q.from.push_back(a);
			q.to.push_back(b);
		}
	return q;
}

void
expect_oracle_answers(const std::vector<uint8_t> &bytes, const ReachRequest &q, const grail_test::TestGraph &t) {
	grail_test::Oracle oracle(t.edges);
	std::unique_ptr<bool[]> got(new bool[q.from.size() + 1]);
	decode_bits(bytes, got.get(), q.from.size());
	for (size_t i = 0; i < q.from.size(); i++)
		ASSERT_EQ(got[i], oracle.reachable(q.from[i], q.to[i])) << t.shape << " " << q.from[i] << " -> " << q.to[i];
}

// A request held in the server (the test hook) delays no other connection's: bfs, scc, info and
// another image's... every other kind of request is answered while it waits, then it is answered
// too, with the right answers.
TEST(GpuServiceConcurrency, HeldRequestDelaysNoOther) {
	Scratch s;
	std::string hold = s.dir + "/hold";
	RunningServer running(s, cpu_stand_in(), hold);
	grail_test::TestGraph t = grail_test::random_graph(11, 60);
	Index index = build(t.edges);
	ImageRef ref = s.write(index, 1);
	ReachRequest q = all_pairs(ref, t);
	touch(hold);
	std::atomic<bool> held_done{false};
	std::vector<uint8_t> held_answer;
	std::thread held([&] {
		held_answer = call(s.socket, FrameType::reach, encode(q), nullptr);
		held_done = true;
	});
	wait_until([&] { return running.server.active_connections() >= 1; });
	for (vid_t v = 0; v < index.graph().vertex_count(); v += 7) {
		BfsRows rows =
		    decode_bfs_rows(call(s.socket, FrameType::bfs, encode(BfsRequest{ref, v, 2, v % 2 == 1}), nullptr));
		Csr in = index.graph().out.reversed();
		EXPECT_EQ(rows.vertex, bfs(v % 2 ? in : index.graph().out, v, 2).vertex);
	}
	ComponentRows c = decode_components(call(s.socket, FrameType::scc, encode(SccRequest{ref}), nullptr));
	EXPECT_EQ(c.of_vertex.size(), index.graph().vertex_count());
	ServiceInfo info = decode_info(call(s.socket, FrameType::info, encode_info_request(), nullptr));
	EXPECT_EQ(info.images.size(), 1u);
	// All answered while the reachability request still waits (the others' threads end after their
	// answers: the held one's alone is left).
	wait_until([&] { return running.server.active_connections() == 1; });
	EXPECT_FALSE(held_done.load());
	unlink(hold.c_str());
	held.join();
	ASSERT_TRUE(held_done.load());
	expect_oracle_answers(held_answer, q, t);
}

// A held request whose client hangs up is cancelled: its thread ends, the next request is answered.
TEST(GpuServiceConcurrency, HangUpCancelsAHeldRequest) {
	Scratch s;
	std::string hold = s.dir + "/hold";
	RunningServer running(s, cpu_stand_in(), hold);
	grail_test::TestGraph t = grail_test::random_graph(12, 40);
	ImageRef ref = s.write(build(t.edges), 1);
	ReachRequest q = all_pairs(ref, t);
	touch(hold);
	for (int k = 0; k < 5; k++) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un addr = {};
		addr.sun_family = AF_UNIX;
		std::strcpy(addr.sun_path, s.socket.c_str());
		ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
		std::vector<uint8_t> request = encode(q);
		send_frame(fd, FrameType::reach, request.data(), request.size(), nullptr);
		wait_until([&] { return running.server.active_connections() >= 1; });
		close(fd);
		wait_until([&] { return running.server.active_connections() == 0; });
	}
	EXPECT_TRUE(exists(hold));
	unlink(hold.c_str());
	expect_oracle_answers(call(s.socket, FrameType::reach, encode(q), nullptr), q, t);
}

// A server stopped while requests wait cancels them (their clients get an error, not a hang) and
// returns.
TEST(GpuServiceConcurrency, StopCancelsHeldRequests) {
	Scratch s;
	std::string hold = s.dir + "/hold";
	grail_test::TestGraph t = grail_test::random_graph(13, 40);
	ImageRef ref = s.write(build(t.edges), 1);
	ReachRequest q = all_pairs(ref, t);
	touch(hold);
	std::vector<std::thread> clients;
	std::atomic<int> errors{0};
	{
		RunningServer running(s, cpu_stand_in(), hold);
		for (int k = 0; k < 4; k++)
			clients.emplace_back([&] {
				try {
					call(s.socket, FrameType::reach, encode(q), nullptr);
				} catch (const std::exception &) {
					errors++;
				}
			});
		wait_until([&] { return running.server.active_connections() == 4; });
	}
	for (std::thread &c : clients)
		c.join();
	EXPECT_EQ(errors.load(), 4);
}

// Many clients at once over several images, some of them hanging up in the middle: every answer
// received equals the engine's, and the server answers afterwards.
TEST(GpuServiceConcurrency, ManyClientsAndHangUps) {
	Scratch s;
	RunningServer running(s);
	std::vector<grail_test::TestGraph> graphs;
	std::vector<std::unique_ptr<Index>> indexes;
	std::vector<ImageRef> refs;
	for (int g = 0; g < 3; g++) {
		graphs.push_back(grail_test::random_graph(200 + g, 80));
		indexes.push_back(std::make_unique<Index>(build(graphs.back().edges)));
		refs.push_back(s.write(*indexes.back(), g));
	}
	std::atomic<int> wrong{0}, answered{0};
	std::vector<std::thread> clients;
	for (int c = 0; c < 16; c++)
		clients.emplace_back([&, c] {
			Rng rng(uint64_t(c) + 1);
			for (int k = 0; k < 25; k++) {
				int g = int(rng.below(3));
				const Index &index = *indexes[g];
				int kind = int(rng.below(4));
				if (kind == 0) {
					vid_t v = vid_t(rng.below(index.graph().vertex_count()));
					bool reverse = rng.below(2) == 1;
					BfsRows rows = decode_bfs_rows(
					    call(s.socket, FrameType::bfs, encode(BfsRequest{refs[g], v, UINT32_MAX, reverse}), nullptr));
					Csr in = index.graph().out.reversed();
					BfsResult want = bfs(reverse ? in : index.graph().out, v);
					if (rows.vertex != want.vertex || rows.depth != want.depth || rows.parent != want.parent)
						wrong++;
				} else if (kind == 1) {
					ReachRequest q = all_pairs(refs[g], graphs[g]);
					std::unique_ptr<bool[]> got(new bool[q.from.size() + 1]);
					decode_bits(call(s.socket, FrameType::reach, encode(q), nullptr), got.get(), q.from.size());
					grail_test::Oracle oracle(graphs[g].edges);
					for (size_t i = 0; i < q.from.size(); i++)
						if (got[i] != oracle.reachable(q.from[i], q.to[i]))
							wrong++;
				} else if (kind == 2) {
					ComponentRows cr =
					    decode_components(call(s.socket, FrameType::scc, encode(SccRequest{refs[g]}), nullptr));
					if (cr.of_vertex.size() != index.graph().vertex_count())
						wrong++;
				} else {
					// Sends a request and hangs up before (or while) it is answered.
					int fd = socket(AF_UNIX, SOCK_STREAM, 0);
					struct sockaddr_un addr = {};
					addr.sun_family = AF_UNIX;
					std::strcpy(addr.sun_path, s.socket.c_str());
					if (connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0) {
						std::vector<uint8_t> request = encode(all_pairs(refs[g], graphs[g]));
						size_t part = rng.below(request.size() + 9);
						if (part >= 8)
							send_frame(fd, FrameType::reach, request.data(), std::min(part, request.size()), nullptr);
					}
					close(fd);
					continue;
				}
				answered++;
			}
		});
	for (std::thread &c : clients)
		c.join();
	EXPECT_EQ(wrong.load(), 0);
	EXPECT_GT(answered.load(), 0);
	ServiceInfo info = decode_info(call(s.socket, FrameType::info, encode_info_request(), nullptr));
	EXPECT_EQ(info.images.size(), 3u);
	wait_until([&] { return running.server.active_connections() == 0; });
}

// A request of another protocol version is an error that says so; the server goes on.
TEST(GpuServiceProtocol, OtherVersionsAreClearErrors) {
	Scratch s;
	RunningServer running(s);
	Index index = build(grail_test::random_graph(5, 20).edges);
	ImageRef ref = s.write(index, 1);
	std::vector<uint8_t> request = encode(BfsRequest{ref, 0, 1, false});
	for (uint32_t version : {kProtocolVersion + 1, kProtocolVersion - 1, 0u, 52u}) {
		std::memcpy(request.data(), &version, 4);
		try {
			call(s.socket, FrameType::bfs, request, nullptr);
			ADD_FAILURE() << "no error";
		} catch (const Error &e) {
			EXPECT_EQ(e.kind(), ErrorKind::invalid_input);
			EXPECT_NE(std::string(e.what()).find("protocol version " + std::to_string(kProtocolVersion & 0xffff)),
			          std::string::npos)
			    << e.what();
			EXPECT_NE(e.hint().find("Restart PostgreSQL"), std::string::npos);
		}
	}
	// The info request with no payload (protocol 1's): an error too.
	EXPECT_THROW(call(s.socket, FrameType::info, {}, nullptr), Error);
	BfsRows rows = decode_bfs_rows(call(s.socket, FrameType::bfs, encode(BfsRequest{ref, 0, 1, false}), nullptr));
	EXPECT_EQ(rows.vertex, bfs(index.graph().out, 0, 1).vertex);
	// Random bytes after a right version never crash a decoder.
	Rng rng(9);
	for (int k = 0; k < 2000; k++) {
		Writer w;
		put_version(w);
		size_t n = rng.below(120);
		for (size_t i = 0; i < n; i++)
			w.u8(uint8_t(rng.below(4) == 0 ? rng.below(3) : rng.below(256)));
		std::vector<uint8_t> &junk = w.buffer();
		try {
			decode_reach(junk.data(), junk.size());
		} catch (const std::exception &) {
		}
		try {
			decode_bfs(junk.data(), junk.size());
		} catch (const std::exception &) {
		}
		try {
			decode_scc(junk.data(), junk.size());
		} catch (const std::exception &) {
		}
	}
}

} // namespace
