// grail.scc_components() and grail.scc_component(), for integer, text or uuid keys.
#include "index.hpp"
#include "keys.hpp"

#include <algorithm>

#include "boundary/key_datums.hpp"
#include "boundary/row_output.hpp"
#include "entry/key_checks.hpp"
#include "service/open_graph.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/tuplestore.h"
}

using namespace grail::pg;

/*
 * One row per vertex: its key and its component's, the smallest key of the component (by value
 * for integers, by byte order for text and uuid).
 */
static Datum
scc_components(FunctionCallInfo fcinfo, grail::KeyKind kind, Oid key_type = INT8OID) {
	LoadedGraph &graph = open_graph(fcinfo, 0, std::nullopt);
	check_key_kind(fcinfo, graph.index, kind, "grail.scc_components", 0);
	check_oid_key_type(fcinfo, graph.key_type, key_type, "grail.scc_components");
	const grail::Index &index = graph.index;
	const grail::Graph &g = index.graph();
	const grail::Components &components = index.components();
	size_t rows = g.vertex_count(), key_bytes = 0;
	if (index.keys().kind() != grail::KeyKind::integer && index.keys().size() > 0) {
		const grail::KeyDictionary &keys = index.keys();
		std::string_view first = keys.key(0), last = keys.key(keys.size() - 1);
		key_bytes = size_t(last.data() + last.size() - first.data()) / keys.size() * 2 + 8;
	}
	const int64_t *ids = g.ids.data();
	const auto *of_vertex = components.of_vertex.data();
	const auto *smallest = components.smallest_vertex.data();
	guard([&] {
		RowOutput out;
		out.begin(fcinfo, rows, key_bytes);
		if (index.keys().kind() == grail::KeyKind::integer && out.fixed_width()) {
			// The component's smallest vertex is read ahead: components are scattered over the
			// vertices.
			constexpr size_t ahead = 16;
			for (size_t v = 0; v < rows; v++) {
				if (v + ahead < rows)
					__builtin_prefetch(ids + smallest[of_vertex[v + ahead]]);
				Datum values[2] = {Int64GetDatum(ids[v]), Int64GetDatum(ids[smallest[of_vertex[v]]])};
				out.put_fixed(values);
				if ((v & 0xffff) == 0xffff)
					CHECK_FOR_INTERRUPTS();
			}
			return;
		}
		if (index.keys().kind() != grail::KeyKind::integer && rows > 0 && out.cells()) {
			// Text and uuid keys copied from the dictionary into the rows. The vertices' keys are
			// read in order; the components' are scattered: a batch of rows at a time, their
			// dictionary numbers, then offsets, then bytes are read before any row is formed, so
			// that the batch's cache misses overlap.
			const grail::KeyDictionary &keys = index.keys();
			const uint64_t *offsets = keys.offsets().data();
			const char *bytes = reinterpret_cast<const char *>(keys.bytes().data());
			constexpr size_t kBatch = 64;
			int64_t number[kBatch];
			for (size_t start = 0; start < rows; start += kBatch) {
				size_t count = std::min(kBatch, rows - start);
				for (size_t j = 0; j < count; j++)
					__builtin_prefetch(ids + smallest[of_vertex[start + j]]);
				for (size_t j = 0; j < count; j++) {
					number[j] = ids[smallest[of_vertex[start + j]]];
					__builtin_prefetch(offsets + number[j]);
				}
				for (size_t j = 0; j < count; j++)
					__builtin_prefetch(bytes + offsets[number[j]]);
				for (size_t j = 0; j < count; j++) {
					int64_t own = ids[start + j];
					RowOutput::Cell cells[2] = {
					    {(Datum)0, bytes + offsets[own], size_t(offsets[own + 1] - offsets[own])},
					    {(Datum)0, bytes + offsets[number[j]], size_t(offsets[number[j] + 1] - offsets[number[j]])},
					};
					out.put_cells(cells);
				}
				if (((start / kBatch) & 0x3ff) == 0x3ff)
					CHECK_FOR_INTERRUPTS();
			}
			return;
		}
		KeyScratch vertex_key, component_key;
		bool nulls[2] = {false, false};
		for (size_t v = 0; v < rows; v++) {
			Datum values[2] = {vertex_key.key(index, ids[v]), component_key.key(index, ids[smallest[of_vertex[v]]])};
			out.put(values, nulls);
			if ((v & 0xffff) == 0xffff)
				CHECK_FOR_INTERRUPTS();
		}
	});
	return (Datum)0;
}

