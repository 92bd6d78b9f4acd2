// Roles that own graphs: DROP ROLE, REASSIGN OWNED and DROP OWNED treat pg_grail graphs as they
// treat the role's tables.
#pragma once

namespace grail::pg {

// Installs the ProcessUtility hook; from _PG_init.
void install_owner_hooks();

} // namespace grail::pg
