#include "boundary/pg_calls.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

extern "C" {
#include "access/htup_details.h"
#include "storage/lmgr.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

namespace grail::pg {

const char *
text_argument(FunctionCallInfo fcinfo, int arg) {
	return guard([&] { return text_to_cstring(PG_GETARG_TEXT_PP(arg)); });
}

std::string
echoed(const char *s, int most) {
	size_t length = std::strlen(s);
	if (length <= size_t(most))
		return s;
	int kept = guard([&] { return pg_mbcliplen(s, int(std::min<size_t>(length, size_t(INT_MAX))), most); });
	return std::string(s, size_t(kept)) + "...";
}

Datum
text_datum(const char *s) {
	return guard([&] { return CStringGetTextDatum(s); });
}

Datum
oid_array(const Oid *oids, int count) {
	return guard([&] {
		Datum *elements = static_cast<Datum *>(palloc(sizeof(Datum) * size_t(Max(count, 1))));
		for (int i = 0; i < count; i++)
			elements[i] = ObjectIdGetDatum(oids[i]);
		return PointerGetDatum(construct_array(elements, count, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	});
}

bool
relation_exists(Oid relid) {
	return guard([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)); });
}

const char *
relation_name(Oid relid) {
	return guard([&] { return get_rel_name(relid); });
}

char
relation_kind(Oid relid) {
	return guard([&] { return get_rel_relkind(relid); });
}

char
relation_persistence(Oid relid) {
	return guard([&] { return get_rel_persistence(relid); });
}

Oid
relation_owner(Oid relid) {
	return guard([&] {
		HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
		if (!HeapTupleIsValid(tuple))
			return InvalidOid;
		Oid owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relowner;
		ReleaseSysCache(tuple);
		return owner;
	});
}

Oid
attribute_type(Oid relid, AttrNumber attnum) {
	return guard([&] { return get_atttype(relid, attnum); });
}

const char *
attribute_name(Oid relid, AttrNumber attnum) {
	return guard([&] { return get_attname(relid, attnum, false); });
}

AttrNumber
attribute_number(Oid relid, const char *name) {
	return guard([&] { return get_attnum(relid, name); });
}

const char *
quoted_identifier(const char *name) {
	return guard([&] { return quote_identifier(name); });
}

const char *
namespace_name(Oid schema) {
	return guard([&] { return get_namespace_name(schema); });
}

const char *
type_name(Oid type) {
	return guard([&] { return format_type_be(type); });
}

const char *
role_name(Oid role) {
	return guard([&] { return GetUserNameFromId(role, false); });
}

bool
has_privileges_of(Oid member, Oid role) {
	return guard([&] { return has_privs_of_role(member, role); });
}

void
lock_relation(Oid relid, LOCKMODE mode) {
	guard([&] { LockRelationOid(relid, mode); });
}

} // namespace grail::pg
