// A bfs result's rows through the GPU service without a joined copy: the server sends them from the
// search's arrays (send_bfs_rows), the backend's BfsReceiver takes the chunks straight into a
// BfsResult. The bytes split anywhere give the same rows; a reply shorter or longer than its count,
// or rows that are not a search of the graph asked about, are refused.
#include "bfs.hpp"
#include "error.hpp"
#include "index.hpp"
#include "oracle.hpp"

#include "gpu_service/client.hpp"
#include "gpu_service/protocol.hpp"
#include "gpu_service/server.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace grail;
using namespace grail::service;

namespace {

std::vector<uint8_t>
bytes_of(const BfsResult &r) {
	return encode_bfs_rows(r.vertex.data(), r.depth.data(), r.parent.data(), r.vertex.size());
}

void
expect_rows(const BfsResult &got, const BfsResult &want, const std::string &what) {
	EXPECT_EQ(got.vertex, want.vertex) << what;
	EXPECT_EQ(got.depth, want.depth) << what;
	EXPECT_EQ(got.parent, want.parent) << what;
}

BfsShape
shape_of(const Csr &g, vid_t source, uint32_t max_depth) {
	return BfsShape{g.vertex_count(), source, max_depth};
}

// Searches of random graphs (cycles, self-loops, repeated edges, isolated vertices), each with the
// graph it searched.
struct Search {
	BfsResult rows;
	BfsShape shape;
	std::string what;
};
std::vector<Search>
searches() {
	std::vector<Search> out;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		grail_test::TestGraph t = grail_test::random_graph(seed, 40);
		Index index = Index::build(t.edges, BuildOptions{});
		const Csr &g = index.graph().out;
		for (vid_t v = 0; v < g.vertex_count(); v += 7) {
			uint32_t depth = v % 2 ? UINT32_MAX : v % 4;
			out.push_back({bfs(g, v, depth), shape_of(g, v, depth), t.shape + " from " + std::to_string(v)});
		}
	}
	return out;
}

TEST(GpuServiceRows, SplitAtEveryByteDecodesTheSameRows) {
	for (const Search &s : searches()) {
		std::vector<uint8_t> bytes = bytes_of(s.rows);
		ASSERT_EQ(bytes.size(), 8 + 12 * s.rows.vertex.size());
		// Two pieces, split at every byte.
		for (size_t at = 0; at <= bytes.size(); at++) {
			BfsReceiver r(s.shape);
			r.take(bytes.data(), at);
			r.take(bytes.data() + at, bytes.size() - at);
			expect_rows(r.finish(), s.rows, s.what + " split at " + std::to_string(at));
		}
		// One byte at a time; and pieces of 3 bytes (every element split) after a split at every byte.
		BfsReceiver single(s.shape);
		for (uint8_t b : bytes)
			single.take(&b, 1);
		expect_rows(single.finish(), s.rows, s.what + " byte by byte");
		for (size_t at = 0; at < 3; at++) {
			BfsReceiver r(s.shape);
			r.take(bytes.data(), at);
			for (size_t k = at; k < bytes.size(); k += 3)
				r.take(bytes.data() + k, std::min<size_t>(3, bytes.size() - k));
			expect_rows(r.finish(), s.rows, s.what + " in threes");
		}
		// Without a shape, the same rows.
		expect_rows(decode_bfs_rows(bytes), s.rows, s.what + " at once");
	}
}

