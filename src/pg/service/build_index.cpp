// Reading a graph's edge table and building its index: what create_graph, refresh, merges
// (service/lifecycle.cpp) and a live graph's snapshot rebuild (service/open_graph.cpp) share.
#include "clock.hpp"
#include "error.hpp"
#include "device_policy.hpp"
#include "gpu.hpp"
#include "index.hpp"
#include "keys.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "gpu_service/protocol.hpp"

#include "service/build_index.hpp"
#include "service/gpu_client.hpp"
#include "store/activity.hpp"
#include "store/edges.hpp"
#include "boundary/gpu_choice.hpp"
#include "boundary/guard.hpp"
#include "boundary/key_datums.hpp"
#include "boundary/pg_calls.hpp"
#include "boundary/settings.hpp"

extern "C" {
#include "miscadmin.h"
}

namespace grail::pg {

/*
 * The kind of key of an edge column (of no kind: integer; read_edges checks the columns).
 */
static grail::KeyKind
edge_key_kind(Oid relid, AttrNumber attnum) {
	grail::KeyKind kind = grail::KeyKind::integer;
	key_kind_of(attribute_type(relid, attnum), &kind);
	return kind;
}

/*
 * A hash seed no one can predict, so that no one can prepare ids or keys that collide in the
 * build's hash tables; 0 (the engine then draws one from the clock) without a strong source.
 */
static uint64_t
unpredictable_seed() {
	uint64_t seed = 0;
	if (!pg_strong_random(&seed, sizeof seed))
		seed = 0;
	return seed;
}

/*
 * Where a build's device work runs, chosen once per build: the GPU service (the rows cross once; the
 * graph, components, DAG and labels come back: no CUDA context in this backend), this backend's GPU,
 * or the CPU alone (grail.device = cpu).
 */
enum class BuildRoute { cpu, service, backend_gpu };

static BuildRoute
build_route(const grail::DevicePolicy &policy) {
	if (policy.mode == grail::DeviceMode::cpu)
		return BuildRoute::cpu;
	return service_takes_builds() ? BuildRoute::service : BuildRoute::backend_gpu;
}

/*
 * The components on the host's CPU, shown in grail.activity.
 */
static grail::Components
host_components(const grail::Csr &graph) {
	progress_phase(BuildPhase::components, int64_t(graph.vertex_count()));
	grail::Components components = grail::strongly_connected_components(graph);
	progress_done(int64_t(graph.vertex_count()));
	return components;
}

/*
 * Labels made by make (on whatever device), shown in grail.activity.
 */
template <typename Make>
static grail::GrailLabels
labels_shown(const grail::Csr &dag, Make &&make) {
	progress_phase(BuildPhase::labels, int64_t(dag.vertex_count()));
	grail::GrailLabels built = make();
	progress_done(int64_t(dag.vertex_count()));
	return built;
}

/*
 * Rows the read wrote for the service moved into the edge list, for the host's steps (the policy or
 * the service declined them). Index::build counted none (its edge list was empty): the host's limit
 * on holding them is checked here, as it checks it.
 */
static void
rows_to_host(grail::service::RowsFile &file, grail::EdgeList &rows, uint64_t memory_limit) {
	uint64_t reading = grail::estimate_build_bytes(file.size(), 0, 0);
	if (memory_limit != 0 && reading > memory_limit)
		throw grail::Error(grail::ErrorKind::limit_exceeded,
		                   "building this index on the CPU needs about " + std::to_string(reading >> 20) +
		                       " MB for its " + std::to_string(file.size()) + " rows, more than the limit of " +
		                       std::to_string(memory_limit >> 20) + " MB");
	try {
		file.move_to(rows);
	} catch (const grail::service::ProtocolError &e) {
		throw grail::Error(grail::ErrorKind::internal, std::string("cannot read a build's rows back: ") + e.what());
	}
}

/*
 * What the service made of a build beyond the graph: its labels, taken by the label builder.
 */
struct ServiceLabels {
	std::optional<grail::GrailLabels> labels;
	double seconds = 0;
};

/*
 * The hooks of a build through the service: the graph, components and DAG from its reply where the
 * policy picks the GPU for this many rows (as for a graph of as many edges and half as many
 * vertices; under auto a failure of the service leaves the rows to the host's steps, with a NOTICE),
 * the labels from the same reply; what the backend computes itself runs on its CPU.
 */
static void
service_hooks(grail::BuildOptions &options, const grail::DevicePolicy &policy, ServiceLabels &made_labels,
              grail::service::RowsFile *rows_file) {
	options.graph_builder = [&options, policy, &made_labels, rows_file](grail::EdgeList &rows,
	                                                                    grail::BuiltGraph &built) {
		size_t count = rows_file ? rows_file->size() : rows.size();
		double start = grail::now_ms();
		std::optional<ServiceBuild> made;
		if (policy.use_gpu(count / 2, count, service_gpu_probe))
			made = rows_file ? service_build(*rows_file, options.labels, options.seed)
			                 : service_build(rows, options.labels, options.seed);
		if (!made) {
			if (rows_file)
				rows_to_host(*rows_file, rows, options.memory_limit_bytes);
			return false;
		}
		built = std::move(made->graph);
		// The graph's phase is what the service's components and labels leave of the call: the ids
		// and CSR, and the rows' way there and the parts' way back.
		built.graph_seconds = std::max(0.0, grail::ms_since(start) / 1e3 - built.scc_seconds - made->label_seconds);
		made_labels.labels = std::move(made->labels);
		made_labels.seconds = made->label_seconds;
		return true;
	};
	options.components = host_components;
	options.label_builder = [&made_labels, threads = options.label_threads()](const grail::Csr &dag, unsigned labels,
	                                                                          uint64_t seed) {
		return labels_shown(dag, [&] {
			if (!made_labels.labels)
				return grail::GrailLabels::build(dag, labels, seed, threads);
			grail::GrailLabels built = std::move(*made_labels.labels); // checked by Index::build
			made_labels.labels.reset();
			return built;
		});
	};
}

/*
 * The hooks of a build on this backend's GPU where the policy picks it for each step (the graph
 * from the rows, else the components; the labels), falling back under auto with a NOTICE.
 * grail.activity shows building_graph until the labels: ids, CSR and components are one step on the
 * device.
 */
static void
backend_gpu_hooks(grail::BuildOptions &options, const grail::DevicePolicy &policy) {
	options.graph_builder = [policy](grail::EdgeList &rows, grail::BuiltGraph &built) {
		if (!policy.use_gpu(rows.size() / 2, rows.size(), grail::process_gpu))
			return false;
		try {
			built = grail::build_graph_gpu(rows.source.data(), rows.target.data(), rows.size());
			return true;
		} catch (const grail::Error &e) {
			if (!policy.falls_back(e))
				throw;
			notice_cpu_fallback("the graph build", e.what());
			return false;
		}
	};
	options.components = [](const grail::Csr &graph) {
		progress_phase(BuildPhase::components, int64_t(graph.vertex_count()));
		grail::Components components = on_chosen_device(
		    "the strongly connected components", graph, [&] { return grail::strongly_connected_components_gpu(graph); },
		    [&] { return grail::strongly_connected_components(graph); });
		progress_done(int64_t(graph.vertex_count()));
		return components;
	};
	options.label_builder = [threads = options.label_threads()](const grail::Csr &dag, unsigned labels, uint64_t seed) {
		return labels_shown(dag, [&] {
			return on_chosen_device(
			    "the GRAIL labels", dag, [&] { return grail::grail_labels_gpu(dag, labels, seed); },
			    [&] { return grail::GrailLabels::build(dag, labels, seed, threads); });
		});
	};
}

/*
 * The hooks of a build on the CPU alone.
 */
static void
cpu_hooks(grail::BuildOptions &options) {
	options.components = host_components;
	options.label_builder = [threads = options.label_threads()](const grail::Csr &dag, unsigned labels, uint64_t seed) {
		return labels_shown(dag, [&] { return grail::GrailLabels::build(dag, labels, seed, threads); });
	};
}

/*
 * A build's step run with the graph's name and the setting to raise in an error of its memory limit
 * (and to name where the server's memory runs out first: MemoryPhase).
 */
template <typename Step>
static auto
within_build_limit(const char *name, Step &&step) {
	MemoryPhase phase("building the index", name,
	                  format("grail.build_memory_limit (%d MB)", settings.build_memory_limit_mb));
	try {
		return step();
	} catch (const grail::Error &e) {
		if (e.kind() != grail::ErrorKind::limit_exceeded)
			throw;
		throw grail::Error(e.kind(), std::string("graph \"") + name + "\": " + e.what(),
		                   "A superuser can raise grail.build_memory_limit (0 removes the limit).");
	}
}

GraphRows
read_graph_rows(const char *name, const GraphRow &row, Snapshot snapshot, StoredBuild *stored_stats,
                bool rows_on_host) {
	GraphRows read;
	read.start_ms = grail::now_ms();
	uint64_t memory_limit = uint64_t(settings.build_memory_limit_mb) << 20;
	grail::KeyKind kind = edge_key_kind(row.relid, row.source_attnum);
	std::unique_ptr<grail::KeyDictionaryBuilder> keys;
	if (kind != grail::KeyKind::integer)
		keys = std::make_unique<grail::KeyDictionaryBuilder>(kind, unpredictable_seed());
	// Integer keys whose graph the GPU will make from the rows (graph_builder below) need only the
	// rows in host memory while reading: the read's limit counts them so once they pass what the
	// host's steps may take (asked then, so that a small table never probes the GPU).
	grail::DevicePolicy policy = device_policy();
	const BuildRoute route = build_route(policy);
	read.policy = policy;
	read.route = int(route);
	std::function<bool()> rows_on_device;
	if (kind == grail::KeyKind::integer && route == BuildRoute::service)
		rows_on_device = []() noexcept { return true; };
	else if (kind == grail::KeyKind::integer && route == BuildRoute::backend_gpu)
		rows_on_device = [policy]() noexcept {
			try {
				return policy.mode == grail::DeviceMode::gpu || grail::process_gpu().usable;
			} catch (...) {
				return false;
			}
		};
	// Integer keys bound for the service are written where it reads them: no copy on their way.
	if (kind == grail::KeyKind::integer && route == BuildRoute::service && !rows_on_host)
		read.rows_file = std::make_unique<grail::service::RowsFile>();
	grail::EdgeList &edges = read.edges;
	EdgeScan scan =
	    read_edges(row.relid, row.source_attnum, row.target_attnum, kind, memory_limit, &edges, read.rows_file.get(),
	               keys.get(), snapshot, rows_on_device, row.filter.empty() ? nullptr : row.filter.c_str(), row.owner);
	size_t rows_read = read.rows_file ? read.rows_file->size() : edges.size();
	StoredBuild &stored = *stored_stats;
	stored = StoredBuild{};
	stored.read_ms = grail::ms_since(read.start_ms);
	// The rows of the graph: those its filter passes.
	stored.input_rows = int64_t(scan.rows - scan.filtered);
	stored.null_rows = int64_t(scan.rows - scan.filtered - rows_read);
	progress_phase(BuildPhase::building_graph, int64_t(scan.rows));
	if (stored.null_rows > 0 && !row.skip_nulls)
		raise(ERRCODE_NOT_NULL_VIOLATION,
		      format("edge table \"%s\" has %lld rows with a NULL endpoint: %llu NULLs in column \"%s\", %llu in "
		             "column \"%s\"",
		             relation_name(row.relid), (long long)stored.null_rows, (unsigned long long)scan.null_source,
		             attribute_name(row.relid, row.source_attnum), (unsigned long long)scan.null_target,
		             attribute_name(row.relid, row.target_attnum)),
		      "Delete those rows, or create the graph with skip_nulls => true to ignore them.");
	if (keys) {
		read.keys = within_build_limit(name, [&] { return keys->finish(edges); });
		keys.reset();
	}
	return read;
}

void
record_build_stats(const grail::BuildStats &stats, double start_ms, StoredBuild *stored) {
	stored->vertices = int64_t(stats.vertices);
	stored->build_ms = grail::ms_since(start_ms);
	stored->edges = int64_t(stats.edges);
	stored->components = int64_t(stats.components);
	stored->dag_edges = int64_t(stats.dag_edges);
	stored->graph_ms = stats.graph_seconds * 1e3;
	stored->scc_ms = stats.scc_seconds * 1e3;
	stored->label_ms = stats.label_seconds * 1e3;
}

unsigned
label_count(const char *name, const GraphRow &row) {
	if (row.labels < 1 || row.labels > int(grail::kMaxLabels))
		throw grail::Error(grail::ErrorKind::invalid_input,
		                   std::string("pg_grail graph \"") + name + "\" has " + std::to_string(row.labels) +
		                       " GRAIL labels in grail.graph, not 1 to " + std::to_string(grail::kMaxLabels),
		                   "The row was edited by hand: set its labels from 1 to " + std::to_string(grail::kMaxLabels) +
		                       " (" + std::to_string(grail::kDefaultLabels) +
		                       " is the default), then refresh the graph.");
	return unsigned(row.labels);
}

grail::Index
build_graph_rows(const char *name, const GraphRow &row, GraphRows read, StoredBuild *stored, bool whole_image) {
	uint64_t memory_limit = uint64_t(settings.build_memory_limit_mb) << 20;
	const grail::DevicePolicy &policy = read.policy;
	grail::BuildOptions options;
	options.labels = label_count(name, row);
	options.memory_limit_bytes = memory_limit;
	options.whole_image = whole_image;
	options.id_hash_seed = unpredictable_seed();
	// Helper threads for the steps of the build that split (grail.build_threads up to
	// grail.max_build_threads; 0: none). They compute only: no PostgreSQL call.
	options.threads = build_helper_threads();
	// The cap is silent (as max_parallel_workers_per_gather's): DEBUG1 says what a build ran on.
	guard([&] {
		ereport(DEBUG1, (errmsg_internal("pg_grail build of graph %s: %u helper threads (grail.build_threads = %d, "
		                                 "grail.max_build_threads = %d)",
		                                 name, options.threads, settings.build_threads, settings.max_build_threads)));
	});
	ServiceLabels service_labels; // the service's, for its route's label builder
	switch (BuildRoute(read.route)) {
	case BuildRoute::service:
		service_hooks(options, policy, service_labels, read.rows_file.get());
		break;
	case BuildRoute::backend_gpu:
		backend_gpu_hooks(options, policy);
		break;
	case BuildRoute::cpu:
		cpu_hooks(options);
		break;
	}
	grail::BuildStats stats;
	grail::Index index = within_build_limit(
	    name, [&] { return grail::Index::build(std::move(read.edges), options, &stats, std::move(read.keys)); });
	record_build_stats(stats, read.start_ms, stored);
	stored->label_ms += service_labels.seconds * 1e3;
	return index;
}

/*
 * Read the edge table of a graph (in snapshot, or under SHARE locks in the latest snapshot without
 * one) and build its index.
 */
grail::Index
build_index(const char *name, const GraphRow &row, Snapshot snapshot, StoredBuild *stored_stats) {
	GraphRows read = read_graph_rows(name, row, snapshot, stored_stats);
	return build_graph_rows(name, row, std::move(read), stored_stats);
}

} // namespace grail::pg
