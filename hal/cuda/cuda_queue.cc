#include "hal/cuda/cuda_queue.h"

#include <algorithm>
#include <variant>

#include "hal/utils/submission.h"

namespace kiln::hal::cuda {

namespace {

void FailSignals(std::span<const Fence::Timepoint> signals, const Status& status) {
  utils::CompleteSignals(signals, status);
}

}  // namespace

CudaQueue::Deferred::Deferred(const CudaSubmission& submission, size_t resolved_waits) {
  waits.assign(submission.waits.begin() + static_cast<ptrdiff_t>(resolved_waits),
               submission.waits.end());
  signals.assign(submission.signals.begin(), submission.signals.end());
  command_buffers.assign(submission.command_buffers.begin(), submission.command_buffers.end());
  binding_table.assign(submission.binding_table.begin(), submission.binding_table.end());
  released = Ref<Buffer>(submission.released);
  trace = Ref<Trace>(submission.trace);
}

CudaSubmission CudaQueue::Deferred::view() const {
  // `released` holds only what a CudaSubmission put there: a CudaBuffer.
  return {
      waits,      signals, command_buffers, binding_table, static_cast<CudaBuffer*>(released.get()),
      trace.get()};
}

CudaQueue::Readiness CudaQueue::ResolveWaits(std::span<const Fence::Timepoint> waits,
                                             size_t* resolved, Status* failure,
                                             CudaSemaphore** blocker, uint64_t* value) {
  for (*resolved = 0; *resolved < waits.size(); ++*resolved) {
    const Fence::Timepoint& wait = waits[*resolved];
    auto* semaphore = static_cast<CudaSemaphore*>(wait.semaphore.get());
    CudaSemaphore::WaitResolution resolution = semaphore->ResolveWait(wait.value, *context_);
    switch (resolution.kind) {
      case CudaSemaphore::WaitResolution::kReady:
        continue;
      case CudaSemaphore::WaitResolution::kFailed:
        *failure = resolution.failure;
        return Readiness::kFailed;
      case CudaSemaphore::WaitResolution::kUnresolved:
        *blocker = semaphore;
        *value = wait.value;
        return Readiness::kBlocked;
    }
  }
  return Readiness::kReady;
}

Status CudaQueue::IssueTraced(const CudaSubmission& submission) {
  // Dispatches and collectives get device spans.
  bool timed = false;
  for (const Ref<CommandBuffer>& command_buffer : submission.command_buffers) {
    const auto& own = static_cast<const CudaCommandBuffer&>(*command_buffer);
    for (const utils::Command& command : own.command_list().commands()) {
      timed = timed || std::holds_alternative<utils::DispatchCommand>(command) ||
              std::holds_alternative<utils::CollectiveCommand>(command);
    }
  }
  std::unique_ptr<CudaDispatchTimer> timer;
  if (timed) {
    KILN_ASSIGN_OR_RETURN(timer, CudaDispatchTimer::Start(context_, Ref<Trace>(submission.trace)));
  }
  for (const Ref<CommandBuffer>& command_buffer : submission.command_buffers) {
    auto& own = static_cast<CudaCommandBuffer&>(*command_buffer);
    KILN_RETURN_IF_ERROR(timer ? own.IssueTraced(submission.binding_table, *timer)
                               : own.Issue(submission.binding_table));
  }
  if (timer) {
    KILN_RETURN_IF_ERROR(timer->Finish());
    timers_.push_back(std::move(timer));
  }
  return OkStatus();
}

Status CudaQueue::Issue(const CudaSubmission& submission, Callbacks* due) {
  Status status = context_->health();
  if (status.ok()) status = context_->MakeCurrent();
  if (status.ok()) [[likely]] {
    if (submission.trace != nullptr) [[unlikely]] {
      status = IssueTraced(submission);
    } else {
      for (const Ref<CommandBuffer>& command_buffer : submission.command_buffers) {
        status = static_cast<CudaCommandBuffer&>(*command_buffer).Issue(submission.binding_table);
        if (!status.ok()) break;
      }
    }
  }
  if (status.ok() && submission.released != nullptr) status = submission.released->FreeAsync();
  if (!status.ok()) [[unlikely]] {
    FailSignals(submission.signals, status);
    return status;
  }
  for (const Fence::Timepoint& t : submission.signals) {
    Status recorded =
        static_cast<CudaSemaphore*>(t.semaphore.get())->RecordSignal(t.value, context_, due);
    if (!recorded.ok()) [[unlikely]] {
      FailSignals(submission.signals, recorded);
      return recorded;
    }
  }
  Status watched = WatchCollectives(submission);
  if (!watched.ok()) [[unlikely]] {
    FailSignals(submission.signals, watched);
    return watched;
  }
  return OkStatus();
}

Status CudaQueue::WatchCollectives(const CudaSubmission& submission) {
  // Most submissions run no collective: one empty span per command buffer.
  std::vector<Ref<NcclChannel>> channels;
  for (const Ref<CommandBuffer>& command_buffer : submission.command_buffers) {
    const auto& own = static_cast<const CudaCommandBuffer&>(*command_buffer);
    for (const Ref<NcclChannel>& channel : own.collective_channels()) {
      if (std::find(channels.begin(), channels.end(), channel) == channels.end()) {
        channels.push_back(channel);
      }
    }
  }
  if (channels.empty()) [[likely]]
    return OkStatus();
  KILN_ASSIGN_OR_RETURN(CUevent event, context_->AcquireEvent());
  Status recorded = context_->Check(context_->symbols().cuEventRecord(event, context_->stream()),
                                    "cuEventRecord (watching a submission's collectives)");
  if (!recorded.ok()) {
    context_->ReleaseEvent(event);
    return recorded;
  }
  // A channel that failed since the submission checked it (the watchdog
  // says so): the submission fails with it.
  return watchdog_->Watch(event, submission.signals, channels);
}

Status CudaQueue::PumpLocked(Callbacks* due, const Deferred* report) {
  Status reported;
  while (!deferred_.empty() && !callback_registered_) {
    Deferred& front = deferred_.front();
    Status failure;
    CudaSemaphore* blocker = nullptr;
    uint64_t value = 0;
    size_t resolved = 0;
    const Readiness readiness = ResolveWaits(front.waits, &resolved, &failure, &blocker, &value);
    // Resolved waits are dropped, so a deferred submission does not enqueue
    // a cross-device wait twice.
    front.waits.erase(front.waits.begin(), front.waits.begin() + static_cast<ptrdiff_t>(resolved));
    switch (readiness) {
      case Readiness::kReady: {
        // A failure fails the submission's signals: that is how a deferred
        // submission reports it; the caller's own gets the status too.
        Status issued = Issue(front.view(), due);
        if (&front == report) reported = issued;
        break;
      }
      case Readiness::kFailed:
        FailSignals(front.signals, failure);
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

Status CudaQueue::Submit(const CudaSubmission& submission) {
  Callbacks due;
  Status status;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Keeps the list of traced submissions short when nobody flushes.
    if (!timers_.empty()) FlushTraceLocked();
    bool handled = false;  // Issued or failed without the deferred list.
    size_t resolved = 0;
    if (deferred_.empty() && !callback_registered_) [[likely]] {
      // Nothing queued before it (the common case: a program's call whose
      // waits are met): issued without passing through the deferred list,
      // and without a copy, as PumpLocked would issue it, or failed as it
      // would fail it.
      Status failure;
      CudaSemaphore* blocker = nullptr;
      uint64_t value = 0;
      switch (ResolveWaits(submission.waits, &resolved, &failure, &blocker, &value)) {
        case Readiness::kReady:
          status = Issue(submission, &due);
          break;
        case Readiness::kFailed:
          FailSignals(submission.signals, failure);
          break;
        case Readiness::kBlocked:
          break;
      }
      handled = blocker == nullptr;
    }
    if (!handled) {
      // Copied without the waits resolved above (enqueued once).
      deferred_.emplace_back(submission, resolved);
      // Only a submission at the front can be issued now; one behind a
      // deferred submission keeps its place in the order.
      const Deferred* mine = deferred_.size() == 1 ? &deferred_.front() : nullptr;
      status = PumpLocked(&due, mine);
    }
  }
  utils::RunCallbacks(due);
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
  std::deque<Deferred> abandoned;
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
  for (const Deferred& submission : abandoned) FailSignals(submission.signals, aborted);
}

void CudaQueue::OnResolvable() {
  Callbacks due;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    callback_registered_ = false;
    Status ignored = PumpLocked(&due);
    (void)ignored;
  }
  utils::RunCallbacks(due);
}

}  // namespace kiln::hal::cuda
