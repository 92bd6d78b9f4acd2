// Reading a graph's edge table and building its index: what create_graph, refresh, merges
// (service/lifecycle.cpp) and a live graph's snapshot rebuild (service/open_graph.cpp) share.
#include "clock.hpp"
#include "error.hpp"
#include "device_policy.hpp"
#include "gpu.hpp"
#include "index.hpp"
#include "keys.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "service/build_index.hpp"
#include "service/gpu_client.hpp"
#include "store/activity.hpp"
#include "store/edges.hpp"
#include "boundary/gpu_choice.hpp"
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
 * Read the edge table of a graph (in snapshot, or under SHARE locks in the latest snapshot without
 * one) and build its index.
 */
grail::Index
build_index(const char *name, const GraphRow &row, Snapshot snapshot, StoredBuild *stored_stats) {
	double start = grail::now_ms();
	uint64_t memory_limit = uint64_t(settings.build_memory_limit_mb) << 20;
	grail::EdgeList edges;
	grail::KeyKind kind = edge_key_kind(row.relid, row.source_attnum);
	std::unique_ptr<grail::KeyDictionaryBuilder> keys;
	if (kind != grail::KeyKind::integer)
		keys = std::make_unique<grail::KeyDictionaryBuilder>(kind, unpredictable_seed());
	// Integer keys whose graph the GPU will make from the rows (graph_builder below) need only the
	// rows in host memory while reading: the read's limit counts them so once they pass what the
	// host's steps may take (asked then, so that a small table never probes the GPU).
	grail::DevicePolicy policy = device_policy();
	// With the GPU service running, the device work goes to it (the rows cross once, the graph,
	// components, DAG and labels come back): no CUDA context in this backend.
	const bool via_service = service_takes_builds();
	grail::DevicePolicy::Probe probe = via_service ? service_gpu_probe : grail::process_gpu;
	std::function<bool()> rows_on_device;
	if (kind == grail::KeyKind::integer && policy.mode != grail::DeviceMode::cpu && via_service)
		rows_on_device = []() noexcept { return true; };
	else if (kind == grail::KeyKind::integer && policy.mode != grail::DeviceMode::cpu)
		rows_on_device = [policy]() noexcept {
			try {
				return policy.mode == grail::DeviceMode::gpu || grail::process_gpu().usable;
			} catch (...) {
				return false;
			}
		};
	EdgeScan scan = read_edges(row.relid, row.source_attnum, row.target_attnum, kind, memory_limit, &edges, keys.get(),
	                           snapshot, rows_on_device, row.filter.empty() ? nullptr : row.filter.c_str(), row.owner);
	StoredBuild &stored = *stored_stats;
	stored = StoredBuild{};
	stored.read_ms = grail::ms_since(start);
	// The rows of the graph: those its filter passes.
	stored.input_rows = int64_t(scan.rows - scan.filtered);
	stored.null_rows = int64_t(scan.rows - scan.filtered - edges.size());
	progress_phase(BuildPhase::building_graph, int64_t(scan.rows));
	if (stored.null_rows > 0 && !row.skip_nulls)
		raise(ERRCODE_NOT_NULL_VIOLATION,
		      format("edge table \"%s\" has %lld rows with a NULL endpoint: %llu NULLs in column \"%s\", %llu in "
		             "column \"%s\"",
		             relation_name(row.relid), (long long)stored.null_rows, (unsigned long long)scan.null_source,
		             attribute_name(row.relid, row.source_attnum), (unsigned long long)scan.null_target,
		             attribute_name(row.relid, row.target_attnum)),
		      "Delete those rows, or create the graph with skip_nulls => true to ignore them.");

	grail::BuildOptions options;
	options.labels = unsigned(row.labels);
	options.memory_limit_bytes = memory_limit;
	options.id_hash_seed = unpredictable_seed();
	// The graph, its components and the DAG made on the GPU from the rows (text and uuid keys as
	// their dictionary's numbers), where the settings pick the GPU for this many rows (as for a graph
	// of as many edges and half as many vertices); under auto a GPU that cannot hold them leaves them
	// to the host's steps (below).
	std::optional<grail::GrailLabels> service_labels; // the service's, for label_builder
	double service_label_seconds = 0;
	options.graph_builder = [&](grail::EdgeList &rows, grail::BuiltGraph &built) {
		if (!policy.use_gpu(rows.size() / 2, rows.size(), probe))
			return false;
		if (via_service) {
			// Under auto, a failure of the service leaves the rows to the host's steps (a NOTICE).
			std::optional<ServiceBuild> made = service_build(rows, options.labels, options.seed);
			if (!made)
				return false;
			built = std::move(made->graph);
			service_labels = std::move(made->labels);
			service_label_seconds = made->label_seconds;
			return true;
		}
		// grail.activity shows building_graph until the labels: ids, CSR and components are one step here.
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
	// Where the service builds, what the backend computes itself runs on its CPU.
	options.components = [via_service](const grail::Csr &graph) {
		progress_phase(BuildPhase::components, int64_t(graph.vertex_count()));
		grail::Components components = via_service
		                                   ? grail::strongly_connected_components(graph)
		                                   : on_chosen_device(
		                                         "the strongly connected components", graph,
		                                         [&] { return grail::strongly_connected_components_gpu(graph); },
		                                         [&] { return grail::strongly_connected_components(graph); });
		progress_done(int64_t(graph.vertex_count()));
		return components;
	};
	options.label_builder = [&](const grail::Csr &dag, unsigned labels, uint64_t seed) {
		progress_phase(BuildPhase::labels, int64_t(dag.vertex_count()));
		grail::GrailLabels built;
		if (service_labels) {
			built = std::move(*service_labels); // checked by Index::build, as any label builder's
			service_labels.reset();
		} else if (via_service) {
			built = grail::GrailLabels::build(dag, labels, seed);
		} else {
			built = on_chosen_device(
			    "the GRAIL labels", dag, [&] { return grail::grail_labels_gpu(dag, labels, seed); },
			    [&] { return grail::GrailLabels::build(dag, labels, seed); });
		}
		progress_done(int64_t(dag.vertex_count()));
		return built;
	};
	grail::BuildStats stats;
	grail::Index index;
	try {
		grail::KeyDictionary dictionary = keys ? keys->finish(edges) : grail::KeyDictionary();
		keys.reset();
		index = grail::Index::build(std::move(edges), options, &stats, std::move(dictionary));
	} catch (const grail::Error &e) {
		if (e.kind() != grail::ErrorKind::limit_exceeded)
			throw;
		throw grail::Error(e.kind(), std::string("graph \"") + name + "\": " + e.what(),
		                   "A superuser can raise grail.build_memory_limit (0 removes the limit).");
	}
	stored.vertices = int64_t(stats.vertices);
	stored.build_ms = grail::ms_since(start);
	stored.edges = int64_t(stats.edges);
	stored.components = int64_t(stats.components);
	stored.dag_edges = int64_t(stats.dag_edges);
	stored.graph_ms = stats.graph_seconds * 1e3;
	stored.scc_ms = stats.scc_seconds * 1e3;
	stored.label_ms = (stats.label_seconds + service_label_seconds) * 1e3;
	return index;
}

} // namespace grail::pg
