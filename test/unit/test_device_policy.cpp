// DevicePolicy: which device runs an algorithm under each mode, when the GPU is probed, and the
// fallback to the CPU after a GPU failure, against probes that say what the test wants; and
// SearchDeviceChoice, automatic's choice of device for a graph's batches by their measured costs.
#include "device_policy.hpp"
#include "error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace grail;

namespace {

int probes = 0;

const GpuProbe &
usable_gpu() {
	static GpuProbe probe{true, "a test GPU"};
	probes++;
	return probe;
}

const GpuProbe &
no_gpu() {
	static GpuProbe probe{false, "no device in this test"};
	probes++;
	return probe;
}

DevicePolicy
policy(DeviceMode mode, uint64_t min_edges = 100, size_t min_searches = 256) {
	DevicePolicy p;
	p.mode = mode;
	p.min_edges = min_edges;
	p.min_searches = min_searches;
	return p;
}

// A graph of n vertices and m edges (all to vertex 0: only the counts matter here).
Csr
graph(uint32_t n, uint64_t m) {
	Csr g;
	g.offsets.assign(n + 1, 0);
	for (uint64_t i = 0; i < m; i++)
		g.offsets[i % n + 1]++;
	for (uint32_t v = 0; v < n; v++)
		g.offsets[v + 1] += g.offsets[v];
	g.targets.assign(m, 0);
	return g;
}

} // namespace

TEST(DevicePolicy, CpuNeverProbes) {
	probes = 0;
	EXPECT_FALSE(policy(DeviceMode::cpu).use_gpu(10, 1000000, usable_gpu));
	EXPECT_EQ(probes, 0);
}

TEST(DevicePolicy, GpuRequiresAUsableGpu) {
	EXPECT_TRUE(policy(DeviceMode::gpu).use_gpu(1000, 1, usable_gpu)); // whatever the graph
	try {
		policy(DeviceMode::gpu).use_gpu(1000, 1, no_gpu);
		FAIL() << "no error without a GPU";
	} catch (const Error &e) {
		EXPECT_EQ(e.kind(), ErrorKind::invalid_input);
		EXPECT_EQ(std::string(e.what()), "grail.device is gpu, but no GPU is usable: no device in this test");
		EXPECT_EQ(e.hint(), "SET grail.device = auto (or cpu) to run on the CPU.");
	}
}

TEST(DevicePolicy, AutomaticWantsEnoughEdgesAndDegreeTwo) {
	DevicePolicy p = policy(DeviceMode::automatic, 100);
	probes = 0;
	EXPECT_FALSE(p.use_gpu(10, 99, usable_gpu));  // too few edges
	EXPECT_FALSE(p.use_gpu(51, 100, usable_gpu)); // average out-degree below 2
	EXPECT_EQ(probes, 0) << "the GPU is probed only when the answer depends on it";
	EXPECT_TRUE(p.use_gpu(50, 100, usable_gpu));
	EXPECT_FALSE(p.use_gpu(50, 100, no_gpu));
	EXPECT_EQ(probes, 2);
}

TEST(DevicePolicy, BatchSearchesByMode) {
	EXPECT_FALSE(policy(DeviceMode::cpu).batch_may_use_gpu(1000000));
	EXPECT_FALSE(policy(DeviceMode::gpu).batch_may_use_gpu(0));
	EXPECT_TRUE(policy(DeviceMode::gpu).batch_may_use_gpu(1));
	EXPECT_FALSE(policy(DeviceMode::automatic, 100, 256).batch_may_use_gpu(255));
	EXPECT_TRUE(policy(DeviceMode::automatic, 100, 256).batch_may_use_gpu(256));
	EXPECT_FALSE(policy(DeviceMode::automatic, 100, 0).batch_may_use_gpu(0));
}

TEST(DevicePolicy, FallsBackOnlyUnderAutomaticFromMemoryLimits) {
	Error memory(ErrorKind::limit_exceeded, "does not fit"), other(ErrorKind::invalid_input, "bad");
	EXPECT_TRUE(policy(DeviceMode::automatic).falls_back(memory));
	EXPECT_FALSE(policy(DeviceMode::automatic).falls_back(other));
	EXPECT_FALSE(policy(DeviceMode::gpu).falls_back(memory));
}

TEST(DevicePolicy, RunOnDevice) {
	Csr dense = graph(10, 200), thin = graph(200, 200);
	std::vector<std::string> told;
	DeviceFallback tell = [&](const char *what, const std::string &reason) {
		told.push_back(std::string(what) + ": " + reason);
	};
	auto gpu_ok = [] { return std::string("gpu"); };
	auto gpu_full = []() -> std::string { throw Error(ErrorKind::limit_exceeded, "out of device memory"); };
	auto cpu = [] { return std::string("cpu"); };

	DevicePolicy automatic = policy(DeviceMode::automatic, 100);
	EXPECT_EQ(run_on_device(automatic, "x", dense, gpu_ok, cpu, tell, usable_gpu), "gpu");
	EXPECT_EQ(run_on_device(automatic, "x", thin, gpu_ok, cpu, tell, usable_gpu), "cpu");
	EXPECT_EQ(run_on_device(automatic, "x", dense, gpu_ok, cpu, tell, no_gpu), "cpu");
	EXPECT_TRUE(told.empty());
	EXPECT_EQ(run_on_device(automatic, "the test", dense, gpu_full, cpu, tell, usable_gpu), "cpu");
	EXPECT_EQ(told, std::vector<std::string>{"the test: out of device memory"});

	told.clear();
	EXPECT_THROW(run_on_device(policy(DeviceMode::gpu), "x", dense, gpu_full, cpu, tell, usable_gpu), Error);
	auto gpu_bad = []() -> std::string { throw Error(ErrorKind::invalid_input, "bad"); };
	EXPECT_THROW(run_on_device(automatic, "x", dense, gpu_bad, cpu, tell, usable_gpu), Error);
	EXPECT_EQ(run_on_device(policy(DeviceMode::cpu), "x", dense, gpu_full, cpu, tell, usable_gpu), "cpu");
	EXPECT_TRUE(told.empty());
}

