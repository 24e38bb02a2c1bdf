#include "hal/cuda/cuda_queue.h"

#include <variant>

namespace kiln::hal::cuda {

namespace {

void FailSignals(const CudaSubmission& submission, const Status& status) {
  utils::CompleteSignals(submission.signals, status);
}

}  // namespace

CudaQueue::Readiness CudaQueue::ResolveWaits(CudaSubmission& submission, Status* failure,
                                             CudaSemaphore** blocker, uint64_t* value) {
  // Resolved waits are dropped, so a deferred submission does not enqueue
  // a cross-device wait twice.
  auto& waits = submission.waits;
  for (size_t i = 0; i < waits.size();) {
    auto* semaphore = static_cast<CudaSemaphore*>(waits[i].semaphore.get());
    CudaSemaphore::WaitResolution resolution = semaphore->ResolveWait(waits[i].value, *context_);
    switch (resolution.kind) {
      case CudaSemaphore::WaitResolution::kReady:
        waits.erase(waits.begin() + static_cast<ptrdiff_t>(i));
        continue;
      case CudaSemaphore::WaitResolution::kFailed:
        *failure = resolution.failure;
        return Readiness::kFailed;
      case CudaSemaphore::WaitResolution::kUnresolved:
        *blocker = semaphore;
        *value = waits[i].value;
        return Readiness::kBlocked;
    }
  }
  return Readiness::kReady;
}

Status CudaQueue::Issue(CudaSubmission& submission, Callbacks* due) {
  Status status = context_->health();
  if (status.ok()) status = context_->MakeCurrent();
  std::unique_ptr<CudaDispatchTimer> timer;
  if (status.ok() && submission.trace) {
    bool dispatches = false;
    for (const Ref<CudaCommandBuffer>& command_buffer : submission.command_buffers) {
      for (const utils::Command& command : command_buffer->command_list().commands()) {
        dispatches = dispatches || std::holds_alternative<utils::DispatchCommand>(command);
      }
    }
    if (dispatches) {
      Result<std::unique_ptr<CudaDispatchTimer>> started =
          CudaDispatchTimer::Start(context_, submission.trace);
      if (started.ok()) {
        timer = std::move(*started);
      } else {
        status = started.status();
      }
    }
  }
  for (const Ref<CudaCommandBuffer>& command_buffer : submission.command_buffers) {
    if (!status.ok()) break;
    status = timer ? command_buffer->IssueTraced(submission.binding_table, *timer)
                   : command_buffer->Issue(submission.binding_table);
  }
  if (status.ok() && timer) status = timer->Finish();
  if (status.ok() && timer) timers_.push_back(std::move(timer));
  if (status.ok() && submission.released) {
    status = static_cast<CudaBuffer*>(submission.released.get())->FreeAsync();
  }
  if (!status.ok()) {
    FailSignals(submission, status);
    return status;
  }
  const CudaSymbols& s = context_->symbols();
  for (const Fence::Timepoint& t : submission.signals) {
    Result<CUevent> event = context_->AcquireEvent();
    if (event.ok()) {
      Status recorded = context_->Check(s.cuEventRecord(*event, context_->stream()),
                                        "cuEventRecord (signaling a semaphore)");
      if (!recorded.ok()) {
        context_->ReleaseEvent(*event);
        event = recorded;
      }
    }
    if (!event.ok()) {
      FailSignals(submission, event.status());
      return event.status();
    }
    static_cast<CudaSemaphore*>(t.semaphore.get())->AddPending(t.value, *event, context_, due);
  }
  return OkStatus();
}

Status CudaQueue::PumpLocked(Callbacks* due, const CudaSubmission* report) {
  Status reported;
  while (!deferred_.empty() && !callback_registered_) {
    CudaSubmission& front = deferred_.front();
    Status failure;
    CudaSemaphore* blocker = nullptr;
    uint64_t value = 0;
    switch (ResolveWaits(front, &failure, &blocker, &value)) {
      case Readiness::kReady: {
        // A failure fails the submission's signals: that is how a deferred
        // submission reports it; the caller's own gets the status too.
        Status issued = Issue(front, due);
        if (&front == report) reported = issued;
        break;
      }
      case Readiness::kFailed:
        FailSignals(front, failure);
        break;
      case Readiness::kBlocked:
        if (!blocker->NotifyWhenResolvable(
                value, [self = Ref<CudaQueue>(this)] { self->OnResolvable(); })) {
          continue;  // Resolvable in the meantime: try again.
        }
        callback_registered_ = true;
        return reported;
    }
    deferred_.pop_front();
  }
  return reported;
}

Status CudaQueue::Submit(CudaSubmission&& submission) {
  Callbacks due;
  Status status;
  bool handled = false;  // Issued or failed without the deferred list.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Keeps the list of traced submissions short when nobody flushes.
    if (!timers_.empty()) FlushTraceLocked();
    if (deferred_.empty() && !callback_registered_) {
      // Nothing queued before it (the common case: a program's call whose
      // waits are met): issued without passing through the deferred list,
      // as PumpLocked would issue it, or failed as it would fail it.
      Status failure;
      CudaSemaphore* blocker = nullptr;
      uint64_t value = 0;
      switch (ResolveWaits(submission, &failure, &blocker, &value)) {
        case Readiness::kReady:
          status = Issue(submission, &due);
          break;
        case Readiness::kFailed:
          FailSignals(submission, failure);
          break;
        case Readiness::kBlocked:
          break;
      }
      handled = blocker == nullptr;
    }
    if (!handled) {
      deferred_.push_back(std::move(submission));
      // Only a submission at the front can be issued now; one behind a
      // deferred submission keeps its place in the order.
      const CudaSubmission* mine = deferred_.size() == 1 ? &deferred_.front() : nullptr;
      status = PumpLocked(&due, mine);
    }
  }
  for (auto& callback : due) callback();
  return status;
}

void CudaQueue::FlushTrace() {
  std::lock_guard<std::mutex> lock(mutex_);
  FlushTraceLocked();
}

void CudaQueue::FlushTraceLocked() {
  if (timers_.empty() || !context_->MakeCurrent().ok()) return;
  while (!timers_.empty()) {
    const CUresult done = timers_.front()->Query();
    if (done == CUDA_ERROR_NOT_READY) return;
    // A failed submission (a lost device) has no times to read: its spans
    // are dropped, the error reaches the program through its semaphores.
    if (done == CUDA_SUCCESS) {
      Status resolved = timers_.front()->Resolve(timeline_, this);
      (void)resolved;  // Only a lost device fails here; the spans are lost.
    }
    timers_.pop_front();
  }
}

void CudaQueue::Shutdown() {
  std::deque<CudaSubmission> abandoned;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abandoned.swap(deferred_);
    // What has completed is kept; events still pending are destroyed
    // (CUDA frees them when they complete).
    FlushTraceLocked();
    timers_.clear();
  }
  const Status aborted =
      AbortedError("the CUDA device was destroyed before the submission could run");
  for (const CudaSubmission& submission : abandoned) FailSignals(submission, aborted);
}

void CudaQueue::OnResolvable() {
  Callbacks due;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    callback_registered_ = false;
    Status ignored = PumpLocked(&due);
    (void)ignored;
  }
  for (auto& callback : due) callback();
}

}  // namespace kiln::hal::cuda
