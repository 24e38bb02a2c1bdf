#include "hal/cpu/cpu_semaphore.h"

#include "hal/cpu/spin_wait.h"

namespace kiln::hal::cpu {

Result<uint64_t> CpuSemaphore::Query() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (timeline_.failed()) return timeline_.failure();
  return timeline_.reached();
}

Status CpuSemaphore::Signal(uint64_t value) {
  utils::TimelineState::Callbacks due;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    KILN_RETURN_IF_ERROR(timeline_.Signal(value, &due));
    published_value_.store(value, std::memory_order_release);
  }
  cv_.notify_all();
  utils::RunCallbacks(due);
  return OkStatus();
}

void CpuSemaphore::Fail(Status status) {
  utils::TimelineState::Callbacks due;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!timeline_.Fail(std::move(status), &due)) return;  // The first failure wins.
    published_failed_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
  utils::RunCallbacks(due);
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
  auto done = [&] { return timeline_.WaitDone(value); };
  if (timeout == kInfiniteTimeout) {
    cv_.wait(lock, done);
  } else {
    cv_.wait_for(lock, timeout, done);
  }
  if (timeline_.failed()) return timeline_.failure();
  if (timeline_.reached() >= value) return OkStatus();
  return utils::WaitTimeoutError(value, timeout, timeline_.reached());
}

void CpuSemaphore::NotifyWhenReached(uint64_t value, std::function<void()> callback) {
  bool registered;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    registered = timeline_.NotifyWhenScheduled(value, std::move(callback));
  }
  if (!registered) callback();
}

}  // namespace kiln::hal::cpu
