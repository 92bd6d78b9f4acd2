// grail::pg::guard() (src/pg/boundary/guard.cpp) without a server: PostgreSQL's error globals and the few
// functions guard.cpp calls are defined here, so that the test can check what guard() leaves in
// PG_exception_stack and error_context_stack when the guarded code returns, raises a PostgreSQL
// error (a longjmp) or throws a C++ exception.
#include "error.hpp"

#include <gtest/gtest.h>

#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>

#include "boundary/guard.hpp"

// What the server would define. Only guard_call()'s paths are exercised: reporting an error is
// not, and aborts.
extern "C" {
sigjmp_buf *PG_exception_stack = nullptr;
ErrorContextCallback *error_context_stack = nullptr;
MemoryContext CurrentMemoryContext = nullptr;
volatile sig_atomic_t InterruptPending = false;

static ErrorData stub_error_data;
static int errors_copied = 0;
static int errors_flushed = 0;

ErrorData *
CopyErrorData(void) {
	errors_copied++;
	stub_error_data.message = const_cast<char *>("raised inside the guard");
	return &stub_error_data;
}
void
FlushErrorState(void) {
	errors_flushed++;
}
void
ReThrowError(ErrorData *) {
	abort();
}
bool
errstart(int, const char *) {
	abort();
}
bool
errstart_cold(int, const char *) {
	abort();
}
void
errfinish(const char *, int, const char *) {
	abort();
}
int
errcode(int) {
	return 0;
}
int
errmsg(const char *, ...) {
	return 0;
}
int
errhint(const char *, ...) {
	return 0;
}
int
errdetail(const char *, ...) {
	return 0;
}
char *
pstrdup(const char *) {
	abort();
}
void
ProcessInterrupts(void) {
	abort();
}
// port.h renames snprintf to libpgport's, linked into the server; the C library's serves here.
#undef vsnprintf
int
pg_snprintf(char *buffer, size_t size, const char *format, ...) {
	va_list args;
	va_start(args, format);
	int n = vsnprintf(buffer, size, format, args);
	va_end(args);
	return n;
}
int
pg_vsnprintf(char *buffer, size_t size, const char *format, va_list args) {
	return vsnprintf(buffer, size, format, args);
}
}

namespace {

// The stacks of the code that calls guard(): a PG_TRY of its own and an error context.
class GuardTest : public ::testing::Test {
protected:
	void
	SetUp() override {
		PG_exception_stack = &outer_jump;
		error_context_stack = &outer_context;
		errors_copied = errors_flushed = 0;
	}
	void
	expect_stacks_restored() const {
		EXPECT_EQ(PG_exception_stack, &outer_jump);
		EXPECT_EQ(error_context_stack, &outer_context);
	}

	sigjmp_buf outer_jump;
	ErrorContextCallback outer_context{};
};

TEST_F(GuardTest, ReturnsTheValueAndRestoresTheStacks) {
	ErrorContextCallback inner{};
	int value = grail::pg::guard([&] {
		EXPECT_NE(PG_exception_stack, &outer_jump); // errors inside jump to the guard
		error_context_stack = &inner;               // as a PostgreSQL function leaves it on error
		return 42;
	});
	EXPECT_EQ(value, 42);
	expect_stacks_restored();
}

TEST_F(GuardTest, PostgresErrorBecomesPgErrorWithTheStacksRestored) {
	ErrorContextCallback inner{};
	try {
		grail::pg::guard([&] {
			error_context_stack = &inner;
			siglongjmp(*PG_exception_stack, 1); // what ereport(ERROR) does
		});
		FAIL() << "guard() returned after an error";
	} catch (const grail::pg::PgError &e) {
		EXPECT_STREQ(e.what(), "raised inside the guard");
	}
	EXPECT_EQ(errors_copied, 1);
	EXPECT_EQ(errors_flushed, 1);
	expect_stacks_restored();
}

TEST_F(GuardTest, CppExceptionInsideLeavesNoJumpIntoADeadFrame) {
	ErrorContextCallback inner{};
	EXPECT_THROW(grail::pg::guard([&] {
		             error_context_stack = &inner;
		             throw std::bad_alloc();
	             }),
	             std::bad_alloc);
	expect_stacks_restored();
	EXPECT_EQ(errors_copied, 0);
}

TEST_F(GuardTest, StacksAreRestoredWhenTheExceptionIsCaught) {
	// A handler already sees the caller's stacks: an error it raised would not jump into the
	// guard's frame, which the exception has left.
	try {
		grail::pg::guard([] { throw std::runtime_error("engine error"); });
	} catch (const std::runtime_error &e) {
		EXPECT_EQ(PG_exception_stack, &outer_jump);
		EXPECT_STREQ(e.what(), "engine error");
	}
	expect_stacks_restored();
}

TEST_F(GuardTest, NestedGuardsRestoreTheirOwnStacks) {
	sigjmp_buf *middle = nullptr;
	try {
		grail::pg::guard([&] {
			middle = PG_exception_stack;
			try {
				grail::pg::guard([] { siglongjmp(*PG_exception_stack, 1); });
			} catch (const grail::pg::PgError &) {
				EXPECT_EQ(PG_exception_stack, middle);
			}
			grail::pg::guard([] { throw grail::Error(grail::ErrorKind::invalid_input, "inner"); });
		});
	} catch (const grail::Error &e) {
		EXPECT_STREQ(e.what(), "inner");
	}
	expect_stacks_restored();
}

} // namespace
