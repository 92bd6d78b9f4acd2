#include "bfs.hpp"
#include "clock.hpp"
#include "device.hpp"
#include "device_policy.hpp"
#include "error.hpp"
#include "overlay_changes.hpp"

#include "gpu_service/client.hpp"
#include "gpu_service/protocol.hpp"

#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>

#include "service/gpu_client.hpp"
#include "service/image_cache.hpp"
#include "store/gpu_service_state.hpp"
#include "boundary/gpu_choice.hpp"
#include "boundary/guard.hpp"
#include "boundary/settings.hpp"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
}

namespace grail::pg {

namespace svc = grail::service;

namespace {

// Waits for the socket on this backend's latch, so that a cancel, a termination or the
// postmaster's death ends the wait (and, by the exception, the connection: the request is
// cancelled in the service).
void
wait_on_latch(int fd, bool for_write) {
	guard([&] {
		int events = WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | (for_write ? WL_SOCKET_WRITEABLE : WL_SOCKET_READABLE);
		(void)WaitLatchOrSocket(MyLatch, events, fd, -1L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	});
}

// A request that the service did not answer within grail.gpu_service_wait.
class WaitExpired : public grail::Error {
public:
	explicit WaitExpired(int wait_ms)
	    : grail::Error(grail::ErrorKind::limit_exceeded, "the GPU service did not answer within "
	                                                     "grail.gpu_service_wait (" +
	                                                         std::to_string(wait_ms) + " ms)") {
	}
};

// The end of a request's wait for the service (grail.gpu_service_wait, under auto only), or 0.
struct Deadline {
	TimestampTz at = 0;
	int wait_ms = 0;

	static Deadline
	for_request() {
		Deadline d;
		if (settings.device == DEVICE_AUTO && settings.gpu_service_wait_ms > 0) {
			d.wait_ms = settings.gpu_service_wait_ms;
			d.at = guard([&] { return TimestampTzPlusMilliseconds(GetCurrentTimestamp(), d.wait_ms); });
		}
		return d;
	}
	// Milliseconds left (-1: no deadline); past it, the Error(limit_exceeded) the caller falls back
	// from (its connection closed on the way out, which cancels the request in the service).
	long
	left() const {
		if (at == 0)
			return -1L;
		long ms = guard([&] { return long(TimestampDifferenceMilliseconds(GetCurrentTimestamp(), at)); });
		if (ms <= 0)
			throw WaitExpired(wait_ms);
		return ms;
	}
	// No deadline from now on (a build's device work began: it takes as long as it takes).
	void
	disarm() noexcept {
		at = 0;
	}
	// wait_on_latch, ended by the deadline too (while it is armed).
	svc::WaitFn
	waiter() const {
		if (at == 0)
			return wait_on_latch;
		return [this](int fd, bool for_write) {
			long timeout = left();
			if (timeout < 0) {
				wait_on_latch(fd, for_write);
				return;
			}
			guard([&] {
				int events = WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH |
				             (for_write ? WL_SOCKET_WRITEABLE : WL_SOCKET_READABLE);
				(void)WaitLatchOrSocket(MyLatch, events, fd, timeout, PG_WAIT_EXTENSION);
				ResetLatch(MyLatch);
				CHECK_FOR_INTERRUPTS();
			});
			(void)left();
		};
	}
};

const grail::GpuProbe &
service_probe() {
	static const grail::GpuProbe probe{true, "the pg_grail GPU service"};
	return probe;
}

// The image the service would map for this graph, or none.
std::optional<svc::ImageRef>
image_of(const LoadedGraph &graph) {
	std::string name = shared_image_name(graph.image_file.get());
	if (name.empty() || !svc::valid_image_name(name, graph.build_uuid))
		return std::nullopt;
	return svc::ImageRef{name, graph.build_uuid};
}

// Whether the service runs or is being started (again).
bool
service_expected() {
	GpuServiceState state = gpu_service_status().state;
	return state == GpuServiceState::running || state == GpuServiceState::starting ||
	       state == GpuServiceState::restarting;
}

// Waits, on the latch (a cancel ends it), up to a few seconds for a service being started again to
// listen; false if it does not.
bool
wait_until_running(const Deadline &deadline) {
	for (int i = 0; i < 1000 && !gpu_service_running(); i++) {
		if (!service_expected())
			return false;
		(void)deadline.left();
		guard([] {
			(void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10L, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		});
	}
	return gpu_service_running();
}

bool
usable_for(const LoadedGraph &graph) {
	return settings.device != DEVICE_CPU && service_expected() && image_of(graph).has_value();
}

// One request to the service, made by send (a new connection each time it is called, with the
// wait that ends at the deadline); its failures as the policy wants them: under gpu an error, under
// auto an Error(limit_exceeded) the caller falls back from. A cancel passes through unchanged.
std::vector<uint8_t>
request_by(const std::function<std::vector<uint8_t>(Deadline &deadline)> &send, const char *what) {
	std::string why = "the GPU service is not running: it was not started again in time";
	Deadline deadline = Deadline::for_request();
	try {
		// A connection refused was never a request: tried again while the supervisor notices a
		// server that died and starts another (a few seconds at most).
		for (int attempt = 0; wait_until_running(deadline); attempt++) {
			try {
				return send(deadline);
			} catch (const svc::Unavailable &e) {
				if (attempt >= 200)
					throw;
			}
			(void)deadline.left();
			guard([] {
				(void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 20L, PG_WAIT_EXTENSION);
				ResetLatch(MyLatch);
				CHECK_FOR_INTERRUPTS();
			});
		}
	} catch (const svc::ProtocolError &e) {
		why = std::string("the GPU service failed: ") + e.what();
	} catch (const svc::ImageMissing &) {
		throw; // the caller answers itself
	} catch (const grail::Error &e) {
		if (e.kind() == grail::ErrorKind::cancelled)
			throw;
		why = dynamic_cast<const WaitExpired *>(&e) != nullptr ? std::string(e.what())
		                                                       : std::string("the GPU service failed: ") + e.what();
	}
	if (settings.device == DEVICE_GPU)
		raise(ERRCODE_SYSTEM_ERROR, format("pg_grail: %s could not run on the GPU: %s", what, why.c_str()),
		      "Run it again: the service is restarted by its supervisor (grail.device_info() shows it). With "
		      "grail.device = auto, such a failure falls back to the CPU.");
	throw grail::Error(grail::ErrorKind::limit_exceeded, why);
}

std::vector<uint8_t>
request(svc::FrameType type, const std::vector<uint8_t> &payload, const char *what) {
	return request_by(
	    [&](Deadline &deadline) { return svc::call(kGpuServiceSocket, type, payload, deadline.waiter()); }, what);
}

} // namespace

grail::DevicePolicy::Probe
gpu_probe_for(const LoadedGraph &graph) {
	return usable_for(graph) ? service_probe : grail::process_gpu;
}

std::optional<grail::BfsResult>
service_bfs(const LoadedGraph &graph, bool reverse, grail::vid_t source, uint32_t max_depth, const char *what) {
	std::optional<svc::ImageRef> image = image_of(graph);
	if (!image || !service_expected())
		return std::nullopt;
	svc::BfsRequest q{*image, source, max_depth, reverse};
	// The rows become datums and their order is documented: the receiver takes them only as a search
	// of this graph (vertices of it, the source first at depth 0, depths that never decrease and stay
	// within max_depth), each chunk straight into the result's arrays as it comes.
	svc::BfsShape shape{graph.index.graph().vertex_count(), source, max_depth};
	std::optional<svc::BfsReceiver> receiver;
	std::string malformed;
	try {
		(void)request_by(
		    [&](Deadline &deadline) {
			    receiver.emplace(shape);
			    malformed.clear();
			    svc::call(kGpuServiceSocket, svc::FrameType::bfs, svc::encode(q), deadline.waiter(),
			              [&](const uint8_t *bytes, size_t n) {
				              // A malformed answer is this request's error, not a failure of the service to
				              // fall back from: the rest of it is read and dropped.
				              if (!malformed.empty())
					              return;
				              try {
					              receiver->take(bytes, n);
				              } catch (const svc::ProtocolError &e) {
					              malformed = e.what();
				              }
			              });
			    return std::vector<uint8_t>();
		    },
		    what);
	} catch (const svc::ImageMissing &) {
		return std::nullopt; // its file left the cache since this backend mapped it
	}
	try {
		if (!malformed.empty())
			throw svc::ProtocolError(malformed);
		return receiver->finish();
	} catch (const svc::ProtocolError &e) {
		throw grail::Error(grail::ErrorKind::internal,
		                   std::string("the GPU service's answer is malformed: ") + e.what());
	}
}

namespace {

// An answer of the service that is not what was asked for: this request's error, never a failure of
// the service to fall back from (thrown past request_by, which does not catch it).
class Malformed : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

[[noreturn]] void
malformed_answer(const Malformed &e) {
	throw grail::Error(grail::ErrorKind::internal, std::string("the GPU service's answer is malformed: ") + e.what());
}

} // namespace

struct ServiceCycles::State {
	std::unique_ptr<svc::Stream> stream;
	std::optional<svc::CycleReceiver> receiver;
	grail::CycleBatch first; // the cycles read when the request was made
	bool has_first = false;
	std::string what;
	uint64_t returned = 0; // cycles handed out
};

namespace {

// Reads the stream's frames until the batch holds a cycle (replacing its contents) or the stream
// ends (false, and an empty batch). The receiver's refusals as Malformed.
bool
read_cycles(ServiceCycles::State &s, const svc::WaitFn &wait, grail::CycleBatch &batch) {
	batch.clear();
	auto take = [&](const uint8_t *p, size_t n) {
		try {
			s.receiver->take(p, n, batch);
		} catch (const svc::ProtocolError &e) {
			throw Malformed(e.what());
		}
	};
	while (batch.size() == 0)
		if (!s.stream->next(wait, take)) {
			try {
				s.receiver->finish();
			} catch (const svc::ProtocolError &e) {
				throw Malformed(e.what());
			}
			return false;
		}
	return true;
}

} // namespace

ServiceCycles::ServiceCycles(std::unique_ptr<State> state) : state_(std::move(state)) {
}

ServiceCycles::~ServiceCycles() = default;

bool
ServiceCycles::next(grail::CycleBatch &batch) {
	State &s = *state_;
	if (s.has_first) {
		s.has_first = false;
		batch = std::move(s.first);
		s.first = grail::CycleBatch{};
		s.returned += batch.size();
		return batch.size() > 0;
	}
	std::string why;
	try {
		bool more = read_cycles(s, wait_on_latch, batch);
		s.returned += batch.size();
		return more;
	} catch (const Malformed &e) {
		malformed_answer(e);
	} catch (const svc::ImageMissing &e) {
		why = e.what();
	} catch (const svc::ProtocolError &e) {
		why = e.what();
	} catch (const grail::Error &e) {
		if (e.kind() == grail::ErrorKind::cancelled)
			throw;
		why = e.what();
	}
	s.stream.reset(); // closed: the enumeration stops in the service, if it still runs
	raise(ERRCODE_SYSTEM_ERROR,
	      format("pg_grail: %s could not go on on the GPU after %llu cycles: the GPU service failed: %s",
	             s.what.c_str(), (unsigned long long)s.returned, why.c_str()),
	      "Run it again: the service is restarted by its supervisor (grail.device_info() shows it). The rows "
	      "already returned cannot be taken back, so not even grail.device = auto moves to the CPU in the middle "
	      "of the cycles; grail.device = cpu runs them on the CPU.");
}

std::unique_ptr<ServiceCycles>
service_chordless_cycles(const LoadedGraph &graph, uint32_t min_length, uint32_t max_length, const char *what) {
	std::optional<svc::ImageRef> image = image_of(graph);
	if (!image || !service_expected())
		return nullptr;
	svc::ChordlessRequest q{*image, min_length, max_length, false};
	std::vector<uint8_t> payload = svc::encode(q);
	svc::CycleShape shape{graph.index.graph().vertex_count(), min_length, max_length};
	auto state = std::make_unique<ServiceCycles::State>();
	state->what = what;
	try {
		(void)request_by(
		    [&](Deadline &deadline) {
			    state->stream.reset();
			    state->stream = std::make_unique<svc::Stream>(kGpuServiceSocket, svc::FrameType::chordless, payload,
			                                                  deadline.waiter());
			    state->receiver.emplace(shape);
			    // The first cycles (or the end) within the deadline: later ones take as long as the
			    // enumeration takes.
			    (void)read_cycles(*state, deadline.waiter(), state->first);
			    state->has_first = true;
			    return std::vector<uint8_t>();
		    },
		    what);
	} catch (const svc::ImageMissing &) {
		return nullptr; // its file left the cache since this backend mapped it
	} catch (const Malformed &e) {
		malformed_answer(e);
	}
	return std::unique_ptr<ServiceCycles>(new ServiceCycles(std::move(state)));
}

std::optional<std::vector<uint64_t>>
service_chordless_counts(const LoadedGraph &graph, uint32_t max_length, const char *what) {
	std::optional<svc::ImageRef> image = image_of(graph);
	if (!image || !service_expected())
		return std::nullopt;
	svc::ChordlessRequest q{*image, 3, max_length, true};
	std::vector<uint8_t> bytes;
	try {
		bytes = request(svc::FrameType::chordless, svc::encode(q), what);
	} catch (const svc::ImageMissing &) {
		return std::nullopt;
	}
	try {
		return svc::decode_counts(bytes, graph.index.graph().vertex_count(), max_length);
	} catch (const svc::ProtocolError &e) {
		malformed_answer(Malformed(e.what()));
	}
}

namespace {

// The nodes of the build's DAG whose reachability pending changes may alter, or an empty vector
// where finding them would cost too much (the caller then answers every pair with the overlay).
// Nodes: the build's components 0..C-1, then the vertices only the changes have (C + v - n). A
// component that reaches (over the DAG and the inserted edges: a superset of what it reaches after
// the changes) no tail of an inserted or deleted edge uses neither kind on any path, so it reaches
// after the changes exactly what it reached in the build: its pairs are the build's to answer.
// The DAG's edges go from lower components to higher (topological numbering): one sweep from the
// highest down settles it, and each inserted edge against that order may need one sweep more.
std::vector<uint8_t>
changed_components(const grail::Index &index, const grail::OverlayChanges &changes) {
	const grail::Csr &dag = index.dag();
	const grail::Components &components = index.components();
	size_t n = index.graph().vertex_count(), c = components.count();
	auto node = [&](grail::vid_t v) -> size_t { return v < n ? size_t(components.of_vertex[v]) : c + (v - n); };
	std::vector<uint8_t> changed(c + changes.added(), 0);
	for (const auto *edges : {&changes.inserted(), &changes.deleted()})
		for (const auto &[u, v] : *edges) {
			(void)v;
			changed[node(u)] = 1;
		}
	const int kMostSweeps = 6;
	for (int sweep = 0;; sweep++) {
		if (sweep == kMostSweeps)
			return {};
		bool grew = false;
		for (size_t k = c; k-- > 0;) {
			if (changed[k])
				continue;
			for (const grail::vid_t *t = dag.begin(grail::vid_t(k)); t != dag.end(grail::vid_t(k)); t++)
				if (changed[*t]) {
					changed[k] = 1;
					grew = true;
					break;
				}
		}
		for (const auto &[u, v] : changes.inserted())
			if (changed[node(v)] && !changed[node(u)]) {
				changed[node(u)] = 1;
				grew = true;
			}
		if (!grew) // closed under both kinds of edge
			return changed;
	}
}

} // namespace

// The build's pairs of a batch through the service: decided here by the ids and labels, the pairs
// they leave undecided searched in the service.
static size_t
base_pairs_through_service(LoadedGraph &graph, const grail::DevicePolicy &policy, const int64_t *a, const int64_t *b,
                           size_t count, bool *answers) {
	grail::Reach &reach = graph.reach;
	grail::ReachabilityQuery::Undecided undecided;
	unsigned helpers = search_helper_threads();
	double deciding = grail::now_ms();
	reach.decide_many(a, b, count, answers, undecided, helpers);
	double decide_ms = grail::ms_since(deciding);
	// Under automatic, batches large enough go to the device that has searched this build's batches
	// faster so far (grail::SearchDeviceChoice): the service's GPU, or this backend's CPU threads.
	bool automatic = policy.mode == grail::DeviceMode::automatic;
	bool choosing = automatic && undecided.size() >= policy.min_searches;
	double searching = grail::now_ms();
	if (undecided.size() == 0 || (automatic && !choosing) || (choosing && !reach.search_device().gpu_next())) {
		reach.search_each(undecided, answers, helpers);
		if (choosing)
			reach.search_device().record(false, undecided.size(), grail::ms_since(searching));
		return undecided.size();
	}
	// The undecided pairs as the components the labels left them: the service only searches them.
	svc::SearchRequest q;
	q.image = *image_of(graph);
	q.from = undecided.from;
	q.to = undecided.to;
	try {
		std::vector<uint8_t> bytes;
		double sent = grail::now_ms();
		try {
			bytes = request(svc::FrameType::search, svc::encode(q), "reachable()");
		} catch (const svc::ImageMissing &) {
			reach.search_each(undecided, answers, helpers); // its file left the cache since this backend mapped it
			return undecided.size();
		}
		double round_trip_ms = grail::ms_since(sent);
		std::unique_ptr<bool[]> searched(new bool[undecided.size()]);
		double search_seconds = 0;
		try {
			search_seconds = svc::decode_searched(bytes, searched.get(), undecided.size());
		} catch (const svc::ProtocolError &e) {
			throw grail::Error(grail::ErrorKind::internal,
			                   std::string("the GPU service's answer is malformed: ") + e.what());
		}
		for (size_t k = 0; k < undecided.size(); k++)
			answers[undecided.pair[k]] = searched[k];
		if (choosing)
			reach.search_device().record(true, undecided.size(), grail::ms_since(searching));
		// The search itself apart from the deciding here and the trip (grail.reachable's DEBUG1 line
		// gives the whole).
		guard([&] {
			elog(DEBUG1,
			     "grail.reachable: %zu of %zu pairs searched by the GPU service: deciding here %.3f ms, the search "
			     "%.3f ms, the request %.3f ms",
			     undecided.size(), count, decide_ms, search_seconds * 1e3, round_trip_ms);
		});
	} catch (const grail::Error &e) {
		if (e.kind() != grail::ErrorKind::limit_exceeded)
			throw;
		notice_cpu_fallback("the reachability searches", e.what());
		reach.search_each(undecided, answers, helpers);
	}
	return undecided.size();
}

std::optional<size_t>
service_reachable_many(LoadedGraph &graph, grail::Reach &reach, const int64_t *a, const int64_t *b, size_t count,
                       bool *answers) {
	grail::DevicePolicy policy = device_policy();
	if (policy.mode == grail::DeviceMode::cpu || count == 0 || !usable_for(graph))
		return std::nullopt;
	if (&reach == &graph.reach)
		return base_pairs_through_service(graph, policy, a, b, count, answers);
	// A live graph's overlay of pending changes over this build: the pairs whose source reaches
	// nothing the changes touch are the build's (through the service); the others the overlay's.
	const grail::OverlayChanges *changes = reach.changes();
	if (changes == nullptr || &reach.index() != &graph.index)
		return std::nullopt;
	std::vector<uint8_t> changed = changed_components(graph.index, *changes);
	if (changed.empty())
		return std::nullopt;
	const grail::Index &index = graph.index;
	reach.settle();
	std::vector<int64_t> base_a, base_b;
	std::vector<size_t> place;
	for (size_t i = 0; i < count; i++) {
		if ((i & 0xFFFF) == 0xFFFF)
			grail::poll_cancel();
		int64_t va = index.find(a[i]);
		if (va < 0 || changed[index.components().of_vertex[size_t(va)]]) {
			answers[i] = reach.reachable(a[i], b[i]);
			continue;
		}
		// A target the build lacks (a vertex only the changes have, or none): only through an
		// inserted edge, which this source reaches none of.
		if (index.find(b[i]) < 0) {
			answers[i] = false;
			continue;
		}
		base_a.push_back(a[i]);
		base_b.push_back(b[i]);
		place.push_back(i);
	}
	if (place.empty())
		return size_t(0);
	std::unique_ptr<bool[]> base_answers(new bool[place.size()]);
	size_t searched =
	    base_pairs_through_service(graph, policy, base_a.data(), base_b.data(), place.size(), base_answers.get());
	for (size_t k = 0; k < place.size(); k++)
		answers[place[k]] = base_answers[k];
	return searched;
}

size_t
answer_pairs(LoadedGraph &graph, grail::Reach &reach, const int64_t *a, const int64_t *b, size_t count, bool *answers) {
	std::optional<size_t> searched = service_reachable_many(graph, reach, a, b, count, answers);
	if (!searched)
		searched = reach.reachable_many(a, b, count, answers, in_process_device_policy(), notice_cpu_fallback,
		                                search_helper_threads());
	graph.count_scratch();
	return *searched;
}

bool
service_takes_builds() {
	return settings.device != DEVICE_CPU && service_expected();
}

const grail::GpuProbe &
service_gpu_probe() {
	return service_probe();
}

/*
 * How a build's rows go to the service (svc::call_build from the edge list's arrays, or from a rows
 * file), and how they are let go once its answer is in.
 */
using SendBuild = std::function<void(const svc::BuildRequest &, const svc::WaitFn &, const std::function<void()> &,
                                     const svc::ChunkSink &, const svc::SharedSink &)>;

static std::optional<ServiceBuild>
build_through_service(uint64_t rows, unsigned labels, uint64_t seed, const char *rows_way, const SendBuild &send,
                      const std::function<void()> &release_rows) {
	const char *what = "the graph build";
	grail::DevicePolicy policy = device_policy();
	svc::BuildRequest q;
	q.mode = policy.mode == grail::DeviceMode::gpu ? 1 : policy.mode == grail::DeviceMode::cpu ? 0 : 2;
	q.min_edges = policy.min_edges;
	q.labels = labels;
	q.seed = seed;
	q.rows = rows;
	std::unique_ptr<svc::BuiltReceiver> receiver;
	// Where the time of a build through the service goes (the DEBUG1 line below): the rows' way
	// there, the service's work and its packing of the parts, the parts' checks here.
	double asked = grail::now_ms(), started = 0, answered = 0;
	try {
		if (q.rows > svc::kMaxBuildRows)
			throw grail::Error(grail::ErrorKind::limit_exceeded,
			                   "the device builds graphs of fewer than 2^31 rows, not " + std::to_string(q.rows));
		(void)request_by(
		    [&](Deadline &deadline) {
			    // The answer's chunks go straight into the parts' arrays, or its shared file becomes
			    // their storage. The wait ends at the deadline
			    // until the server has the rows and begins: a build takes as long as it takes after that
			    // (a cancel still ends it).
			    receiver = std::make_unique<svc::BuiltReceiver>();
			    send(
			        q, deadline.waiter(),
			        [&] {
				        deadline.disarm();
				        started = grail::now_ms();
			        },
			        [&](const uint8_t *bytes, size_t n) {
				        if (answered == 0)
					        answered = grail::now_ms();
				        receiver->take(bytes, n);
			        },
			        [&](svc::SharedBytes &&bytes) {
				        answered = grail::now_ms();
				        auto kept = std::make_shared<const svc::SharedBytes>(std::move(bytes));
				        receiver->adopt(kept->data(), kept->size(), kept);
			        });
			    return std::vector<uint8_t>();
		    },
		    what);
	} catch (const svc::ImageMissing &) {
		throw grail::Error(grail::ErrorKind::internal, "the GPU service answered a build as a query of an image");
	} catch (const grail::Error &e) {
		if (e.kind() != grail::ErrorKind::limit_exceeded)
			throw;
		if (settings.device == DEVICE_GPU)
			raise(ERRCODE_PROGRAM_LIMIT_EXCEEDED, format("pg_grail: %s could not run on the GPU: %s", what, e.what()),
			      "With grail.device = auto, such a graph is built on the CPU.");
		notice_cpu_fallback(what, e.what());
		return std::nullopt;
	}
	// The rows are no longer needed: released before the parts are checked.
	release_rows();
	try {
		svc::BuiltParts parts = receiver->finish();
		const grail::BuiltGraph &g = parts.graph;
		guard([&] {
			elog(DEBUG1,
			     "grail.create_graph: %zu rows built by the GPU service: the rows there %.1f ms (%s), the service "
			     "%.1f ms (its graph %.1f, components %.1f, labels %.1f), the parts checked here %.1f ms",
			     size_t(q.rows), started - asked, rows_way, answered - started, g.graph_seconds * 1e3,
			     g.scc_seconds * 1e3, parts.label_seconds * 1e3, grail::now_ms() - answered);
		});
		return ServiceBuild{std::move(parts.graph), std::move(parts.labels), parts.label_seconds};
	} catch (const svc::ProtocolError &e) {
		throw grail::Error(grail::ErrorKind::internal,
		                   std::string("the GPU service's build is malformed: ") + e.what());
	}
}

std::optional<ServiceBuild>
service_build(grail::EdgeList &rows, unsigned labels, uint64_t seed) {
	return build_through_service(
	    rows.size(), labels, seed, "copied into its files",
	    [&](const svc::BuildRequest &q, const svc::WaitFn &wait, const std::function<void()> &started,
	        const svc::ChunkSink &sink, const svc::SharedSink &whole) {
		    svc::call_build(kGpuServiceSocket, q, rows.source.data(), rows.target.data(), wait, started, sink, whole);
	    },
	    [&] { rows = grail::EdgeList{}; });
}

std::optional<ServiceBuild>
service_build(grail::service::RowsFile &rows, unsigned labels, uint64_t seed) {
	return build_through_service(
	    rows.size(), labels, seed, "sealed where the read wrote them",
	    [&](const svc::BuildRequest &q, const svc::WaitFn &wait, const std::function<void()> &started,
	        const svc::ChunkSink &sink, const svc::SharedSink &whole) {
		    // Sealed here, on the rows' way (a second try finds it sealed): the service maps it as is.
		    rows.seal();
		    svc::call_build(kGpuServiceSocket, q, rows, wait, started, sink, whole);
	    },
	    [&] { rows = grail::service::RowsFile{}; });
}

std::optional<ServiceReport>
service_report() {
	if (!gpu_service_running())
		return std::nullopt;
	svc::ServiceInfo info;
	try {
		info = svc::decode_info(
		    svc::call(kGpuServiceSocket, svc::FrameType::info, svc::encode_info_request(), wait_on_latch));
	} catch (const svc::ProtocolError &) {
		return std::nullopt;
	} catch (const grail::Error &e) {
		if (e.kind() == grail::ErrorKind::cancelled)
			throw;
		return std::nullopt;
	}
	ServiceReport report{info.executor, info.device, info.memory_limit, info.requests, {}};
	for (const svc::ImageInfo &i : info.images)
		report.images.push_back({i.file, i.build_uuid, i.host_bytes, i.device_bytes, int64_t(i.last_use), i.requests});
	return report;
}

std::string
service_summary() {
	GpuServiceStatus s = gpu_service_status();
	if (!s.preloaded)
		return "GPU service: not running: pg_grail is not in shared_preload_libraries";
	std::string text = std::string("GPU service: ") + gpu_service_state_name(s.state);
	if (s.state == GpuServiceState::running || s.state == GpuServiceState::starting)
		text += " (server pid " + std::to_string(s.server_pid) + ", executor " + s.executor + ", restarts " +
		        std::to_string(s.restarts) + ")";
	else if (s.state == GpuServiceState::restarting)
		text += " (restarts " + std::to_string(s.restarts) + ")";
	if (!s.message.empty() && s.state != GpuServiceState::running)
		text += ": " + s.message;
	return text;
}

} // namespace grail::pg
