// Engine errors. The PostgreSQL glue turns each kind into an SQLSTATE at its boundary.
#pragma once
#include "cpp_only.hpp"

#include <stdexcept>
#include <string>

namespace grail {

enum class ErrorKind {
	invalid_input,  // bad arguments or data the caller can fix
	corrupt_index,  // a stored index failed its checks
	limit_exceeded, // a configured or format limit was hit
	cancelled,      // the cancel hook asked to stop
	internal,       // a bug
};

class Error : public std::runtime_error {
public:
	Error(ErrorKind kind, const std::string &message, std::string hint = {})
	    : std::runtime_error(message), kind_(kind), hint_(std::move(hint)) {
	}
	ErrorKind
	kind() const noexcept {
		return kind_;
	}
	const std::string &
	hint() const noexcept {
		return hint_;
	}

private:
	ErrorKind kind_;
	std::string hint_;
};

// Long loops call poll_cancel() every few thousand steps. The host (the PostgreSQL glue) installs
// a hook that reports a pending cancel request without acting on it; poll_cancel then throws
// Error(cancelled) so that C++ frames unwind before the host raises its own error.
using CancelHook = bool (*)();
void set_cancel_hook(CancelHook hook) noexcept;
void poll_cancel();

} // namespace grail
