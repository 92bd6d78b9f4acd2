#include "keys.hpp"

#include <cctype>
#include <charconv>
#include <cstring>

#include "boundary/call_hints.hpp"
#include "boundary/key_datums.hpp"
#include "boundary/pg_calls.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/uuid.h"
}

namespace grail::pg {

std::string
missing_graph_hint(const char *name, const char *fallback) {
	Oid relation = InvalidOid;
	char *relation_name = nullptr;
	try {
		guard([&] {
			List *names = stringToQualifiedNameList(name);
			relation = RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true);
			if (OidIsValid(relation))
				relation_name = DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relation)));
		});
	} catch (...) {
		return fallback;
	}
	if (!OidIsValid(relation) || relation_name == nullptr)
		return fallback;
	return format("\"%s\" is a table, not a graph: pass the name of a graph built over it (SELECT schema, name FROM "
	              "grail.graphs WHERE relation = '%s'::regclass), or build one with grail.create_graph('name', '%s').",
	              relation_name, relation_name, relation_name);
}

const char *
key_type_name(grail::KeyKind kind) {
	switch (kind) {
	case grail::KeyKind::text:
		return "text";
	case grail::KeyKind::uuid:
		return "uuid";
	default:
		return "bigint";
	}
}

static std::string
quoted(const char *text) {
	char *literal = guard([&] { return quote_literal_cstr(text); });
	return literal;
}

std::string
key_literal(grail::KeyKind to, grail::KeyKind from, Datum key, bool array) {
	if (array)
		return format("'{...}'::%s[]", key_type_name(to));
	if (to == grail::KeyKind::text && from == grail::KeyKind::integer)
		return quoted(std::to_string(DatumGetInt64(key)).c_str());
	if (to == grail::KeyKind::text && from == grail::KeyKind::uuid)
		return quoted(guard([&] { return DatumGetCString(DirectFunctionCall1(uuid_out, key)); }));
	if (to == grail::KeyKind::uuid)
		return "'<uuid>'::uuid";
	if (to == grail::KeyKind::integer)
		return "<bigint>";
	return "'<key>'";
}

void
raise_key_kind(const std::string &display, const char *graph, grail::KeyKind actual, grail::KeyKind asked,
               const char *function, const std::vector<std::string> &key_literals) {
	std::string call = std::string(function) + "(" + quoted(graph);
	if (key_literals.empty())
		call += std::string(", NULL::") + key_type_name(actual);
	for (const std::string &literal : key_literals)
		call += ", " + literal;
	call += ")";
	raise(ERRCODE_DATATYPE_MISMATCH,
	      format("pg_grail graph \"%s\" has %s keys, not %s keys", display.c_str(), key_kind_name(actual),
	             key_kind_name(asked)),
	      format("Write %s: the graph's keys are of type %s.", call.c_str(), key_type_name(actual)));
}

// An integer literal as int8in reads one: blanks around, a sign, decimal digits, in range.
// *out_of_range: whether it is such a literal but of a value outside bigint's.
static bool
parse_integer(std::string_view text, int64_t *value, bool *out_of_range) {
	*out_of_range = false;
	while (!text.empty() && isspace(static_cast<unsigned char>(text.front())))
		text.remove_prefix(1);
	while (!text.empty() && isspace(static_cast<unsigned char>(text.back())))
		text.remove_suffix(1);
	// One sign: from_chars takes a '-' alone, so a '+' must be followed by a digit.
	if (!text.empty() && text.front() == '+') {
		text.remove_prefix(1);
		if (text.empty() || !isdigit(static_cast<unsigned char>(text.front())))
			return false;
	}
	if (text.empty())
		return false;
	auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
	if (end != text.data() + text.size())
		return false;
	*out_of_range = error == std::errc::result_out_of_range;
	return error == std::errc();
}

bool
parse_text_key(grail::KeyKind kind, Datum key_text, Datum *key, bool *out_of_range) {
	*out_of_range = false;
	char *cstring = guard([&] { return text_to_cstring(DatumGetTextPP(key_text)); });
	if (kind == grail::KeyKind::integer) {
		int64_t value;
		if (!parse_integer(cstring, &value, out_of_range))
			return false;
		*key = Int64GetDatum(value);
		return true;
	}
	if (kind != grail::KeyKind::uuid)
		return false;
	try {
		*key = guard([&] { return DirectFunctionCall1(uuid_in, CStringGetDatum(cstring)); });
		return true;
	} catch (const PgError &) {
		return false;
	}
}

} // namespace grail::pg
