#include "index.hpp"
#include "keys.hpp"

#include <string>
#include <vector>

#include "boundary/call_hints.hpp"
#include "boundary/key_datums.hpp"
#include "boundary/pg_calls.hpp"
#include "entry/key_checks.hpp"
#include "store/catalog.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/uuid.h"
}

namespace grail::pg {

void
wrong_key_kind(FunctionCallInfo fcinfo, grail::KeyKind actual, grail::KeyKind asked, const char *function, int key_args,
               bool arrays) {
	const char *graph = text_argument(fcinfo, 0);
	std::string display = parse_graph_name(graph).display;
	std::vector<std::string> literals;
	for (int i = 1; i <= key_args; i++)
		literals.push_back(PG_ARGISNULL(i) ? std::string("NULL")
		                                   : key_literal(actual, asked, PG_GETARG_DATUM(i), arrays));
	raise_key_kind(display, graph, actual, asked, function, literals);
}

/*
 * The type of a key argument (a domain's base type), for the overloads of integer and oid keys: a
 * clear error for a type whose values are no such keys.
 */
static Oid
integer_key_type(FunctionCallInfo fcinfo, int arg, bool array, const char *function) {
	Oid type = guard([&] {
		Oid t = getBaseType(get_fn_expr_argtype(fcinfo->flinfo, arg));
		return array && OidIsValid(t) ? getBaseType(get_element_type(t)) : t;
	});
	if (type == INT2OID || type == INT4OID || type == INT8OID || oid_key_type(type))
		return type;
	raise(ERRCODE_DATATYPE_MISMATCH,
	      format("%s() takes keys of type bigint, integer, smallint, text, varchar, uuid, oid or a reg* type "
	             "(regrole, regclass, ...), not %s",
	             function, OidIsValid(type) ? type_name(type) : "unknown"),
	      "Pass keys of the type of the graph's edge columns, or cast them to it.");
}

Oid
integer_key_arguments(FunctionCallInfo fcinfo, int first, int count, const char *function, Oid *known) {
	// The arguments' types are those of the call's expression, the same at every call of a site.
	Oid type = known != nullptr && OidIsValid(*known) ? *known : integer_key_type(fcinfo, first, false, function);
	if (known != nullptr)
		*known = type;
	for (int arg = first; arg < first + count; arg++)
		if (!PG_ARGISNULL(arg))
			fcinfo->args[arg].value = Int64GetDatum(integer_key(type, PG_GETARG_DATUM(arg)));
	return type;
}

Oid
integer_key_arrays(FunctionCallInfo fcinfo, int first, int count, const char *function) {
	Oid type = integer_key_type(fcinfo, first, true, function);
	for (int arg = first; arg < first + count; arg++) {
		if (PG_ARGISNULL(arg))
			continue;
		fcinfo->args[arg].value = guard([&] {
			ArrayType *array = PG_GETARG_ARRAYTYPE_P(arg);
			int16 length;
			bool by_value;
			char align;
			get_typlenbyvalalign(ARR_ELEMTYPE(array), &length, &by_value, &align);
			Datum *values;
			bool *nulls;
			int n;
			deconstruct_array(array, ARR_ELEMTYPE(array), length, by_value, align, &values, &nulls, &n);
			for (int i = 0; i < n; i++)
				if (!nulls[i])
					values[i] = Int64GetDatum(integer_key(type, values[i]));
			int dims[MAXDIM], lbs[MAXDIM];
			int ndim = ARR_NDIM(array);
			for (int d = 0; d < ndim; d++) {
				dims[d] = ARR_DIMS(array)[d];
				lbs[d] = ARR_LBOUND(array)[d];
			}
			return PointerGetDatum(
			    construct_md_array(values, nulls, ndim, dims, lbs, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE));
		});
	}
	return type;
}

void
check_oid_key_type(FunctionCallInfo fcinfo, Oid graph, Oid asked, const char *function) {
	if (!oid_key_type(asked) || (oid_key_type(graph) && (graph == asked || graph == OIDOID || asked == OIDOID)))
		return;
	std::string display = parse_graph_name(text_argument(fcinfo, 0)).display;
	raise(ERRCODE_DATATYPE_MISMATCH,
	      format("pg_grail graph \"%s\" has %s keys, not %s keys", display.c_str(), key_type_label(graph),
	             key_type_label(asked)),
	      format("Pass keys of type %s (or NULL::%s as key_type) to %s() on this graph.", key_type_label(graph),
	             key_type_label(graph), function));
}

void
integer_keys_as_oids(FunctionCallInfo fcinfo, Oid graph, Oid asked, int first, int count, bool arrays) {
	if (asked == INT8OID) {
		check_bigint_oid_keys(fcinfo, graph, first, count, arrays);
		return;
	}
	if (!oid_key_type(graph) || (asked != INT4OID && asked != INT2OID))
		return;
	auto as_oid = [](int64_t id) { return id < 0 ? int64_t(uint32_t(int32_t(id))) : id; };
	for (int arg = first; arg < first + count; arg++) {
		if (PG_ARGISNULL(arg))
			continue;
		if (!arrays) {
			fcinfo->args[arg].value = Int64GetDatum(as_oid(PG_GETARG_INT64(arg)));
			continue;
		}
		// integer_key_arrays() made this bigint[] for this call: its values are changed in place
		// (an int8 array stores its non-NULL elements one after another).
		ArrayType *array = DatumGetArrayTypeP(fcinfo->args[arg].value);
		int n = guard([&] { return ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array)); });
		const bits8 *nulls = ARR_NULLBITMAP(array);
		auto *values = reinterpret_cast<int64 *>(ARR_DATA_PTR(array));
		for (int i = 0, k = 0; i < n; i++)
			if (nulls == nullptr || (nulls[i / 8] & (1 << (i % 8))) != 0) {
				values[k] = as_oid(values[k]);
				k++;
			}
	}
}

