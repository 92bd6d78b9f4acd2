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
#include "utils/uuid.h"
}

namespace grail::pg {

// The key kind of an edge column type (int2, int4, int8; text, varchar; uuid); false for others.
bool key_kind_of(Oid type, grail::KeyKind *kind);

// "integer", "text" or "uuid", for messages.
const char *key_kind_name(grail::KeyKind kind);

// The kind a polymorphic key_type argument (anyelement) asks for: bigint, text, varchar or uuid;
// a clear error for other types. what: the function, for messages.
grail::KeyKind key_type_argument(FunctionCallInfo fcinfo, int arg, const char *what);

// The vertex id of a text or uuid key datum, or -1 when the graph has no such vertex. Allocates
// nothing unless the datum is compressed or stored out of line.
int64_t key_vertex(const grail::Index &index, Datum key);

// The bytes of a text or uuid key datum, copied (the dictionary's form: text bytes, uuid's 16).
std::string key_string(grail::KeyKind kind, Datum key);

// key_vertex() of the two keys of a pair, their lookups overlapped (KeyDictionary::find_two).
void key_vertices(const grail::Index &index, Datum a, Datum b, int64_t vertices[2]);

// Whether two text or uuid key datums are equal (a key the graph lacks reaches only itself).
bool same_key(const grail::Index &index, Datum a, Datum b);

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

} // namespace grail::pg
