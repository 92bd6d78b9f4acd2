// Chordless cycles through the GPU service (the CPU stand-in behind the same protocol): the request,
// the streamed cycles taken by a CycleReceiver however the bytes are split, the counts; cycles and
// counts equal a brute-force oracle over vertex subsets on random messy graphs; a reader that stops
// early (a LIMIT) or hangs up stops the enumeration in the server; its first cycles arrive before
// the enumeration ends; replies cut short, extended or not chordless cycles of the graph are refused.
#include "chordless.hpp"
#include "error.hpp"
#include "generate.hpp"
#include "gpu.hpp"
#include "index.hpp"
#include "service_fixture.hpp"
#include "shapes.hpp"

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
#include <map>
#include <set>
#include <string>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

using namespace grail;
using namespace grail::service;
using namespace grail::shapes;

namespace {

using Cycle = std::vector<vid_t>;

const char *const kUuid = "0123abcd-0000-4000-8000-00000000c1c1";

// The scratch directory of these tests (service_fixture.hpp).
struct Scratch : grail_test::ServiceScratch {
	Scratch() : ServiceScratch("grail_cyc", kUuid) {
	}
};

using grail_test::RunningServer;

template <typename Done>
void
wait_until(Done done) {
	while (!done())
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

std::vector<Cycle>
cycles_of(const CycleBatch &b) {
	std::vector<Cycle> out;
	for (size_t i = 0; i < b.size(); i++)
		out.emplace_back(b.begin(i), b.end(i));
	return out;
}

// Every chordless cycle by brute force over vertex subsets (n <= 16): a subset is one iff each of
// its vertices has exactly two neighbours in it and a walk from its smallest vertex towards the
// smaller neighbour visits all of it. Canonical form, as the engine writes them.
std::set<Cycle>
oracle_cycles(size_t n, const std::vector<std::vector<bool>> &adjacent) {
	std::set<Cycle> found;
	for (uint32_t subset = 0; subset < (1u << n); subset++) {
		std::vector<vid_t> members;
		for (vid_t v = 0; v < n; v++)
			if (subset >> v & 1)
				members.push_back(v);
		if (members.size() < 3)
			continue;
		bool two = true;
		for (vid_t v : members) {
			int inside = 0;
			for (vid_t w : members)
				inside += adjacent[v][w];
			two = two && inside == 2;
		}
		if (!two)
			continue;
		Cycle walk{members[0]};
		vid_t previous = members[0], current = members[0];
		for (vid_t w : members)
			if (adjacent[members[0]][w]) {
				current = w;
				break;
			}
		while (current != members[0]) {
			walk.push_back(current);
			vid_t following = current;
			for (vid_t w : members)
				if (adjacent[current][w] && w != previous) {
					following = w;
					break;
				}
			previous = current;
			current = following;
		}
		if (walk.size() == members.size())
			found.insert(walk);
	}
	return found;
}

// A random messy graph as a table's rows (both directions, duplicates, self-loops, ids at both
// ends of bigint), its index, and the oracle's cycles over the index's dense vertices.
struct Case {
	EdgeList rows;
	Index index;
	std::set<Cycle> cycles;
	std::string what;
};

Case
random_case(uint64_t seed) {
	Rng rng(seed);
	size_t n = 3 + rng.below(10);
	uint64_t density = 10 + rng.below(80);
	Pairs edges = messy_edges(rng, n, density);
	// Ids ascending with the vertices, from INT64_MIN to INT64_MAX.
	std::vector<int64_t> id(n);
	for (size_t v = 0; v < n; v++)
		id[v] = v == 0 ? INT64_MIN : v + 1 == n ? INT64_MAX : int64_t(v) * 1000003 - 5000000;
	EdgeList rows;
	for (auto [a, b] : edges)
		rows.append(id[a], id[b]);
	Index index = Index::build(rows, BuildOptions{});
	size_t count = index.graph().vertex_count();
	std::vector<std::vector<bool>> adjacent(count, std::vector<bool>(count, false));
	for (size_t k = 0; k < rows.size(); k++) {
		int64_t a = index.find(rows.source[k]), b = index.find(rows.target[k]);
		if (a != b)
			adjacent[size_t(a)][size_t(b)] = adjacent[size_t(b)][size_t(a)] = true;
	}
	std::set<Cycle> cycles = oracle_cycles(count, adjacent);
	return Case{std::move(rows), std::move(index), std::move(cycles), "seed " + std::to_string(seed)};
}

std::vector<Cycle>
within(const std::set<Cycle> &all, uint32_t min_length, uint32_t max_length) {
	std::vector<Cycle> out;
	for (const Cycle &c : all)
		if (c.size() >= min_length && c.size() <= max_length)
			out.push_back(c);
	return out;
}

std::vector<uint64_t>
counts_of(const std::vector<Cycle> &cycles) {
	std::vector<uint64_t> counts;
	for (const Cycle &c : cycles) {
		if (c.size() >= counts.size())
			counts.resize(c.size() + 1, 0);
		counts[c.size()]++;
	}
	return counts;
}

// The enumerator's cycles as the server sends them.
std::vector<uint8_t>
bytes_of(const std::vector<Cycle> &cycles) {
	CycleBatch b;
	for (const Cycle &c : cycles) {
		b.vertices.insert(b.vertices.end(), c.begin(), c.end());
		b.starts.push_back(b.vertices.size());
	}
	std::vector<uint8_t> out;
	append_cycles(b, out);
	return out;
}

std::vector<Cycle>
sorted(std::vector<Cycle> v) {
	std::sort(v.begin(), v.end());
	return v;
}

// Reads a whole stream; chunks: the cycles each chunk frame completed.
std::vector<Cycle>
read_stream(const std::string &socket, const ChordlessRequest &q, const CycleShape &shape,
            std::vector<size_t> *chunks = nullptr) {
	Stream stream(socket, FrameType::chordless, encode(q), nullptr);
	CycleReceiver receiver(shape);
	CycleBatch batch;
	std::vector<Cycle> got;
	while (stream.next(nullptr, [&](const uint8_t *p, size_t n) { receiver.take(p, n, batch); })) {
		if (chunks)
			chunks->push_back(batch.size());
		for (Cycle &c : cycles_of(batch))
			got.push_back(std::move(c));
		batch.clear();
	}
	receiver.finish();
	EXPECT_TRUE(stream.ended());
	return got;
}

} // namespace

TEST(GpuServiceChordless, RequestRoundTripsAndBadOnesAreRefused) {
	ImageRef ref{std::string("1_2_3_") + kUuid + ".img", kUuid};
	for (bool counts : {false, true})
		for (uint32_t max_length : {3u, 7u, kNoLengthLimit}) {
			ChordlessRequest q{ref, 3, max_length, counts};
			std::vector<uint8_t> bytes = encode(q);
			ChordlessRequest got = decode_chordless(bytes.data(), bytes.size());
			EXPECT_EQ(got.image.file, ref.file);
			EXPECT_EQ(got.min_length, 3u);
			EXPECT_EQ(got.max_length, max_length);
			EXPECT_EQ(got.counts, counts);
			// Cut anywhere, or one byte more: refused.
			for (size_t at = 0; at < bytes.size(); at++)
				EXPECT_THROW(decode_chordless(bytes.data(), at), std::exception) << at;
			bytes.push_back(0);
			EXPECT_THROW(decode_chordless(bytes.data(), bytes.size()), ProtocolError);
		}
	ChordlessRequest longer{ref, 5, 9, false};
	std::vector<uint8_t> bytes = encode(longer);
	EXPECT_EQ(decode_chordless(bytes.data(), bytes.size()).min_length, 5u);
	for (ChordlessRequest bad : {ChordlessRequest{ref, 2, 9, false}, ChordlessRequest{ref, 0, 0, false},
	                             ChordlessRequest{ref, 6, 5, false}, ChordlessRequest{ref, 4, 9, true}}) {
		bytes = encode(bad);
		EXPECT_THROW(decode_chordless(bytes.data(), bytes.size()), ProtocolError)
		    << bad.min_length << " " << bad.max_length;
	}
	// Neither cycles nor counts; another image name; another protocol version.
	bytes = encode(longer);
	bytes.back() = 2;
	EXPECT_THROW(decode_chordless(bytes.data(), bytes.size()), ProtocolError);
	ChordlessRequest outside{{"../1_2_3_x.img", kUuid}, 3, 9, false};
	bytes = encode(outside);
	EXPECT_THROW(decode_chordless(bytes.data(), bytes.size()), Error);
	bytes = encode(longer);
	bytes[0] ^= 1;
	EXPECT_THROW(decode_chordless(bytes.data(), bytes.size()), VersionMismatch);
}

TEST(GpuServiceChordless, SplitAtEveryByteGivesTheSameCycles) {
	for (uint64_t seed = 1; seed <= 40; seed++) {
		Case c = random_case(seed);
		std::vector<Cycle> cycles(c.cycles.begin(), c.cycles.end());
		std::vector<uint8_t> bytes = bytes_of(cycles);
		CycleShape shape{c.index.graph().vertex_count(), 3, kNoLengthLimit};
		for (size_t at = 0; at <= bytes.size(); at++) {
			CycleReceiver r(shape);
			CycleBatch batch;
			r.take(bytes.data(), at, batch);
			r.take(bytes.data() + at, bytes.size() - at, batch);
			r.finish();
			ASSERT_EQ(cycles_of(batch), cycles) << c.what << " split at " << at;
			EXPECT_EQ(r.cycles(), cycles.size());
		}
		CycleReceiver single(shape);
		CycleBatch batch;
		for (uint8_t b : bytes)
			single.take(&b, 1, batch);
		single.finish();
		EXPECT_EQ(cycles_of(batch), cycles) << c.what << " byte by byte";
	}
}

TEST(GpuServiceChordless, TruncatedOrExtendedStreamsAreRefused) {
	for (uint64_t seed = 1; seed <= 40; seed++) {
		Case c = random_case(seed);
		std::vector<Cycle> cycles(c.cycles.begin(), c.cycles.end());
		std::vector<uint8_t> bytes = bytes_of(cycles);
		CycleShape shape{c.index.graph().vertex_count(), 3, kNoLengthLimit};
		// Where each cycle's bytes end: a stream cut there is whole (its end frame says it ended);
		// cut anywhere else, it ends in the middle of a cycle.
		std::set<size_t> ends{0};
		for (size_t at = 0, i = 0; i < cycles.size(); i++)
			ends.insert(at += 4 * (cycles[i].size() + 1));
		for (size_t at = 0; at <= bytes.size(); at++) {
			CycleReceiver r(shape);
			CycleBatch batch;
			r.take(bytes.data(), at, batch);
			if (ends.count(at))
				EXPECT_NO_THROW(r.finish()) << c.what << " cut at " << at;
			else
				EXPECT_THROW(r.finish(), ProtocolError) << c.what << " cut at " << at;
		}
		// One to three bytes more: a partial length.
		for (size_t extra = 1; extra < 4; extra++) {
			std::vector<uint8_t> longer = bytes;
			longer.resize(bytes.size() + extra, 3);
			CycleReceiver r(shape);
			CycleBatch batch;
			r.take(longer.data(), longer.size(), batch);
			EXPECT_THROW(r.finish(), ProtocolError) << c.what;
			EXPECT_EQ(cycles_of(batch), cycles);
		}
	}
}

TEST(GpuServiceChordless, CyclesOfNoSuchGraphAreRefused) {
	CycleShape shape{6, 3, 5};
	auto refused = [&](const std::vector<uint32_t> &values, const char *what) {
		const uint8_t *p = reinterpret_cast<const uint8_t *>(values.data());
		size_t n = values.size() * 4;
		for (size_t at = 0; at <= n; at++) {
			CycleReceiver r(shape);
			CycleBatch batch;
			EXPECT_THROW(
			    {
				    r.take(p, at, batch);
				    r.take(p + at, n - at, batch);
				    r.finish();
			    },
			    ProtocolError)
			    << what << " split at " << at;
		}
	};
	{
		std::vector<uint32_t> good{3, 0, 1, 2, 5, 1, 2, 3, 4, 5};
		CycleReceiver r(shape);
		CycleBatch batch;
		r.take(reinterpret_cast<const uint8_t *>(good.data()), good.size() * 4, batch);
		r.finish();
		EXPECT_EQ(cycles_of(batch), (std::vector<Cycle>{{0, 1, 2}, {1, 2, 3, 4, 5}}));
	}
	refused({3, 0, 1, 6}, "a vertex past the graph");
	refused({3, 0, 1, UINT32_MAX}, "the largest vertex");
	refused({2, 0, 1}, "a cycle of two");
	refused({0}, "a cycle of none");
	refused({6, 0, 1, 2, 3, 4, 5}, "longer than max_length");
	refused({UINT32_MAX}, "a length past everything");
	refused({3, 1, 0, 2}, "not its smallest vertex first");
	refused({3, 0, 2, 1}, "towards the larger neighbour");
	refused({3, 0, 1, 0}, "a vertex twice");
	refused({4, 0, 1, 2, 1}, "its second vertex last too");
	// Lengths against min_length and the vertex count.
	CycleShape longer{4, 4, kNoLengthLimit};
	std::vector<uint32_t> three{3, 0, 1, 2}, five{5, 0, 1, 2, 3, 4};
	for (const auto *values : {&three, &five}) {
		CycleReceiver r(longer);
		CycleBatch batch;
		EXPECT_THROW(r.take(reinterpret_cast<const uint8_t *>(values->data()), values->size() * 4, batch),
		             ProtocolError);
	}
}

TEST(GpuServiceChordless, CountsRoundTripAndImpossibleOnesAreRefused) {
	for (uint64_t seed = 1; seed <= 40; seed++) {
		Case c = random_case(seed);
		std::vector<uint64_t> counts = count_chordless_cycles(c.index.graph().out);
		EXPECT_EQ(counts, counts_of(within(c.cycles, 3, kNoLengthLimit))) << c.what;
		std::vector<uint8_t> bytes = encode_counts(counts);
		EXPECT_EQ(decode_counts(bytes, c.index.graph().vertex_count(), kNoLengthLimit), counts);
		for (size_t at = 0; at < bytes.size(); at++)
			EXPECT_THROW(decode_counts(std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(at)),
			                           c.index.graph().vertex_count(), kNoLengthLimit),
			             ProtocolError);
	}
	auto refused = [](std::vector<uint64_t> counts, size_t vertices, uint32_t max_length) {
		EXPECT_THROW(decode_counts(encode_counts(counts), vertices, max_length), ProtocolError);
	};
	EXPECT_EQ(decode_counts(encode_counts({0, 0, 0, 4, 1}), 5, 4), (std::vector<uint64_t>{0, 0, 0, 4, 1}));
	EXPECT_TRUE(decode_counts(encode_counts({}), 0, 3).empty());
	refused({0, 0, 0, 4, 0}, 5, 9); // a trailing zero
	refused({0, 0, 1}, 5, 9);       // a cycle of two
	refused({0, 0, 0, 4, 1}, 3, 9); // longer than the vertices
	refused({0, 0, 0, 4, 1}, 9, 3); // longer than max_length
	refused({1, 0, 0, 4}, 9, 9);    // a cycle of none
	refused({0, 0, 0}, 9, 9);       // no cycle of three but counted
	std::vector<uint8_t> huge = encode_counts({0, 0, 0, 1});
	uint64_t lie = uint64_t(1) << 60;
	std::memcpy(huge.data(), &lie, sizeof lie);
	EXPECT_THROW(decode_counts(huge, 9, 9), ProtocolError);
}

