// What a DDL command did, for the event triggers of sql/pg_grail.sql: the subcommands of ALTER
// TABLE and the options of CREATE TABLE are only visible from C.
//
// grail_internal._changes_trigger_state (grail_internal._on_alter_table): whether the command opened a window in
// which writes can go unseen by a graph's staleness triggers: it set a trigger to a state other
// than ENABLE ALWAYS, or made the table unlogged (crash recovery empties an unlogged table and
// fires nothing). A restore's ENABLE ALWAYS of the triggers it has just created opens none, and
// must not leave the restored graphs stale; nor does ENABLE REPLICA of a graph's row trigger for
// logical replication's apply (grail_log_<id>_apply), whose state that is.
//
// grail_internal._alters_column_type (grail_internal._on_alter_table): whether the command changed the type of an
// edge column, which rewrites the rows without firing a trigger (a graph's triggers do not
// depend on its columns, so PostgreSQL allows it).
//
// grail_internal._family_change (grail_internal._on_family_change): whether the command changed a table's
// inheritance family, and whether rows can have come or gone with it.
#include "store/edge_filter.hpp"
#include "boundary/pg_calls.hpp"

extern "C" {
#include "nodes/parsenodes.h"
#include "catalog/pg_type.h"
#include "tcop/deparse_utility.h"
#include "utils/array.h"
#include "utils/builtins.h"
}

using namespace grail::pg;

/*
 * Whether any subcommand of an ALTER TABLE is one that is_kind accepts (false for other commands).
 */
template <typename Accept>
static bool
any_alter_subcommand(const CollectedCommand *command, Accept is_kind) {
	if (command->type != SCT_AlterTable)
		return false;
	ListCell *cell;
	foreach (cell, command->d.alterTable.subcmds) {
		auto *subcommand = static_cast<CollectedATSubcmd *>(lfirst(cell));
		if (IsA(subcommand->parsetree, AlterTableCmd) &&
		    is_kind(*reinterpret_cast<AlterTableCmd *>(subcommand->parsetree)))
			return true;
	}
	return false;
}

/*
 * Whether a trigger name is that of a graph's row trigger for logical replication's apply,
 * grail_log_<digits>_apply.
 */
static bool
apply_trigger_name(const char *name) {
	static const char prefix[] = "grail_log_", suffix[] = "_apply";
	size_t length = name == nullptr ? 0 : strlen(name);
	if (length <= strlen(prefix) + strlen(suffix) || strncmp(name, prefix, strlen(prefix)) != 0 ||
	    strcmp(name + length - strlen(suffix), suffix) != 0)
		return false;
	for (const char *c = name + strlen(prefix); c < name + length - strlen(suffix); c++)
		if (*c < '0' || *c > '9')
			return false;
	return true;
}

GRAIL_FUNCTION(grail_changes_trigger_state) {
	auto *command = reinterpret_cast<CollectedCommand *>(PG_GETARG_POINTER(0));
	PG_RETURN_BOOL(any_alter_subcommand(command, [](const AlterTableCmd &alter) {
		switch (alter.subtype) {
		case AT_EnableReplicaTrig:
			return !apply_trigger_name(alter.name);
		case AT_EnableTrig:
		case AT_DisableTrig:
		case AT_EnableTrigAll:
		case AT_DisableTrigAll:
		case AT_EnableTrigUser:
		case AT_DisableTrigUser:
		case AT_SetUnLogged:
			return true;
		default:
			return false;
		}
	}));
}

GRAIL_FUNCTION(grail_alters_column_type) {
	auto *command = reinterpret_cast<CollectedCommand *>(PG_GETARG_POINTER(0));
	const char *source = NameStr(*PG_GETARG_NAME(1)), *target = NameStr(*PG_GETARG_NAME(2));
	if (command->type != SCT_AlterTable)
		PG_RETURN_BOOL(false);
	ListCell *cell;
	foreach (cell, command->d.alterTable.subcmds) {
		auto *subcommand = static_cast<CollectedATSubcmd *>(lfirst(cell));
		if (!IsA(subcommand->parsetree, AlterTableCmd))
			continue;
		auto *alter = reinterpret_cast<AlterTableCmd *>(subcommand->parsetree);
		if (alter->subtype == AT_AlterColumnType && alter->name != nullptr &&
		    (strcmp(alter->name, source) == 0 || strcmp(alter->name, target) == 0))
			PG_RETURN_BOOL(true);
	}
	PG_RETURN_BOOL(false);
}

