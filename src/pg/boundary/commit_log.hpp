// Server log lines about what a transaction did, written only if it commits: a merge that rolls
// back (by ROLLBACK, an error, or ROLLBACK TO a savepoint before it) did nothing and is not logged.
#pragma once

#include <string>

namespace grail::pg {

// Queues line for the server log (LOG) at the commit of the current transaction; dropped if the
// transaction or the subtransaction that queued it aborts. At PREPARE TRANSACTION the line is
// written with a note that the transaction was prepared (its COMMIT PREPARED may come from another
// session, or never).
void log_at_commit(std::string line);

} // namespace grail::pg
