// CudaQueue: the in-order queue of a CUDA device, on one CUDA stream.
//
// A submission (execute, alloca or dealloca) is issued onto the stream as
// soon as every wait it has can be expressed to the GPU (cuda_semaphore.h:
// reached, pending on this stream, or pending on another device's stream).
// A wait the host has yet to signal defers the submission, and every later
// one behind it, keeping submission order; the semaphore calls the queue
// back when the value becomes reachable, and the deferred submissions are
// issued then, from that thread. After its work, a submission records one
// completion event per signal semaphore and hands it to the semaphore.
//
// Tracing. A submission carrying a trace (hal/trace.h) that has dispatches
// is issued with timing events around each dispatch (IssueTraced: stream
// launches, or a graph command buffer's traced graph;
// cuda_dispatch_timer.h); its timer waits in `timers_` until FlushTrace (or
// a later Submit) finds it complete, adds its spans and gives the events
// back.
//
// Collectives. A submission whose command buffers run collectives is also
// handed to the device's NcclWatchdog (nccl_watchdog.h) once issued, with
// a completion event: NCCL's asynchronous errors then fail its signals.
//
// A wait that failed fails the submission's signal semaphores with its
// status, without running anything. A device that is lost fails every
// submission at once with the lost status; one destroyed fails those still
// deferred.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "hal/cuda/cuda_buffer.h"
#include "hal/cuda/cuda_command_buffer.h"
#include "hal/cuda/cuda_context.h"
#include "hal/cuda/cuda_dispatch_timer.h"
#include "hal/cuda/cuda_semaphore.h"
#include "hal/cuda/nccl_watchdog.h"
#include "hal/fence.h"
#include "hal/trace.h"
#include "hal/utils/dispatch_spans.h"
#include "hal/utils/submission.h"

namespace kiln::hal::cuda {

// A queue operation as CudaDevice hands it to the queue: views of the
// caller's fences, command buffers and binding table, valid for the Submit
// call only. A submission whose waits are met (every call of a model) is
// issued within Submit, so it is never copied: copying would cost heap
// allocations at every call. Only one that the queue defers is copied
// (CudaQueue::Deferred). Waits and signals are CudaSemaphores and the
// command buffers CudaCommandBuffers of the queue's device (CudaDevice
// checks).
struct CudaSubmission {
  std::span<const Fence::Timepoint> waits;
  std::span<const Fence::Timepoint> signals;
  std::span<const Ref<CommandBuffer>> command_buffers;
  std::span<const Ref<Buffer>> binding_table;
  // QueueDealloca: the stream-ordered buffer it frees on the stream.
  CudaBuffer* released = nullptr;
  // QueueExecute: the trace its dispatches' device spans go to (the
  // device's attached trace when submitted; null: not measured).
  Trace* trace = nullptr;
};

class CudaQueue : public RefObject {
 public:
  // `watchdog` (the device's) watches the submissions that run collectives.
  CudaQueue(Ref<CudaContext> context, Ref<NcclWatchdog> watchdog)
      : context_(std::move(context)), watchdog_(std::move(watchdog)) {}

  // Issues `submission` now, or defers it (a copy) behind unresolved waits.
  // An error while issuing it now is returned (and fails its signals).
  Status Submit(const CudaSubmission& submission);
  // The device is going away (no more submissions): fails the signals of
  // every deferred submission, which nothing would issue, and drops the
  // queue's references to the semaphores they wait on (which hold the queue
  // through their callbacks).
  void Shutdown();
  // Adds the spans of traced submissions that have completed, in order,
  // stopping at the first still running.
  void FlushTrace();

 private:
  using Callbacks = std::vector<std::function<void()>>;
  // A submission the queue holds until its waits resolve: CudaSubmission's
  // views copied into the drivers' common holder (`waits`: those not
  // resolved yet; `released`: a CudaBuffer).
  struct Deferred : utils::Submission<CommandBuffer> {
    explicit Deferred(const CudaSubmission& submission, size_t resolved_waits);
    CudaSubmission view() const;
  };
  enum class Readiness { kReady, kFailed, kBlocked };
  // Resolves `waits` in order as far as they go; *resolved counts those
  // resolved (a cross-device wait is enqueued once: callers drop them). On
  // kBlocked, *blocker/*value say what the next one waits for.
  Readiness ResolveWaits(std::span<const Fence::Timepoint> waits, size_t* resolved, Status* failure,
                         CudaSemaphore** blocker, uint64_t* value);
  // Enqueues the work and the signal events; the semaphore callbacks this
  // makes due go to `due`, run by the caller after releasing mutex_.
  // Called with mutex_ held.
  Status Issue(const CudaSubmission& submission, Callbacks* due);
  // Issue's work for a traced submission: its command buffers issued with
  // a dispatch timer (none when they have no dispatches), which then waits
  // in timers_. Out of line: untraced calls never run it.
  Status IssueTraced(const CudaSubmission& submission);
  // Hands an issued submission whose command buffers run collectives to
  // the watchdog, with a completion event recorded now; nothing for the
  // others. An error (a channel failed meanwhile) fails the submission.
  Status WatchCollectives(const CudaSubmission& submission);
  // Issues deferred submissions in order while their waits resolve, and
  // registers a callback for the first one that blocks. Called with mutex_
  // held. Returns the status of issuing `report` (a submission made by the
  // caller, which it wants the result of) if it was issued.
  Status PumpLocked(Callbacks* due, const Deferred* report = nullptr);
  void OnResolvable();
  void FlushTraceLocked();

  Ref<CudaContext> context_;
  Ref<NcclWatchdog> watchdog_;
  std::mutex mutex_;
  std::deque<Deferred> deferred_;     // Guarded by mutex_.
  bool callback_registered_ = false;  // Guarded by mutex_.
  // Traced submissions issued and not yet resolved, in issue order.
  std::deque<std::unique_ptr<CudaDispatchTimer>> timers_;  // Guarded by mutex_.
  utils::DeviceTimeline timeline_;
};

}  // namespace kiln::hal::cuda
