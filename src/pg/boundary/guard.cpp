#include "error.hpp"

#include <algorithm>
#include <cstdarg>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <vector>

#include "boundary/guard.hpp"

extern "C" {
#include "nodes/execnodes.h"
}

namespace grail::pg {

/*
 * PostgreSQL's error stacks as they were when it was made, put back when it goes out of scope: on
 * the normal return, after a longjmp caught, and as a C++ exception passes (pg_duckdb's
 * PgExceptionGuard). Otherwise PG_exception_stack would be left pointing into a dead frame and the
 * next error would jump there.
 */
class ErrorStacks {
public:
	ErrorStacks() noexcept : exception_stack_(PG_exception_stack), context_stack_(error_context_stack) {
	}
	~ErrorStacks() {
		restore();
	}
	ErrorStacks(const ErrorStacks &) = delete;
	ErrorStacks &operator=(const ErrorStacks &) = delete;

	void
	restore() const noexcept {
		PG_exception_stack = exception_stack_;
		error_context_stack = context_stack_;
	}

private:
	sigjmp_buf *exception_stack_;
	ErrorContextCallback *context_stack_;
};

/*
 * Call fn(arg), catching whatever C++ exception it throws into *thrown: it is rethrown only once
 * the guard's error stacks are restored, so that no destructor or handler runs with
 * PG_exception_stack pointing at a jump buffer that the throw is about to leave.
 */
static void
call_catching(void (*fn)(void *), void *arg, std::exception_ptr *thrown) noexcept {
	try {
		fn(arg);
	} catch (...) {
		*thrown = std::current_exception();
	}
}

/*
 * Run fn(arg), turning a PostgreSQL error into a PgError thrown after the error stacks are
 * restored; a C++ exception from fn is rethrown then too. Out of line, so that no caller's locals
 * live in the frame that sigsetjmp saves; the locals here are not changed between sigsetjmp and a
 * longjmp back to it.
 */
void
guard_call(void (*fn)(void *), void *arg) {
	MemoryContext context = CurrentMemoryContext;
	ErrorData *volatile error = nullptr;
	std::exception_ptr thrown;
	{
		ErrorStacks stacks;
		sigjmp_buf jump;
		if (sigsetjmp(jump, 0) == 0) {
			PG_exception_stack = &jump;
			call_catching(fn, arg, &thrown);
		} else {
			stacks.restore();
			MemoryContextSwitchTo(context);
			error = CopyErrorData();
			FlushErrorState();
		}
	}
	if (error != nullptr)
		throw PgError(error);
	if (thrown)
		std::rethrow_exception(thrown);
}

static int
sqlstate_of(ErrorKind kind) {
	switch (kind) {
	case ErrorKind::invalid_input:
		return ERRCODE_INVALID_PARAMETER_VALUE;
	case ErrorKind::corrupt_index:
		return ERRCODE_DATA_CORRUPTED;
	case ErrorKind::limit_exceeded:
		return ERRCODE_PROGRAM_LIMIT_EXCEEDED;
	case ErrorKind::cancelled:
		return ERRCODE_QUERY_CANCELED;
	case ErrorKind::internal:
		break;
	}
	return ERRCODE_INTERNAL_ERROR;
}

void
raise(int sqlstate, std::string message, std::string hint, std::string detail) {
	throw SqlError(sqlstate, std::move(message), std::move(hint), std::move(detail));
}

std::string
format(const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	va_list again;
	va_copy(again, args);
	int length = vsnprintf(nullptr, 0, fmt, args);
	va_end(args);
	std::string text(size_t(length > 0 ? length : 0), '\0');
	if (length > 0)
		vsnprintf(&text[0], size_t(length) + 1, fmt, again);
	va_end(again);
	return text;
}

/*
 * A copy of text by malloc, which cannot longjmp (null for an empty text or without memory), for
 * the exception handlers of call_and_raise.
 */
static char *
copy_text(const std::string &text) noexcept {
	return text.empty() ? nullptr : strdup(text.c_str());
}

/*
 * The malloc'd text in the current memory context (freed with the error's transaction or
 * subtransaction), and the malloc'd copy freed.
 */
static char *
palloc_copy(char *text) {
	if (text == nullptr)
		return nullptr;
	char *copy = pstrdup(text);
	free(text);
	return copy;
}

// The phase a std::bad_alloc unwound through (MemoryPhase), innermost first; empty if none. Plain
// buffers: filled while memory has run out.
static char failed_phase[512];
static char failed_limit[256];

MemoryPhase::MemoryPhase(const char *phase, std::string graph, std::string limit)
    : phase_(phase), graph_(std::move(graph)), limit_(std::move(limit)), unwinding_(std::uncaught_exceptions()) {
}

MemoryPhase::~MemoryPhase() {
	if (std::uncaught_exceptions() > unwinding_ && failed_phase[0] == '\0') {
		snprintf(failed_phase, sizeof failed_phase, "%s of graph \"%s\"", phase_, graph_.c_str());
		snprintf(failed_limit, sizeof failed_limit, "%s", limit_.c_str());
	}
}

/*
 * Run body(arg); raise what it threw as a PostgreSQL error once its frames are gone. The one
 * place where C++ exceptions become PostgreSQL errors, for SQL functions and hooks alike.
 */
void
call_and_raise(void (*body)(void *), void *arg) {
	// Plain buffers and pointers: nothing here may need a destructor when ereport longjmps away.
	ErrorData *pg_error = nullptr;
	int sqlstate = 0;
	char message[1024];
	char *texts[3] = {nullptr, nullptr, nullptr}; // message, hint, detail of an SqlError or grail::Error
	bool copied = false;                          // texts hold the message (message does otherwise)
	char oom_hint[512] = "";

	failed_phase[0] = '\0';
	try {
		body(arg);
	} catch (const PgError &e) {
		pg_error = e.data();
	} catch (const SqlError &e) {
		sqlstate = e.sqlstate();
		copied = true;
		texts[0] = strdup(e.what());
		texts[1] = copy_text(e.hint());
		texts[2] = copy_text(e.detail());
	} catch (const Error &e) {
		sqlstate = sqlstate_of(e.kind());
		copied = true;
		texts[0] = strdup(e.what());
		texts[1] = copy_text(e.hint());
	} catch (const std::bad_alloc &) {
		sqlstate = ERRCODE_OUT_OF_MEMORY;
		if (failed_phase[0] != '\0') {
			snprintf(message, sizeof message, "out of memory in pg_grail while %s", failed_phase);
			snprintf(oom_hint, sizeof oom_hint,
			         "The server had less memory to give than %s allows: lower it to what a backend can have, "
			         "or free memory.",
			         failed_limit);
		} else {
			snprintf(message, sizeof message, "out of memory in pg_grail");
		}
	} catch (const std::exception &e) {
		sqlstate = ERRCODE_INTERNAL_ERROR;
		snprintf(message, sizeof message, "pg_grail internal error: %s", e.what());
	} catch (...) {
		sqlstate = ERRCODE_INTERNAL_ERROR;
		snprintf(message, sizeof message, "pg_grail internal error: unknown exception");
	}

	if (pg_error)
		ReThrowError(pg_error);
	if (sqlstate == 0)
		return;
	const char *text = copied ? palloc_copy(texts[0]) : message;
	const char *hint = oom_hint[0] != '\0' ? oom_hint : palloc_copy(texts[1]);
	const char *detail = palloc_copy(texts[2]);
	if (sqlstate == ERRCODE_QUERY_CANCELED)
		CHECK_FOR_INTERRUPTS(); // raises the proper cancel or timeout error
	ereport(ERROR, (errcode(sqlstate), errmsg("%s", text != nullptr ? text : "out of memory in pg_grail"),
	                hint != nullptr ? errhint("%s", hint) : 0, detail != nullptr ? errdetail("%s", detail) : 0));
}

// The calls of call() running now, innermost last (a function's body may run SQL that calls others).
static std::vector<const FmgrInfo *> running_calls;

bool
call_running(const FmgrInfo *flinfo) noexcept {
	return std::find(running_calls.begin(), running_calls.end(), flinfo) != running_calls.end();
}

/*
 * Run an SQL function's C++ body through call_and_raise().
 */
Datum
call(FunctionCallInfo fcinfo, Datum (*body)(FunctionCallInfo)) {
	struct Call {
		FunctionCallInfo fcinfo;
		Datum (*body)(FunctionCallInfo);
		Datum result;
	} c{fcinfo, body, 0};
	call_and_raise(
	    [](void *arg) {
		    auto *c = static_cast<Call *>(arg);
		    // Recorded while the body runs, however it ends: a PostgreSQL error inside it comes back
		    // as an exception (guard), which unwinds through here.
		    struct Running {
			    explicit Running(const FmgrInfo *flinfo) {
				    running_calls.push_back(flinfo);
			    }
			    ~Running() {
				    running_calls.pop_back();
			    }
		    } running(c->fcinfo->flinfo);
		    c->result = c->body(c->fcinfo);
	    },
	    &c);
	return c.result;
}

/*
 * Run an SQL function's C++ body through call() unless a required argument is NULL; then answer
 * NULL, which a set-returning function's caller reads as the end of its (empty) rows.
 */
Datum
call_unless_null(FunctionCallInfo fcinfo, const int *required, int count, Datum (*body)(FunctionCallInfo)) {
	for (int i = 0; i < count; i++) {
		if (PG_ARGISNULL(required[i])) {
			auto *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
			if (rsinfo != nullptr && IsA(rsinfo, ReturnSetInfo))
				rsinfo->isDone = ExprEndResult;
			fcinfo->isnull = true;
			return (Datum)0;
		}
	}
	return call(fcinfo, body);
}

} // namespace grail::pg