TEST(GpuServiceRows, TruncatedOrExtendedRepliesAreRefused) {
	for (const Search &s : searches()) {
		std::vector<uint8_t> bytes = bytes_of(s.rows);
		for (size_t at = 0; at < bytes.size(); at++) {
			BfsReceiver r(s.shape);
			r.take(bytes.data(), at);
			EXPECT_THROW(r.finish(), ProtocolError) << s.what << " cut at " << at;
			std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(at));
			EXPECT_THROW(decode_bfs_rows(cut), ProtocolError) << s.what << " cut at " << at;
		}
		// One byte more, in the last piece or as a piece of its own.
		std::vector<uint8_t> longer = bytes;
		longer.push_back(0);
		EXPECT_THROW(decode_bfs_rows(longer), ProtocolError) << s.what;
		BfsReceiver r(s.shape);
		r.take(bytes.data(), bytes.size());
		EXPECT_THROW(r.take(longer.data() + bytes.size(), 1), ProtocolError) << s.what;
		// A count one more or one less than the rows sent.
		for (int64_t delta : {-1, 1}) {
			std::vector<uint8_t> miscounted = bytes;
			uint64_t count = s.rows.vertex.size() + uint64_t(delta);
			std::memcpy(miscounted.data(), &count, sizeof count);
			BfsReceiver m(s.shape);
			EXPECT_THROW(
			    {
				    m.take(miscounted.data(), miscounted.size());
				    m.finish();
			    },
			    ProtocolError)
			    << s.what << " count " << delta;
		}
	}
	// No bytes at all, or a count of rows larger than any graph.
	EXPECT_THROW(BfsReceiver().finish(), ProtocolError);
	uint64_t huge = uint64_t(1) << 62;
	BfsReceiver r;
	EXPECT_THROW(r.take(reinterpret_cast<const uint8_t *>(&huge), sizeof huge), ProtocolError);
}

// Rows that are not a search of the graph asked about: each is refused, whatever the split.
TEST(GpuServiceRows, RowsOfNoSearchOfTheGraphAreRefused) {
	BfsResult good;
	good.vertex = {2, 0, 3, 1};
	good.depth = {0, 1, 1, 2};
	good.parent = {kNoVertex, 2, 2, 0};
	BfsShape shape{4, 2, 5};
	{
		BfsReceiver r(shape);
		std::vector<uint8_t> bytes = bytes_of(good);
		r.take(bytes.data(), bytes.size());
		expect_rows(r.finish(), good, "the good rows");
	}
	auto refused = [&](BfsResult bad, BfsShape s, const char *what) {
		std::vector<uint8_t> bytes = bytes_of(bad);
		for (size_t at = 0; at <= bytes.size(); at++) {
			BfsReceiver r(s);
			EXPECT_THROW(
			    {
				    r.take(bytes.data(), at);
				    r.take(bytes.data() + at, bytes.size() - at);
				    r.finish();
			    },
			    ProtocolError)
			    << what << " split at " << at;
		}
		// Without a shape only the framing is checked: the same bytes are taken.
		expect_rows(decode_bfs_rows(bytes), bad, what);
	};
	BfsResult b = good;
	b.vertex[3] = 4;
	refused(b, shape, "a vertex past the graph");
	b = good;
	b.parent[2] = 7;
	refused(b, shape, "a parent past the graph");
	b = good;
	b.depth = {0, 2, 1, 2};
	refused(b, shape, "depths that decrease");
	refused(good, BfsShape{4, 2, 1}, "a depth past max_depth");
	refused(good, BfsShape{4, 0, 5}, "another source first");
	b = good;
	b.depth[0] = 1;
	b.depth[1] = 1;
	refused(b, shape, "the source not at depth 0");
	refused(good, BfsShape{3, 2, 5}, "more rows than vertices");
	refused(BfsResult{}, shape, "no rows");
	// The largest ids pass: kNoVertex as a parent only, vertex ids up to the count.
	BfsShape wide{size_t(kNoVertex), kNoVertex - 1, UINT32_MAX};
	BfsResult edge;
	edge.vertex = {kNoVertex - 1, 0};
	edge.depth = {0, UINT32_MAX};
	edge.parent = {kNoVertex, kNoVertex - 1};
	BfsReceiver r(wide);
	std::vector<uint8_t> bytes = bytes_of(edge);
	r.take(bytes.data(), bytes.size());
	expect_rows(r.finish(), edge, "the largest ids");
}

