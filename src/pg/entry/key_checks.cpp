#include "index.hpp"
#include "keys.hpp"

#include <string>
#include <vector>

#include "boundary/call_hints.hpp"
#include "boundary/pg_calls.hpp"
#include "entry/key_checks.hpp"
#include "store/catalog.hpp"

extern "C" {
#include "utils/builtins.h"
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

Datum
text_key_as(FunctionCallInfo fcinfo, Datum text, grail::KeyKind actual, const char *function, int key_args,
            bool arrays) {
	Datum key;
	if (!parse_text_key(actual, text, &key))
		wrong_key_kind(fcinfo, actual, grail::KeyKind::text, function, key_args, arrays);
	return key;
}

Datum
key_as_text(grail::KeyKind kind, Datum key) {
	if (kind == grail::KeyKind::integer)
		return CStringGetTextDatum(DatumGetCString(DirectFunctionCall1(int8out, key)));
	if (kind == grail::KeyKind::uuid)
		return CStringGetTextDatum(DatumGetCString(DirectFunctionCall1(uuid_out, key)));
	return key;
}

} // namespace grail::pg
