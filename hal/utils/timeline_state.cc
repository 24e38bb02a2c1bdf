#include "hal/utils/timeline_state.h"

#include <algorithm>
#include <string>

namespace kiln::hal::utils {

Status HostSignalNotAdvancingError(uint64_t value, uint64_t reached, uint64_t scheduled) {
  return InvalidArgumentError("semaphore signal to " + std::to_string(value) +
                              " does not advance its value " + std::to_string(reached) +
                              (scheduled > reached
                                   ? " (scheduled to reach " + std::to_string(scheduled) + "; "
                                   : std::string(" (")) +
                              "timeline values only grow)");
}

Status QueueSignalNotAdvancingError(uint64_t value, uint64_t scheduled) {
  return InvalidArgumentError("queue signal of a semaphore to " + std::to_string(value) +
                              " does not advance it (it is signaled or scheduled to reach " +
                              std::to_string(scheduled) + "; timeline values only grow)");
}

Status WaitTimeoutError(uint64_t value, Timeout timeout, uint64_t reached) {
  return DeadlineExceededError(
      "semaphore wait for value " + std::to_string(value) + " timed out after " +
      std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(timeout).count()) +
      " us (current value " + std::to_string(reached) + ")");
}

Status FailureStatus(Status status) {
  if (status.ok()) return InternalError("semaphore failed with an OK status");
  return status;
}

void TimelineState::CollectDue(Callbacks* due) {
  if (due == nullptr) return;  // A driver that registers no waiters.
  // waiters_ is sorted by value: the due ones are a prefix.
  size_t count = 0;
  if (failed()) {
    count = waiters_.size();
  } else {
    while (count < waiters_.size() && waiters_[count].value <= scheduled_) ++count;
  }
  if (count == 0) return;
  for (size_t i = 0; i < count; ++i) due->push_back(std::move(waiters_[i].callback));
  waiters_.erase(waiters_.begin(), waiters_.begin() + static_cast<ptrdiff_t>(count));
}

Status TimelineState::Signal(uint64_t value, Callbacks* due) {
  if (failed()) return failure_;
  if (value <= scheduled_) return HostSignalNotAdvancingError(value, reached_, scheduled_);
  reached_ = scheduled_ = value;
  CollectDue(due);
  return OkStatus();
}

Status TimelineState::CheckSchedule(uint64_t value) const {
  if (failed() || value > scheduled_) return OkStatus();
  return QueueSignalNotAdvancingError(value, scheduled_);
}

Status TimelineState::ScheduleRefusedOrFailed(uint64_t value, Callbacks* due) {
  KILN_RETURN_IF_ERROR(CheckSchedule(value));
  if (failed()) return OkStatus();
  scheduled_ = value;
  CollectDue(due);
  return OkStatus();
}

void TimelineState::RaiseScheduled(uint64_t value, Callbacks* due) {
  if (value <= scheduled_) return;
  scheduled_ = value;
  CollectDue(due);
}

bool TimelineState::Fail(Status status, Callbacks* due) {
  if (failed()) return false;
  failure_ = FailureStatus(std::move(status));
  CollectDue(due);
  return true;
}

bool TimelineState::NotifyWhenScheduled(uint64_t value, Callback&& callback) {
  if (failed() || value <= scheduled_) return false;
  auto at = std::upper_bound(waiters_.begin(), waiters_.end(), value,
                             [](uint64_t v, const Waiter& w) { return v < w.value; });
  waiters_.insert(at, Waiter{value, std::move(callback)});
  return true;
}

void RunDueCallbacks(TimelineState::Callbacks& callbacks) {
  for (TimelineState::Callback& callback : callbacks) callback();
  callbacks.clear();
}

}  // namespace kiln::hal::utils
