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
// A wait that failed fails the submission's signal semaphores with its
// status, without running anything. A device that is lost fails every
// submission at once with the lost status; one destroyed fails those still
// deferred.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "hal/cuda/cuda_buffer.h"
#include "hal/cuda/cuda_command_buffer.h"
#include "hal/cuda/cuda_context.h"
#include "hal/cuda/cuda_dispatch_timer.h"
#include "hal/cuda/cuda_semaphore.h"
#include "hal/fence.h"
#include "hal/utils/dispatch_spans.h"
#include "hal/utils/submission.h"

namespace kiln::hal::cuda {

// Waits and signals are CudaSemaphores (CudaDevice checks); `released`, when
// set, is a stream-ordered CudaBuffer that queue_dealloca frees on the
// stream.
using CudaSubmission = utils::Submission<CudaCommandBuffer>;

class CudaQueue : public RefObject {
 public:
  explicit CudaQueue(Ref<CudaContext> context) : context_(std::move(context)) {}

  // Issues `submission` now, or defers it behind unresolved waits. An error
  // while issuing it now is returned (and fails its signals).
  Status Submit(CudaSubmission&& submission);
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
  enum class Readiness { kReady, kFailed, kBlocked };
  // Resolves the submission's waits as far as they go; on kBlocked,
  // *blocker/*value say what it waits for.
  Readiness ResolveWaits(CudaSubmission& submission, Status* failure, CudaSemaphore** blocker,
                         uint64_t* value);
  // Enqueues the work and the signal events; the semaphore callbacks this
  // makes due go to `due`, run by the caller after releasing mutex_.
  // Called with mutex_ held.
  Status Issue(CudaSubmission& submission, Callbacks* due);
  // Issues deferred submissions in order while their waits resolve, and
  // registers a callback for the first one that blocks. Called with mutex_
  // held. Returns the status of issuing `report` (a submission made by the
  // caller, which it wants the result of) if it was issued.
  Status PumpLocked(Callbacks* due, const CudaSubmission* report = nullptr);
  void OnResolvable();
  void FlushTraceLocked();

  Ref<CudaContext> context_;
  std::mutex mutex_;
  std::deque<CudaSubmission> deferred_;  // Guarded by mutex_.
  bool callback_registered_ = false;     // Guarded by mutex_.
  // Traced submissions issued and not yet resolved, in issue order.
  std::deque<std::unique_ptr<CudaDispatchTimer>> timers_;  // Guarded by mutex_.
  utils::DeviceTimeline timeline_;
};

}  // namespace kiln::hal::cuda
