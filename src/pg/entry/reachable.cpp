// grail.reachable(): one pair per call, or arrays of pairs; integer, text or uuid keys.
#include "keys.hpp"
#include "reach.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "boundary/gpu_choice.hpp"
#include "boundary/key_datums.hpp"
#include "entry/key_checks.hpp"
#include "entry/reachable_filter.hpp"
#include "service/gpu_client.hpp"
#include "service/open_graph.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
}

using namespace grail::pg;

GRAIL_FUNCTION(grail_reachable) {
	ReachabilityView view = open_reachability(fcinfo, 0, std::nullopt);
	check_key_kind(fcinfo, view.graph.index, grail::KeyKind::integer, "grail.reachable", 2);
	check_bigint_oid_keys(fcinfo, view.graph.key_type, 1, 2);
	return BoolGetDatum(view.reach.reachable(PG_GETARG_INT64(1), PG_GETARG_INT64(2)));
}

// reachable(graph, a, b) of integer, smallint, oid or reg* keys (anycompatible): as bigint keys,
// on a graph of an oid type only with keys of its type or oid. The keys' type is looked up once
// per call site (site_key_type), not per row.
GRAIL_FUNCTION(grail_reachable_any) {
	Oid type = integer_key_arguments(fcinfo, 1, 2, "grail.reachable", &site_key_type(fcinfo));
	ReachabilityView view = open_reachability(fcinfo, 0, std::nullopt);
	check_key_kind(fcinfo, view.graph.index, grail::KeyKind::integer, "grail.reachable", 2);
	check_oid_key_type(fcinfo, view.graph.key_type, type, "grail.reachable");
	integer_keys_as_oids(fcinfo, view.graph.key_type, type, 1, 2);
	return BoolGetDatum(view.reach.reachable(PG_GETARG_INT64(1), PG_GETARG_INT64(2)));
}

// reachable(graph, a, b) of integer (width 4) or smallint (width 2) keys: as bigint keys, without
// the polymorphic form's type lookup. The arguments are rewritten as int8 datums first, which a
// wrong_key_kind() error writes in its hint.
static Datum
reachable_narrow(FunctionCallInfo fcinfo, int width) {
	for (int arg = 1; arg <= 2; arg++)
		fcinfo->args[arg].value =
		    Int64GetDatum(width == 4 ? int64_t(PG_GETARG_INT32(arg)) : int64_t(PG_GETARG_INT16(arg)));
	ReachabilityView view = open_reachability(fcinfo, 0, std::nullopt);
	check_key_kind(fcinfo, view.graph.index, grail::KeyKind::integer, "grail.reachable", 2);
	integer_keys_as_oids(fcinfo, view.graph.key_type, width == 4 ? INT4OID : INT2OID, 1, 2);
	return BoolGetDatum(view.reach.reachable(PG_GETARG_INT64(1), PG_GETARG_INT64(2)));
}

GRAIL_FUNCTION(grail_reachable_int4) {
	return reachable_narrow(fcinfo, 4);
}

GRAIL_FUNCTION(grail_reachable_int2) {
	return reachable_narrow(fcinfo, 2);
}

/*
 * The ids of a pair of text or uuid keys (-1 for a key the graph lacks): the build's vertices, and
 * with a live graph's changes those of keys that only the changes have.
 */
static void
pair_vertices(const ReachabilityView &view, Datum a, Datum b, int64_t vertices[2]) {
	key_vertices(view.graph.index, a, b, vertices);
	if (!view.reach.adds_keys())
		return;
	grail::KeyKind kind = view.graph.index.keys().kind();
	const Datum keys[2] = {a, b};
	for (int i = 0; i < 2; i++)
		if (vertices[i] < 0)
			vertices[i] = view.reach.added_key(key_string(kind, keys[i]));
}

/*
 * reachable(graph, a, b) for text or uuid keys: a key the graph lacks reaches only itself, as an
 * integer id does. Text keys on a uuid or integer graph are read as its keys.
 */
static Datum
reachable_keys(FunctionCallInfo fcinfo, grail::KeyKind kind) {
	ReachabilityView view = open_reachability(fcinfo, 0, std::nullopt);
	Datum a = PG_GETARG_DATUM(1), b = PG_GETARG_DATUM(2);
	grail::KeyKind actual = view.graph.index.keys().kind();
	if (actual != kind) {
		if (kind != grail::KeyKind::text)
			wrong_key_kind(fcinfo, actual, kind, "grail.reachable", 2);
		a = text_key_as(fcinfo, a, actual, view.graph.key_type, "grail.reachable", 2);
		b = text_key_as(fcinfo, b, actual, view.graph.key_type, "grail.reachable", 2);
		if (actual == grail::KeyKind::integer)
			return BoolGetDatum(view.reach.reachable(DatumGetInt64(a), DatumGetInt64(b)));
	}
	int64_t vertices[2];
	pair_vertices(view, a, b, vertices);
	if (vertices[0] < 0 || vertices[1] < 0)
		return BoolGetDatum(same_key(view.graph.index.keys().kind(), a, b));
	return BoolGetDatum(view.reach.reachable(vertices[0], vertices[1]));
}