GRAIL_FUNCTION(grail_scc_components) {
	return scc_components(fcinfo, grail::KeyKind::integer);
}

// scc_components(graph, key_type anyelement): the rows in the type of key_type, a typed NULL.
GRAIL_FUNCTION_NULLABLE(grail_scc_components_keyed, 0) {
	Oid key_type;
	grail::KeyKind kind = key_type_argument(fcinfo, 1, "grail.scc_components", &key_type);
	return scc_components(fcinfo, kind, key_type);
}

GRAIL_FUNCTION(grail_scc_component) {
	LoadedGraph &graph = open_graph(fcinfo, 0, std::nullopt);
	check_key_kind(fcinfo, graph.index, grail::KeyKind::integer, "grail.scc_component", 1);
	check_bigint_oid_keys(fcinfo, graph.key_type, 1, 1);
	return Int64GetDatum(graph.index.component_id(PG_GETARG_INT64(1)));
}

// scc_component(graph, key) of integer, smallint, oid or reg* keys (anyelement): the component in
// the key's type (bigint for integer and smallint).
GRAIL_FUNCTION(grail_scc_component_any) {
	Oid type = integer_key_arguments(fcinfo, 1, 1, "grail.scc_component");
	LoadedGraph &graph = open_graph(fcinfo, 0, std::nullopt);
	check_key_kind(fcinfo, graph.index, grail::KeyKind::integer, "grail.scc_component", 1);
	check_oid_key_type(fcinfo, graph.key_type, type, "grail.scc_component");
	integer_keys_as_oids(fcinfo, graph.key_type, type, 1, 1);
	int64_t component = graph.index.component_id(PG_GETARG_INT64(1));
	return oid_key_type(type) ? integer_key_datum(type, component) : Int64GetDatum(component);
}

/*
 * scc_component(graph, key) for text or uuid keys: a key the graph lacks is its own component. A
 * text key on a uuid or integer graph is read as its key, and the component's key is answered as
 * text.
 */
static Datum
scc_component_key(FunctionCallInfo fcinfo, grail::KeyKind kind) {
	LoadedGraph &graph = open_graph(fcinfo, 0, std::nullopt);
	grail::KeyKind actual = graph.index.keys().kind();
	if (actual != kind && kind != grail::KeyKind::text)
		wrong_key_kind(fcinfo, actual, kind, "grail.scc_component", 1);
	if (actual != kind) {
		Datum key = text_key_as(fcinfo, PG_GETARG_DATUM(1), actual, graph.key_type, "grail.scc_component", 1);
		if (actual == grail::KeyKind::integer)
			return guard([&] {
				return key_as_text(actual, Int64GetDatum(graph.index.component_id(DatumGetInt64(key))), graph.key_type);
			});
		int64_t vertex = key_vertex(graph.index, key);
		return guard([&] {
			return key_as_text(actual, vertex < 0 ? key : key_datum(graph.index, graph.index.component_id(vertex)),
			                   graph.key_type);
		});
	}
	int64_t vertex = key_vertex(graph.index, PG_GETARG_DATUM(1));
	if (vertex < 0)
		return PG_GETARG_DATUM(1);
	return guard([&] { return key_datum(graph.index, graph.index.component_id(vertex)); });
}

GRAIL_FUNCTION(grail_scc_component_text) {
	return scc_component_key(fcinfo, grail::KeyKind::text);
}

GRAIL_FUNCTION(grail_scc_component_uuid) {
	return scc_component_key(fcinfo, grail::KeyKind::uuid);
}
