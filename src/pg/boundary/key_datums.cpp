#include "index.hpp"
#include "keys.hpp"

#include <algorithm>
#include <cstring>

#include "boundary/key_datums.hpp"
#include "boundary/pg_calls.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/uuid.h"
}

namespace grail::pg {

bool
key_kind_of(Oid type, grail::KeyKind *kind) {
	switch (type) {
	case INT2OID:
	case INT4OID:
	case INT8OID:
		*kind = grail::KeyKind::integer;
		return true;
	case TEXTOID:
	case VARCHAROID:
		*kind = grail::KeyKind::text;
		return true;
	case UUIDOID:
		*kind = grail::KeyKind::uuid;
		return true;
	default:
		return false;
	}
}

const char *
key_kind_name(grail::KeyKind kind) {
	switch (kind) {
	case grail::KeyKind::integer:
		return "integer";
	case grail::KeyKind::text:
		return "text";
	case grail::KeyKind::uuid:
		return "uuid";
	}
	return "unknown";
}

Oid
key_type_oid(grail::KeyKind kind) {
	switch (kind) {
	case grail::KeyKind::text:
		return TEXTOID;
	case grail::KeyKind::uuid:
		return UUIDOID;
	default:
		return INT8OID;
	}
}

grail::KeyKind
key_type_argument(FunctionCallInfo fcinfo, int arg, const char *what) {
	Oid type = guard([&] { return get_fn_expr_argtype(fcinfo->flinfo, arg); });
	grail::KeyKind kind;
	// Not int2 or int4: the rows would have to be of that type, and an int8 id may not fit.
	if (type == INT2OID || type == INT4OID || !key_kind_of(type, &kind))
		raise(
		    ERRCODE_DATATYPE_MISMATCH,
		    format("%s: key_type must be NULL::bigint, NULL::text, NULL::varchar or NULL::uuid, not a value of type %s",
		           what, OidIsValid(type) ? type_name(type) : "unknown"),
		    format("Pass a NULL of the type of the graph's keys, as in %s('graph', NULL::text).", what));
	return kind;
}

/*
 * The bytes of a text or uuid key datum: in place when the datum is stored inline (the usual
 * case), else detoasted into palloc'd memory, which *copy receives for the caller to free.
 */
static std::string_view
key_bytes(grail::KeyKind kind, Datum key, void **copy) {
	*copy = nullptr;
	if (kind == grail::KeyKind::uuid)
		return std::string_view(reinterpret_cast<const char *>(DatumGetUUIDP(key)->data), UUID_LEN);
	auto *text = reinterpret_cast<struct varlena *>(DatumGetPointer(key));
	if (VARATT_IS_EXTENDED(text) && !VARATT_IS_SHORT(text)) {
		text = guard([&] { return pg_detoast_datum_packed(text); });
		*copy = text;
	}
	return std::string_view(VARDATA_ANY(text), VARSIZE_ANY_EXHDR(text));
}

int64_t
key_vertex(const grail::Index &index, Datum key) {
	void *copy;
	std::string_view bytes = key_bytes(index.keys().kind(), key, &copy);
	int64_t vertex = index.keys().find(bytes.data(), bytes.size());
	if (copy != nullptr)
		pfree(copy);
	return vertex;
}

std::string
key_string(grail::KeyKind kind, Datum key) {
	void *copy;
	std::string_view bytes = key_bytes(kind, key, &copy);
	std::string result(bytes);
	if (copy != nullptr)
		pfree(copy);
	return result;
}

void
key_vertices(const grail::Index &index, Datum a, Datum b, int64_t vertices[2]) {
	void *copy_a, *copy_b;
	std::string_view bytes_a = key_bytes(index.keys().kind(), a, &copy_a);
	std::string_view bytes_b = key_bytes(index.keys().kind(), b, &copy_b);
	index.keys().find_two(bytes_a, bytes_b, vertices);
	if (copy_a != nullptr)
		pfree(copy_a);
	if (copy_b != nullptr)
		pfree(copy_b);
}

bool
same_key(const grail::Index &index, Datum a, Datum b) {
	void *copy_a, *copy_b;
	std::string_view bytes_a = key_bytes(index.keys().kind(), a, &copy_a);
	std::string_view bytes_b = key_bytes(index.keys().kind(), b, &copy_b);
	bool same = bytes_a == bytes_b;
	if (copy_a != nullptr)
		pfree(copy_a);
	if (copy_b != nullptr)
		pfree(copy_b);
	return same;
}

Datum
key_datum(const grail::Index &index, int64_t vertex_id) {
	const grail::KeyDictionary &keys = index.keys();
	switch (keys.kind()) {
	case grail::KeyKind::integer:
		return Int64GetDatum(vertex_id);
	case grail::KeyKind::text: {
		std::string_view key = keys.key(size_t(vertex_id));
		return PointerGetDatum(cstring_to_text_with_len(key.data(), int(key.size())));
	}
	case grail::KeyKind::uuid: {
		std::string_view key = keys.key(size_t(vertex_id));
		auto *uuid = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
		std::memcpy(uuid->data, key.data(), UUID_LEN);
		return UUIDPGetDatum(uuid);
	}
	}
	return (Datum)0;
}

Datum
KeyScratch::key(const grail::Index &index, int64_t vertex_id) {
	const grail::KeyDictionary &keys = index.keys();
	switch (keys.kind()) {
	case grail::KeyKind::integer:
		return Int64GetDatum(vertex_id);
	case grail::KeyKind::text: {
		std::string_view key = keys.key(size_t(vertex_id));
		size_t needed = VARHDRSZ + key.size();
		if (needed > capacity_) {
			size_t capacity = std::max<size_t>(needed, 2 * capacity_);
			text_ = static_cast<struct varlena *>(text_ == nullptr ? palloc(capacity) : repalloc(text_, capacity));
			capacity_ = capacity;
		}
		SET_VARSIZE(text_, needed);
		std::memcpy(VARDATA(text_), key.data(), key.size());
		return PointerGetDatum(text_);
	}
	case grail::KeyKind::uuid:
		std::memcpy(uuid_.data, keys.key(size_t(vertex_id)).data(), UUID_LEN);
		return UUIDPGetDatum(&uuid_);
	}
	return (Datum)0;
}

} // namespace grail::pg
