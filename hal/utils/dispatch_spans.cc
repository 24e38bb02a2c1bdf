#include "hal/utils/dispatch_spans.h"

#include <algorithm>

namespace kiln::hal::utils {

std::string DispatchSpanName(const Executable& executable, uint32_t export_ordinal) {
  std::string name = "dispatch @";
  if (!executable.name().empty()) name += executable.name() + "::@";
  return name + executable.export_at(export_ordinal).name;
}

void DeviceTimeline::AddSubmission(Trace& trace, const void* queue, int64_t submitted_ns,
                                   std::span<const MeasuredDispatch> dispatches) {
  if (dispatches.empty()) return;
  const uint64_t track = trace.QueueTrack(queue);
  std::lock_guard<std::mutex> lock(mutex_);
  // A timeline that moves to another trace starts over on its clock.
  if (last_trace_ != &trace) {
    last_trace_ = &trace;
    last_end_ns_ = 0;
  }
  // The earliest begin, not the first dispatch's: dispatches of a graph
  // between two barriers may run concurrently, in any order.
  int64_t first_begin = std::max<int64_t>(dispatches.front().begin_ns, 0);
  for (const MeasuredDispatch& d : dispatches) {
    first_begin = std::min(first_begin, std::max<int64_t>(d.begin_ns, 0));
  }
  // Where the first dispatch begins on the host's clock.
  const int64_t anchor = std::max(submitted_ns + first_begin, last_end_ns_) - first_begin;
  for (const MeasuredDispatch& d : dispatches) {
    const int64_t begin = std::max<int64_t>(d.begin_ns, 0);
    const int64_t duration = std::max<int64_t>(d.end_ns - begin, 0);
    trace.AddSpan({.name = d.name,
                   .category = "device",
                   .detail = {},
                   .start_ns = anchor + begin,
                   .duration_ns = duration,
                   .track = track});
    last_end_ns_ = std::max(last_end_ns_, anchor + begin + duration);
  }
}

}  // namespace kiln::hal::utils