// Through the server: every random graph's cycles, in several length ranges, and its counts equal
// the oracle's; the graph of self-loops only has none.
void
cycles_and_counts_equal_the_oracle(std::unique_ptr<Executor> executor) {
	Scratch s;
	RunningServer running(s, std::move(executor));
	for (uint64_t seed = 1; seed <= 60; seed++) {
		Case c = random_case(seed);
		ImageRef ref = s.write(c.index, int(seed));
		size_t n = c.index.graph().vertex_count();
		for (auto [lo, hi] : std::vector<std::pair<uint32_t, uint32_t>>{
		         {3, kNoLengthLimit}, {3, 3}, {4, 5}, {5, kNoLengthLimit}, {100, kNoLengthLimit}}) {
			std::vector<Cycle> got = read_stream(s.socket, ChordlessRequest{ref, lo, hi, false}, CycleShape{n, lo, hi});
			EXPECT_EQ(sorted(got), within(c.cycles, lo, hi)) << c.what << " lengths " << lo << ".." << hi;
		}
		for (uint32_t hi : {3u, 4u, 6u, kNoLengthLimit}) {
			std::vector<uint8_t> bytes =
			    call(s.socket, FrameType::chordless, encode(ChordlessRequest{ref, 3, hi, true}), nullptr);
			EXPECT_EQ(decode_counts(bytes, n, hi), counts_of(within(c.cycles, 3, hi))) << c.what << " to " << hi;
		}
	}
	// A graph of self-loops only: vertices, no cycle.
	EdgeList loops;
	loops.append(INT64_MIN, INT64_MIN);
	loops.append(INT64_MAX, INT64_MAX);
	Index index = Index::build(loops, BuildOptions{});
	ImageRef ref = s.write(index, 999);
	EXPECT_TRUE(read_stream(s.socket, ChordlessRequest{ref, 3, kNoLengthLimit, false}, CycleShape{2, 3, kNoLengthLimit})
	                .empty());
	EXPECT_TRUE(decode_counts(call(s.socket, FrameType::chordless,
	                               encode(ChordlessRequest{ref, 3, kNoLengthLimit, true}), nullptr),
	                          2, kNoLengthLimit)
	                .empty());
}

