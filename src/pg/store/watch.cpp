// A table's inheritance family, and whether a graph's staleness triggers are all in place on it
// (and every table of it is permanent): the rule that grail_internal._watch (in sql/pg_grail.sql) makes
// true, checked here once for the queries (every statement) and the event triggers
// (grail_internal._watched) alike. Written against the catalogs directly rather than in SQL, because a
// statement of a pg_grail function pays for it: no SQL function to plan, no lock on the tables.
#include "store/catalog.hpp"
#include "store/watch.hpp"

#include <algorithm>
#include <string>
#include <vector>

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
}

namespace grail::pg {

// tgtype of the triggers grail_internal._watch makes (see TRIGGER_TYPE_* in catalog/pg_trigger.h): on the
// edge table and its descendants, statement triggers with transition tables for each write, and on
// those that hold rows a BEFORE TRUNCATE one and a row trigger for logical replication's apply
// (which fires row triggers only; ENABLE REPLICA, so other writes never call it); on ancestors,
// one statement trigger on every write.
static constexpr int16 kAncestorType =
    TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE | TRIGGER_TYPE_TRUNCATE;
struct ExpectedTrigger {
	const char *suffix; // of grail_log_<id>
	int16 type;
	bool old_table, new_table; // transition tables
	bool where_rows_are;       // only on tables that store rows
	char enabled;              // pg_trigger.tgenabled
};
static constexpr ExpectedTrigger kLogTriggers[] = {
    {"_insert", TRIGGER_TYPE_INSERT, false, true, false, TRIGGER_FIRES_ALWAYS},
    {"_delete", TRIGGER_TYPE_DELETE, true, false, false, TRIGGER_FIRES_ALWAYS},
    {"_update", TRIGGER_TYPE_UPDATE, true, true, false, TRIGGER_FIRES_ALWAYS},
    {"_truncate", TRIGGER_TYPE_BEFORE | TRIGGER_TYPE_TRUNCATE, false, false, true, TRIGGER_FIRES_ALWAYS},
    {"_apply", TRIGGER_TYPE_ROW | TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE, false, false, true,
     TRIGGER_FIRES_ON_REPLICA},
};
// How many of them a table has: all, or all but those only where rows are.
static constexpr int kLogTriggersWhereRowsAre = 5, kLogTriggersElsewhere = 3;

/*
 * The inheritance (or partition) ancestors of relid (PostgreSQL calls: run inside guard()).
 */
static void
add_ancestors(Oid relid, std::vector<Oid> *ancestors) {
	Relation inherits = table_open(InheritsRelationId, AccessShareLock);
	std::vector<Oid> pending{relid};
	while (!pending.empty()) {
		Oid child = pending.back();
		pending.pop_back();
		ScanKeyData key;
		ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(child));
		SysScanDesc scan = systable_beginscan(inherits, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
		while (HeapTuple tuple = systable_getnext(scan)) {
			Oid parent = ((Form_pg_inherits)GETSTRUCT(tuple))->inhparent;
			if (std::find(ancestors->begin(), ancestors->end(), parent) == ancestors->end()) {
				ancestors->push_back(parent);
				pending.push_back(parent);
			}
		}
		systable_endscan(scan);
	}
	table_close(inherits, AccessShareLock);
}

static Oid
grail_function(const char *name) {
	return LookupFuncName(list_make2(makeString(pstrdup("grail")), makeString(pstrdup(name))), 0, NULL, true);
}

/*
 * How many of table's triggers are the graph's, as grail_internal._watch makes them: on an ancestor the
 * statement trigger that marks the graph stale; on a descendant (the edge table included) the
 * triggers that log its changes, the TRUNCATE one only where rows are stored. PostgreSQL calls: run
 * inside guard().
 */
static int
graph_triggers(Relation triggers, Oid table, bool ancestor, bool stores_rows, int64_t graph_id) {
	Oid mark_stale = grail_function("_mark_stale"), log_changes = grail_function("_log_changes");
	std::string stale_name = "grail_stale_" + std::to_string(graph_id);
	std::string log_name = "grail_log_" + std::to_string(graph_id);
	std::string argument = std::to_string(graph_id);
	TupleDesc desc = RelationGetDescr(triggers);
	ScanKeyData key;
	ScanKeyInit(&key, Anum_pg_trigger_tgrelid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(table));
	SysScanDesc scan = systable_beginscan(triggers, TriggerRelidNameIndexId, true, NULL, 1, &key);
	int found = 0;
	while (HeapTuple tuple = systable_getnext(scan)) {
		Form_pg_trigger t = (Form_pg_trigger)GETSTRUCT(tuple);
		if (t->tgnargs != 1 || t->tgattr.dim1 != 0 || !heap_attisnull(tuple, Anum_pg_trigger_tgqual, desc))
			continue;
		bool null;
		Datum args = heap_getattr(tuple, Anum_pg_trigger_tgargs, desc, &null);
		bytea *bytes = null ? nullptr : DatumGetByteaPP(args);
		if (bytes == nullptr || VARSIZE_ANY_EXHDR(bytes) != argument.size() + 1 ||
		    memcmp(VARDATA_ANY(bytes), argument.c_str(), argument.size() + 1) != 0)
			continue;
		const char *name = NameStr(t->tgname);
		bool old_table = !heap_attisnull(tuple, Anum_pg_trigger_tgoldtable, desc);
		bool new_table = !heap_attisnull(tuple, Anum_pg_trigger_tgnewtable, desc);
		if (ancestor) {
			found += t->tgfoid == mark_stale && name == stale_name && t->tgtype == kAncestorType && !old_table &&
			         !new_table && t->tgenabled == TRIGGER_FIRES_ALWAYS;
			continue;
		}
		if (t->tgfoid != log_changes)
			continue;
		for (const ExpectedTrigger &expected : kLogTriggers)
			if (name == log_name + expected.suffix && t->tgtype == expected.type && old_table == expected.old_table &&
			    new_table == expected.new_table && t->tgenabled == expected.enabled &&
			    (stores_rows || !expected.where_rows_are))
				found++;
	}
	systable_endscan(scan);
	return found;
}

/*
 * The oids of a regclass[] datum.
 */
static std::vector<Oid>
oids_of(Datum array) {
	return guard([&] {
		Datum *values;
		bool *nulls;
		int count;
		deconstruct_array(DatumGetArrayTypeP(array), REGCLASSOID, sizeof(Oid), true, TYPALIGN_INT, &values, &nulls,
		                  &count);
		std::vector<Oid> oids;
		for (int i = 0; i < count; i++)
			if (!nulls[i])
				oids.push_back(DatumGetObjectId(values[i]));
		return oids;
	});
}

TableFamily
table_family(Oid relid) {
	TableFamily family; // outside the guard: a PostgreSQL error must not skip its destructor
	guard([&] {
		add_ancestors(relid, &family.ancestors);
		List *descendants = find_all_inheritors(relid, NoLock, NULL); // relid first
		ListCell *cell;
		foreach (cell, descendants)
			family.descendants.push_back(lfirst_oid(cell));
		// A descendant can inherit from a table outside the family too, whose writes (UPDATE,
		// DELETE, TRUNCATE of it) reach the descendant's rows and fire only that table's statement
		// triggers: it is an ancestor as the edge table's are. (A partition has one parent, in the
		// family.)
		for (size_t i = 1; i < family.descendants.size(); i++)
			if (!get_rel_relispartition(family.descendants[i]))
				add_ancestors(family.descendants[i], &family.ancestors);
	});
	const std::vector<Oid> &members = family.descendants;
	family.ancestors.erase(
	    std::remove_if(family.ancestors.begin(), family.ancestors.end(),
	                   [&](Oid table) { return std::find(members.begin(), members.end(), table) != members.end(); }),
	    family.ancestors.end());
	return family;
}

bool
log_trigger_in_family(const char *trigger, Oid table, int64_t graph_id, const char *graph_name, Oid edge_table) {
	if (table == edge_table)
		return true;
	std::vector<Oid> ancestors; // outside the guard: a PostgreSQL error must not skip its destructor
	guard([&] { add_ancestors(table, &ancestors); });
	if (std::find(ancestors.begin(), ancestors.end(), edge_table) != ancestors.end())
		return true;
	guard([&] {
		const char *schema = get_namespace_name(get_rel_namespace(table));
		const char *name = get_rel_name(table);
		const char *edge_name = get_rel_name(edge_table);
		ereport(WARNING, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
		                  errmsg("pg_grail trigger \"%s\" on table \"%s\" ignores this write: the table is not in the "
		                         "inheritance family of graph \"%s\" (id %lld), whose edge table is \"%s\"",
		                         trigger, name, graph_name, (long long)graph_id, edge_name ? edge_name : "?"),
		                  errdetail("Such a trigger comes with a dump of the table alone (pg_dump -t) restored into a "
		                            "database where another graph has that id."),
		                  errhint("Drop the trigger: DROP TRIGGER %s ON %s;", quote_identifier(trigger),
		                          quote_qualified_identifier(schema, name))));
	});
	return false;
}

