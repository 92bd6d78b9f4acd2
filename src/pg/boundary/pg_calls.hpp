// Named wrappers of the PostgreSQL calls that C++ code makes most often (pg_duckdb's
// src/pg/relations.cpp): each runs its call inside guard(), so a caller needs no lambda of its own.
#pragma once

#include <string>

#include "boundary/guard.hpp"

namespace grail::pg {

// Argument arg of an SQL function, a text, as a C string (palloc'd).
const char *text_argument(FunctionCallInfo fcinfo, int arg);

// A text datum of s (palloc'd).
Datum text_datum(const char *s);
inline Datum
text_datum(const std::string &s) {
	return text_datum(s.c_str());
}

} // namespace grail::pg