TEST(GpuServiceChordless, ServerCyclesAndCountsEqualTheOracle) {
	cycles_and_counts_equal_the_oracle(cpu_stand_in());
}

// The same with the GPU executor (the GPU machine); a graph past the device search's vertices is an
// error frame (limit_exceeded: the backend falls back under auto), and a reader that stops early
// ends the device enumeration.
TEST(GpuServiceChordless, GpuExecutorEqualsTheOracle) {
	std::string why;
	std::unique_ptr<Executor> gpu = gpu_executor(&why);
	if (!gpu)
		GTEST_SKIP() << "no usable GPU: " << why;
	cycles_and_counts_equal_the_oracle(std::move(gpu));
	Scratch s;
	RunningServer running(s, gpu_executor(&why));
	EdgeList path;
	for (int64_t i = 0; i < int64_t(kGpuChordlessMaxVertices) + 10; i++)
		path.append(i, i + 1);
	path.append(0, 2);
	Index large = Index::build(path, BuildOptions{});
	ImageRef ref = s.write(large, 1);
	try {
		Stream stream(s.socket, FrameType::chordless, encode(ChordlessRequest{ref, 3, kNoLengthLimit, false}), nullptr);
		stream.next(nullptr, [](const uint8_t *, size_t) {});
		ADD_FAILURE() << "the device took a graph past its vertices";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::limit_exceeded) << e.what();
	}
	EdgeList rows;
	Csr g = complete_bipartite(150, 150);
	for (vid_t v = 0; v < g.vertex_count(); v++)
		for (const vid_t *t = g.begin(v); t != g.end(v); t++)
			rows.append(v, *t);
	Index index = Index::build(rows, BuildOptions{});
	ImageRef kb = s.write(index, 2);
	auto stream =
	    std::make_unique<Stream>(s.socket, FrameType::chordless, encode(ChordlessRequest{kb, 3, 4, false}), nullptr);
	CycleReceiver receiver(CycleShape{index.graph().vertex_count(), 3, 4});
	CycleBatch batch;
	while (receiver.cycles() < 5 &&
	       stream->next(nullptr, [&](const uint8_t *p, size_t n) { receiver.take(p, n, batch); })) {
	}
	EXPECT_GE(receiver.cycles(), 5u);
	EXPECT_EQ(running.server.active_connections(), 1u);
	stream.reset();
	wait_until([&] { return running.server.active_connections() == 0; });
	// The device is free for the next request.
	EXPECT_EQ(decode_counts(call(s.socket, FrameType::chordless, encode(ChordlessRequest{kb, 3, 4, true}), nullptr),
	                        index.graph().vertex_count(), 4),
	          count_chordless_cycles(index.graph().out, 4));
}