bool
graph_watched(int64_t graph_id, Oid edge_table, Datum watched) {
	std::vector<Oid> watched_tables = oids_of(watched);
	TableFamily family = table_family(edge_table);
	std::vector<Oid> members = family.ancestors;
	members.insert(members.end(), family.descendants.begin(), family.descendants.end());
	std::sort(members.begin(), members.end());
	std::sort(watched_tables.begin(), watched_tables.end());
	if (members != watched_tables)
		return false;
	return guard([&] {
		if (!OidIsValid(grail_function("_mark_stale")) || !OidIsValid(grail_function("_log_changes")))
			return false;
		Relation triggers = table_open(TriggerRelationId, AccessShareLock);
		bool watched = true;
		for (Oid table : family.ancestors)
			watched = watched && graph_triggers(triggers, table, true, false, graph_id) == 1;
		// A partitioned table stores no rows: TRUNCATE fires the triggers of its partitions.
		for (Oid table : family.descendants) {
			// A materialized view can have no triggers: its rows change only by REFRESH, which
			// grail_internal._on_refresh sees.
			if (get_rel_relkind(table) == RELKIND_MATVIEW)
				continue;
			bool stores_rows = get_rel_relkind(table) != RELKIND_PARTITIONED_TABLE;
			watched = watched && graph_triggers(triggers, table, false, stores_rows, graph_id) ==
			                         (stores_rows ? kLogTriggersWhereRowsAre : kLogTriggersElsewhere);
		}
		table_close(triggers, AccessShareLock);
		// An unlogged table is emptied by crash recovery, which fires no trigger; a foreign table's
		// rows change elsewhere.
		for (Oid table : members)
			watched = watched && get_rel_persistence(table) == RELPERSISTENCE_PERMANENT;
		for (Oid table : family.descendants)
			watched = watched && get_rel_relkind(table) != RELKIND_FOREIGN_TABLE;
		return watched;
	});
}

} // namespace grail::pg
