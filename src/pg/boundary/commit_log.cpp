#include "boundary/commit_log.hpp"

#include <vector>

#include "boundary/guard.hpp"

extern "C" {
#include "access/xact.h"
}

namespace grail::pg {

namespace {

struct QueuedLine {
	SubTransactionId subxact; // the subtransaction the line belongs to now
	std::string line;
};

std::vector<QueuedLine> queued;

void
write_lines(const char *suffix) {
	std::vector<QueuedLine> lines;
	lines.swap(queued);
	for (const QueuedLine &q : lines)
		guard([&] { ereport(LOG, (errmsg("%s%s", q.line.c_str(), suffix))); });
}

// The callbacks run inside PostgreSQL's commit and abort: nothing may unwind out of them (a lost
// log line is the worst outcome).
void
at_transaction_end(XactEvent event, void *) noexcept try {
	switch (event) {
	case XACT_EVENT_COMMIT:
	case XACT_EVENT_PARALLEL_COMMIT:
		write_lines("");
		break;
	case XACT_EVENT_PREPARE:
		write_lines(" (transaction prepared, not yet committed)");
		break;
	case XACT_EVENT_ABORT:
	case XACT_EVENT_PARALLEL_ABORT:
		queued.clear();
		break;
	default:
		break;
	}
} catch (...) {
	queued.clear();
}

void
at_subtransaction_end(SubXactEvent event, SubTransactionId subxact, SubTransactionId parent, void *) noexcept try {
	if (event == SUBXACT_EVENT_COMMIT_SUB) {
		for (QueuedLine &q : queued)
			if (q.subxact == subxact)
				q.subxact = parent;
	} else if (event == SUBXACT_EVENT_ABORT_SUB) {
		std::vector<QueuedLine> kept;
		for (QueuedLine &q : queued)
			if (q.subxact != subxact)
				kept.push_back(std::move(q));
		queued.swap(kept);
	}
} catch (...) {
	queued.clear();
}

} // namespace

void
log_at_commit(std::string line) {
	static bool registered = false;
	if (!registered) {
		guard([] {
			RegisterXactCallback(at_transaction_end, nullptr);
			RegisterSubXactCallback(at_subtransaction_end, nullptr);
		});
		registered = true;
	}
	SubTransactionId subxact = guard([] { return GetCurrentSubTransactionId(); });
	queued.push_back({subxact, std::move(line)});
}

} // namespace grail::pg