/*
 * 'rows': a table joined or left a family with its rows (ATTACH / DETACH PARTITION, INHERIT, NO
 * INHERIT; CREATE FOREIGN TABLE ... PARTITION OF or INHERITS, whose rows are elsewhere already);
 * 'empty': a new table joined one (CREATE TABLE ... PARTITION OF or INHERITS, which moves no rows:
 * PostgreSQL refuses a new partition whose rows sit in the default partition); null: no change of
 * family.
 */
GRAIL_FUNCTION(grail_family_change) {
	auto *command = reinterpret_cast<CollectedCommand *>(PG_GETARG_POINTER(0));
	const char *change = nullptr;
	bool simple = command->type == SCT_Simple && command->parsetree != nullptr;
	if (simple && (IsA(command->parsetree, CreateStmt) || IsA(command->parsetree, CreateForeignTableStmt))) {
		// A CreateForeignTableStmt begins with its CreateStmt.
		auto *create = reinterpret_cast<CreateStmt *>(command->parsetree);
		if (create->partbound != nullptr || create->inhRelations != NIL)
			change = IsA(command->parsetree, CreateForeignTableStmt) ? "rows" : "empty";
	} else if (any_alter_subcommand(command, [](const AlterTableCmd &alter) {
		           AlterTableType type = alter.subtype;
		           return type == AT_AttachPartition || type == AT_DetachPartition ||
		                  type == AT_DetachPartitionFinalize || type == AT_AddInherit || type == AT_DropInherit;
	           })) {
		change = "rows";
	}
	if (change == nullptr)
		PG_RETURN_NULL();
	return grail::pg::text_datum(change);
}

/*
 * grail_internal._filter_renamed(edge_table oid, filter text, old_name name, new_name name): a graph's
 * stored filter with its column old_name, now renamed to new_name, named anew (grail_internal._on_alter_table
 * rewrites the stored text: store/edge_filter.hpp).
 */
GRAIL_FUNCTION(grail_filter_renamed) {
	Oid relid = PG_GETARG_OID(0);
	const char *filter = text_argument(fcinfo, 1);
	const char *from = NameStr(*PG_GETARG_NAME(2));
	const char *to = NameStr(*PG_GETARG_NAME(3));
	return text_datum(renamed_filter(relid, filter, from, to));
}

/*
 * grail_internal._filter_reads_back(edge_table oid, filter text): true where a graph's stored filter
 * reads back, an error where it does not, read without a lock on the edge table
 * (grail_internal._unreadable_filters: store/edge_filter.hpp).
 */
GRAIL_FUNCTION(grail_filter_reads_back) {
	Oid relid = PG_GETARG_OID(0);
	filter_reads_back(relid, text_argument(fcinfo, 1));
	PG_RETURN_BOOL(true);
}

/*
 * grail_internal._column_rename(pg_ddl_command): {old name, new name} when the command renamed a column
 * (ALTER TABLE, VIEW, MATERIALIZED VIEW, FOREIGN TABLE ... RENAME COLUMN; ALTER TYPE ... RENAME
 * ATTRIBUTE), else NULL: which filter column a rename renamed, by its old name.
 */
GRAIL_FUNCTION(grail_column_rename) {
	auto *command = reinterpret_cast<CollectedCommand *>(PG_GETARG_POINTER(0));
	if (command->type != SCT_Simple || command->parsetree == nullptr || !IsA(command->parsetree, RenameStmt))
		PG_RETURN_NULL();
	auto *rename = reinterpret_cast<RenameStmt *>(command->parsetree);
	if ((rename->renameType != OBJECT_COLUMN && rename->renameType != OBJECT_ATTRIBUTE) || rename->subname == nullptr ||
	    rename->newname == nullptr)
		PG_RETURN_NULL();
	return guard([&] {
		Datum names[2] = {CStringGetTextDatum(rename->subname), CStringGetTextDatum(rename->newname)};
		return PointerGetDatum(construct_array(names, 2, TEXTOID, -1, false, TYPALIGN_INT));
	});
}
