// Bulk bytes through sealed memory files (src/gpu_service/shared_bytes.hpp) and the shared frames
// that carry them (protocol.hpp): what a reader maps is what was sealed, byte for byte, and a file
// that could still change under the reader, or is not the size announced, is refused.
#include "gpu_service/protocol.hpp"
#include "gpu_service/rows_file.hpp"
#include "gpu_service/shared_bytes.hpp"
#include "process_resources.hpp"
#include "rng.hpp"
#include <gtest/gtest.h>
#include <cerrno>
#include <cstring>
#include <string>
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

// Rows appended into a rows file: sealed, each file holds exactly its column (rows * 8 bytes, no
// room past them), is sealed against writes and resizing (so the service's map takes it), and
// reads back as appended; whatever room an estimate gave (none, too little: the files grow while
// written; too much: cut at the seal).
TEST(RowsFile, SealedFilesHoldExactlyTheRows) {
	for (size_t rows : {size_t(0), size_t(1), size_t(65535), size_t(65536), size_t(65537), size_t(300001)}) {
		for (size_t room : {size_t(0), size_t(10), rows, 2 * rows + 100}) {
			RowsFile file;
			if (room > 0) {
				EXPECT_TRUE(file.reserve(room));
			}
			Rng rng(rows * 31 + room);
			std::vector<int64_t> source(rows), target(rows);
			for (size_t i = 0; i < rows; i++) {
				source[i] = int64_t(rng.next());
				target[i] = i % 7 == 0 ? INT64_MIN : int64_t(i);
				ASSERT_TRUE(file.append(source[i], target[i]));
			}
			ASSERT_EQ(file.size(), rows);
			EXPECT_FALSE(file.sealed());
			file.seal();
			EXPECT_TRUE(file.sealed());
			file.seal(); // again: nothing
			EXPECT_FALSE(file.append(1, 2)) << "a sealed rows file took a row";
			EXPECT_EQ(file.size(), rows);
			for (int fd : {file.source_fd(), file.target_fd()}) {
				int seals = fcntl(fd, F_GET_SEALS);
				EXPECT_EQ(seals & (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW),
				          F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW);
				EXPECT_EQ(lseek(fd, 0, SEEK_END), off_t(rows * 8));
				uint8_t one = 1;
				EXPECT_EQ(pwrite(fd, &one, 1, 0), -1);
				EXPECT_EQ(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), MAP_FAILED);
				// Announced one row more or less: refused.
				EXPECT_THROW(SharedBytes::map(dup(fd), rows * 8 + 8), ProtocolError);
				if (rows > 0) {
					EXPECT_THROW(SharedBytes::map(dup(fd), rows * 8 - 8), ProtocolError);
				}
			}
			SharedBytes got_source = SharedBytes::map(dup(file.source_fd()), rows * 8);
			SharedBytes got_target = SharedBytes::map(dup(file.target_fd()), rows * 8);
			if (rows > 0) {
				EXPECT_EQ(std::memcmp(got_source.data(), source.data(), rows * 8), 0) << rows << " " << room;
				EXPECT_EQ(std::memcmp(got_target.data(), target.data(), rows * 8), 0) << rows << " " << room;
			}
			// The host's steps take them back as they were.
			EdgeList edges;
			file.move_to(edges);
			EXPECT_EQ(edges.source, source);
			EXPECT_EQ(edges.target, target);
			EXPECT_EQ(file.size(), 0u);
			EXPECT_EQ(file.source_fd(), -1);
		}
	}
}

// Moving before sealing seals first; a moved-from file holds nothing.
TEST(RowsFile, MovesAndMovesToTheHost) {
	RowsFile file;
	for (int64_t i = 0; i < 100000; i++)
		ASSERT_TRUE(file.append(i, -i));
	RowsFile moved = std::move(file);
	EXPECT_EQ(file.size(), 0u);
	EXPECT_EQ(file.source_fd(), -1);
	ASSERT_EQ(moved.size(), 100000u);
	EdgeList edges;
	moved.move_to(edges);
	ASSERT_EQ(edges.size(), 100000u);
	EXPECT_EQ(edges.source[99999], 99999);
	EXPECT_EQ(edges.target[99999], -99999);
}

// A read cancelled at any point (the rows file destroyed while written, grown, sealed, or moved to
// the host) leaves no descriptor and no mapping behind.
TEST(RowsFile, CancelledReadsLeaveNothingBehind) {
	size_t fds = grail_test::open_descriptors(), maps = grail_test::memfd_mappings();
	for (int stage = 0; stage < 5; stage++) {
		{
			RowsFile file;
			if (stage == 1) {
				ASSERT_TRUE(file.reserve(1000000));
			}
			for (int64_t i = 0; i < 200000; i++)
				ASSERT_TRUE(file.append(i, i + 1));
			if (stage == 2)
				file.seal();
			if (stage == 3) {
				file.seal();
				SharedBytes mapped = SharedBytes::map(dup(file.source_fd()), file.size() * 8);
			}
			if (stage == 4) {
				EdgeList edges;
				file.move_to(edges);
			}
		}
		EXPECT_EQ(grail_test::open_descriptors(), fds) << "stage " << stage;
		EXPECT_EQ(grail_test::memfd_mappings(), maps) << "stage " << stage;
	}
}

} // namespace
} // namespace grail::service
