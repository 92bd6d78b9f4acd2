// A backend's use of the GPU service (docs/architecture.md, The GPU service): where the device
// policy picks the GPU for a graph whose image is in the shared cache and the service runs, the
// work goes to the service instead of a CUDA context in this backend. A private copy of an image
// (not in the shared cache) and a live graph's snapshot rebuild keep the per-backend GPU path.
//
// When the service fails in the middle of a request (it crashed, was killed, or answered an
// error): under grail.device = auto a NOTICE and the CPU's answer; under gpu an error saying why.
// A cancel closes the connection, which cancels the request in the service.
#pragma once

#include "bfs.hpp"
#include "chordless.hpp"
#include "device_policy.hpp"
#include "graph.hpp"
#include "index.hpp"

#include "gpu_service/rows_file.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "service/open_graph.hpp"

namespace grail::pg {

// The probe the device policy asks for this graph: the service's (usable while it runs) when the
// graph's image can go to it, else this backend's GPU.
grail::DevicePolicy::Probe gpu_probe_for(const LoadedGraph &graph);

// The rows of bfs over the graph's edges (reverse: against edge direction) from the service, or
// none where the graph cannot go to it (the caller then runs its own GPU path). what names the
// SQL function for messages. Under auto, a failure of the service is an Error(limit_exceeded)
// that the policy falls back from with a NOTICE; under gpu, an error.
std::optional<grail::BfsResult> service_bfs(const LoadedGraph &graph, bool reverse, grail::vid_t source,
                                            uint32_t max_depth, const char *what);

// A chordless-cycle enumeration running in the service, read as rows are asked for: the service
// sends its cycles as it finds them (the first one alone), and runs ahead of this reader only as far
// as the connection's buffer holds. Destroying it closes the connection, which stops the
// enumeration in the service (a LIMIT, a cancel, the end of the statement).
class ServiceCycles {
public:
	~ServiceCycles();
	ServiceCycles(const ServiceCycles &) = delete;
	ServiceCycles &operator=(const ServiceCycles &) = delete;
	// Replaces the batch's contents with the next cycles (at least one), each checked as a chordless
	// cycle of the graph in the lengths asked for; false (and an empty batch) at the end. A failure
	// of the service here, after cycles were returned, is an error under either grail.device (the
	// rows already returned cannot be taken back, so the CPU does not take over from the middle).
	bool next(grail::CycleBatch &batch);

	struct State;

private:
	friend std::unique_ptr<ServiceCycles> service_chordless_cycles(const LoadedGraph &, uint32_t, uint32_t,
	                                                               const char *);
	explicit ServiceCycles(std::unique_ptr<State> state);
	std::unique_ptr<State> state_;
};

// The chordless cycles of the graph (min_length <= length <= max_length) from the service, or null
// where the graph cannot go to it (the caller then runs its own GPU path). The request is sent and
// its first cycles (or its end) read here, so that a failure before any row is as service_bfs()'s:
// under auto an Error(limit_exceeded) the policy falls back from with a NOTICE, under gpu an error.
std::unique_ptr<ServiceCycles> service_chordless_cycles(const LoadedGraph &graph, uint32_t min_length,
                                                        uint32_t max_length, const char *what);
// Their counts by length (count_chordless_cycles()'s) from the service, or none where the graph
// cannot go to it; failures as service_bfs()'s.
std::optional<std::vector<uint64_t>> service_chordless_counts(const LoadedGraph &graph, uint32_t max_length,
                                                              const char *what);

// Answers a reachability batch with the service's help: the ids and labels decide here (most pairs,
// in O(1) each: shipping them would cost more than deciding them), and only the pairs they leave
// undecided go to the service, as component pairs it only searches (its search time is logged at
// DEBUG1 apart from the deciding). With a live graph's overlay of pending changes (reach is not the
// build's), the pairs whose source reaches no edge the changes insert or delete are the build's and
// go that way; the overlay answers the others here. Returns how many pairs needed a search, or
// nothing where the batch cannot go there (a private image, the service not running, the policy's
// CPU, changes whose reach is too costly to bound): the caller answers it as before. Under auto, a
// failure of the service is a NOTICE and the CPU's answers; so are too few searches to pay for the
// trip.
std::optional<size_t> service_reachable_many(LoadedGraph &graph, grail::Reach &reach, const int64_t *a,
                                             const int64_t *b, size_t count, bool *answers);

// reach.reachable_many(a, b, count, answers) under the settings' device policy, through the service
// where service_reachable_many() takes the batch, else in this backend; on the CPU with
// grail.search_threads' helpers; what the searches keep for the next batch is counted in
// grail.backend_memory_limit (LoadedGraph::count_scratch()). Returns the pairs that needed a search.
size_t answer_pairs(LoadedGraph &graph, grail::Reach &reach, const int64_t *a, const int64_t *b, size_t count,
                    bool *answers);

// Whether builds go to the service: it runs (or is being started again) and grail.device is not
// cpu. Builds then make no CUDA context in this backend: the graph, its components, the DAG and the
// labels are made in the service where the policy picks the GPU (its probe: service_gpu_probe()),
// everything else on this backend's CPU.
bool service_takes_builds();
const grail::GpuProbe &service_gpu_probe();

// What the service made of a build's rows: what Index::build's graph_builder and label_builder
// return, arrays borrowed from the one copy of the answer.
struct ServiceBuild {
	grail::BuiltGraph graph;
	grail::GrailLabels labels;
	double label_seconds = 0;
};
// Sends the rows (as Index::build's graph_builder gets them: integer ids, or text and uuid keys'
// dictionary numbers) to the service and returns what it built; the rows are released once the
// answer is in (kept until then, for the CPU fallback). Failures: under auto a NOTICE and none (the
// rows untouched: the host's steps build them); under gpu an error that says why. A cancel ends the
// transfer or the wait and cancels the build in the service. Waits at most grail.gpu_service_wait
// (under auto) for the service to take the rows and begin.
std::optional<ServiceBuild> service_build(grail::EdgeList &rows, unsigned labels, uint64_t seed);
// The same from rows the read wrote into a rows file (integer keys): sealed and passed as they lie,
// no copy; released once the answer is in, left sealed for the host's steps (RowsFile::move_to)
// where none comes under auto.
std::optional<ServiceBuild> service_build(grail::service::RowsFile &rows, unsigned labels, uint64_t seed);

// The service's resident images (its info request), or none when it does not run or fails.
struct ServiceImage {
	std::string file;
	std::string build_uuid;
	uint64_t host_bytes;
	uint64_t device_bytes;
	int64_t last_use; // seconds since the epoch
	uint64_t requests;
};
struct ServiceReport {
	std::string executor;
	std::string device;
	uint64_t memory_limit = 0;
	uint64_t requests = 0;
	std::vector<ServiceImage> images;
};
std::optional<ServiceReport> service_report();

// One line on the service for grail.device_info(): running (pid, executor, restarts) or why not.
std::string service_summary();

} // namespace grail::pg
