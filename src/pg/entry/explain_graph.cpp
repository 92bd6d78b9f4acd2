// grail.explain_graph(graph): which build, overlay and device answer each of a graph's functions
// for the calling statement's snapshot in this backend. The graph is opened by the functions' own
// path (service/open_graph.hpp explain_open: the same checks, cache, overlay and rebuild), and the
// devices are the device policy's choice with the functions' own probes (gpu_client.hpp), so what
// it says is what the functions do, not a second account of it.
#include "device_policy.hpp"
#include "error.hpp"
#include "gpu.hpp"
#include "index.hpp"

#include <string>
#include <utility>

#include "service/gpu_client.hpp"
#include "service/image_cache.hpp"
#include "service/open_graph.hpp"
#include "boundary/gpu_choice.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
}

using namespace grail::pg;

namespace {

struct Device {
	std::string device; // cpu, gpu service, gpu in this backend, none
	std::string detail; // why
};

const char *
source_name(AnswerSource source) {
	switch (source) {
	case AnswerSource::build:
		return "build";
	case AnswerSource::overlay:
		return "build and overlay";
	case AnswerSource::snapshot_rebuild:
		return "snapshot rebuild";
	case AnswerSource::rows_read:
		return "rows read";
	case AnswerSource::view_read:
		return "view read as the querying role";
	}
	return "build";
}

std::string
image_name(const OpenedFor &opened) {
	if (opened.source == AnswerSource::snapshot_rebuild || opened.source == AnswerSource::rows_read ||
	    opened.source == AnswerSource::view_read)
		return "memory of this backend";
	std::string name = opened.graph->image_file ? "shared cache" : "private copy";
	// A merge that stored only what changed: the image was made from its base and the delta.
	if (opened.base_build > 0)
		name += ", made from base build " + std::to_string(opened.base_build) + " + a delta of " +
		        std::to_string(opened.delta_changes) + " changes";
	return name;
}

/*
 * The device that on_chosen_device() picks for a traversal of edges under the settings, with the
 * probe the function passes (gpu_probe_for(): the service's where the graph's image goes to it).
 */
Device
traversal_device(const grail::Csr &edges, grail::DevicePolicy::Probe probe) {
	grail::DevicePolicy policy = device_policy();
	if (policy.mode == grail::DeviceMode::cpu)
		return {"cpu", "grail.device = cpu"};
	bool service = probe != &grail::process_gpu;
	try {
		if (policy.use_gpu(edges.vertex_count(), edges.edge_count(), probe))
			return {service ? "gpu service" : "gpu in this backend",
			        service ? "the GPU service maps the graph's image from the shared cache"
			                : "a CUDA context in this backend (the GPU service does not run, or the image is not "
			                  "in the shared cache)"};
	} catch (const grail::Error &e) {
		return {"none", e.what()}; // grail.device = gpu without a usable GPU: the call fails
	}
	if (edges.edge_count() < policy.min_edges)
		return {"cpu", "grail.device = auto: " + std::to_string(edges.edge_count()) +
		                   " edges, fewer than grail.gpu_min_edges (" + std::to_string(policy.min_edges) + ")"};
	if (edges.edge_count() < 2 * edges.vertex_count())
		return {"cpu", "grail.device = auto: an average out-degree below 2 (the CPU wins on thin graphs)"};
	return {"cpu", "grail.device = auto: no usable GPU: " + probe().description};
}

/*
 * The device of reachable()'s arrays: answer_pairs() sends the batch to the service where it runs
 * and has the image, else the build's Reach picks for the pairs its labels leave undecided.
 */
Device
batch_device(const OpenedFor &opened) {
	grail::DevicePolicy policy = device_policy();
	if (opened.source == AnswerSource::overlay) {
		// service_reachable_many(): the service holds only the build, so only the pairs the pending
		// changes cannot touch go to it.
		if (traversal_device(opened.graph->index.dag(), gpu_probe_for(*opened.graph)).device != "gpu service")
			return {"cpu", "the overlay of the pending changes answers every pair on the CPU"};
		return {"gpu service", "pairs whose source reaches no edge the pending changes insert or delete: the build's, "
		                       "searched by the GPU service; the overlay answers the others on the cpu"};
	}
	if (policy.mode == grail::DeviceMode::cpu)
		return {"cpu", "grail.device = cpu"};
	Device d = traversal_device(opened.graph->index.dag(), gpu_probe_for(*opened.graph));
	if (d.device == "cpu" || d.device == "none")
		return d;
	if (policy.mode == grail::DeviceMode::automatic)
		d.detail += "; under grail.device = auto, for batches whose labels leave at least " +
		            std::to_string(policy.min_searches) +
		            " pairs to search, while the gpu searches this graph's batches faster than the cpu's threads "
		            "(the others on the cpu)";
	return d;
}

struct Row {
	const char *function;
	const OpenedFor *opened;
	Device device;
};

} // namespace

