// Named wrappers of the PostgreSQL calls that C++ code makes most often (pg_duckdb's
// src/pg/relations.cpp): each runs its call inside guard(), so a caller needs no lambda of its own.
#pragma once

#include <string>

#include "boundary/guard.hpp"

extern "C" {
#include "access/attnum.h"
#include "storage/lockdefs.h"
}

namespace grail::pg {

// Argument arg of an SQL function, a text, as a C string (palloc'd).
const char *text_argument(FunctionCallInfo fcinfo, int arg);

// s as an error message may echo an argument: whole when it has at most `most` bytes, else its
// characters within the first `most` bytes (pg_mbcliplen: none cut in two) and "...".
std::string echoed(const char *s, int most);

// A text datum of s (palloc'd).
Datum text_datum(const char *s);
inline Datum
text_datum(const std::string &s) {
	return text_datum(s.c_str());
}

// Whether a relation of that oid exists, in the catalog as it is now.
bool relation_exists(Oid relid);
// The oids as an oid[] datum (palloc'd).
Datum oid_array(const Oid *oids, int count);

// The name of a relation (get_rel_name), null if there is none.
const char *relation_name(Oid relid);
// Its kind (get_rel_relkind: RELKIND_RELATION, ...) and persistence (get_rel_persistence).
char relation_kind(Oid relid);
char relation_persistence(Oid relid);
// Its owner (pg_class.relowner), InvalidOid if there is no such relation.
Oid relation_owner(Oid relid);
// The type of a column (get_atttype), InvalidOid if there is none.
Oid attribute_type(Oid relid, AttrNumber attnum);
// The name of a column (get_attname; an error if there is none).
const char *attribute_name(Oid relid, AttrNumber attnum);
// The number of the column named name (get_attnum), InvalidAttrNumber if there is none.
AttrNumber attribute_number(Oid relid, const char *name);
// name, quoted as an SQL identifier where it needs to be (quote_identifier).
const char *quoted_identifier(const char *name);
// The name of a schema (get_namespace_name), null if there is none.
const char *namespace_name(Oid schema);
// The SQL name of a type (format_type_be).
const char *type_name(Oid type);
// The name of a role (GetUserNameFromId; an error if there is none).
const char *role_name(Oid role);
// Whether member has the privileges of role (has_privs_of_role).
bool has_privileges_of(Oid member, Oid role);
// Locks a relation until the end of the transaction (LockRelationOid).
void lock_relation(Oid relid, LOCKMODE mode);

} // namespace grail::pg
