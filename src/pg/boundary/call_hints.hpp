// The calls to write, for errors that a call of the wrong overload or a name of the wrong kind of
// object causes: the hint names the exact call (a graph's key type, a table given as a graph), and
// a text key on a uuid or integer graph is read as that kind when it is a valid literal of it.
#pragma once

#include "keys.hpp"

#include <string>
#include <vector>

#include "boundary/guard.hpp"

namespace grail::pg {

// The hint for a graph name that names no graph: when it names a table (or view) the caller can
// see, says so and how to find or build the graph over it; else fallback. Never raises.
std::string missing_graph_hint(const char *name, const char *fallback);

// A key argument of kind `from` (a datum of that kind, or an array of them when array) as the SQL
// literal to write for a graph whose keys are of kind `to`: the same value where it converts (an
// integer or a uuid as text), else a placeholder ('<uuid>'::uuid, <bigint>).
std::string key_literal(grail::KeyKind to, grail::KeyKind from, Datum key, bool array);

// Raises "pg_grail graph "display" has <actual> keys, not <asked> keys" with the hint "Write
// grail.function('graph', arguments...)": key_literals are the key arguments as they should be
// written; none for a function without one (then the key_type argument is written, NULL::text).
[[noreturn]] void raise_key_kind(const std::string &display, const char *graph, grail::KeyKind actual,
                                 grail::KeyKind asked, const char *function,
                                 const std::vector<std::string> &key_literals);

// A text key read as a key of kind (uuid or integer) into *key (a uuid or int8 datum); false when
// it is not a valid literal of that kind, with *out_of_range set where it is an integer literal
// outside bigint's range. PostgreSQL calls inside.
bool parse_text_key(grail::KeyKind kind, Datum text, Datum *key, bool *out_of_range);

// The SQL type name of a kind's keys: bigint, text or uuid.
const char *key_type_name(grail::KeyKind kind);

} // namespace grail::pg
