// grail.path() and grail.find_cycle(), from integer, text or uuid keys.
#include "index.hpp"
#include "keys.hpp"
#include "paths.hpp"

#include <vector>

#include "boundary/key_datums.hpp"
#include "entry/key_checks.hpp"
#include "service/open_graph.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
}

using namespace grail::pg;

// The dense vertex of a key (of the graph's kind), or -1 when the graph has no such vertex.
static int64_t
vertex_of(const grail::Index &index, grail::KeyKind kind, Datum key) {
	int64_t id = kind == grail::KeyKind::integer ? DatumGetInt64(key) : key_vertex(index, key);
	return id < 0 && kind != grail::KeyKind::integer ? -1 : index.find(id);
}

// The keys key_at(0 .. count - 1) of the graph's kind, as an array of the graph's key type, or of
// text when as_text (a text call on a uuid or integer graph); NULL for no keys.
template <typename KeyAt>
static Datum
keys_array(FunctionCallInfo fcinfo, grail::KeyKind kind, Oid key_type, bool as_text, size_t count, KeyAt key_at) {
	if (count == 0)
		PG_RETURN_NULL();
	return guard([&] {
		// A polymorphic overload's array is of its keys' type (an oid type's, or bigint).
		Oid type = as_text ? TEXTOID : key_type_oid(kind);
		if (!as_text && get_fn_expr_rettype(fcinfo->flinfo) != InvalidOid) {
			Oid element = get_element_type(get_fn_expr_rettype(fcinfo->flinfo));
			if (oid_key_type(element))
				type = element;
		}
		int16 length;
		bool by_value;
		char align;
		get_typlenbyvalalign(type, &length, &by_value, &align);
		Datum *elements = static_cast<Datum *>(palloc(count * sizeof(Datum)));
		for (size_t k = 0; k < count; k++) {
			elements[k] = key_at(k);
			if (as_text)
				elements[k] = key_as_text(kind, elements[k], key_type);
		}
		return PointerGetDatum(construct_array(elements, int(count), type, length, by_value, align));
	});
}

// The keys of the vertices, as keys_array() makes them.
static Datum
key_array(FunctionCallInfo fcinfo, const grail::Index &index, grail::KeyKind kind, Oid key_type, bool as_text,
          const std::vector<grail::vid_t> &vertices) {
	const int64_t *ids = index.graph().ids.data();
	return keys_array(fcinfo, kind, key_type, as_text, vertices.size(),
	                  [&](size_t k) { return key_datum(index, ids[vertices[k]]); });
}

// The graph of argument 0 and the key arguments 1 .. count as keys of its kind (key[]): a text
// call (kind text) on a uuid or integer graph reads them as that kind where they are valid literals
// of it, and sets *as_text; another kind of call on a graph of another kind is an error. kind
// becomes the graph's.
static LoadedGraph &
open_keyed(FunctionCallInfo fcinfo, grail::KeyKind &kind, int count, Datum *key, bool *as_text, const char *function) {
	LoadedGraph &graph = open_graph(fcinfo, 0, std::nullopt);
	grail::KeyKind actual = graph.index.keys().kind();
	*as_text = actual != kind;
	if (*as_text && kind != grail::KeyKind::text)
		wrong_key_kind(fcinfo, actual, kind, function, count);
	// Integer keys are bigints here (the other overloads made them so): on an oid graph, in its range.
	if (!*as_text && actual == grail::KeyKind::integer)
		check_bigint_oid_keys(fcinfo, graph.key_type, 1, count);
	for (int k = 0; k < count; k++)
		key[k] = *as_text ? text_key_as(fcinfo, PG_GETARG_DATUM(k + 1), actual, graph.key_type, function, count)
		                  : PG_GETARG_DATUM(k + 1);
	kind = actual;
	return graph;
}

// A live graph with pending changes is opened as the rebuild its snapshot sees (open_graph), so
// the answer is that of the rows the snapshot sees. The graph's path finder is kept with its build
// (open_graph.hpp), so a call allocates nothing but its answer.
static Datum
path(FunctionCallInfo fcinfo, grail::KeyKind kind) {
	bool as_text;
	Datum key[2];
	LoadedGraph &graph = open_keyed(fcinfo, kind, 2, key, &as_text, "grail.path");
	const grail::Index &index = graph.index;
	int64_t a = vertex_of(index, kind, key[0]);
	int64_t b = vertex_of(index, kind, key[1]);
	if (a < 0 || b < 0) {
		// A key that is not in the graph reaches only itself (DESIGN.md's decided semantics, as
		// reachable() answers): its path to itself is the key alone.
		if (same_key(kind, key[0], key[1]))
			return keys_array(fcinfo, kind, graph.key_type, as_text, 1, [&](size_t) { return key[0]; });
		PG_RETURN_NULL();
	}
	std::vector<grail::vid_t> path = graph.path_finder().shortest_path(grail::vid_t(a), grail::vid_t(b));
	graph.count_scratch();
	return key_array(fcinfo, index, kind, graph.key_type, as_text, path);
}

static Datum
find_cycle(FunctionCallInfo fcinfo, grail::KeyKind kind) {
	bool as_text;
	Datum key[1];
	LoadedGraph &graph = open_keyed(fcinfo, kind, 1, key, &as_text, "grail.find_cycle");
	const grail::Index &index = graph.index;
	int64_t v = vertex_of(index, kind, key[0]);
	if (v < 0)
		PG_RETURN_NULL();
	std::vector<grail::vid_t> cycle = graph.path_finder().shortest_cycle(grail::vid_t(v));
	graph.count_scratch();
	return key_array(fcinfo, index, kind, graph.key_type, as_text, cycle);
}

// path() and find_cycle() of integer, smallint, oid or reg* keys (anycompatible, anyelement): the
// keys as bigints, the array of the keys' type (bigint for integer and smallint).
GRAIL_FUNCTION(grail_path_any) {
	Oid type = integer_key_arguments(fcinfo, 1, 2, "grail.path");
	LoadedGraph &graph = open_graph(fcinfo, 0, std::nullopt);
	if (graph.index.keys().kind() == grail::KeyKind::integer)
		check_oid_key_type(fcinfo, graph.key_type, type, "grail.path");
	integer_keys_as_oids(fcinfo, graph.key_type, type, 1, 2);
	return path(fcinfo, grail::KeyKind::integer);
}

GRAIL_FUNCTION(grail_find_cycle_any) {
	Oid type = integer_key_arguments(fcinfo, 1, 1, "grail.find_cycle");
	LoadedGraph &graph = open_graph(fcinfo, 0, std::nullopt);
	if (graph.index.keys().kind() == grail::KeyKind::integer)
		check_oid_key_type(fcinfo, graph.key_type, type, "grail.find_cycle");
	integer_keys_as_oids(fcinfo, graph.key_type, type, 1, 1);
	return find_cycle(fcinfo, grail::KeyKind::integer);
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