// One cycle longer than a chunk: its bytes span chunk frames, and it arrives whole.
TEST(GpuServiceChordless, ACycleAcrossChunks) {
	Scratch s;
	RunningServer running(s);
	const int64_t n = 300000;
	EdgeList ring;
	for (int64_t i = 0; i < n; i++)
		ring.append(i, (i + 1) % n);
	Index index = Index::build(ring, BuildOptions{});
	ImageRef ref = s.write(index, 1);
	std::vector<size_t> chunks;
	std::vector<Cycle> got = read_stream(s.socket, ChordlessRequest{ref, 3, kNoLengthLimit, false},
	                                     CycleShape{size_t(n), 3, kNoLengthLimit}, &chunks);
	ASSERT_EQ(got.size(), 1u);
	ASSERT_EQ(got[0].size(), size_t(n));
	EXPECT_EQ(got[0][0], 0u);
	EXPECT_EQ(got[0][1], 1u);
	EXPECT_EQ(got[0].back(), vid_t(n - 1));
	EXPECT_GE(chunks.size(), 2u); // 4 * 300001 bytes: two chunk frames at least
	EXPECT_EQ(chunks.back(), 1u); // the cycle completed by the last one
	// Shorter than its length asked for: none.
	EXPECT_TRUE(read_stream(s.socket, ChordlessRequest{ref, 3, 1000, false}, CycleShape{size_t(n), 3, 1000}).empty());
}