// send_bfs_rows() sends encode_bfs_rows()'s bytes as send_result() would (one chunk frame, or a
// shared frame past kMaxChunk), gathered from the arrays themselves; arrays of unequal lengths are
// refused before anything is sent.
TEST(GpuServiceRows, SentFromTheArraysAsTheirBytes) {
	for (size_t rows : {size_t(0), size_t(1), size_t(5), kMaxChunk / 12, kMaxChunk / 4 + 3, size_t(300000)}) {
		BfsResult r;
		for (size_t i = 0; i < rows; i++) {
			r.vertex.push_back(vid_t(i * 7 + 1));
			r.depth.push_back(uint32_t(i / 3));
			r.parent.push_back(i == 0 ? kNoVertex : vid_t(i - 1));
		}
		int fds[2];
		ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
		std::thread sender([&] { send_bfs_rows(fds[0], r, nullptr); });
		std::vector<uint8_t> got, payload;
		std::vector<FrameType> frames;
		for (;;) {
			FrameType type;
			SharedBytes shared;
			ASSERT_TRUE(recv_frame(fds[1], type, payload, kMaxChunk, nullptr, &shared));
			if (type == FrameType::end)
				break;
			frames.push_back(type);
			if (type == FrameType::shared)
				got.insert(got.end(), shared.data(), shared.data() + shared.size());
			else
				got.insert(got.end(), payload.begin(), payload.end());
		}
		size_t bytes = 8 + 12 * rows;
		ASSERT_EQ(frames.size(), 1u) << rows << " rows";
		EXPECT_EQ(frames[0], bytes > kMaxChunk ? FrameType::shared : FrameType::chunk) << rows << " rows";
		sender.join();
		close(fds[0]);
		close(fds[1]);
		EXPECT_EQ(got, bytes_of(r)) << rows << " rows";
	}
	BfsResult uneven;
	uneven.vertex = {0, 1};
	uneven.depth = {0, 1};
	uneven.parent = {kNoVertex};
	int fds[2];
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	EXPECT_THROW(send_bfs_rows(fds[0], uneven, nullptr), Error);
	close(fds[0]);
	uint8_t byte;
	EXPECT_EQ(read(fds[1], &byte, 1), 0); // nothing was sent
	close(fds[1]);
}

// Through the server (the CPU stand-in): a long path's rows, taken by a receiver from call()'s sink,
// equal the engine's.
TEST(GpuServiceRows, ServerRowsIntoTheReceiver) {
	char pattern[] = "/tmp/grail_rows_XXXXXX";
	std::string dir = mkdtemp(pattern), cache = dir + "/cache", socket = dir + "/s";
	mkdir(cache.c_str(), 0700);
	const char *uuid = "0123abcd-0000-4000-8000-00000000beef";
	EdgeList path;
	for (int64_t i = 0; i < 300000; i++)
		path.append(i, i + 1);
	path.append(300000, 0); // one cycle: every vertex from every other
	Index index = Index::build(path, BuildOptions{});
	ImageRef ref{std::string("1_1_1_") + uuid + ".img", uuid};
	{
		std::vector<uint8_t> bytes = index.serialize();
		std::ofstream out(cache + "/" + ref.file, std::ios::binary);
		out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
	}
	{
		std::atomic<bool> stop{false};
		Server server(ServerOptions{socket, cache, 0, 2000, 64, ""}, cpu_stand_in());
		server.listen();
		std::thread serving([&] { server.serve(stop); });
		const Csr &g = index.graph().out;
		Csr in = g.reversed();
		for (bool reverse : {false, true})
			for (uint32_t depth : {0u, 3u, UINT32_MAX}) {
				vid_t source = 17;
				BfsReceiver r(shape_of(g, source, depth));
				size_t chunks = 0;
				call(socket, FrameType::bfs, encode(BfsRequest{ref, source, depth, reverse}), nullptr,
				     [&](const uint8_t *p, size_t n) {
					     chunks++;
					     r.take(p, n);
				     });
				expect_rows(r.finish(), bfs(reverse ? in : g, source, depth),
				            std::string(reverse ? "in" : "out") + " to depth " + std::to_string(depth));
				// The whole graph's rows (3.6 MB) come in one shared frame, taken at once.
				if (depth == UINT32_MAX) {
					EXPECT_EQ(chunks, 1u);
				}
			}
		// The receiver's refusal passes through call(): a graph said to be smaller than the rows.
		BfsReceiver small(BfsShape{10, 17, UINT32_MAX});
		EXPECT_THROW(call(socket, FrameType::bfs, encode(BfsRequest{ref, 17, UINT32_MAX, false}), nullptr,
		                  [&](const uint8_t *p, size_t n) { small.take(p, n); }),
		             ProtocolError);
		stop.store(true);
		serving.join();
	}
	std::string command = "rm -rf '" + dir + "'";
	if (std::system(command.c_str()) != 0)
		std::fprintf(stderr, "could not remove %s\n", dir.c_str());
}

} // namespace
