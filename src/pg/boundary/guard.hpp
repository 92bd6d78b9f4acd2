// The boundary between C++ and PostgreSQL, in both directions (pg_duckdb's pattern).
//
// SQL -> C++: every SQL-callable function body runs inside grail::pg::call(), which catches
// every C++ exception and raises the PostgreSQL error only after the C++ frames have unwound.
//
// C++ -> PostgreSQL: a PostgreSQL call that can raise an error runs inside guard(), which
// catches the error (a longjmp) and rethrows it as PgError, so destructors run. guard() restores
// PostgreSQL's error stacks (PG_exception_stack, error_context_stack) in a destructor, and a C++
// exception thrown inside the lambda is caught there and rethrown only after the stacks are
// restored. Still, keep the lambda to PostgreSQL calls and plain reads of engine data: a
// PostgreSQL error longjmps over the lambda's own frames, so a C++ object built inside it (a
// container, a string) would never be destroyed. Build those outside, before or after.
//
// Engine headers must come before this one (they refuse to compile after postgres.h).
#pragma once

#include <exception>
#include <string>
#include <type_traits>

extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
}

namespace grail::pg {

class PgError : public std::exception {
public:
	explicit PgError(ErrorData *data) : data_(data) {
	}
	ErrorData *
	data() const noexcept {
		return data_;
	}
	const char *
	what() const noexcept override {
		return data_->message ? data_->message : "PostgreSQL error";
	}

private:
	ErrorData *data_; // palloc'd in the caller's memory context
};

// An error that C++ code raises with PostgreSQL's fields (raise() below): call_and_raise turns it
// into ereport(ERROR) with the same SQLSTATE, message, detail and hint once the C++ frames have
// unwound, as it does a PgError or a grail::Error.
class SqlError : public std::exception {
public:
	SqlError(int sqlstate, std::string message, std::string hint, std::string detail)
	    : sqlstate_(sqlstate), message_(std::move(message)), hint_(std::move(hint)), detail_(std::move(detail)) {
	}
	int
	sqlstate() const noexcept {
		return sqlstate_;
	}
	const char *
	what() const noexcept override {
		return message_.c_str();
	}
	const std::string &
	hint() const noexcept {
		return hint_;
	}
	const std::string &
	detail() const noexcept {
		return detail_;
	}

private:
	int sqlstate_;
	std::string message_, hint_, detail_;
};

// Throws SqlError: ERROR with this SQLSTATE (an ERRCODE_ value), message, hint and detail (empty:
// none), without a PostgreSQL call.
[[noreturn]] void raise(int sqlstate, std::string message, std::string hint = {}, std::string detail = {});

// printf into a std::string, for the texts of raise(): plain C++, as PostgreSQL formats them.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// Runs fn(arg) inside PG_TRY; a PostgreSQL error becomes a PgError. Out of line, so that no
// caller's locals live in the frame that setjmp saves.
void guard_call(void (*fn)(void *), void *arg);

template <typename Fn>
auto
guard(Fn &&fn) -> decltype(fn()) {
	using Result = decltype(fn());
	if constexpr (std::is_void_v<Result>) {
		guard_call([](void *f) { (*static_cast<Fn *>(f))(); }, &fn);
	} else {
		struct Call {
			Fn *fn;
			Result result;
		} call{&fn, Result{}};
		guard_call([](void *c) { static_cast<Call *>(c)->result = (*static_cast<Call *>(c)->fn)(); }, &call);
		return call.result;
	}
}

// What pg_grail is making while it lives, named in the error if memory runs out there (a
// std::bad_alloc that reaches call_and_raise): the phase ("reversing the edges"), the graph, and
// the setting that bounds it, which did not stop it because the server ran out first. Nested
// phases name the innermost.
class MemoryPhase {
public:
	MemoryPhase(const char *phase, std::string graph, std::string limit);
	~MemoryPhase();
	MemoryPhase(const MemoryPhase &) = delete;
	MemoryPhase &operator=(const MemoryPhase &) = delete;

private:
	const char *phase_;
	std::string graph_, limit_;
	int unwinding_; // exceptions in flight when it was made
};

// Runs body(arg) and turns any exception into a PostgreSQL error after it has unwound; for code
// that PostgreSQL calls outside fmgr (hooks). body must not longjmp: PostgreSQL calls go in guard().
void call_and_raise(void (*body)(void *), void *arg);

// Runs body(fcinfo) and turns any exception into a PostgreSQL error after it has unwound.
Datum call(FunctionCallInfo fcinfo, Datum (*body)(FunctionCallInfo));

// Whether a call() of the function whose lookup info is flinfo is running now: its body has begun
// and not yet returned or failed (nested calls of other functions included).
bool call_running(const FmgrInfo *flinfo) noexcept;

// call() for a function declared CALLED ON NULL INPUT: when any of the arguments at the positions
// in required[0..count) is NULL, the result is NULL (no rows for a set-returning function) and body
// does not run; body may read those arguments as values.
Datum call_unless_null(FunctionCallInfo fcinfo, const int *required, int count, Datum (*body)(FunctionCallInfo));

} // namespace grail::pg

// Declares an SQL-callable function whose body is C++: GRAIL_FUNCTION(name) { ... return x; }
#define GRAIL_FUNCTION(name)                                                                                           \
	static Datum name##_body(FunctionCallInfo fcinfo);                                                                 \
	extern "C" {                                                                                                       \
	PGDLLEXPORT PG_FUNCTION_INFO_V1(name);                                                                             \
	}                                                                                                                  \
	Datum name(PG_FUNCTION_ARGS) {                                                                                     \
		return grail::pg::call(fcinfo, name##_body);                                                                   \
	}                                                                                                                  \
	static Datum name##_body(FunctionCallInfo fcinfo)

// Declares an SQL-callable function that takes NULLs (CALLED ON NULL INPUT: an optional argument, a
// key_type given as a typed NULL): GRAIL_FUNCTION_NULLABLE(name, 0, 1) { ... }. The numbers are the
// positions of the arguments that must not be NULL: a NULL there gives NULL or no rows before the
// body runs, so the body reads them as values and checks only the others with PG_ARGISNULL. Every
// other SQL function is STRICT (test/pgtap/null_arguments.sql holds the list of those that are not).
#define GRAIL_FUNCTION_NULLABLE(name, ...)                                                                             \
	static Datum name##_body(FunctionCallInfo fcinfo);                                                                 \
	extern "C" {                                                                                                       \
	PGDLLEXPORT PG_FUNCTION_INFO_V1(name);                                                                             \
	}                                                                                                                  \
	Datum name(PG_FUNCTION_ARGS) {                                                                                     \
		static const int required[] = {__VA_ARGS__};                                                                   \
		return grail::pg::call_unless_null(fcinfo, required, int(lengthof(required)), name##_body);                    \
	}                                                                                                                  \
	static Datum name##_body(FunctionCallInfo fcinfo)