// A reader that stops early (a LIMIT): the first cycle comes alone in the first chunk while the
// enumeration goes on (K150,150 has 125 million chordless 4-cycles, more than the test could
// enumerate), and closing the connection ends the request in the server.
TEST(GpuServiceChordless, ALimitStopsTheEnumeration) {
	Scratch s;
	RunningServer running(s);
	EdgeList rows;
	Csr g = complete_bipartite(150, 150);
	for (vid_t v = 0; v < g.vertex_count(); v++)
		for (const vid_t *t = g.begin(v); t != g.end(v); t++)
			rows.append(v, *t);
	Index index = Index::build(rows, BuildOptions{});
	ImageRef ref = s.write(index, 1);
	for (int attempt = 0; attempt < 3; attempt++) {
		auto stream = std::make_unique<Stream>(s.socket, FrameType::chordless,
		                                       encode(ChordlessRequest{ref, 3, kNoLengthLimit, false}), nullptr);
		CycleReceiver receiver(CycleShape{index.graph().vertex_count(), 3, kNoLengthLimit});
		CycleBatch batch;
		std::vector<size_t> per_chunk;
		while (receiver.cycles() < 5 && stream->next(nullptr, [&](const uint8_t *p, size_t n) {
			size_t before = batch.size();
			receiver.take(p, n, batch);
			per_chunk.push_back(batch.size() - before);
		})) {
		}
		ASSERT_GE(receiver.cycles(), 5u);
		EXPECT_EQ(per_chunk[0], 1u); // the first cycle alone
		if (per_chunk.size() > 1) {
			EXPECT_EQ(per_chunk[1], 2u); // then twice as many
		}
		// The enumeration still runs (it waits for this reader): the first cycles came before its end.
		EXPECT_EQ(running.server.active_connections(), 1u);
		EXPECT_FALSE(stream->ended());
		stream.reset(); // the LIMIT reached: the connection closed
		wait_until([&] { return running.server.active_connections() == 0; });
	}
	// The server answers the next request.
	std::vector<uint8_t> info = call(s.socket, FrameType::info, encode_info_request(), nullptr);
	EXPECT_EQ(decode_info(info).images.size(), 1u);
}

