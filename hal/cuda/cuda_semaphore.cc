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

void CudaSemaphore::FailLocked(Status status, std::vector<std::function<void()>>* ready) {
  timeline_.Fail(std::move(status), ready);  // The first failure wins.
  for (Pending& p : pending_) p.context->ReleaseEvent(p.event);
  pending_.clear();
  cv_.notify_all();
}

void CudaSemaphore::PollLocked(std::vector<std::function<void()>>* ready) {
  while (!pending_.empty() && !timeline_.failed()) {
    Pending& p = pending_.front();
    CUresult result = p.context->symbols().cuEventQuery(p.event);
    if (result == CUDA_ERROR_NOT_READY) return;
    if (result != CUDA_SUCCESS) {
      FailLocked(p.context->Check(result, "a submission signaling a semaphore"), ready);
      return;
    }
    timeline_.Reach(p.value);
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
    out = timeline_.failed() ? Result<uint64_t>(timeline_.failure())
                             : Result<uint64_t>(timeline_.reached());
  }
  utils::RunCallbacks(ready);
  return out;
}

Status CudaSemaphore::Signal(uint64_t value) {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    KILN_RETURN_IF_ERROR(timeline_.Signal(value, &ready));
    cv_.notify_all();
  }
  utils::RunCallbacks(ready);
  return OkStatus();
}

void CudaSemaphore::Fail(Status status) {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    FailLocked(std::move(status), &ready);
  }
  utils::RunCallbacks(ready);
}

Status CudaSemaphore::Wait(uint64_t value, Timeout timeout) {
  const bool infinite = timeout == kInfiniteTimeout;
  const Clock::time_point deadline = infinite ? Clock::time_point::max() : Clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (timeline_.failed()) return timeline_.failure();
    if (timeline_.reached() >= value) return OkStatus();
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
      } else if (cv_.wait_until(lock, deadline) == std::cv_status::timeout &&
                 !timeline_.WaitDone(value)) {
        bool pending = false;
        for (const Pending& p : pending_) pending |= p.value >= value;
        if (!pending) return utils::WaitTimeoutError(value, timeout, timeline_.reached());
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
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_NOT_READY && !timeline_.failed()) {
      FailLocked(context->Check(result, "waiting for a submission"), &ready);
    }
    if (!ready.empty()) {
      lock.unlock();
      utils::RunCallbacks(ready);
      lock.lock();
    }
    if (result == CUDA_ERROR_NOT_READY && !timeline_.WaitDone(value)) {
      return utils::WaitTimeoutError(value, timeout, timeline_.reached());
    }
  }
}

CudaSemaphore::WaitResolution CudaSemaphore::ResolveWait(uint64_t value,
                                                         const CudaContext& waiter) {
  std::lock_guard<std::mutex> lock(mutex_);
  WaitResolution resolution;
  if (timeline_.failed()) {
    resolution.kind = WaitResolution::kFailed;
    resolution.failure = timeline_.failure();
    return resolution;
  }
  if (timeline_.reached() >= value) return resolution;
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
  Status scheduled = timeline_.Schedule(value, due);
  if (timeline_.failed() || !scheduled.ok()) {
    context->ReleaseEvent(event);
    if (!scheduled.ok()) FailLocked(std::move(scheduled), due);
    return;
  }
  pending_.push_back({value, event, std::move(context)});
  cv_.notify_all();
}

bool CudaSemaphore::NotifyWhenResolvable(uint64_t value, std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mutex_);
  return timeline_.NotifyWhenScheduled(value, std::move(callback));
}

}  // namespace kiln::hal::cuda