GRAIL_FUNCTION(grail_reachable_text) {
	return reachable_keys(fcinfo, grail::KeyKind::text);
}

GRAIL_FUNCTION(grail_reachable_uuid) {
	return reachable_keys(fcinfo, grail::KeyKind::uuid);
}

struct KeyArray {
	Datum *values;
	bool *nulls;
	int count;
};

// The array of argument arg, detoasted, one-dimensional (what: its name, for the error).
static ArrayType *
key_array_argument(FunctionCallInfo fcinfo, int arg, const char *what) {
	return guard([&] {
		ArrayType *array = PG_GETARG_ARRAYTYPE_P(arg);
		if (ARR_NDIM(array) > 1)
			ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
			                errmsg("%s must be a one-dimensional array, not %d-dimensional", what, ARR_NDIM(array))));
		return array;
	});
}

static KeyArray
key_array(ArrayType *array, grail::KeyKind kind) {
	return guard([&] {
		KeyArray result;
		int16 length;
		bool by_value;
		char align;
		Oid type = key_type_oid(kind);
		get_typlenbyvalalign(type, &length, &by_value, &align);
		deconstruct_array(array, type, length, by_value, align, &result.values, &result.nulls, &result.count);
		return result;
	});
}

static void
check_lengths(int sources, int targets) {
	if (sources != targets)
		raise(ERRCODE_ARRAY_SUBSCRIPT_ERROR,
		      format("sources and targets must have the same length, not %d and %d", sources, targets),
		      "Pair each source with its target: sources[i] is tested against targets[i].");
}

static double
ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
	return std::chrono::duration<double, std::milli>(b - a).count();
}

/*
 * reachable(graph, sources bigint[], targets bigint[]) where neither array holds a NULL: the ids
 * are read where the arrays hold them and the answers written into the result array's bytes, with
 * no Datum per element (the engine takes the pairs as they are). An integer graph only.
 */
static Datum
reachable_ids(FunctionCallInfo fcinfo, ArrayType *sources, ArrayType *targets,
              std::chrono::steady_clock::time_point started) {
	int n = guard([&] { return ArrayGetNItems(ARR_NDIM(sources), ARR_DIMS(sources)); });
	check_lengths(n, guard([&] { return ArrayGetNItems(ARR_NDIM(targets), ARR_DIMS(targets)); }));
	ReachabilityView view = open_reachability(fcinfo, 0, std::nullopt);
	check_key_kind(fcinfo, view.graph.index, grail::KeyKind::integer, "grail.reachable", 2, true);
	check_bigint_oid_keys(fcinfo, view.graph.key_type, 1, 2, true);
	if (n == 0)
		return guard([&] { return PointerGetDatum(construct_empty_array(BOOLOID)); });
	// One-dimensional bool[] of n elements, no null bitmap: the header, then a byte per answer.
	size_t bytes = ARR_OVERHEAD_NONULLS(1) + size_t(n);
	ArrayType *result = guard([&] { return static_cast<ArrayType *>(palloc0(bytes)); });
	SET_VARSIZE(result, bytes);
	result->ndim = 1;
	result->dataoffset = 0;
	result->elemtype = BOOLOID;
	ARR_DIMS(result)[0] = n;
	ARR_LBOUND(result)[0] = 1;
	auto *answers = reinterpret_cast<bool *>(ARR_DATA_PTR(result));
	auto read = std::chrono::steady_clock::now();
	// Through the GPU service where it runs and has the build's image (gpu_client.hpp).
	size_t searched = answer_pairs(view.graph, view.reach, reinterpret_cast<const int64_t *>(ARR_DATA_PTR(sources)),
	                               reinterpret_cast<const int64_t *>(ARR_DATA_PTR(targets)), size_t(n), answers);
	auto answered = std::chrono::steady_clock::now();
	guard([&] {
		elog(DEBUG1,
		     "grail.reachable: %d pairs, %zu searched: arrays and keys %.3f ms, engine %.3f ms, answers %.3f ms", n,
		     searched, ms_between(started, read), ms_between(read, answered),
		     ms_between(answered, std::chrono::steady_clock::now()));
	});
	return PointerGetDatum(result);
}

/*
 * reachable(graph, sources[], targets[]) for keys of any kind: answers[i] for the pair i, null
 * where either key is null.
 */
