// The kind of key a call passes against the kind its graph has: a call of the wrong overload gets
// the call to write in its hint; a text key on a uuid or integer graph is read as that kind when it
// is a valid literal of it (an untyped literal resolves to the text overload).
#pragma once

#include "index.hpp"
#include "keys.hpp"

#include "boundary/guard.hpp"

namespace grail::pg {

// Raises "graph has <actual> keys, not <asked> keys" with the hint "Write function('graph', ...)":
// key_args key arguments follow the graph argument (arrays of keys when arrays); with none, the
// hint writes the key_type argument.
[[noreturn]] void wrong_key_kind(FunctionCallInfo fcinfo, grail::KeyKind actual, grail::KeyKind asked,
                                 const char *function, int key_args, bool arrays = false);

// wrong_key_kind() unless the graph's keys are of kind asked.
inline void
check_key_kind(FunctionCallInfo fcinfo, const grail::Index &index, grail::KeyKind asked, const char *function,
               int key_args, bool arrays = false) {
	if (index.keys().kind() != asked)
		wrong_key_kind(fcinfo, index.keys().kind(), asked, function, key_args, arrays);
}

// A text key (the datum) read as a key of kind actual (uuid or integer) for a call of function on
// a graph of that kind: the uuid or int8 datum, or wrong_key_kind() when it is no valid literal.
Datum text_key_as(FunctionCallInfo fcinfo, Datum text, grail::KeyKind actual, const char *function, int key_args,
                  bool arrays = false);

// A key of kind (an int8 or uuid datum) as text, for a text overload answering on a graph of that
// kind. PostgreSQL calls: run inside guard().
Datum key_as_text(grail::KeyKind kind, Datum key);

} // namespace grail::pg
