// Runs the enclosing scope as another role, with search_path = pg_catalog, pg_temp, and puts the
// caller's role, security context and settings back when it ends. A transaction abort restores
// the caller's too.
#pragma once

#include "boundary/guard.hpp"

namespace grail::pg {

class RunAsRole {
public:
	// security_context: the flag added to the caller's security context (SECURITY_LOCAL_USERID_CHANGE
	// as PostgreSQL's RI triggers use it, SECURITY_RESTRICTED_OPERATION as VACUUM and REFRESH
	// MATERIALIZED VIEW run a table owner's code). keep_settings: settings the scope changes with a
	// plain SET outlive it, as at a function's commit; otherwise they are undone with it.
	RunAsRole(Oid role, int security_context, bool keep_settings);
	~RunAsRole();
	RunAsRole(const RunAsRole &) = delete;
	RunAsRole &operator=(const RunAsRole &) = delete;

private:
	Oid saved_user_;
	int saved_context_;
	int guc_level_ = 0;
	bool keep_settings_;
};

} // namespace grail::pg