/*
 * grail.explain_graph(graph text): one row per group of functions.
 */
GRAIL_FUNCTION(grail_explain_graph) {
	char *name = guard([&] { return text_to_cstring(PG_GETARG_TEXT_PP(0)); });
	// As reachable() opens it (with the overlay of pending changes where it takes them), and as
	// every other function does (the rows the snapshot sees).
	OpenedFor reach = explain_open(name, true);
	OpenedFor rows = explain_open(name, false);
	const grail::Graph &g = rows.graph->index.graph();
	Device bfs = traversal_device(g.out, gpu_probe_for(*rows.graph));
	// Chordless cycles take the route of bfs (gpu_client.hpp), within the GPU search's size.
	Device cycles = bfs;
	if (cycles.device == "gpu service" || cycles.device == "gpu in this backend") {
		try {
			grail::check_gpu_chordless_size(g.out);
		} catch (const grail::Error &e) {
			cycles = device_policy().mode == grail::DeviceMode::automatic ? Device{"cpu", e.what()}
			                                                              : Device{"none", e.what()};
		}
	}
	Row table[] = {
	    {"reachable(graph, a, b)", &reach, {"cpu", "one pair per call"}},
	    {"reachable(graph, a[], b[])", &reach, batch_device(reach)},
	    {"bfs, descendants, ancestors", &rows, bfs},
	    {"bfs(..., direction => 'both')", &rows, {"cpu", "a search over both edge lists runs on the cpu"}},
	    {"path, find_cycle", &rows, {"cpu", "bidirectional search pruned by the labels"}},
	    {"scc_components, scc_component", &rows, {"cpu", "the components the index holds (no search)"}},
	    {"chordless_cycles, chordless_cycle_counts", &rows, cycles},
	};

	guard([&] {
		InitMaterializedSRF(fcinfo, 0);
		ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
		for (const Row &row : table) {
			const OpenedFor &o = *row.opened;
			bool rebuilt = o.source == AnswerSource::snapshot_rebuild || o.source == AnswerSource::rows_read ||
			               o.source == AnswerSource::view_read;
			bool overlay = o.source == AnswerSource::overlay;
			Datum values[12] = {
			    CStringGetTextDatum(row.function),
			    CStringGetTextDatum(source_name(o.source)),
			    Int64GetDatum(o.build),
			    // A view's graph has no build.
			    o.graph->build_uuid.empty()
			        ? (Datum)0
			        : DirectFunctionCall1(uuid_in, CStringGetDatum(o.graph->build_uuid.c_str())),
			    TimestampTzGetDatum(o.built_at),
			    CStringGetTextDatum(image_name(o).c_str()),
			    Int32GetDatum(int32(o.graph->image_format)),
			    Int64GetDatum(o.pending),
			    Int64GetDatum(int64(o.overlay_inserted)),
			    Int64GetDatum(int64(o.overlay_deleted)),
			    CStringGetTextDatum(row.device.device.c_str()),
			    CStringGetTextDatum(row.device.detail.c_str()),
			};
			bool unbuilt = o.build == 0; // a view's graph
			bool nulls[12] = {false,    false,    unbuilt, o.graph->build_uuid.empty(),
			                  unbuilt,  false,    rebuilt, !o.live,
			                  !overlay, !overlay, false,   false};
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	});
	return (Datum)0;
}
