// grail.bfs().
#include "bfs.hpp"
#include "gpu.hpp"
#include "index.hpp"

#include "gpu_choice.hpp"
#include "loaded_graph.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/tuplestore.h"
}

using namespace grail::pg;

GRAIL_FUNCTION(grail_bfs) {
	// CALLED ON NULL INPUT for the optional max_depth; a NULL graph or source gives no rows.
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1)) {
		guard([&] { InitMaterializedSRF(fcinfo, 0); });
		return (Datum)0;
	}
	uint32_t max_depth = UINT32_MAX;
	if (!PG_ARGISNULL(2)) {
		int32 depth = PG_GETARG_INT32(2);
		if (depth < 0)
			guard([&] {
				ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				                errmsg("max_depth must be at least 0, not %d", depth),
				                errhint("Pass NULL (the default) for no depth limit.")));
			});
		max_depth = uint32_t(depth);
	}
	int64 source = PG_GETARG_INT64(1);
	LoadedGraph &graph = open_graph(fcinfo, 0);
	const grail::Graph &g = graph.index.graph();
	int64_t dense = graph.index.find(source);
	grail::BfsResult result;
	if (dense >= 0)
		result = on_chosen_device(
		    "bfs()", g.out, [&] { return grail::bfs_gpu(g.out, grail::vid_t(dense), max_depth); },
		    [&] { return grail::bfs(g.out, grail::vid_t(dense), max_depth); });

	guard([&] {
		InitMaterializedSRF(fcinfo, 0);
		ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
		if (dense < 0) {
			// An id that is not in the graph reaches only itself.
			Datum values[3] = {Int64GetDatum(source), Int32GetDatum(0), (Datum)0};
			bool nulls[3] = {false, false, true};
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			return;
		}
		for (size_t i = 0; i < result.vertex.size(); i++) {
			bool root = result.parent[i] == grail::kNoVertex;
			Datum values[3] = {Int64GetDatum(g.ids[result.vertex[i]]), Int32GetDatum(int32(result.depth[i])),
			                   root ? (Datum)0 : Int64GetDatum(g.ids[result.parent[i]])};
			bool nulls[3] = {false, false, root};
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			if ((i & 0xffff) == 0xffff)
				CHECK_FOR_INTERRUPTS();
		}
	});
	return (Datum)0;
}
