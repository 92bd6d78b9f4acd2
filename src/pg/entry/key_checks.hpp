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

// For a call whose keys are answered in SQL type asked (a key_type argument's or a key argument's
// type): an oid type only on a graph keyed by an oid type, and of the same type unless one of the
// two is plain oid (a regrole is no regclass; a bigint id may be no oid). graph: the graph's
// LoadedGraph::key_type. A clear error otherwise.
void check_oid_key_type(FunctionCallInfo fcinfo, Oid graph, Oid asked, const char *function);

// On a graph of oid or reg* keys (graph: LoadedGraph::key_type), the smallint or integer keys
// (asked) of arguments first .. first + count - 1, already int8 datums or (arrays) bigint[] made by
// integer_key_arguments() / integer_key_arrays(), read as PostgreSQL's cast reads them:
// (-1)::integer::oid is 4294967295, which a graph of oid keys holds, not a key it lacks.
void integer_keys_as_oids(FunctionCallInfo fcinfo, Oid graph, Oid asked, int first, int count, bool arrays = false);

// On a graph of oid or reg* keys, a bigint key outside 0 .. 4294967295 of arguments first ..
// first + count - 1 (int8 datums, or arrays: bigint[]) is refused (22003), as a cast of it to oid
// is: no oid, rather than a key the graph lacks.
void check_bigint_oid_keys(FunctionCallInfo fcinfo, Oid graph, int first, int count, bool arrays = false);

// The overloads of the key functions whose keys are polymorphic (anyelement, anycompatible, their
// arrays), for oid and reg* keys answered in their own type, and those of integer and smallint
// keys beside them (which keep such calls on bigint keys, as before: see sql/pg_grail.sql). They
// read the keys as int64 ids and hand the call to the bigint implementation.

// Replaces key arguments first .. first + count - 1 (not NULL ones) by int8 datums of their ids
// and returns their type (the base type of a domain): smallint, integer, bigint, oid or a reg*
// type; a clear error for any other. function: its SQL name, for messages. known: where the call
// site keeps the type once found (InvalidOid until then; service/open_graph.hpp site_key_type),
// or null to look it up at every call.
Oid integer_key_arguments(FunctionCallInfo fcinfo, int first, int count, const char *function, Oid *known = nullptr);

// integer_key_arguments() for arguments that are arrays of keys: each replaced by a bigint[] of
// the same length, NULL elements kept; returns the element type.
Oid integer_key_arrays(FunctionCallInfo fcinfo, int first, int count, const char *function);

// A text key (the datum) read as a key of kind actual (uuid or integer) for a call of function on
// a graph of that kind whose keys are of SQL type key_type (LoadedGraph::key_type): the uuid or
// int8 datum, or wrong_key_kind() when it is no valid literal. On a graph keyed by an oid type, a
// number or (reg* types) the name of an existing object, as the type's input reads it; else an
// error that names the type.
Datum text_key_as(FunctionCallInfo fcinfo, Datum text, grail::KeyKind actual, Oid key_type, const char *function,
                  int key_args, bool arrays = false);

// A key of kind (an int8 or uuid datum) as text, for a text overload answering on a graph of that
// kind, whose keys are of SQL type key_type: a reg* key as its name, as the type writes it.
// PostgreSQL calls: run inside guard().
Datum key_as_text(grail::KeyKind kind, Datum key, Oid key_type);

} // namespace grail::pg
