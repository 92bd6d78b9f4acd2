// The boundary between C++ and PostgreSQL, in both directions (pg_duckdb's pattern).
//
// SQL -> C++: every SQL-callable function body runs inside grail::pg::call(), which catches
// every C++ exception and raises the PostgreSQL error only after the C++ frames have unwound.
//
// C++ -> PostgreSQL: a PostgreSQL call that can raise an error runs inside guard(), which
// catches the error (a longjmp) and rethrows it as PgError, so destructors run. The lambda
// given to guard() must not throw C++ exceptions itself: keep it to PostgreSQL calls and plain
// reads of engine data.
//
// Engine headers must come before this one (they refuse to compile after postgres.h).
#pragma once

#include <exception>
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
	ErrorData *data_;  // palloc'd in the caller's memory context
};

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

// Runs body(arg) and turns any exception into a PostgreSQL error after it has unwound; for code
// that PostgreSQL calls outside fmgr (hooks). body must not longjmp: PostgreSQL calls go in guard().
void call_and_raise(void (*body)(void *), void *arg);

// Runs body(fcinfo) and turns any exception into a PostgreSQL error after it has unwound.
Datum call(FunctionCallInfo fcinfo, Datum (*body)(FunctionCallInfo));

} // namespace grail::pg

// Declares an SQL-callable function whose body is C++: GRAIL_FUNCTION(name) { ... return x; }
#define GRAIL_FUNCTION(name)                                                                                          \
	static Datum name##_body(FunctionCallInfo fcinfo);                                                                 \
	extern "C" {                                                                                                       \
	PGDLLEXPORT PG_FUNCTION_INFO_V1(name);                                                                             \
	}                                                                                                                  \
	Datum name(PG_FUNCTION_ARGS) {                                                                                     \
		return grail::pg::call(fcinfo, name##_body);                                                                   \
	}                                                                                                                  \
	static Datum name##_body(FunctionCallInfo fcinfo)
