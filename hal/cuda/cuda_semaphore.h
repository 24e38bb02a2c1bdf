// CudaSemaphore: a timeline semaphore whose GPU-side signals are CUDA events.
//
// The value lives on the host, in the drivers' shared timeline bookkeeping
// (hal/utils/timeline_state.h: reached and scheduled values, monotonic
// checks, failure, waiter callbacks). A queue submission that will signal value v
// records a completion event on the device's stream after its work and hands
// it to the semaphore as a pending timepoint (v, event). The value advances
// to v once that event has completed, which the semaphore finds out when
// someone asks: Query polls the pending events in order, and Wait waits on
// the first event whose timepoint satisfies it (briefly spinning, then
// blocking in the driver; or polling until a finite timeout). A failed event
// (a kernel fault reported as a sticky error) fails the semaphore with the
// CUDA error, and marks its device lost.
//
// A later submission that waits for a value:
//   - already reached: nothing to wait for;
//   - pending on the same device's stream: nothing either, the stream is in
//     order;
//   - pending on another CUDA device: cuStreamWaitEvent on the event;
//   - not yet pending (the host will signal it): the queue defers the
//     submission and asks to be called back (NotifyWhenResolvable).
#pragma once

#include <cuda.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#include "hal/cuda/cuda_context.h"
#include "hal/semaphore.h"
#include "hal/utils/timeline_state.h"

namespace kiln::hal::cuda {

class CudaSemaphore final : public Semaphore {
 public:
  explicit CudaSemaphore(uint64_t initial_value) : timeline_(initial_value) {}
  ~CudaSemaphore() override;

  Result<uint64_t> Query() override;
  Status Signal(uint64_t value) override;
  void Fail(Status status) override;
  Status Wait(uint64_t value, Timeout timeout) override;

  // Makes `waiter`'s stream wait for `value`, as far as the GPU can:
  //   kReady: nothing left to do (reached; pending on `waiter`'s own
  //           in-order stream; or pending on another device, whose event
  //           the stream now waits on);
  //   kFailed: the semaphore failed (or enqueueing the wait did): `failure`;
  //   kUnresolved: no submission signals `value` yet; the host will.
  struct WaitResolution {
    enum Kind { kReady, kFailed, kUnresolved } kind = kReady;
    Status failure;
  };
  WaitResolution ResolveWait(uint64_t value, const CudaContext& waiter);

  // Records a completion event on `context`'s stream, after the work
  // enqueued there, as the timepoint reaching `value`. The value must exceed
  // every value signaled or pending before; otherwise the semaphore fails
  // (the submitter's error, carried to whoever waits) and the event is
  // recycled. An error (no event, or recording it failed) records nothing.
  // The callbacks this makes due are appended to `due`, for the caller to
  // run once it holds no lock (a queue calls this under its own lock).
  Status RecordSignal(uint64_t value, const Ref<CudaContext>& context,
                      std::vector<std::function<void()>>* due);

  // Registers `callback`, to be called once (without the semaphore's lock)
  // when ResolveWait(value) may no longer be kUnresolved: the host signaled
  // it, a submission made it pending, or the semaphore failed. Returns false,
  // registering nothing, when that is already so.
  bool NotifyWhenResolvable(uint64_t value, std::function<void()> callback);

 private:
  struct Pending {
    uint64_t value;
    CUevent event;
    Ref<CudaContext> context;
  };
  // Polls pending events in order under the lock; completed ones advance the
  // value, a failed one fails the semaphore. Returns callbacks to run.
  void PollLocked(std::vector<std::function<void()>>* ready);
  void FailLocked(Status status, std::vector<std::function<void()>>* ready);
  // Keeps the event of a completed timepoint as spare_ (its context with
  // it), or gives it back to its context when there is one already.
  void RecycleLocked(Pending&& completed);
  void NotifyWaitersLocked() {
    if (waiters_ != 0) cv_.notify_all();
  }

  std::mutex mutex_;
  // Reached: completed events; scheduled: the largest value signaled or
  // pending. Guarded by mutex_.
  utils::TimelineState timeline_;
  std::deque<Pending> pending_;  // Increasing values. Guarded by mutex_.
  // The event of the last completed timepoint, for the next RecordSignal on
  // its context: a semaphore signaled once per call (a program's fence)
  // takes and gives back its event without the context's lock. Event null:
  // none. Guarded by mutex_.
  Pending spare_{0, nullptr, nullptr};
  // Host threads blocked on cv_: it is notified only when there are some.
  // Guarded by mutex_.
  uint32_t waiters_ = 0;
  std::condition_variable cv_;
};

}  // namespace kiln::hal::cuda
