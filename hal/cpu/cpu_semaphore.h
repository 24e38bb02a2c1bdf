// CpuSemaphore: a timeline semaphore in host memory, used by the CPU driver:
// the shared timeline bookkeeping (hal/utils/timeline_state.h: monotonic
// checks, failure, waiter callbacks) under a mutex, and a condition
// variable for host waits.
//
// The CPU queue signals a semaphore only when the submission is done, so
// the value scheduled is always the value reached. Besides the Semaphore API
// it lets the CPU queue ask to be called back when a value is reached (or
// the semaphore fails), which is how a queue whose next submission waits on
// a semaphore resumes without polling or holding a thread blocked per
// submission.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "hal/semaphore.h"
#include "hal/utils/timeline_state.h"

namespace kiln::hal::cpu {

class CpuSemaphore final : public Semaphore {
 public:
  explicit CpuSemaphore(uint64_t initial_value)
      : timeline_(initial_value), published_value_(initial_value) {}

  Result<uint64_t> Query() override;
  Status Signal(uint64_t value) override;
  void Fail(Status status) override;
  Status Wait(uint64_t value, Timeout timeout) override;

  // Calls `callback` once the value is >= `value` or the semaphore fails:
  // right away on this thread when that is already so, else on the thread
  // that signals or fails it (in order of value, then of registration).
  // Callbacks run without the semaphore's lock held.
  void NotifyWhenReached(uint64_t value, std::function<void()> callback);

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  utils::TimelineState timeline_;  // Guarded by mutex_.
  // Copies of the value and "failed" that Wait polls without the lock
  // before blocking (spin_wait.h); written under mutex_ with timeline_.
  std::atomic<uint64_t> published_value_;
  std::atomic<bool> published_failed_{false};
};

}  // namespace kiln::hal::cpu
