// Fence: a set of (semaphore, value) timepoints, the unit in which queue
// operations wait and signal.
//
// A fence is reached when every semaphore has reached its value. Adding the
// same semaphore twice keeps the larger value. Submissions take a wait fence
// and a signal fence; the host waits on a fence to see a submission finish.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/semaphore.h"

namespace kiln::hal {

class Fence : public RefObject {
 public:
  struct Timepoint {
    Ref<Semaphore> semaphore;
    uint64_t value = 0;
  };

  Fence() = default;
  Fence(std::initializer_list<Timepoint> timepoints) {
    for (const Timepoint& t : timepoints) Insert(t.semaphore, t.value);
  }

  void Insert(Ref<Semaphore> semaphore, uint64_t value) {
    for (Timepoint& t : timepoints_) {
      if (t.semaphore == semaphore) {
        if (value > t.value) t.value = value;
        return;
      }
    }
    timepoints_.push_back({std::move(semaphore), value});
  }

  const std::vector<Timepoint>& timepoints() const { return timepoints_; }
  bool empty() const { return timepoints_.empty(); }

  // OK once every timepoint is reached; the first failure or
  // DEADLINE_EXCEEDED otherwise. The timeout covers the whole fence.
  Status Wait(Timeout timeout) const {
    // The clock is read only for a finite timeout (an infinite wait, a
    // program's fence.await, spares the call).
    const auto start = timeout != kInfiniteTimeout ? std::chrono::steady_clock::now()
                                                   : std::chrono::steady_clock::time_point();
    for (const Timepoint& t : timepoints_) {
      Timeout left = timeout;
      if (timeout != kInfiniteTimeout) {
        auto spent = std::chrono::duration_cast<Timeout>(std::chrono::steady_clock::now() - start);
        left = spent >= timeout ? Timeout(0) : timeout - spent;
      }
      KILN_RETURN_IF_ERROR(t.semaphore->Wait(t.value, left));
    }
    return OkStatus();
  }

  // Signals every timepoint (used by the host and by drivers when a
  // submission completes).
  Status Signal() const {
    for (const Timepoint& t : timepoints_) KILN_RETURN_IF_ERROR(t.semaphore->Signal(t.value));
    return OkStatus();
  }

  // Fails every semaphore of the fence with `status`.
  void Fail(const Status& status) const {
    for (const Timepoint& t : timepoints_) t.semaphore->Fail(status);
  }

 private:
  std::vector<Timepoint> timepoints_;
};

}  // namespace kiln::hal