// A request held before its work (the test hook) whose client hangs up is cancelled: the hold file
// is still there when its thread ends. A server stopping ends a stream whose reader waits.
TEST(GpuServiceChordless, HangUpAndStopEndTheRequest) {
	Scratch s;
	std::string hold = s.dir + "/hold";
	EdgeList rows;
	Csr g = complete_bipartite(150, 150);
	for (vid_t v = 0; v < g.vertex_count(); v++)
		for (const vid_t *t = g.begin(v); t != g.end(v); t++)
			rows.append(v, *t);
	Index index = Index::build(rows, BuildOptions{});
	ImageRef ref = s.write(index, 1);
	{
		RunningServer running(s, cpu_stand_in(), hold);
		std::ofstream(hold) << "hold";
		for (bool counts : {false, true}) {
			auto stream = std::make_unique<Stream>(s.socket, FrameType::chordless,
			                                       encode(ChordlessRequest{ref, 3, kNoLengthLimit, counts}), nullptr);
			wait_until([&] { return running.server.active_connections() == 1; });
			std::this_thread::sleep_for(std::chrono::milliseconds(50));
			EXPECT_EQ(running.server.active_connections(), 1u);
			stream.reset();
			wait_until([&] { return running.server.active_connections() == 0; });
			EXPECT_EQ(access(hold.c_str(), F_OK), 0);
		}
		unlink(hold.c_str());
	}
	// A reader that reads one chunk and waits: the server's stop ends its request (its write wait has
	// no timeout, but the stop ends it), and the reader sees the connection closed.
	std::unique_ptr<Stream> stream;
	{
		RunningServer running(s);
		stream = std::make_unique<Stream>(s.socket, FrameType::chordless,
		                                  encode(ChordlessRequest{ref, 3, kNoLengthLimit, false}), nullptr);
		CycleReceiver receiver(CycleShape{index.graph().vertex_count(), 3, kNoLengthLimit});
		CycleBatch batch;
		ASSERT_TRUE(stream->next(nullptr, [&](const uint8_t *p, size_t n) { receiver.take(p, n, batch); }));
		EXPECT_EQ(batch.size(), 1u);
	} // the server stops and returns
	EXPECT_THROW(
	    {
		    CycleReceiver receiver(CycleShape{index.graph().vertex_count(), 3, kNoLengthLimit});
		    CycleBatch batch;
		    while (stream->next(nullptr, [&](const uint8_t *p, size_t n) { receiver.take(p, n, batch); })) {
		    }
	    },
	    std::exception); // the connection closed before the end frame, or the stop's error frame
}

