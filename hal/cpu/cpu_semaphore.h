// CpuSemaphore: a timeline semaphore in host memory (a mutex, a condition
// variable and the value), used by the CPU driver.
//
// Besides the Semaphore API it lets the CPU queue ask to be called back when
// a value is reached (or the semaphore fails), which is how a queue whose
// next submission waits on a semaphore resumes without polling or holding a
// thread blocked per submission.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "hal/semaphore.h"

namespace kiln::hal::cpu {

class CpuSemaphore final : public Semaphore {
 public:
  explicit CpuSemaphore(uint64_t initial_value)
      : value_(initial_value), published_value_(initial_value) {}

  Result<uint64_t> Query() override;
  Status Signal(uint64_t value) override;
  void Fail(Status status) override;
  Status Wait(uint64_t value, Timeout timeout) override;

  // Calls `callback` once the value is >= `value` or the semaphore fails:
  // right away on this thread when that is already so, else on the thread
  // that signals or fails it. Callbacks run without the semaphore's lock held.
  void NotifyWhenReached(uint64_t value, std::function<void()> callback);

 private:
  struct Waiter {
    uint64_t value;
    std::function<void()> callback;
  };

  std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t value_;               // Guarded by mutex_.
  Status failure_;               // Guarded by mutex_; OK until Fail.
  // Copies of value_ and "failed" that Wait polls without the lock before
  // blocking (spin_wait.h); written under mutex_ with value_ and failure_.
  std::atomic<uint64_t> published_value_;
  std::atomic<bool> published_failed_{false};
  std::vector<Waiter> waiters_;  // Guarded by mutex_.
};

}  // namespace kiln::hal::cpu
