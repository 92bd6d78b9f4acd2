// Independent pieces of a build run on a few helper threads beside the calling one. The engine
// calls no PostgreSQL function, and helper threads only compute: they may poll_cancel() (the
// host's hook only reads flags) and throw; every exception is caught on its thread, every thread
// is joined before the call returns, and the first exception (by task number) is rethrown on the
// calling thread. So a cancelled or failed build leaves no thread running and nothing half made
// outside what the tasks' own outputs hold.
#pragma once
#include "cpp_only.hpp"

#include <atomic>
#include <csignal>
#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include <pthread.h>

namespace grail {

// A std::thread with every signal blocked: the host's signal handlers (a cancel, a timeout) run on
// the calling thread, never on a helper. The mask is set on the caller around the start, so that
// the helper has it from its first instruction; signals arriving meanwhile wait, not lost.
template <class F>
std::thread
start_quiet_thread(F &&f) {
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	try {
		std::thread t(std::forward<F>(f));
		pthread_sigmask(SIG_SETMASK, &old, nullptr);
		return t;
	} catch (...) {
		pthread_sigmask(SIG_SETMASK, &old, nullptr);
		throw;
	}
}

// Runs task(0) .. task(count - 1), each once, on the calling thread and at most `helpers` more
// threads (0: all on the calling thread, in order). task(k, worker) gets the number of the thread
// that runs it, 0 .. helpers, so a task may use per-thread scratch. Tasks must not depend on each
// other's order. A thread that cannot be started is done without: its tasks go to the others.
inline void
run_tasks(size_t count, unsigned helpers, const std::function<void(size_t task, unsigned worker)> &task) {
	if (helpers == 0 || count <= 1) {
		for (size_t k = 0; k < count; k++)
			task(k, 0);
		return;
	}
	if (helpers > count - 1)
		helpers = unsigned(count - 1);
	std::atomic<size_t> next{0};
	std::atomic<bool> failed{false};
	std::vector<std::exception_ptr> errors(count);
	auto work = [&](unsigned worker) {
		for (;;) {
			if (failed.load(std::memory_order_relaxed))
				return;
			size_t k = next.fetch_add(1, std::memory_order_relaxed);
			if (k >= count)
				return;
			try {
				task(k, worker);
			} catch (...) {
				errors[k] = std::current_exception();
				failed.store(true, std::memory_order_relaxed);
			}
		}
	};
	std::vector<std::thread> threads;
	threads.reserve(helpers);
	for (unsigned w = 1; w <= helpers; w++) {
		try {
			threads.push_back(start_quiet_thread([&work, w] { work(w); }));
		} catch (...) { // no thread: the others take its share
			break;
		}
	}
	work(0);
	for (std::thread &t : threads)
		t.join();
	for (std::exception_ptr &e : errors)
		if (e)
			std::rethrow_exception(e);
}

// Loops over fewer items than this are not split among helpers: starting the threads would cost
// about what they save.
constexpr size_t kFewestItemsToSplit = size_t(1) << 16;

// [0, count) cut in helpers + 1 contiguous ranges of (nearly) equal length, each run by a thread of
// run_tasks(): range(k, begin, end) for k = 0 .. helpers. A range's results that depend on the
// order of the items can be joined in range order into what one pass over [0, count) makes.
template <typename Range>
void
for_ranges(size_t count, unsigned helpers, Range &&range) {
	const size_t ranges = size_t(helpers) + 1;
	auto begin = [count, ranges](size_t k) { return count / ranges * k + (k < count % ranges ? k : count % ranges); };
	run_tasks(ranges, helpers, [&](size_t k, unsigned) { range(k, begin(k), begin(k + 1)); });
}

// A task started on a helper thread (or run at once, without helpers) and finished by wait(),
// which rethrows its exception on the calling thread. The destructor joins a task never waited for
// (an exception between start and wait) and drops its exception.
class Background {
public:
	Background() = default;
	Background(const Background &) = delete;
	Background &operator=(const Background &) = delete;
	~Background() {
		if (thread_.joinable())
			thread_.join();
	}
	void
	start(bool helper, std::function<void()> task) {
		task_ = std::move(task);
		if (helper) {
			try {
				thread_ = start_quiet_thread([this] { run(); });
				return;
			} catch (...) { // no thread: run it at once
			}
		}
		run();
	}
	void
	wait() {
		if (thread_.joinable())
			thread_.join();
		if (error_) {
			std::exception_ptr e = error_;
			error_ = nullptr;
			std::rethrow_exception(e);
		}
	}

private:
	void
	run() noexcept {
		try {
			task_();
		} catch (...) {
			error_ = std::current_exception();
		}
	}
	std::function<void()> task_;
	std::thread thread_;
	std::exception_ptr error_;
};

} // namespace grail
