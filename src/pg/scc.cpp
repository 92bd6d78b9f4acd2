// grail.scc_components() and grail.scc_component().
#include "index.hpp"

#include "loaded_graph.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/tuplestore.h"
}

using namespace grail::pg;

GRAIL_FUNCTION(grail_scc_components) {
	LoadedGraph &graph = open_graph(fcinfo, 0);
	const grail::Graph &g = graph.index.graph();
	const grail::Components &components = graph.index.components();
	guard([&] {
		InitMaterializedSRF(fcinfo, 0);
		ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
		bool nulls[2] = {false, false};
		for (size_t v = 0; v < g.vertex_count(); v++) {
			Datum values[2] = {Int64GetDatum(g.ids[v]),
			                   Int64GetDatum(g.ids[components.smallest_vertex[components.of_vertex[v]]])};
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			if ((v & 0xffff) == 0xffff)
				CHECK_FOR_INTERRUPTS();
		}
	});
	return (Datum)0;
}

GRAIL_FUNCTION(grail_scc_component) {
	LoadedGraph &graph = open_graph(fcinfo, 0);
	return Int64GetDatum(graph.index.component_id(PG_GETARG_INT64(1)));
}
