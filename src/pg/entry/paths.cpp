// grail.path() and grail.find_cycle(), from integer, text or uuid keys.
#include "index.hpp"
#include "keys.hpp"
#include "paths.hpp"

#include <vector>

#include "boundary/key_datums.hpp"
#include "service/open_graph.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
}

using namespace grail::pg;

// The dense vertex of a key argument, or -1 when the graph has no such vertex.
static int64_t
vertex_of(const grail::Index &index, grail::KeyKind kind, Datum key) {
	int64_t id = kind == grail::KeyKind::integer ? DatumGetInt64(key) : key_vertex(index, key);
	return id < 0 && kind != grail::KeyKind::integer ? -1 : index.find(id);
}

// The keys of the vertices, as an array of the graph's key type; NULL for no vertices.
static Datum
key_array(FunctionCallInfo fcinfo, const grail::Index &index, grail::KeyKind kind,
          const std::vector<grail::vid_t> &vertices) {
	if (vertices.empty())
		PG_RETURN_NULL();
	const int64_t *ids = index.graph().ids.data();
	return guard([&] {
		Oid type = key_type_oid(kind);
		int16 length;
		bool by_value;
		char align;
		get_typlenbyvalalign(type, &length, &by_value, &align);
		Datum *elements = static_cast<Datum *>(palloc(vertices.size() * sizeof(Datum)));
		for (size_t k = 0; k < vertices.size(); k++)
			elements[k] = key_datum(index, ids[vertices[k]]);
		return PointerGetDatum(construct_array(elements, int(vertices.size()), type, length, by_value, align));
	});
}

// A live graph with pending changes is opened as the rebuild its snapshot sees (open_graph), so
// the answer is that of the rows the snapshot sees.
static Datum
path(FunctionCallInfo fcinfo, grail::KeyKind kind) {
	LoadedGraph &graph = open_graph(fcinfo, 0, kind);
	const grail::Index &index = graph.index;
	int64_t a = vertex_of(index, kind, PG_GETARG_DATUM(1));
	int64_t b = vertex_of(index, kind, PG_GETARG_DATUM(2));
	if (a < 0 || b < 0)
		PG_RETURN_NULL();
	grail::PathFinder finder(index);
	return key_array(fcinfo, index, kind, finder.shortest_path(grail::vid_t(a), grail::vid_t(b)));
}

static Datum
find_cycle(FunctionCallInfo fcinfo, grail::KeyKind kind) {
	LoadedGraph &graph = open_graph(fcinfo, 0, kind);
	const grail::Index &index = graph.index;
	int64_t v = vertex_of(index, kind, PG_GETARG_DATUM(1));
	if (v < 0)
		PG_RETURN_NULL();
	grail::PathFinder finder(index);
	return key_array(fcinfo, index, kind, finder.shortest_cycle(grail::vid_t(v)));
}

GRAIL_FUNCTION(grail_path) {
	return path(fcinfo, grail::KeyKind::integer);
}

GRAIL_FUNCTION(grail_path_text) {
	return path(fcinfo, grail::KeyKind::text);
}

GRAIL_FUNCTION(grail_path_uuid) {
	return path(fcinfo, grail::KeyKind::uuid);
}

GRAIL_FUNCTION(grail_find_cycle) {
	return find_cycle(fcinfo, grail::KeyKind::integer);
}

GRAIL_FUNCTION(grail_find_cycle_text) {
	return find_cycle(fcinfo, grail::KeyKind::text);
}

GRAIL_FUNCTION(grail_find_cycle_uuid) {
	return find_cycle(fcinfo, grail::KeyKind::uuid);
}
