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

// Waits for `event`, which was not complete: without limit in the driver,
// or spinning, then polling, until `deadline`. CUDA_ERROR_NOT_READY when the
// deadline passed first. Out of line: Wait's path where the event has
// completed (the host was slower than the GPU) stays short.
[[gnu::noinline]] CUresult WaitForEvent(const CudaSymbols& s, CUevent event, bool infinite,
                                        Clock::time_point deadline) {
  if (infinite) {
    // The driver's own wait (it spins, then yields or blocks per the
    // context's scheduling policy), as cuStreamSynchronize waits.
    return s.cuEventSynchronize(event);
  }
  CUresult result = CUDA_ERROR_NOT_READY;
  const Clock::time_point spin_end = Clock::now() + kSpinBeforeBlocking;
  while (result == CUDA_ERROR_NOT_READY && Clock::now() < std::min(spin_end, deadline)) {
    result = s.cuEventQuery(event);
  }
  while (result == CUDA_ERROR_NOT_READY && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(20));
    result = s.cuEventQuery(event);
  }
  return result;
}

}  // namespace

CudaSemaphore::~CudaSemaphore() {
  for (Pending& p : pending_) p.context->ReleaseEvent(p.event);
  if (spare_.event != nullptr) spare_.context->ReleaseEvent(spare_.event);
}

void CudaSemaphore::RecycleLocked(Pending&& completed) {
  if (spare_.event == nullptr) {
    spare_ = std::move(completed);
  } else {
    completed.context->ReleaseEvent(completed.event);
  }
}

void CudaSemaphore::FailLocked(Status status, std::vector<std::function<void()>>* ready) {
  timeline_.Fail(std::move(status), ready);  // The first failure wins.
  for (Pending& p : pending_) p.context->ReleaseEvent(p.event);
  pending_.clear();
  NotifyWaitersLocked();
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
    RecycleLocked(std::move(p));
    pending_.pop_front();
    NotifyWaitersLocked();
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
    NotifyWaitersLocked();
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
    if (satisfying == nullptr) [[unlikely]] {
      // Only the host (or a later submission) can get there.
      ++waiters_;
      bool timed_out = false;
      if (infinite) {
        cv_.wait(lock);
      } else {
        timed_out = cv_.wait_until(lock, deadline) == std::cv_status::timeout;
      }
      --waiters_;
      if (timed_out && !timeline_.WaitDone(value)) {
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
    if (result == CUDA_ERROR_NOT_READY) result = WaitForEvent(s, event, infinite, deadline);
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

Status CudaSemaphore::RecordSignal(uint64_t value, const Ref<CudaContext>& context,
                                   std::vector<std::function<void()>>* due) {
  std::lock_guard<std::mutex> lock(mutex_);
  // The spare event if it is the context's (recorded again: an event
  // captures its latest record), else one from the context's pool. Under
  // the lock, so no poll recycles it meanwhile.
  Pending timepoint{value, nullptr, nullptr};
  if (spare_.event != nullptr && spare_.context == context) [[likely]] {
    timepoint.event = std::exchange(spare_.event, nullptr);
    timepoint.context = std::move(spare_.context);
  } else {
    KILN_ASSIGN_OR_RETURN(timepoint.event, context->AcquireEvent());
    timepoint.context = context;
  }
  Status recorded =
      context->Check(context->symbols().cuEventRecord(timepoint.event, context->stream()),
                     "cuEventRecord (signaling a semaphore)");
  if (!recorded.ok()) [[unlikely]] {
    context->ReleaseEvent(timepoint.event);
    return recorded;
  }
  Status scheduled = timeline_.Schedule(value, due);
  if (timeline_.failed() || !scheduled.ok()) [[unlikely]] {
    RecycleLocked(std::move(timepoint));
    if (!scheduled.ok()) FailLocked(std::move(scheduled), due);
    return OkStatus();
  }
  pending_.push_back(std::move(timepoint));
  NotifyWaitersLocked();
  return OkStatus();
}

bool CudaSemaphore::NotifyWhenResolvable(uint64_t value, std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mutex_);
  return timeline_.NotifyWhenScheduled(value, std::move(callback));
}

}  // namespace kiln::hal::cuda