// Errors come as error frames: an image no longer in the cache, bad lengths.
TEST(GpuServiceChordless, ErrorsAreErrorFrames) {
	Scratch s;
	RunningServer running(s);
	EdgeList rows;
	rows.append(1, 2);
	rows.append(2, 3);
	rows.append(3, 1);
	Index index = Index::build(rows, BuildOptions{});
	ImageRef ref = s.write(index, 1);
	ImageRef gone{std::string("1_2_1_") + kUuid + ".img", kUuid};
	auto first_frame = [&](const ChordlessRequest &q) {
		Stream stream(s.socket, FrameType::chordless, encode(q), nullptr);
		stream.next(nullptr, [](const uint8_t *, size_t) {});
	};
	EXPECT_THROW(first_frame(ChordlessRequest{gone, 3, kNoLengthLimit, false}), ImageMissing);
	EXPECT_THROW(call(s.socket, FrameType::chordless, encode(ChordlessRequest{gone, 3, 9, true}), nullptr),
	             ImageMissing);
	try {
		first_frame(ChordlessRequest{ref, 2, kNoLengthLimit, false});
		ADD_FAILURE() << "a length of 2 was taken";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::invalid_input);
		EXPECT_NE(std::string(e.what()).find("min_length"), std::string::npos) << e.what();
	}
	// And the good request after them.
	std::vector<Cycle> got =
	    read_stream(s.socket, ChordlessRequest{ref, 3, kNoLengthLimit, false}, CycleShape{3, 3, kNoLengthLimit});
	EXPECT_EQ(got, (std::vector<Cycle>{{0, 1, 2}}));
}
