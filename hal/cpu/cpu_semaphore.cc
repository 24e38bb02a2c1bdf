#include "hal/cpu/cpu_semaphore.h"

#include <string>

#include "hal/cpu/spin_wait.h"

namespace kiln::hal::cpu {

Result<uint64_t> CpuSemaphore::Query() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!failure_.ok()) return failure_;
  return value_;
}

Status CpuSemaphore::Signal(uint64_t value) {
  std::vector<Waiter> ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failure_.ok()) return failure_;
    if (value <= value_) {
      return InvalidArgumentError("semaphore signal to " + std::to_string(value) +
                                  " does not advance its value " + std::to_string(value_) +
                                  " (timeline values only grow)");
    }
    value_ = value;
    published_value_.store(value, std::memory_order_release);
    for (size_t i = 0; i < waiters_.size();) {
      if (waiters_[i].value <= value) {
        ready.push_back(std::move(waiters_[i]));
        waiters_[i] = std::move(waiters_.back());
        waiters_.pop_back();
      } else {
        ++i;
      }
    }
  }
  cv_.notify_all();
  for (Waiter& waiter : ready) waiter.callback();
  return OkStatus();
}

void CpuSemaphore::Fail(Status status) {
  if (status.ok()) status = InternalError("semaphore failed with an OK status");
  std::vector<Waiter> ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failure_.ok()) return;  // The first failure wins.
    failure_ = std::move(status);
    published_failed_.store(true, std::memory_order_release);
    ready.swap(waiters_);
  }
  cv_.notify_all();
  for (Waiter& waiter : ready) waiter.callback();
}

Status CpuSemaphore::Wait(uint64_t value, Timeout timeout) {
  // Poll briefly before blocking (see spin_wait.h); the outcome is then read
  // under the lock as usual.
  if (timeout >= kSpinBudget) {
    SpinFor(kSpinBudget, [&] {
      return published_failed_.load(std::memory_order_acquire) ||
             published_value_.load(std::memory_order_acquire) >= value;
    });
  }
  std::unique_lock<std::mutex> lock(mutex_);
  auto done = [&] { return !failure_.ok() || value_ >= value; };
  if (timeout == kInfiniteTimeout) {
    cv_.wait(lock, done);
  } else {
    cv_.wait_for(lock, timeout, done);
  }
  if (!failure_.ok()) return failure_;
  if (value_ >= value) return OkStatus();
  return DeadlineExceededError(
      "semaphore wait for value " + std::to_string(value) + " timed out after " +
      std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(timeout).count()) +
      " us (current value " + std::to_string(value_) + ")");
}

void CpuSemaphore::NotifyWhenReached(uint64_t value, std::function<void()> callback) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_.ok() && value_ < value) {
      waiters_.push_back({value, std::move(callback)});
      return;
    }
  }
  callback();
}

}  // namespace kiln::hal::cpu