static Datum
reachable_batch(FunctionCallInfo fcinfo, grail::KeyKind kind) {
	// Where the time goes, at DEBUG1: the arrays read and their keys turned into ids, the engine
	// (the label filters and the searches), the answers' array.
	using Clock = std::chrono::steady_clock;
	Clock::time_point started = Clock::now();
	ArrayType *source_array = key_array_argument(fcinfo, 1, "sources");
	ArrayType *target_array = key_array_argument(fcinfo, 2, "targets");
	if (kind == grail::KeyKind::integer && !ARR_HASNULL(source_array) && !ARR_HASNULL(target_array))
		return reachable_ids(fcinfo, source_array, target_array, started);
	KeyArray sources = key_array(source_array, kind);
	KeyArray targets = key_array(target_array, kind);
	check_lengths(sources.count, targets.count);
	ReachabilityView view = open_reachability(fcinfo, 0, std::nullopt);
	grail::KeyKind actual = view.graph.index.keys().kind();
	if (actual != kind) {
		// Text keys on a uuid or integer graph: read as its keys, in place. A key that is no literal
		// of the graph's kind, in a batch of the filter's rows, is a per-row call's error.
		if (kind != grail::KeyKind::text)
			wrong_key_kind(fcinfo, actual, kind, "grail.reachable", 2, true);
		bool arrays = !answers_filter_rows(fcinfo);
		for (KeyArray *keys : {&sources, &targets})
			for (int i = 0; i < keys->count; i++)
				if (!keys->nulls[i])
					keys->values[i] =
					    text_key_as(fcinfo, keys->values[i], actual, view.graph.key_type, "grail.reachable", 2, arrays);
		kind = actual;
	} else if (kind == grail::KeyKind::integer) {
		check_bigint_oid_keys(fcinfo, view.graph.key_type, 1, 2, true);
	}
	int n = sources.count;
	Datum *answers = guard([&] { return static_cast<Datum *>(palloc(sizeof(Datum) * size_t(Max(n, 1)))); });
	bool *nulls = guard([&] { return static_cast<bool *>(palloc(sizeof(bool) * size_t(Max(n, 1)))); });
	// The pairs the engine answers (pair[k] is the k-th); with text or uuid keys, a pair with a key
	// the graph lacks is answered here.
	std::vector<int64_t> from, to;
	std::vector<int> pair;
	for (int i = 0; i < n; i++) {
		nulls[i] = sources.nulls[i] || targets.nulls[i];
		answers[i] = BoolGetDatum(false);
		if (nulls[i])
			continue;
		int64_t a, b;
		if (kind == grail::KeyKind::integer) {
			a = DatumGetInt64(sources.values[i]);
			b = DatumGetInt64(targets.values[i]);
		} else {
			int64_t vertices[2];
			pair_vertices(view, sources.values[i], targets.values[i], vertices);
			a = vertices[0];
			b = vertices[1];
			if (a < 0 || b < 0) {
				answers[i] =
				    BoolGetDatum(same_key(view.graph.index.keys().kind(), sources.values[i], targets.values[i]));
				continue;
			}
		}
		from.push_back(a);
		to.push_back(b);
		pair.push_back(i);
	}
	std::unique_ptr<bool[]> answered(new bool[std::max<size_t>(from.size(), 1)]);
	Clock::time_point read = Clock::now();
	// Through the GPU service where it runs and has the build's image (gpu_client.hpp).
	size_t searched = answer_pairs(view.graph, view.reach, from.data(), to.data(), from.size(), answered.get());
	Clock::time_point answered_at = Clock::now();
	for (size_t k = 0; k < pair.size(); k++)
		answers[pair[k]] = BoolGetDatum(answered[k]);
	return guard([&] {
		int dims[] = {n};
		int lbs[] = {1};
		Datum result =
		    PointerGetDatum(construct_md_array(answers, nulls, 1, dims, lbs, BOOLOID, 1, true, TYPALIGN_CHAR));
		elog(DEBUG1,
		     "grail.reachable: %d pairs, %zu searched: arrays and keys %.3f ms, engine %.3f ms, answers %.3f ms", n,
		     searched, ms_between(started, read), ms_between(read, answered_at), ms_between(answered_at, Clock::now()));
		return result;
	});
}

// reachable(graph, sources[], targets[]) of integer, smallint, oid or reg* keys
// (anycompatiblearray): the arrays as bigint[].
GRAIL_FUNCTION(grail_reachable_batch_any) {
	Oid type = integer_key_arrays(fcinfo, 1, 2, "grail.reachable");
	ReachabilityView view = open_reachability(fcinfo, 0, std::nullopt);
	check_key_kind(fcinfo, view.graph.index, grail::KeyKind::integer, "grail.reachable", 2, true);
	check_oid_key_type(fcinfo, view.graph.key_type, type, "grail.reachable");
	integer_keys_as_oids(fcinfo, view.graph.key_type, type, 1, 2, true);
	return reachable_batch(fcinfo, grail::KeyKind::integer);
}

GRAIL_FUNCTION(grail_reachable_batch) {
	return reachable_batch(fcinfo, grail::KeyKind::integer);
}

GRAIL_FUNCTION(grail_reachable_batch_text) {
	return reachable_batch(fcinfo, grail::KeyKind::text);
}

GRAIL_FUNCTION(grail_reachable_batch_uuid) {
	return reachable_batch(fcinfo, grail::KeyKind::uuid);
}
