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

// One pointer wide: OK is a null pointer, so an OK Status costs its caller
// a register and a test, and no string is constructed or destroyed on the
// success path. Every call in kiln's per-call path (the VM, the hal module,
// the drivers' submissions) returns one; what that path touches per call is
// what a host that waited for a long GPU call finds out of its caches
// (tests/benchmarks/README.md, "cold" host time). The code and message of an
// error live in one heap block, built only when something fails.
class [[nodiscard]] Status {
 public:
  Status() = default;  // OK.
  // An error (a kOk code makes an OK status and drops the message).
  [[gnu::cold]] Status(StatusCode code, std::string message);
  Status(const Status& other) : rep_(other.rep_ != nullptr ? Copy(*other.rep_) : nullptr) {}
  Status(Status&& other) noexcept : rep_(other.rep_) { other.rep_ = nullptr; }
  Status& operator=(const Status& other) {
    if (this != &other) {
      Rep* copy = other.rep_ != nullptr ? Copy(*other.rep_) : nullptr;
      Reset(copy);
    }
    return *this;
  }
  Status& operator=(Status&& other) noexcept {
    if (this != &other) {
      Reset(other.rep_);
      other.rep_ = nullptr;
    }
    return *this;
  }
  ~Status() {
    if (rep_ != nullptr) Delete(rep_);
  }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ != nullptr ? rep_->code : StatusCode::kOk; }
  // The message; empty for OK.
  const std::string& message() const;

  // "INVALID_ARGUMENT: message" (or "OK").
  std::string ToString() const;

  // Returns a copy whose message is "prefix: original message". Used while an
  // error propagates outwards to say where it happened.
  Status WithContext(std::string_view prefix) const;

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  [[gnu::cold]] static Rep* Copy(const Rep& rep);
  [[gnu::cold]] static void Delete(Rep* rep);
  void Reset(Rep* rep) {
    if (rep_ != nullptr) Delete(rep_);
    rep_ = rep;
  }

  Rep* rep_ = nullptr;
};

inline Status OkStatus() { return Status(); }

[[gnu::cold]] Status InvalidArgumentError(std::string message);
[[gnu::cold]] Status NotFoundError(std::string message);
[[gnu::cold]] Status OutOfRangeError(std::string message);
[[gnu::cold]] Status FailedPreconditionError(std::string message);
[[gnu::cold]] Status ResourceExhaustedError(std::string message);
[[gnu::cold]] Status UnimplementedError(std::string message);
[[gnu::cold]] Status UnavailableError(std::string message);
[[gnu::cold]] Status DataLossError(std::string message);
[[gnu::cold]] Status InternalError(std::string message);
[[gnu::cold]] Status AbortedError(std::string message);
[[gnu::cold]] Status DeadlineExceededError(std::string message);

}  // namespace kiln

// Returns early from the enclosing function when `expr` yields a non-OK Status.
// The early return is marked unlikely, so the compiler lays the error path out
// of the hot code (with the cold error constructors above, in .text.unlikely).
#define KILN_RETURN_IF_ERROR(expr)        \
  do {                                    \
    ::kiln::Status kiln_status_ = (expr); \
    if (!kiln_status_.ok()) [[unlikely]]  \
      return kiln_status_;                \
  } while (false)
