// The GPU service's component searches (FrameType::search): a backend decides a batch with its ids
// and labels and sends only the undecided pairs, as components of the DAG, for the server to search.
// Its answers equal the engine's on random graphs (the CPU stand-in; the GPU executor where a GPU is
// usable), its codec refuses malformed payloads, pairs that are no two components in order are
// refused, and a client's hang-up cancels a held search.
#include "error.hpp"
#include "index.hpp"
#include "oracle.hpp"
#include "reach.hpp"
#include "service_fixture.hpp"

#include "gpu_service/client.hpp"
#include "gpu_service/protocol.hpp"
#include "gpu_service/server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace grail;
using namespace grail::service;

namespace {

const char *const kUuid = "0123abcd-0000-4000-8000-00000000cafe";

// The scratch directory of these tests (service_fixture.hpp).
struct Scratch : grail_test::ServiceScratch {
	Scratch() : ServiceScratch("grail_search", kUuid) {
	}
};

using grail_test::RunningServer;

// All pairs of the graph's query ids (unknown ids among them).
void
all_pairs(const grail_test::TestGraph &t, std::vector<int64_t> &a, std::vector<int64_t> &b) {
	for (int64_t x : t.query_ids)
		for (int64_t y : t.query_ids) {
			a.push_back(x);
			b.push_back(y);
		}
}

// The backend's half: a batch decided by the ids and labels, its undecided pairs searched by the
// server; every answer equals the oracle's. Returns how many pairs the server searched.
size_t
expect_batch_through_server(const Scratch &s, const ImageRef &ref, const Index &index, const grail_test::TestGraph &t) {
	std::vector<int64_t> a, b;
	all_pairs(t, a, b);
	Reach reach(index);
	std::unique_ptr<bool[]> answers(new bool[a.size() + 1]);
	ReachabilityQuery::Undecided undecided;
	reach.decide_many(a.data(), b.data(), a.size(), answers.get(), undecided);
	SearchRequest q{ref, undecided.from, undecided.to};
	std::unique_ptr<bool[]> searched(new bool[undecided.size() + 1]);
	double seconds =
	    decode_searched(call(s.socket, FrameType::search, encode(q), nullptr), searched.get(), undecided.size());
	EXPECT_GE(seconds, 0.0);
	for (size_t k = 0; k < undecided.size(); k++)
		answers[undecided.pair[k]] = searched[k];
	grail_test::Oracle oracle(t.edges);
	for (size_t i = 0; i < a.size(); i++)
		EXPECT_EQ(answers[i], oracle.reachable(a[i], b[i])) << t.shape << " " << a[i] << " -> " << b[i];
	return undecided.size();
}

void
searches_equal_the_engine(std::unique_ptr<Executor> executor) {
	Scratch s;
	RunningServer running(s, std::move(executor));
	size_t searched = 0;
	for (uint64_t seed = 1; seed <= 80; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, seed % 4 == 0 ? 200 : 60);
		BuildOptions options;
		options.labels = unsigned(1 + seed % 3); // few labels: more pairs left to the search
		Index index = Index::build(t.edges, options);
		ImageRef ref = s.write(index, int(seed));
		searched += expect_batch_through_server(s, ref, index, t);
	}
	EXPECT_GT(searched, 0u); // the test searched something
}

} // namespace

TEST(GpuServiceSearch, StandInEqualsTheEngine) {
	searches_equal_the_engine(cpu_stand_in());
}

TEST(GpuServiceSearch, GpuExecutorEqualsTheEngine) {
	std::string why;
	std::unique_ptr<Executor> gpu = gpu_executor(&why);
	if (!gpu)
		GTEST_SKIP() << "no usable GPU: " << why;
	searches_equal_the_engine(std::move(gpu));
}

