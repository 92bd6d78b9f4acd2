// The triggers on pg_grail's catalog tables (sql/pg_grail.sql, catalog_writes): only
// pg_grail writes them. A role that can write grail.graph decides whose rights a graph's filter runs
// with (its owner column) and what it runs (its filter): with UPDATE on it, a role's filter function
// ran as a superuser at the role's next write to its own edge table. The GRANT guard (grail_on_grant)
// keeps such grants from plain roles, but not a membership that writes every table
// (pg_write_all_data), nor a grant made while event triggers were disabled.
#include "store/catalog.hpp"
#include "boundary/pg_calls.hpp"

extern "C" {
#include "commands/trigger.h"
#include "miscadmin.h"
#include "utils/rel.h"
}

using namespace grail::pg;

/*
 * grail_internal._refuse_catalog_writes(): BEFORE INSERT, UPDATE or DELETE of each row, and BEFORE
 * TRUNCATE, of grail.graph, grail.index_chunk and grail.pending_change (row triggers: pg_grail
 * deletes merged changes in a snapshot of its own, where PostgreSQL fires no statement trigger, and
 * statement triggers would need one). pg_grail's own statements
 * run as the extension's owner, its event triggers' and trigger functions' as their superuser
 * owners, and a restore as a superuser; every other writer is refused. (pg_grail's writes through the
 * access methods, the change log's and the index's, fire no trigger.)
 */
GRAIL_FUNCTION(grail_refuse_catalog_writes) {
	if (!CALLED_AS_TRIGGER(fcinfo))
		raise(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED,
		      "grail_internal._refuse_catalog_writes() must be called as a trigger");
	auto *trigger = reinterpret_cast<TriggerData *>(fcinfo->context);
	Oid role = guard([] { return GetUserId(); });
	if (!catalog_writer(role))
		raise(ERRCODE_INSUFFICIENT_PRIVILEGE,
		      format("only pg_grail writes its catalog table grail.%s, not role \"%s\"",
		             RelationGetRelationName(trigger->tg_relation), role_name(role)),
		      "Change graphs through pg_grail's functions (create_graph, refresh_graph, merge_graph, drop_graph).",
		      "A row of pg_grail's catalog decides whose rights a graph's filter and merges run with, and what "
		      "they run.");
	if (!TRIGGER_FIRED_FOR_ROW(trigger->tg_event))
		return PointerGetDatum(nullptr);
	return PointerGetDatum(TRIGGER_FIRED_BY_UPDATE(trigger->tg_event) ? trigger->tg_newtuple : trigger->tg_trigtuple);
}
