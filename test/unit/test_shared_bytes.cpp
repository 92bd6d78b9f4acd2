// Bulk bytes through sealed memory files (src/gpu_service/shared_bytes.hpp) and the shared frames
// that carry them (protocol.hpp): what a reader maps is what was sealed, byte for byte, and a file
// that could still change under the reader, or is not the size announced, is refused.
#include "gpu_service/protocol.hpp"
#include "gpu_service/shared_bytes.hpp"
#include "rng.hpp"
#include <gtest/gtest.h>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

namespace grail::service {
namespace {

std::vector<uint8_t>
random_bytes(size_t n, uint64_t seed) {
	Rng rng(seed);
	std::vector<uint8_t> bytes(n);
	for (uint8_t &b : bytes)
		b = uint8_t(rng.next());
	return bytes;
}

TEST(SharedBytes, MapsWhatWasSealedPieceByPiece) {
	for (size_t a : {size_t(0), size_t(1), size_t(4095), size_t(4096), size_t(1) << 20}) {
		std::vector<uint8_t> first = random_bytes(a, a + 1), second = random_bytes(777, a + 2);
		int fd = seal_bytes({{first.data(), first.size()}, {second.data(), second.size()}});
		// Sealed: no write, no resize.
		uint8_t one = 1;
		EXPECT_EQ(pwrite(fd, &one, 1, 0), -1);
		EXPECT_EQ(errno, EPERM);
		EXPECT_NE(ftruncate(fd, 1), 0);
		SharedBytes mapped = SharedBytes::map(fd, a + 777);
		ASSERT_EQ(mapped.size(), a + 777);
		if (a > 0) { // (an empty vector's data() may be null, which memcmp must not be given)
			EXPECT_EQ(std::memcmp(mapped.data(), first.data(), a), 0);
		}
		EXPECT_EQ(std::memcmp(mapped.data() + a, second.data(), 777), 0);
		SharedBytes moved = std::move(mapped);
		EXPECT_EQ(mapped.data(), nullptr);
		EXPECT_EQ(moved.size(), a + 777);
	}
	SharedBytes empty = SharedBytes::map(seal_bytes({}), 0);
	EXPECT_EQ(empty.size(), 0u);
}

TEST(SharedBytes, RefusesFilesThatCouldChangeOrAreMisannounced) {
	std::vector<uint8_t> bytes = random_bytes(4096, 7);
	EXPECT_THROW(SharedBytes::map(seal_bytes({{bytes.data(), bytes.size()}}), 4095), ProtocolError);
	EXPECT_THROW(SharedBytes::map(seal_bytes({{bytes.data(), bytes.size()}}), 4097), ProtocolError);
	// Unsealed, sealed against growth only, and not a memory file at all.
	int open_file = memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT_EQ(write(open_file, bytes.data(), bytes.size()), ssize_t(bytes.size()));
	EXPECT_THROW(SharedBytes::map(open_file, bytes.size()), ProtocolError);
	int grow_only = memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT_EQ(write(grow_only, bytes.data(), bytes.size()), ssize_t(bytes.size()));
	ASSERT_EQ(fcntl(grow_only, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SEAL), 0);
	EXPECT_THROW(SharedBytes::map(grow_only, bytes.size()), ProtocolError);
	int pipe_ends[2];
	ASSERT_EQ(pipe(pipe_ends), 0);
	close(pipe_ends[1]);
	EXPECT_THROW(SharedBytes::map(pipe_ends[0], 0), ProtocolError);
	// Each refused descriptor was closed.
	for (int fd : {open_file, grow_only, pipe_ends[0]})
		EXPECT_EQ(fcntl(fd, F_GETFD), -1);
}

// A shared frame across a socket pair between chunk frames, in both orders, with the peer reading
// as the service's clients and server do.
TEST(SharedBytes, SharedFramesCrossASocketBetweenChunks) {
	int pair[2];
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
	std::vector<uint8_t> big = random_bytes(3 << 20, 11), small = random_bytes(100, 12);
	std::thread writer([&] {
		send_frame(pair[0], FrameType::chunk, small.data(), small.size(), nullptr);
		send_shared(pair[0], {{big.data(), 1000}, {big.data() + 1000, big.size() - 1000}}, nullptr);
		send_result(pair[0], big, nullptr);   // longer than a chunk: shared
		send_result(pair[0], small, nullptr); // a chunk
	});
	FrameType type;
	std::vector<uint8_t> payload;
	SharedBytes shared;
	ASSERT_TRUE(recv_frame(pair[1], type, payload, kMaxChunk, nullptr, &shared));
	EXPECT_EQ(type, FrameType::chunk);
	EXPECT_EQ(payload, small);
	for (int k = 0; k < 2; k++) {
		ASSERT_TRUE(recv_frame(pair[1], type, payload, kMaxChunk, nullptr, &shared));
		ASSERT_EQ(type, FrameType::shared);
		ASSERT_EQ(shared.size(), big.size());
		EXPECT_EQ(std::memcmp(shared.data(), big.data(), big.size()), 0);
		if (k == 1) {
			ASSERT_TRUE(recv_frame(pair[1], type, payload, kMaxChunk, nullptr, &shared));
			EXPECT_EQ(type, FrameType::end);
		}
	}
	ASSERT_TRUE(recv_frame(pair[1], type, payload, kMaxChunk, nullptr, &shared));
	EXPECT_EQ(type, FrameType::chunk);
	EXPECT_EQ(payload, small);
	ASSERT_TRUE(recv_frame(pair[1], type, payload, kMaxChunk, nullptr, &shared));
	EXPECT_EQ(type, FrameType::end);
	writer.join();
	// A reader that expects no shared frame refuses one (its file closed with it).
	std::thread again([&] { send_shared(pair[0], {{small.data(), small.size()}}, nullptr); });
	EXPECT_THROW(recv_frame(pair[1], type, payload, kMaxChunk, nullptr), ProtocolError);
	again.join();
	close(pair[0]);
	close(pair[1]);
}

} // namespace
} // namespace grail::service
