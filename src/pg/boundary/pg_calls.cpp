#include "boundary/pg_calls.hpp"

extern "C" {
#include "utils/builtins.h"
}

namespace grail::pg {

const char *
text_argument(FunctionCallInfo fcinfo, int arg) {
	return guard([&] { return text_to_cstring(PG_GETARG_TEXT_PP(arg)); });
}

Datum
text_datum(const char *s) {
	return guard([&] { return CStringGetTextDatum(s); });
}

} // namespace grail::pg