// SearchDeviceChoice: the GPU first, then the CPU, then the cheaper per search, with the other
// tried again after a stretch that doubles each time it loses and starts over when it wins.
namespace {

// Asks for the next batch's device and records its searches at the cost that device has now.
bool
run_batch(SearchDeviceChoice &choice, double gpu_ms, double cpu_ms, size_t searches = 1000) {
	bool gpu = choice.gpu_next();
	choice.record(gpu, searches, (gpu ? gpu_ms : cpu_ms) * double(searches));
	return gpu;
}

// The batches until the device that is not the cheaper is tried (the count of batches on the
// cheaper one before it), at most `most`.
int
batches_before_other(SearchDeviceChoice &choice, bool cheaper_gpu, double gpu_ms, double cpu_ms, int most = 5000) {
	for (int k = 0; k < most; k++)
		if (run_batch(choice, gpu_ms, cpu_ms) != cheaper_gpu)
			return k;
	return -1;
}

} // namespace

TEST(SearchDeviceChoice, TriesTheGpuThenTheCpuThenKeepsTheCheaper) {
	SearchDeviceChoice choice;
	EXPECT_TRUE(run_batch(choice, 0.02, 0.01));
	EXPECT_FALSE(run_batch(choice, 0.02, 0.01));
	EXPECT_DOUBLE_EQ(choice.cost(true), 0.02);
	EXPECT_DOUBLE_EQ(choice.cost(false), 0.01);
	for (int k = 0; k < int(SearchDeviceChoice::kFirstStretch); k++)
		EXPECT_FALSE(run_batch(choice, 0.02, 0.01)) << k;
	// Where the GPU is the faster, it keeps the batches the same way.
	SearchDeviceChoice gpu_wins;
	run_batch(gpu_wins, 0.001, 0.01);
	run_batch(gpu_wins, 0.001, 0.01);
	for (int k = 0; k < int(SearchDeviceChoice::kFirstStretch); k++)
		EXPECT_TRUE(run_batch(gpu_wins, 0.001, 0.01)) << k;
}

TEST(SearchDeviceChoice, TheLoserIsTriedAgainLessAndLessOften) {
	SearchDeviceChoice choice;
	run_batch(choice, 0.02, 0.01);
	run_batch(choice, 0.02, 0.01);
	uint64_t stretch = SearchDeviceChoice::kFirstStretch;
	for (int round = 0; round < 10; round++) {
		EXPECT_EQ(batches_before_other(choice, false, 0.02, 0.01), int(stretch)) << round;
		stretch = std::min(stretch * 2, SearchDeviceChoice::kLongestStretch);
	}
	EXPECT_EQ(batches_before_other(choice, false, 0.02, 0.01), int(SearchDeviceChoice::kLongestStretch));
}

TEST(SearchDeviceChoice, FollowsTheCostsWhenTheyChange) {
	SearchDeviceChoice choice;
	run_batch(choice, 0.02, 0.01);
	run_batch(choice, 0.02, 0.01);
	// The CPU gets slower (the machine gets busy): once its average passes the GPU's measured cost,
	// the GPU takes the batches.
	int on_cpu = 0;
	while (!run_batch(choice, 0.02, 0.05) && on_cpu < 100)
		on_cpu++;
	EXPECT_GT(on_cpu, 0);
	EXPECT_LT(on_cpu, 10);
	for (int k = 0; k < 5; k++)
		EXPECT_TRUE(run_batch(choice, 0.02, 0.05)) << k;
	// The GPU gets slower in turn, and its stretch started over when it won: the CPU is tried
	// again within the first stretch, wins, and takes the batches back.
	EXPECT_LE(batches_before_other(choice, true, 0.2, 0.01), int(SearchDeviceChoice::kFirstStretch));
	int on_gpu = 0;
	while (run_batch(choice, 0.2, 0.01) && on_gpu < 100)
		on_gpu++;
	EXPECT_LE(on_gpu, int(SearchDeviceChoice::kFirstStretch) + 1);
	for (int k = 0; k < 5; k++)
		EXPECT_FALSE(run_batch(choice, 0.2, 0.01)) << k;
}

TEST(SearchDeviceChoice, AnEmptyBatchOrABadTimeTeachesNothing) {
	SearchDeviceChoice choice;
	EXPECT_TRUE(choice.gpu_next());
	choice.record(true, 0, 5.0);
	choice.record(true, 100, -1.0);
	choice.record(true, 100, std::nan(""));
	EXPECT_EQ(choice.cost(true), 0.0);
	EXPECT_TRUE(choice.gpu_next());
}
