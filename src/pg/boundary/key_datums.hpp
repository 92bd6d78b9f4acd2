// Vertex keys between SQL and the engine. A graph keyed by integers takes and returns its ids,
// which are the engine's vertex ids; one keyed by text (text, varchar) or uuid keeps a sorted
// dictionary in its index (src/core/keys.hpp), and the engine's vertex ids are the dictionary's
// vertex numbers. Every SQL function that takes or returns keys opens its graph for the kind of
// key it is declared with (open_graph), so that a key of one kind is never read as another.
#pragma once

#include "index.hpp"
#include "keys.hpp"

#include <string>

#include "boundary/guard.hpp"

extern "C" {
#include "access/attnum.h"
#include "utils/uuid.h"
}

namespace grail::pg {

// The key kind of an edge column type (int2, int4, int8, and oid and its reg* aliases: integer;
// text, varchar; uuid); false for others.
bool key_kind_of(Oid type, grail::KeyKind *kind);

// Whether type is oid or one of the reg* aliases pg_grail keys vertices by (regrole, regclass,
// regnamespace, regproc, regprocedure, regtype): integer keys inside, an oid's unsigned 32-bit
// value as the int64 id, so 0 to 4294967295, losslessly.
bool oid_key_type(Oid type);

// The SQL type a graph's keys are answered in, from its edge column's type: bigint for smallint,
// integer and bigint; text for text and varchar; uuid; an oid type itself. InvalidOid for others.
Oid key_type_of(Oid column_type);

// key_type_of() for an edge column: an oid column of a system catalog that holds the oids of roles
// (pg_auth_members.member, roleid, grantor) or of relations (pg_inherits.inhrelid, inhparent) keys
// vertices as regrole or regclass, so that the graph answers in names. PostgreSQL calls: inside
// guard().
Oid column_key_type(Oid relid, AttrNumber attnum, Oid column_type);

// The id of an integer or oid key datum of type (int2, int4, int8, oid, reg*).
int64_t integer_key(Oid type, Datum key);

// An integer key id as a datum of key type (int8, or an oid type: an id outside an oid's range,
// which no vertex of such a graph has, as int8). Allocates nothing.
Datum integer_key_datum(Oid key_type, int64_t id);

// A text key read as a key of an oid type: a number (as oidin reads it) or, for a reg* type, the
// name of an existing object as the type's input reads it (to_regrole() and its like). False when
// it is neither. PostgreSQL calls: run inside guard() (errors of the lookup are caught here).
bool parse_oid_key(Oid key_type, Datum key_text, int64_t *id);

// The output of an oid key (its name for reg* types, as their output functions write it).
// PostgreSQL calls: run inside guard().
Datum oid_key_as_text(Oid key_type, int64_t id);

// "role", "relation", ... for messages: what a name of a reg* type names.
const char *oid_key_object(Oid key_type);

// "integer", "text" or "uuid", for messages.
const char *key_kind_name(grail::KeyKind kind);

// The kind a polymorphic key_type argument (anyelement) asks for: bigint, text, varchar, uuid, or
// oid and its reg* aliases (integer keys answered in that type, given in *type when not null);
// a clear error for other types. what: the function, for messages.
grail::KeyKind key_type_argument(FunctionCallInfo fcinfo, int arg, const char *what, Oid *type = nullptr);

// The vertex id of a text or uuid key datum, or -1 when the graph has no such vertex. Allocates
// nothing unless the datum is compressed or stored out of line.
int64_t key_vertex(const grail::Index &index, Datum key);

// The bytes of a text or uuid key datum, copied (the dictionary's form: text bytes, uuid's 16).
std::string key_string(grail::KeyKind kind, Datum key);

// Whether two key datums of one kind are the same key: equal integers, or the same bytes (text
// compared byte for byte, as the graph's key dictionary compares it; a key the graph lacks
// reaches only itself).
bool same_key(grail::KeyKind kind, Datum a, Datum b);

// key_vertex() of the two keys of a pair, their lookups overlapped (KeyDictionary::find_two).
void key_vertices(const grail::Index &index, Datum a, Datum b, int64_t vertices[2]);

// The key of a vertex id as a datum of the graph's kind (int8 for integers). PostgreSQL calls:
// run inside guard().
Datum key_datum(const grail::Index &index, int64_t vertex_id);

// key_datum() without an allocation per key: the datum is formed in a buffer of its own (grown to
// the longest key so far, in the current memory context) and lives until the next key(). For rows
// that the tuplestore copies at once. PostgreSQL calls: run inside guard(). Holds only PostgreSQL
// memory, so it may live inside a guard() lambda.
class KeyScratch {
public:
	Datum key(const grail::Index &index, int64_t vertex_id);

private:
	struct varlena *text_ = nullptr;
	size_t capacity_ = 0;
	pg_uuid_t uuid_{};
};

// The element type of key datums of the graph's kind (INT8OID, TEXTOID, UUIDOID).
Oid key_type_oid(grail::KeyKind kind);

// The name of a key type for messages and hints (bigint, text, uuid, oid, regrole, ...).
const char *key_type_label(Oid key_type);

} // namespace grail::pg
