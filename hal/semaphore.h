// Semaphore: a timeline semaphore, the one synchronization primitive of the
// HAL.
//
// A semaphore holds a uint64 value that only grows. Queue operations wait
// for values and signal new ones; the host does the same with Wait and
// Signal. A semaphore can also fail: Fail(status) records why (e.g. a kernel
// of a submission that would have signaled it returned an error), wakes every
// waiter, and from then on waits and queries return that status. Failure
// therefore flows down a chain of dependent submissions to whoever waits at
// the end.
#pragma once

#include <chrono>
#include <cstdint>

#include "base/ref.h"
#include "base/result.h"

namespace kiln::hal {

// How long a host wait may block; kInfiniteTimeout never gives up.
using Timeout = std::chrono::nanoseconds;
inline constexpr Timeout kInfiniteTimeout = Timeout::max();

class Semaphore : public RefObject {
 public:
  // The current value, or the failure status.
  virtual Result<uint64_t> Query() = 0;
  // Sets the value to `value`, which must be greater than the current one
  // (INVALID_ARGUMENT otherwise), and wakes waiters that it satisfies. On a
  // failed semaphore returns the failure.
  virtual Status Signal(uint64_t value) = 0;
  // Fails the semaphore with `status` (not OK). The first failure wins.
  virtual void Fail(Status status) = 0;
  // Blocks until the value is >= `value` (OK), the semaphore fails (its
  // status), or `timeout` passes (DEADLINE_EXCEEDED naming both values).
  virtual Status Wait(uint64_t value, Timeout timeout) = 0;
};

}  // namespace kiln::hal
