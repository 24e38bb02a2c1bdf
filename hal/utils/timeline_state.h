// TimelineState: the host-side bookkeeping every driver's timeline semaphore
// shares (hal/semaphore.h gives the contract), and the errors they all use.
//
//   - the value reached, and the value scheduled: the largest value signaled
//     by the host or promised by a queue submission not yet run (equal to
//     the reached value on a driver whose queue signals only when done);
//   - monotonic checks: a host signal or a queue signal must exceed what is
//     scheduled, refused with one wording for every driver;
//   - failure: the first failure wins, an OK status passed to Fail becomes
//     INTERNAL, and every waiter is released;
//   - waiters: callbacks due once a value is scheduled (or the semaphore
//     fails), run in order of value, then of registration, so that queues
//     resume the oldest dependent first.
//
// Calls that can make waiters due take a `due` list; a driver that never
// registers waiters (Vulkan waits on the device) passes null.
//
// It has no lock of its own: the driver's semaphore (or queue) guards it
// with its lock, and runs the callbacks the calls make due after releasing
// that lock (a callback may take other locks, or the same semaphore's).
// CpuSemaphore and CudaSemaphore keep all of their state here; Vulkan keeps
// the reached value in its VkSemaphore and the rest here.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "base/result.h"
#include "hal/semaphore.h"

namespace kiln::hal::utils {

// The errors of the Semaphore contract, worded once.
//
// A host signal at or below what the semaphore has reached or is scheduled
// to reach (INVALID_ARGUMENT): "semaphore signal to 5 does not advance its
// value 5 (timeline values only grow)"; with a pending queue signal past the
// value: "... its value 3 (scheduled to reach 6; timeline values only grow)".
Status HostSignalNotAdvancingError(uint64_t value, uint64_t reached, uint64_t scheduled);
// A queue submission's signal at or below what is scheduled.
Status QueueSignalNotAdvancingError(uint64_t value, uint64_t scheduled);
// A host wait that timed out (DEADLINE_EXCEEDED).
Status WaitTimeoutError(uint64_t value, Timeout timeout, uint64_t reached);
// The status Fail records: `status`, or INTERNAL when it is OK.
Status FailureStatus(Status status);

class TimelineState {
 public:
  using Callback = std::function<void()>;
  using Callbacks = std::vector<Callback>;

  explicit TimelineState(uint64_t initial_value)
      : reached_(initial_value), scheduled_(initial_value) {}

  uint64_t reached() const { return reached_; }
  uint64_t scheduled() const { return scheduled_; }
  bool failed() const { return !failure_.ok(); }
  const Status& failure() const { return failure_; }
  // Whether a host wait for `value` is over (reached or failed).
  bool WaitDone(uint64_t value) const { return failed() || reached_ >= value; }

  // The host signals `value`: the failure if failed, else refused unless it
  // exceeds the scheduled value; reached and scheduled become `value`.
  Status Signal(uint64_t value, Callbacks* due = nullptr);
  // A queue submission will signal `value` (not reached yet): refused
  // unless it exceeds the scheduled value. A failed semaphore accepts and
  // ignores it (it stays failed).
  Status CheckSchedule(uint64_t value) const;
  Status Schedule(uint64_t value, Callbacks* due = nullptr) {
    // Inline, the case of every queue signal: a value past the scheduled
    // one of a healthy semaphore, which usually no one waits on yet.
    if (!failed() && value > scheduled_) [[likely]] {
      scheduled_ = value;
      if (!waiters_.empty()) CollectDue(due);
      return OkStatus();
    }
    return ScheduleRefusedOrFailed(value, due);
  }
  // Raises the scheduled value to at least `value`, unchecked (a driver
  // whose device allows signals below a pending one).
  void RaiseScheduled(uint64_t value, Callbacks* due = nullptr);
  // A scheduled value was reached on the device.
  void Reach(uint64_t value) {
    if (value > reached_) reached_ = value;
  }
  // Fails the timeline; returns false when it had already failed (the first
  // failure wins). Every waiter becomes due.
  bool Fail(Status status, Callbacks* due = nullptr);

  // Registers `callback` for when `value` is scheduled or the semaphore
  // fails; returns false, registering nothing (`callback` is left as it
  // was), when that is already so.
  bool NotifyWhenScheduled(uint64_t value, Callback&& callback);

 private:
  struct Waiter {
    uint64_t value;
    Callback callback;
  };
  void CollectDue(Callbacks* due);
  // Schedule when the semaphore failed or `value` does not advance it.
  Status ScheduleRefusedOrFailed(uint64_t value, Callbacks* due);

  uint64_t reached_;
  uint64_t scheduled_;
  Status failure_;
  std::vector<Waiter> waiters_;  // By value, then registration.
};

// Runs callbacks a TimelineState made due (with no lock held), and empties
// the list. Inline for the usual case of none.
void RunDueCallbacks(TimelineState::Callbacks& callbacks);
inline void RunCallbacks(TimelineState::Callbacks& callbacks) {
  if (!callbacks.empty()) [[unlikely]]
    RunDueCallbacks(callbacks);
}

}  // namespace kiln::hal::utils
