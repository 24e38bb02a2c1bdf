// hal/utils/dispatch_spans.h: DeviceTimeline's placement of a submission's
// measured dispatches, in particular those a CUDA graph ran concurrently
// (listed in submission order, begun out of it).
#include "hal/utils/dispatch_spans.h"

#include <gtest/gtest.h>

#include <vector>

namespace kiln::hal::utils {
namespace {

std::vector<Trace::Span> DeviceSpans(const Trace& trace) {
  std::vector<Trace::Span> spans;
  for (const Trace::Span& span : trace.Spans()) {
    if (span.category == "device") spans.push_back(span);
  }
  return spans;
}

TEST(DeviceTimelineTest, InOrderDispatchesKeepTheirOffsets) {
  Ref<Trace> trace = Trace::Create(/*record_spans=*/true);
  DeviceTimeline timeline;
  const int queue = 0;
  const MeasuredDispatch dispatches[] = {{"a", 100, 300}, {"b", 400, 450}};
  timeline.AddSubmission(*trace, &queue, 1000, dispatches);
  const std::vector<Trace::Span> spans = DeviceSpans(*trace);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].start_ns, 1100);
  EXPECT_EQ(spans[0].duration_ns, 200);
  EXPECT_EQ(spans[1].start_ns, 1400);
  EXPECT_EQ(spans[1].duration_ns, 50);
}

// The second submission queued behind the first: its earliest dispatch,
// not its first listed, starts where the first submission ended.
TEST(DeviceTimelineTest, ConcurrentDispatchesAnchorAtTheEarliestBegin) {
  Ref<Trace> trace = Trace::Create(/*record_spans=*/true);
  DeviceTimeline timeline;
  const int queue = 0;
  const MeasuredDispatch first[] = {{"a", 0, 1000}};
  timeline.AddSubmission(*trace, &queue, 0, first);
  // Handed over at 500, while the first still ran until 1000.
  const MeasuredDispatch second[] = {{"late", 300, 400}, {"early", 100, 250}};
  timeline.AddSubmission(*trace, &queue, 500, second);
  const std::vector<Trace::Span> spans = DeviceSpans(*trace);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[2].name, "early");
  EXPECT_EQ(spans[2].start_ns, 1000);  // Not before the first's end.
  EXPECT_EQ(spans[1].name, "late");
  EXPECT_EQ(spans[1].start_ns, 1200);
  EXPECT_EQ(spans[1].duration_ns, 100);
}

}  // namespace
}  // namespace kiln::hal::utils
