// grail.bfs(), from an integer, text or uuid key.
#include "bfs.hpp"
#include "gpu.hpp"
#include "index.hpp"
#include "keys.hpp"

#include "boundary/gpu_choice.hpp"
#include "boundary/key_datums.hpp"
#include "entry/key_checks.hpp"
#include "service/open_graph.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/tuplestore.h"
}

using namespace grail::pg;

static Datum
bfs(FunctionCallInfo fcinfo, grail::KeyKind kind) {
	uint32_t max_depth = UINT32_MAX;
	if (!PG_ARGISNULL(2)) {
		int32 depth = PG_GETARG_INT32(2);
		if (depth < 0)
			raise(ERRCODE_INVALID_PARAMETER_VALUE, format("max_depth must be at least 0, not %d", depth),
			      "Pass NULL (the default) for no depth limit.");
		max_depth = uint32_t(depth);
	}
	LoadedGraph &graph = open_graph(fcinfo, 0, std::nullopt);
	const grail::Index &index = graph.index;
	const grail::Graph &g = index.graph();
	Datum source = PG_GETARG_DATUM(1);
	// A text source on a uuid or integer graph is read as its key; the rows give keys as text.
	grail::KeyKind actual = index.keys().kind();
	bool as_text = actual != kind;
	if (as_text) {
		if (kind != grail::KeyKind::text)
			wrong_key_kind(fcinfo, actual, kind, "grail.bfs", 1);
		source = text_key_as(fcinfo, source, actual, "grail.bfs", 1);
		kind = actual;
	}
	int64_t source_id = kind == grail::KeyKind::integer ? DatumGetInt64(source) : key_vertex(index, source);
	int64_t dense = source_id < 0 && kind != grail::KeyKind::integer ? -1 : index.find(source_id);
	grail::BfsResult result;
	if (dense >= 0)
		result = on_chosen_device(
		    "bfs()", g.out, [&] { return grail::bfs_gpu(g.out, grail::vid_t(dense), max_depth); },
		    [&] { return grail::bfs(g.out, grail::vid_t(dense), max_depth); });

	guard([&] {
		InitMaterializedSRF(fcinfo, 0);
		ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
		if (dense < 0) {
			// A key that is not in the graph reaches only itself.
			Datum values[3] = {as_text ? key_as_text(kind, source) : source, Int32GetDatum(0), (Datum)0};
			bool nulls[3] = {false, false, true};
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			return;
		}
		for (size_t i = 0; i < result.vertex.size(); i++) {
			bool root = result.parent[i] == grail::kNoVertex;
			Datum values[3] = {key_datum(index, g.ids[result.vertex[i]]), Int32GetDatum(int32(result.depth[i])),
			                   root ? (Datum)0 : key_datum(index, g.ids[result.parent[i]])};
			if (as_text) {
				values[0] = key_as_text(kind, values[0]);
				values[2] = root ? (Datum)0 : key_as_text(kind, values[2]);
			}
			bool nulls[3] = {false, false, root};
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			if ((i & 0xffff) == 0xffff)
				CHECK_FOR_INTERRUPTS();
		}
	});
	return (Datum)0;
}

// CALLED ON NULL INPUT for the optional max_depth; a NULL graph or source gives no rows.
GRAIL_FUNCTION_NULLABLE(grail_bfs, 0, 1) {
	return bfs(fcinfo, grail::KeyKind::integer);
}

GRAIL_FUNCTION_NULLABLE(grail_bfs_text, 0, 1) {
	return bfs(fcinfo, grail::KeyKind::text);
}

GRAIL_FUNCTION_NULLABLE(grail_bfs_uuid, 0, 1) {
	return bfs(fcinfo, grail::KeyKind::uuid);
}
