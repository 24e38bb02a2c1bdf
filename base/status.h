// Status: kiln's error value.
//
// Every fallible call in kiln returns a Status (or a Result<T>, see result.h).
// A Status is either OK or carries a code and a human-readable message that
// names the thing that failed (a function and bytecode offset, a file path, an
// import with both signatures). No exception or abort crosses a public API;
// errors travel as values and callers add context as they propagate.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace kiln {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kOutOfRange,
  kFailedPrecondition,
  kResourceExhausted,
  kUnimplemented,
  kUnavailable,
  kDataLoss,
  kInternal,
  kAborted,
  kDeadlineExceeded,
  kPermissionDenied,
};

// Returns the canonical upper-case name of a code, e.g. "INVALID_ARGUMENT".
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK.
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "INVALID_ARGUMENT: message" (or "OK").
  std::string ToString() const;

  // Returns a copy whose message is "prefix: original message". Used while an
  // error propagates outwards to say where it happened.
  Status WithContext(std::string_view prefix) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }

Status InvalidArgumentError(std::string message);
Status NotFoundError(std::string message);
Status OutOfRangeError(std::string message);
Status FailedPreconditionError(std::string message);
Status ResourceExhaustedError(std::string message);
Status UnimplementedError(std::string message);
Status UnavailableError(std::string message);
Status DataLossError(std::string message);
Status InternalError(std::string message);
Status AbortedError(std::string message);
Status DeadlineExceededError(std::string message);

}  // namespace kiln

// Returns early from the enclosing function when `expr` yields a non-OK Status.
#define KILN_RETURN_IF_ERROR(expr)                 \
  do {                                             \
    ::kiln::Status kiln_status_ = (expr);          \
    if (!kiln_status_.ok()) return kiln_status_;   \
  } while (false)
