#include "index.hpp"
#include "keys.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "boundary/key_datums.hpp"
#include "boundary/pg_calls.hpp"

extern "C" {
#include "catalog/pg_auth_members.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
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
		if (!oid_key_type(type))
			return false;
		*kind = grail::KeyKind::integer;
		return true;
	}
}

bool
oid_key_type(Oid type) {
	switch (type) {
	case OIDOID:
	case REGROLEOID:
	case REGCLASSOID:
	case REGNAMESPACEOID:
	case REGPROCOID:
	case REGPROCEDUREOID:
	case REGTYPEOID:
		return true;
	default:
		return false;
	}
}

Oid
key_type_of(Oid column_type) {
	grail::KeyKind kind;
	if (!key_kind_of(column_type, &kind))
		return InvalidOid;
	if (oid_key_type(column_type))
		return column_type;
	return key_type_oid(kind);
}

Oid
column_key_type(Oid relid, AttrNumber attnum, Oid column_type) {
	Oid type = key_type_of(column_type);
	if (type != OIDOID || (relid != AuthMemRelationId && relid != InheritsRelationId))
		return type;
	char *name = get_attname(relid, attnum, true);
	if (name == nullptr)
		return type;
	if (relid == AuthMemRelationId &&
	    (strcmp(name, "member") == 0 || strcmp(name, "roleid") == 0 || strcmp(name, "grantor") == 0))
		return REGROLEOID;
	if (relid == InheritsRelationId && (strcmp(name, "inhrelid") == 0 || strcmp(name, "inhparent") == 0))
		return REGCLASSOID;
	return type;
}

int64_t
integer_key(Oid type, Datum key) {
	switch (type) {
	case INT2OID:
		return DatumGetInt16(key);
	case INT4OID:
		return DatumGetInt32(key);
	case INT8OID:
		return DatumGetInt64(key);
	default:
		return int64_t(DatumGetObjectId(key));
	}
}

Datum
integer_key_datum(Oid key_type, int64_t id) {
	if (oid_key_type(key_type) && id >= 0 && id <= int64_t(UINT32_MAX))
		return ObjectIdGetDatum(Oid(id));
	return Int64GetDatum(id);
}

const char *
oid_key_object(Oid key_type) {
	switch (key_type) {
	case REGROLEOID:
		return "role";
	case REGCLASSOID:
		return "relation";
	case REGNAMESPACEOID:
		return "schema";
	case REGPROCOID:
	case REGPROCEDUREOID:
		return "function";
	case REGTYPEOID:
		return "type";
	default:
		return "object";
	}
}

/*
 * A to_regrole()-like function of one text argument: its oid, or false for NULL (no such object).
 */
static bool
call_to_reg(PGFunction function, Datum key_text, Oid *oid) {
	LOCAL_FCINFO(call, 1);
	InitFunctionCallInfoData(*call, NULL, 1, InvalidOid, NULL, NULL);
	call->args[0].value = key_text;
	call->args[0].isnull = false;
	Datum result = function(call);
	if (call->isnull)
		return false;
	*oid = DatumGetObjectId(result);
	return true;
}

bool
parse_oid_key(Oid key_type, Datum key_text, int64_t *id) {
	char *cstring = guard([&] { return text_to_cstring(DatumGetTextPP(key_text)); });
	// A number is an oid, as every reg* input reads one; anything else a name (for reg* types).
	bool number = *cstring != '\0';
	for (const char *c = cstring; *c != '\0'; c++)
		if (!(isdigit(static_cast<unsigned char>(*c)) || (c == cstring && (*c == '-' || *c == '+'))))
			number = false;
	if (number || key_type == OIDOID) {
		try {
			*id =
			    int64_t(guard([&] { return DatumGetObjectId(DirectFunctionCall1(oidin, CStringGetDatum(cstring))); }));
			return true;
		} catch (const PgError &) {
			return false;
		}
	}
	PGFunction lookup = nullptr;
	switch (key_type) {
	case REGROLEOID:
		lookup = to_regrole;
		break;
	case REGCLASSOID:
		lookup = to_regclass;
		break;
	case REGNAMESPACEOID:
		lookup = to_regnamespace;
		break;
	case REGPROCOID:
		lookup = to_regproc;
		break;
	case REGPROCEDUREOID:
		lookup = to_regprocedure;
		break;
	case REGTYPEOID:
		lookup = to_regtype;
		break;
	default:
		return false;
	}
	try {
		Oid oid = InvalidOid;
		if (!guard([&] { return call_to_reg(lookup, key_text, &oid); }))
			return false;
		*id = int64_t(oid);
		return true;
	} catch (const PgError &) {
		return false;
	}
}

Datum
oid_key_as_text(Oid key_type, int64_t id) {
	if (id < 0 || id > int64_t(UINT32_MAX))
		return CStringGetTextDatum(DatumGetCString(DirectFunctionCall1(int8out, Int64GetDatum(id))));
	Oid output;
	bool varlena;
	getTypeOutputInfo(key_type, &output, &varlena);
	return CStringGetTextDatum(OidOutputFunctionCall(output, ObjectIdGetDatum(Oid(id))));
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

const char *
key_type_label(Oid key_type) {
	switch (key_type) {
	case TEXTOID:
		return "text";
	case UUIDOID:
		return "uuid";
	case OIDOID:
		return "oid";
	case REGROLEOID:
		return "regrole";
	case REGCLASSOID:
		return "regclass";
	case REGNAMESPACEOID:
		return "regnamespace";
	case REGPROCOID:
		return "regproc";
	case REGPROCEDUREOID:
		return "regprocedure";
	case REGTYPEOID:
		return "regtype";
	default:
		return "bigint";
	}
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
key_type_argument(FunctionCallInfo fcinfo, int arg, const char *what, Oid *key_type) {
	Oid type = guard([&] { return get_fn_expr_argtype(fcinfo->flinfo, arg); });
	grail::KeyKind kind;
	// Not int2 or int4: the rows would have to be of that type, and an int8 id may not fit.
	if (type == INT2OID || type == INT4OID || !key_kind_of(type, &kind))
		raise(ERRCODE_DATATYPE_MISMATCH,
		      format("%s: key_type must be NULL::bigint, NULL::text, NULL::varchar, NULL::uuid, NULL::oid or a NULL "
		             "of a reg* type (regrole, regclass, ...), not a value of type %s",
		             what, OidIsValid(type) ? type_name(type) : "unknown"),
		      format("Pass a NULL of the type of the graph's keys, as in %s('graph', NULL::text).", what));
	if (key_type != nullptr)
		*key_type = type == VARCHAROID ? TEXTOID : type;
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

bool
same_key(grail::KeyKind kind, Datum a, Datum b) {
	if (kind == grail::KeyKind::integer)
		return DatumGetInt64(a) == DatumGetInt64(b);
	void *copy_a, *copy_b;
	std::string_view bytes_a = key_bytes(kind, a, &copy_a);
	std::string_view bytes_b = key_bytes(kind, b, &copy_b);
	bool same = bytes_a == bytes_b;
	if (copy_a != nullptr)
		pfree(copy_a);
	if (copy_b != nullptr)
		pfree(copy_b);
	return same;
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
