#include "error.hpp"

#include <atomic>

namespace grail {

namespace {
// Atomic because a host may install the hook while a worker thread polls.
std::atomic<CancelHook> cancel_hook{nullptr};
} // namespace

void
set_cancel_hook(CancelHook hook) noexcept {
	cancel_hook.store(hook, std::memory_order_relaxed);
}

void
poll_cancel() {
	CancelHook hook = cancel_hook.load(std::memory_order_relaxed);
	if (hook && hook())
		throw Error(ErrorKind::cancelled, "canceling: the host requested a cancel");
}

} // namespace grail