void
check_bigint_oid_keys(FunctionCallInfo fcinfo, Oid graph, int first, int count, bool arrays) {
	if (!oid_key_type(graph))
		return;
	auto refuse = [&](int64_t id) {
		std::string display = parse_graph_name(text_argument(fcinfo, 0)).display;
		raise(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
		      format("pg_grail graph \"%s\" has %s keys, and the bigint %lld is no oid", display.c_str(),
		             key_type_label(graph), (long long)id),
		      "Pass a number from 0 to 4294967295, as a cast of the bigint to oid would require.");
	};
	auto in_range = [](int64_t id) { return id >= 0 && id <= int64_t(UINT32_MAX); };
	for (int arg = first; arg < first + count; arg++) {
		if (PG_ARGISNULL(arg))
			continue;
		if (!arrays) {
			if (!in_range(PG_GETARG_INT64(arg)))
				refuse(PG_GETARG_INT64(arg));
			continue;
		}
		ArrayType *array = guard([&] { return DatumGetArrayTypeP(fcinfo->args[arg].value); });
		int n = guard([&] { return ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array)); });
		const bits8 *nulls = ARR_NULLBITMAP(array);
		const auto *values = reinterpret_cast<const int64 *>(ARR_DATA_PTR(array));
		for (int i = 0, k = 0; i < n; i++)
			if (nulls == nullptr || (nulls[i / 8] & (1 << (i % 8))) != 0) {
				if (!in_range(values[k]))
					refuse(values[k]);
				k++;
			}
	}
}

Datum
text_key_as(FunctionCallInfo fcinfo, Datum text, grail::KeyKind actual, Oid key_type, const char *function,
            int key_args, bool arrays) {
	if (oid_key_type(key_type)) {
		int64_t id;
		if (!parse_oid_key(key_type, text, &id)) {
			std::string display = parse_graph_name(text_argument(fcinfo, 0)).display;
			std::string literal = echoed(key_string(grail::KeyKind::text, text).c_str(), 32);
			if (key_type == OIDOID)
				raise(ERRCODE_INVALID_TEXT_REPRESENTATION,
				      format("pg_grail graph \"%s\" has oid keys, and \"%s\" is no oid", display.c_str(),
				             literal.c_str()),
				      "Pass a number from 0 to 4294967295.");
			raise(ERRCODE_UNDEFINED_OBJECT,
			      format("pg_grail graph \"%s\" has %s keys, and \"%s\" names no %s", display.c_str(),
			             key_type_label(key_type), literal.c_str(), oid_key_object(key_type)),
			      format("Pass the name of an existing %s (as '...'::%s reads one) or its oid to %s().",
			             oid_key_object(key_type), key_type_label(key_type), function));
		}
		return Int64GetDatum(id);
	}
	Datum key;
	bool out_of_range;
	if (parse_text_key(actual, text, &key, &out_of_range))
		return key;
	// A number too large is no key of the graph's kind, but saying the kind would send the caller
	// looking for a type mistake: say the range, with the value cut short (it may be long).
	if (out_of_range) {
		std::string display = parse_graph_name(text_argument(fcinfo, 0)).display;
		std::string literal = key_string(grail::KeyKind::text, text);
		raise(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
		      format("pg_grail graph \"%s\" has integer keys, and \"%s\" is out of range for them", display.c_str(),
		             echoed(literal.c_str(), 32).c_str()),
		      "Keys of an integer graph are bigint values, from -9223372036854775808 to 9223372036854775807.");
	}
	wrong_key_kind(fcinfo, actual, grail::KeyKind::text, function, key_args, arrays);
}

Datum
key_as_text(grail::KeyKind kind, Datum key, Oid key_type) {
	if (kind == grail::KeyKind::integer && oid_key_type(key_type))
		return oid_key_as_text(key_type, DatumGetInt64(key));
	if (kind == grail::KeyKind::integer)
		return CStringGetTextDatum(DatumGetCString(DirectFunctionCall1(int8out, key)));
	if (kind == grail::KeyKind::uuid)
		return CStringGetTextDatum(DatumGetCString(DirectFunctionCall1(uuid_out, key)));
	return key;
}

} // namespace grail::pg
