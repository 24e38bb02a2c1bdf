#include "hal/cpu/cpu_queue.h"

#include "hal/cpu/spin_wait.h"

namespace kiln::hal::cpu {

CpuQueue::CpuQueue(ThreadPool* pool, bool asynchronous) : pool_(pool), asynchronous_(asynchronous) {
  if (asynchronous_) worker_ = std::thread([this] { WorkerMain(); });
}

CpuQueue::~CpuQueue() { Shutdown(); }

void CpuQueue::Shutdown() {
  std::deque<CpuSubmission> abandoned;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
    has_work_.store(true, std::memory_order_release);
    abandoned.swap(pending_);
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  Status aborted = AbortedError("the device was destroyed before the submission ran");
  for (CpuSubmission& submission : abandoned) utils::CompleteSignals(submission.signals, aborted);
}

void CpuQueue::Submit(CpuSubmission submission) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shutdown_) return;  // The device is gone; nothing can run it.
    pending_.push_back(std::move(submission));
    has_work_.store(true, std::memory_order_release);
  }
  if (asynchronous_) {
    cv_.notify_all();
  } else {
    Pump();
  }
}

CpuQueue::WaitState CpuQueue::CheckWaits(const std::vector<Fence::Timepoint>& waits,
                                         Status* failure, CpuSemaphore** blocker,
                                         uint64_t* blocker_value) {
  for (const Fence::Timepoint& t : waits) {
    Result<uint64_t> value = t.semaphore->Query();
    if (!value.ok()) {
      *failure = value.status();
      return WaitState::kFailed;
    }
    if (*value < t.value) {
      *blocker = static_cast<CpuSemaphore*>(t.semaphore.get());
      *blocker_value = t.value;
      return WaitState::kBlocked;
    }
  }
  return WaitState::kReady;
}

void CpuQueue::Run(CpuSubmission& submission) {
  Status status;
  // Dispatches run on this thread, one after another: timed directly on the
  // trace's clock, no placement needed (hal/trace.h).
  Trace* trace = submission.trace.get();
  const uint64_t track = trace ? trace->QueueTrack(this) : 0;
  for (const Ref<CpuCommandBuffer>& command_buffer : submission.command_buffers) {
    status = command_buffer->Execute(submission.binding_table, pool_, trace, track);
    if (!status.ok()) break;
  }
  // Drop the submission's references before signaling, so that a host that
  // saw the signal and releases its own references frees the objects then
  // and there (the library of an executable is unloaded, a deallocated
  // buffer is gone).
  std::vector<Fence::Timepoint> signals = std::move(submission.signals);
  submission = CpuSubmission();
  utils::CompleteSignals(signals, status);
}

void CpuQueue::Fail(CpuSubmission& submission, const Status& failure) {
  std::vector<Fence::Timepoint> signals = std::move(submission.signals);
  submission = CpuSubmission();
  utils::CompleteSignals(signals, failure);
}

void CpuQueue::Wake() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++epoch_;
  }
  cv_.notify_all();
}

void CpuQueue::WorkerMain() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (!shutdown_ && pending_.empty()) {
      // Poll briefly before blocking: the next submission often follows soon.
      lock.unlock();
      SpinFor(kSpinBudget, [this] { return has_work_.load(std::memory_order_acquire); });
      lock.lock();
    }
    cv_.wait(lock, [this] { return shutdown_ || !pending_.empty(); });
    if (shutdown_) return;
    std::vector<Fence::Timepoint> waits = pending_.front().waits;
    uint64_t epoch = epoch_;
    lock.unlock();
    Status failure;
    CpuSemaphore* blocker = nullptr;
    uint64_t blocker_value = 0;
    WaitState state = CheckWaits(waits, &failure, &blocker, &blocker_value);
    if (state == WaitState::kBlocked) {
      blocker->NotifyWhenReached(blocker_value, [self = Ref<CpuQueue>(this)] { self->Wake(); });
      lock.lock();
      cv_.wait(lock, [&] { return shutdown_ || epoch_ != epoch; });
      continue;
    }
    lock.lock();
    if (shutdown_) return;
    CpuSubmission submission = std::move(pending_.front());
    pending_.pop_front();
    has_work_.store(!pending_.empty(), std::memory_order_release);
    lock.unlock();
    if (state == WaitState::kReady) {
      Run(submission);
    } else {
      Fail(submission, failure);
    }
    submission = CpuSubmission();  // Drop its references outside the lock.
    lock.lock();
  }
}

void CpuQueue::Pump() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pumping_) {
      // Another call on the stack or another thread is running the queue;
      // make it look at the queue again.
      repump_ = true;
      return;
    }
    pumping_ = true;
  }
  for (;;) {
    std::vector<Fence::Timepoint> waits;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      repump_ = false;
      if (shutdown_ || pending_.empty()) {
        pumping_ = false;
        return;
      }
      waits = pending_.front().waits;
    }
    Status failure;
    CpuSemaphore* blocker = nullptr;
    uint64_t blocker_value = 0;
    WaitState state = CheckWaits(waits, &failure, &blocker, &blocker_value);
    if (state == WaitState::kBlocked) {
      blocker->NotifyWhenReached(blocker_value, [self = Ref<CpuQueue>(this)] { self->Pump(); });
      std::lock_guard<std::mutex> lock(mutex_);
      if (repump_) continue;
      pumping_ = false;
      return;
    }
    CpuSubmission submission;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (shutdown_) {
        pumping_ = false;
        return;
      }
      submission = std::move(pending_.front());
      pending_.pop_front();
      has_work_.store(!pending_.empty(), std::memory_order_release);
    }
    if (state == WaitState::kReady) {
      Run(submission);
    } else {
      Fail(submission, failure);
    }
  }
}

}  // namespace kiln::hal::cpu
