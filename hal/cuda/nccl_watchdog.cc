#include "hal/cuda/nccl_watchdog.h"

#include <algorithm>

#include "hal/utils/submission.h"

namespace kiln::hal::cuda {

bool NcclWatchdog::Watched::Uses(const NcclChannel& channel) const {
  return std::any_of(channels.begin(), channels.end(),
                     [&](const Ref<NcclChannel>& used) { return used.get() == &channel; });
}

NcclWatchdog::~NcclWatchdog() { Shutdown(); }

Status NcclWatchdog::Watch(CUevent event, std::span<const Fence::Timepoint> signals,
                           std::span<const Ref<NcclChannel>> channels) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Checked under the lock that FailSubmissionsOn takes after the channel
  // has failed: either this sees the failure, or that finds the submission.
  for (const Ref<NcclChannel>& channel : channels) {
    Status healthy = channel->health();
    if (!healthy.ok()) {
      context_->ReleaseEvent(event);
      return healthy;
    }
  }
  if (stopping_) {
    context_->ReleaseEvent(event);
    return OkStatus();
  }
  watched_.push_back(Watched{event, std::vector<Fence::Timepoint>(signals.begin(), signals.end()),
                             std::vector<Ref<NcclChannel>>(channels.begin(), channels.end())});
  if (!thread_.joinable()) {
    // The thread holds the watchdog until it ends (Shutdown), so that the
    // last reference, wherever it is dropped, never frees what it runs on.
    thread_ = std::thread([self = Ref<NcclWatchdog>(this)] { self->Run(); });
    thread_id_ = thread_.get_id();
  }
  wake_.notify_one();
  return OkStatus();
}

void NcclWatchdog::FailSubmissionsOn(const NcclChannel& channel, const Status& status) {
  bool on_thread;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    on_thread = thread_id_ == std::this_thread::get_id();
  }
  // Another thread waits for a round in progress to end (its submissions
  // are back in watched_ then); the watchdog's own thread, which aborts
  // from within a round, holds the round already.
  std::unique_lock<std::mutex> polling(poll_mutex_, std::defer_lock);
  if (!on_thread) polling.lock();
  std::vector<std::vector<Fence::Timepoint>> failed;
  for (Watched& watched : round_) {
    if (watched.done || !watched.Uses(channel)) continue;
    watched.done = true;  // Its event goes back at the end of the round.
    failed.push_back(std::move(watched.signals));
  }
  std::vector<CUevent> events;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = watched_.begin(); it != watched_.end();) {
      if (!it->Uses(channel)) {
        ++it;
        continue;
      }
      failed.push_back(std::move(it->signals));
      events.push_back(it->event);
      it = watched_.erase(it);
    }
  }
  // Without mutex_: failing a semaphore runs its waiters' callbacks.
  for (const std::vector<Fence::Timepoint>& signals : failed) {
    utils::CompleteSignals(signals, status);
  }
  for (CUevent event : events) context_->ReleaseEvent(event);
}

void NcclWatchdog::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) {
    // The thread itself drops the last reference when it ends after a
    // Shutdown: it cannot join itself, and touches nothing afterwards.
    if (thread_.get_id() == std::this_thread::get_id()) {
      thread_.detach();
    } else {
      thread_.join();
    }
  }
  // The thread has ended: what it still watched completes unwatched.
  std::deque<Watched> abandoned;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abandoned.swap(watched_);
  }
  for (Watched& watched : abandoned) context_->ReleaseEvent(watched.event);
}

size_t NcclWatchdog::in_flight() const {
  // After a round: its submissions are back in watched_ or let go.
  std::lock_guard<std::mutex> polling(poll_mutex_);
  std::lock_guard<std::mutex> lock(mutex_);
  return watched_.size();
}

void NcclWatchdog::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !watched_.empty(); });
    if (stopping_) return;
    lock.unlock();
    std::deque<Watched> finished;
    {
      std::lock_guard<std::mutex> polling(poll_mutex_);
      {
        std::lock_guard<std::mutex> guard(mutex_);
        round_.swap(watched_);
      }
      // Polled without mutex_: failing a semaphore runs its waiters'
      // callbacks, which may issue a queue's deferred submissions, which
      // call Watch.
      for (Watched& watched : round_) {
        if (!watched.done && Poll(watched)) watched.done = true;
      }
      std::lock_guard<std::mutex> guard(mutex_);
      // Those still in flight go back ahead of those watched since
      // (submission order).
      while (!round_.empty()) {
        Watched& last = round_.back();
        if (last.done) {
          finished.push_back(std::move(last));
        } else {
          watched_.push_front(std::move(last));
        }
        round_.pop_back();
      }
    }
    // Without the locks: letting a channel go may destroy it.
    for (Watched& watched : finished) context_->ReleaseEvent(watched.event);
    finished.clear();
    lock.lock();
    if (!watched_.empty()) wake_.wait_for(lock, kPollInterval, [&] { return stopping_; });
  }
}

bool NcclWatchdog::Poll(Watched& watched) {
  const CUresult done = context_->symbols().cuEventQuery(watched.event);
  if (done != CUDA_SUCCESS && done != CUDA_ERROR_NOT_READY) {
    // A sticky error marks the device lost (Check): its collectives never
    // finish, and the peers must not wait for them.
    Fail(watched, context_->Check(done, "a submission that runs collectives"));
    return true;
  }
  // Lost by another submission (a kernel fault) while this one waits on the
  // stream behind it.
  Status failure = context_->health();
  for (size_t i = 0; failure.ok() && i < watched.channels.size(); ++i) {
    failure = watched.channels[i]->PollAsyncError();
  }
  if (!failure.ok()) {
    Fail(watched, failure);
    return true;
  }
  return done == CUDA_SUCCESS;
}

void NcclWatchdog::Fail(Watched& watched, const Status& status) {
  watched.done = true;
  utils::CompleteSignals(watched.signals, status);
  // Each abort fails the other submissions on the channel first.
  for (const Ref<NcclChannel>& channel : watched.channels) channel->Abort(status);
}

}  // namespace kiln::hal::cuda
