// grail_internal._activity(), behind the view grail.activity: the builds and merges in progress
// (src/pg/store/activity.cpp keeps them in shared memory).
#include "store/activity.hpp"

extern "C" {
#include "catalog/pg_authid.h"
#include "funcapi.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/timestamp.h"
}

using namespace grail::pg;

/*
 * grail_internal._activity(): the builds and merges in progress in this database that the current role may
 * see: all for members of pg_read_all_stats; otherwise those over edge columns it may read, as
 * grail.graphs filters graphs (schema USAGE, SELECT on both columns, no row-level security
 * applying to it). Empty without the preload.
 */
GRAIL_FUNCTION(grail_activity) {
	int count = 0;
	const BuildActivity *builds = builds_in_progress(&count);
	guard([&] {
		InitMaterializedSRF(fcinfo, 0);
		ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
		Oid role = GetUserId();
		bool all = has_privs_of_role(role, ROLE_PG_READ_ALL_STATS);
		for (int i = 0; i < count; i++) {
			const BuildActivity &s = builds[i];
			Oid schema = get_rel_namespace(s.relid);
			if (!OidIsValid(schema))
				continue; // the edge table is gone
			if (!all) {
				bool missing = false;
				if (pg_namespace_aclcheck(schema, role, ACL_USAGE) != ACLCHECK_OK)
					continue;
				bool table_select = pg_class_aclcheck_ext(s.relid, role, ACL_SELECT, &missing) == ACLCHECK_OK;
				if (missing)
					continue;
				auto column_select = [&](AttrNumber attnum) {
					bool gone = false;
					return table_select ||
					       (pg_attribute_aclcheck_ext(s.relid, attnum, role, ACL_SELECT, &gone) == ACLCHECK_OK &&
					        !gone);
				};
				if (!column_select(s.source) || !column_select(s.target))
					continue;
				if (check_enable_rls(s.relid, InvalidOid, true) == RLS_ENABLED)
					continue;
			}
			char *schema_name = get_namespace_name(s.schema);
			Datum values[12] = {Int32GetDatum(s.pid),
			                    Int64GetDatum(s.graph_id),
			                    schema_name ? CStringGetTextDatum(schema_name) : Datum(0),
			                    CStringGetTextDatum(s.name),
			                    ObjectIdGetDatum(s.relid),
			                    CStringGetTextDatum(s.command),
			                    CStringGetTextDatum(s.phase),
			                    Int64GetDatum(s.done),
			                    Int64GetDatum(s.total),
			                    s.unit ? CStringGetTextDatum(s.unit) : Datum(0),
			                    TimestampTzGetDatum(s.started),
			                    TimestampTzGetDatum(s.phase_started)};
			bool nulls[12] = {false,      false,       schema_name == nullptr, false, false, false, false,
			                  s.done < 0, s.total < 0, s.unit == nullptr,      false, false};
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	});
	return (Datum)0;
}
