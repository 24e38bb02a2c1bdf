// What every driver's dispatch-timing test asserts about the device spans
// of a traced submission (hal/trace.h): exactly the expected dispatches, by
// name, in submission order, on one device-queue track, with non-negative
// durations, inside the host interval [begin_ns, end_ns] from before the
// submission to after the wait that saw it complete.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hal/trace.h"

namespace kiln::hal::testing {

inline std::vector<Trace::Span> DeviceSpans(const Trace& trace) {
  std::vector<Trace::Span> spans;
  for (const Trace::Span& span : trace.Spans()) {
    if (span.category == "device") spans.push_back(span);
  }
  return spans;
}

inline void ExpectDispatchSpans(const Trace& trace, const std::vector<std::string>& names,
                                int64_t begin_ns, int64_t end_ns) {
  const std::vector<Trace::Span> spans = DeviceSpans(trace);
  std::vector<std::string> got;
  for (const Trace::Span& span : spans) got.push_back(span.name);
  ASSERT_EQ(got, names);
  for (size_t i = 0; i < spans.size(); ++i) {
    const Trace::Span& span = spans[i];
    EXPECT_EQ(span.track, spans[0].track) << i;
    EXPECT_GE(span.track, Trace::kFirstDeviceTrack) << i;
    EXPECT_GE(span.duration_ns, 0) << i;
    EXPECT_GE(span.start_ns, begin_ns) << i;
    EXPECT_LE(span.start_ns + span.duration_ns, end_ns) << i;
    if (i > 0) {
      EXPECT_GE(span.start_ns, spans[i - 1].start_ns) << "out of order: " << i;
    }
  }
}

}  // namespace kiln::hal::testing
