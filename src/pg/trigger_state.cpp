// grail._changes_trigger_state(pg_ddl_command), for the ALTER TABLE event trigger
// (sql/pg_grail.sql, grail._on_alter_table): whether the command set any trigger to a state other
// than ENABLE ALWAYS. Only such a command opens a window in which a graph's staleness triggers
// may not fire; a restore's ENABLE ALWAYS of the triggers it has just created does not, and must
// not leave the restored graphs stale. The subcommands are only visible from C.
#include "guard.hpp"

extern "C" {
#include "nodes/parsenodes.h"
#include "tcop/deparse_utility.h"
}

GRAIL_FUNCTION(grail_changes_trigger_state) {
	auto *command = reinterpret_cast<CollectedCommand *>(PG_GETARG_POINTER(0));
	if (command->type != SCT_AlterTable)
		PG_RETURN_BOOL(false);
	ListCell *cell;
	foreach (cell, command->d.alterTable.subcmds) {
		auto *subcommand = static_cast<CollectedATSubcmd *>(lfirst(cell));
		if (!IsA(subcommand->parsetree, AlterTableCmd))
			continue;
		switch (reinterpret_cast<AlterTableCmd *>(subcommand->parsetree)->subtype) {
		case AT_EnableTrig:
		case AT_EnableReplicaTrig:
		case AT_DisableTrig:
		case AT_EnableTrigAll:
		case AT_DisableTrigAll:
		case AT_EnableTrigUser:
		case AT_DisableTrigUser:
			PG_RETURN_BOOL(true);
		default:
			break;
		}
	}
	PG_RETURN_BOOL(false);
}
