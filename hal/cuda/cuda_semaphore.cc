#include "hal/cuda/cuda_semaphore.h"

#include <chrono>
#include <thread>

namespace kiln::hal::cuda {

namespace {

using Clock = std::chrono::steady_clock;

// How long Wait spins on a pending event before blocking in the driver: a
// small GPU submission finishes in a few microseconds, and a blocking wait
// costs a thread wake-up on top.
constexpr auto kSpinBeforeBlocking = std::chrono::microseconds(50);

}  // namespace

CudaSemaphore::~CudaSemaphore() {
  for (Pending& p : pending_) p.context->ReleaseEvent(p.event);
}

void CudaSemaphore::Run(std::vector<std::function<void()>>& callbacks) {
  for (auto& callback : callbacks) callback();
}

void CudaSemaphore::CollectWaitersLocked(std::vector<std::function<void()>>* ready) {
  for (size_t i = 0; i < waiters_.size();) {
    if (!failure_.ok() || waiters_[i].value <= target_) {
      ready->push_back(std::move(waiters_[i].callback));
      waiters_[i] = std::move(waiters_.back());
      waiters_.pop_back();
    } else {
      ++i;
    }
  }
}

void CudaSemaphore::FailLocked(Status status, std::vector<std::function<void()>>* ready) {
  if (failure_.ok()) failure_ = std::move(status);
  for (Pending& p : pending_) p.context->ReleaseEvent(p.event);
  pending_.clear();
  CollectWaitersLocked(ready);
  cv_.notify_all();
}

void CudaSemaphore::PollLocked(std::vector<std::function<void()>>* ready) {
  while (!pending_.empty() && failure_.ok()) {
    Pending& p = pending_.front();
    CUresult result = p.context->symbols().cuEventQuery(p.event);
    if (result == CUDA_ERROR_NOT_READY) return;
    if (result != CUDA_SUCCESS) {
      FailLocked(p.context->Check(result, "a submission signaling a semaphore"), ready);
      return;
    }
    value_ = std::max(value_, p.value);
    p.context->ReleaseEvent(p.event);
    pending_.pop_front();
    cv_.notify_all();
  }
}

Result<uint64_t> CudaSemaphore::Query() {
  std::vector<std::function<void()>> ready;
  Result<uint64_t> out = uint64_t{0};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Polling an event needs no current context.
    if (!pending_.empty()) PollLocked(&ready);
    out = failure_.ok() ? Result<uint64_t>(value_) : Result<uint64_t>(failure_);
  }
  Run(ready);
  return out;
}

Status CudaSemaphore::Signal(uint64_t value) {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failure_.ok()) return failure_;
    if (value <= target_) {
      return InvalidArgumentError("semaphore signal to " + std::to_string(value) +
                                  " does not advance it (value " + std::to_string(value_) +
                                  (target_ > value_ ? ", pending " + std::to_string(target_) : "") +
                                  ")");
    }
    value_ = target_ = value;
    CollectWaitersLocked(&ready);
    cv_.notify_all();
  }
  Run(ready);
  return OkStatus();
}

void CudaSemaphore::Fail(Status status) {
  if (status.ok()) status = InternalError("semaphore failed with an OK status");
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    FailLocked(std::move(status), &ready);
  }
  Run(ready);
}

