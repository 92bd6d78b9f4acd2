#include "boundary/run_as_role.hpp"

extern "C" {
#include "utils/guc.h"
}

namespace grail::pg {

RunAsRole::RunAsRole(Oid role, int security_context, bool keep_settings) : keep_settings_(keep_settings) {
	GetUserIdAndSecContext(&saved_user_, &saved_context_);
	guard([&] {
		SetUserIdAndSecContext(role, saved_context_ | security_context);
		guc_level_ = NewGUCNestLevel();
		(void)set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true,
		                        0, false);
	});
}

RunAsRole::~RunAsRole() {
	AtEOXact_GUC(keep_settings_, guc_level_);
	SetUserIdAndSecContext(saved_user_, saved_context_);
}

} // namespace grail::pg