TEST(GpuServiceSearch, CodecRoundTripsAndRefusesMalformed) {
	SearchRequest q{{"1_2_3_" + std::string(kUuid) + ".img", kUuid}, {0, 5, 7}, {1, 9, 4000000000u}};
	std::vector<uint8_t> bytes = encode(q);
	SearchRequest back = decode_search(bytes.data(), bytes.size());
	EXPECT_EQ(back.image.file, q.image.file);
	EXPECT_EQ(back.image.build_uuid, q.image.build_uuid);
	EXPECT_EQ(back.from, q.from);
	EXPECT_EQ(back.to, q.to);
	// Every shorter payload, and a longer one, is refused.
	for (size_t n = 0; n < bytes.size(); n++)
		EXPECT_THROW(decode_search(bytes.data(), n), ProtocolError) << n;
	std::vector<uint8_t> longer = bytes;
	longer.push_back(0);
	EXPECT_THROW(decode_search(longer.data(), longer.size()), ProtocolError);
	// A count larger than the pairs that follow.
	SearchRequest none{q.image, {}, {}};
	std::vector<uint8_t> empty = encode(none);
	EXPECT_EQ(decode_search(empty.data(), empty.size()).from.size(), 0u);
	empty[empty.size() - 1] = 0x10;
	EXPECT_THROW(decode_search(empty.data(), empty.size()), ProtocolError);
	SearchRequest uneven{q.image, {1, 2}, {3}};
	EXPECT_THROW(encode(uneven), Error);

	bool answers[11] = {true, false, true, true, false, false, false, true, true, false, true};
	std::vector<uint8_t> result = encode_searched(answers, 11, 0.25);
	bool got[11];
	EXPECT_EQ(decode_searched(result, got, 11), 0.25);
	for (int i = 0; i < 11; i++)
		EXPECT_EQ(got[i], answers[i]) << i;
	EXPECT_THROW(decode_searched(result, got, 10), ProtocolError);
	for (size_t n = 0; n < result.size(); n++)
		EXPECT_THROW(decode_searched(std::vector<uint8_t>(result.begin(), result.begin() + long(n)), got, 11),
		             ProtocolError)
		    << n;
	// A time that is no time reads as 0.
	std::vector<uint8_t> nan = encode_searched(answers, 11, -1.0);
	EXPECT_EQ(decode_searched(nan, got, 11), 0.0);
}

// Pairs that are not two components in order (from < to < the component count) are refused, and
// the server answers the next request.
TEST(GpuServiceSearch, PairsOutsideTheDagAreRefused) {
	Scratch s;
	RunningServer running(s, cpu_stand_in());
	grail_test::TestGraph t = grail_test::random_graph(5, 50);
	Index index = Index::build(t.edges, BuildOptions{});
	ImageRef ref = s.write(index, 1);
	vid_t n = vid_t(index.components().count());
	ASSERT_GE(n, 2u);
	auto refused = [&](vid_t from, vid_t to) {
		SearchRequest q{ref, {0, from}, {1, to}};
		try {
			call(s.socket, FrameType::search, encode(q), nullptr);
			ADD_FAILURE() << from << " -> " << to << " answered";
		} catch (const Error &e) {
			EXPECT_EQ(e.kind(), ErrorKind::invalid_input) << e.what();
		}
	};
	refused(1, 1);
	refused(1, 0);
	refused(0, n);
	refused(n, n + 1);
	refused(kNoVertex - 1, kNoVertex);
	EXPECT_GE(expect_batch_through_server(s, ref, index, t), 0u);
	// An image that is not there: the backend searches itself.
	SearchRequest gone{{"1_9_1_" + std::string(kUuid) + ".img", kUuid}, {0}, {1}};
	EXPECT_THROW(call(s.socket, FrameType::search, encode(gone), nullptr), ImageMissing);
}

// A search held in the server (the test hook) whose client hangs up is cancelled: its thread ends,
// the next search is answered.
TEST(GpuServiceSearch, HangUpCancelsAHeldSearch) {
	Scratch s;
	std::string hold = s.dir + "/hold";
	RunningServer running(s, cpu_stand_in(), hold);
	grail_test::TestGraph t = grail_test::random_graph(21, 60);
	BuildOptions options;
	options.labels = 1;
	Index index = Index::build(t.edges, options);
	ImageRef ref = s.write(index, 1);
	{ std::ofstream touch(hold); }
	vid_t n = vid_t(index.components().count());
	SearchRequest q{ref, {}, {}};
	for (vid_t c = 0; c + 1 < n; c++) {
		q.from.push_back(c);
		q.to.push_back(n - 1);
	}
	for (int k = 0; k < 5; k++) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un addr = {};
		addr.sun_family = AF_UNIX;
		std::strcpy(addr.sun_path, s.socket.c_str());
		ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
		std::vector<uint8_t> request = encode(q);
		send_frame(fd, FrameType::search, request.data(), request.size(), nullptr);
		while (running.server.active_connections() < 1)
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
		close(fd);
		while (running.server.active_connections() != 0)
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
	}
	unlink(hold.c_str());
	expect_batch_through_server(s, ref, index, t);
}