Status CudaSemaphore::Wait(uint64_t value, Timeout timeout) {
  const bool infinite = timeout == kInfiniteTimeout;
  const Clock::time_point deadline = infinite ? Clock::time_point::max() : Clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (!failure_.ok()) return failure_;
    if (value_ >= value) return OkStatus();
    // The first pending timepoint that satisfies the wait.
    const Pending* satisfying = nullptr;
    for (const Pending& p : pending_) {
      if (p.value >= value) {
        satisfying = &p;
        break;
      }
    }
    if (satisfying == nullptr) {
      // Only the host (or a later submission) can get there.
      if (infinite) {
        cv_.wait(lock);
      } else if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && value_ < value &&
                 failure_.ok()) {
        bool pending = false;
        for (const Pending& p : pending_) pending |= p.value >= value;
        if (!pending) {
          return DeadlineExceededError("semaphore wait for " + std::to_string(value) +
                                       " timed out at " + std::to_string(value_));
        }
      }
      continue;
    }
    // Wait for its event without the lock. Another thread's poll may see
    // the event complete and recycle it meanwhile; this thread then waits for
    // later work than it needs to (never less), and finds its value reached.
    CUevent event = satisfying->event;
    Ref<CudaContext> context = satisfying->context;
    lock.unlock();
    const CudaSymbols& s = context->symbols();
    CUresult result = s.cuEventQuery(event);
    if (result == CUDA_ERROR_NOT_READY) {
      if (infinite) {
        // The driver's own wait (it spins, then yields or blocks per the
        // context's scheduling policy), as cuStreamSynchronize waits.
        result = s.cuEventSynchronize(event);
      } else {
        const Clock::time_point spin_end = Clock::now() + kSpinBeforeBlocking;
        while (result == CUDA_ERROR_NOT_READY && Clock::now() < std::min(spin_end, deadline)) {
          result = s.cuEventQuery(event);
        }
      }
    }
    if (result == CUDA_ERROR_NOT_READY) {
      if (!infinite) {
        while (result == CUDA_ERROR_NOT_READY && Clock::now() < deadline) {
          std::this_thread::sleep_for(std::chrono::microseconds(20));
          result = s.cuEventQuery(event);
        }
      }
    }
    std::vector<std::function<void()>> ready;
    lock.lock();
    PollLocked(&ready);
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_NOT_READY && failure_.ok()) {
      FailLocked(context->Check(result, "waiting for a submission"), &ready);
    }
    if (!ready.empty()) {
      lock.unlock();
      Run(ready);
      lock.lock();
    }
    if (result == CUDA_ERROR_NOT_READY && value_ < value && failure_.ok()) {
      return DeadlineExceededError("semaphore wait for " + std::to_string(value) +
                                   " timed out at " + std::to_string(value_) + " (pending " +
                                   std::to_string(target_) + " on the GPU)");
    }
  }
}

CudaSemaphore::WaitResolution CudaSemaphore::ResolveWait(uint64_t value,
                                                         const CudaContext& waiter) {
  std::lock_guard<std::mutex> lock(mutex_);
  WaitResolution resolution;
  if (!failure_.ok()) {
    resolution.kind = WaitResolution::kFailed;
    resolution.failure = failure_;
    return resolution;
  }
  if (value_ >= value) return resolution;
  for (const Pending& p : pending_) {
    if (p.value < value) continue;
    if (p.context.get() == &waiter) return resolution;  // The stream is in order.
    // Under the lock, so the event cannot be recycled before the wait is
    // enqueued (cuStreamWaitEvent captures the event's current work).
    Status enqueued =
        waiter.Check(waiter.symbols().cuStreamWaitEvent(waiter.stream(), p.event, 0),
                     "waiting for another CUDA device's semaphore (cuStreamWaitEvent)");
    if (!enqueued.ok()) {
      resolution.kind = WaitResolution::kFailed;
      resolution.failure = enqueued;
    }
    return resolution;
  }
  resolution.kind = WaitResolution::kUnresolved;
  return resolution;
}

void CudaSemaphore::AddPending(uint64_t value, CUevent event, Ref<CudaContext> context,
                               std::vector<std::function<void()>>* due) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!failure_.ok()) {
    context->ReleaseEvent(event);
    return;
  }
  if (value <= target_) {
    context->ReleaseEvent(event);
    FailLocked(
        InvalidArgumentError("a submission signals semaphore value " + std::to_string(value) +
                             ", which does not advance it (at " + std::to_string(target_) + ")"),
        due);
    return;
  }
  target_ = value;
  pending_.push_back({value, event, std::move(context)});
  CollectWaitersLocked(due);
  cv_.notify_all();
}

bool CudaSemaphore::NotifyWhenResolvable(uint64_t value, std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!failure_.ok() || value <= target_) return false;
  waiters_.push_back({value, std::move(callback)});
  return true;
}

}  // namespace kiln::hal::cuda
