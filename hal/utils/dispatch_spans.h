// Dispatch spans: how drivers name the device span of a dispatch and place
// the times a GPU measured onto the trace's clock (hal/trace.h says when
// devices measure at all).
//
// A span is named after what the program dispatched: "dispatch
// @main_dispatch_0::@main_dispatch_0_elementwise_4" (the executable's name,
// Executable::name(), then the export's), or "dispatch @f" for an
// executable that has no name (one created directly, as tests do).
//
// DeviceTimeline places one GPU queue's submissions. A GPU timestamps work
// on its own clock; a driver gives, per submission, the host time at which
// it handed the submission to the device and each dispatch's begin and end
// as device nanoseconds after a reference timestamp written first in that
// submission. The submission's spans start at that host time plus the
// offsets, except that the anchor moves past the end of the queue's
// previous span: a submission that queued behind earlier work started
// later than it was handed over, and spans of one in-order queue cannot
// overlap. The placement is then never later than the truth (the device
// cannot start before the host submits, nor finish after the host saw it
// finish), so each span lies within the submission's host interval.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>

#include "hal/executable.h"
#include "hal/trace.h"

namespace kiln::hal::utils {

// "dispatch @<executable>::@<export>", or "dispatch @<export>" when the
// executable has no name.
std::string DispatchSpanName(const Executable& executable, uint32_t export_ordinal);

// One dispatch as a GPU measured it: device nanoseconds after the
// submission's reference timestamp.
struct MeasuredDispatch {
  std::string name;  // DispatchSpanName.
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

class DeviceTimeline {
 public:
  // Adds `dispatches` (in submission order; those a graph runs concurrently
  // may begin out of that order) of a submission handed to the device at
  // host time `submitted_ns` (Trace::Now()) to `trace`, on the track of
  // `queue`. Negative offsets and durations (clock glitches) are clamped to
  // zero. Thread-safe.
  void AddSubmission(Trace& trace, const void* queue, int64_t submitted_ns,
                     std::span<const MeasuredDispatch> dispatches);

 private:
  std::mutex mutex_;
  const Trace* last_trace_ = nullptr;  // Guarded by mutex_.
  int64_t last_end_ns_ = 0;            // Guarded by mutex_; on last_trace_'s clock.
};

}  // namespace kiln::hal::utils
