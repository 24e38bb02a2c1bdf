// hal/utils/timeline_state.h: the timeline bookkeeping the drivers'
// semaphores share, and the errors they all word the same way.
#include "hal/utils/timeline_state.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/hal/test_util.h"

namespace kiln::hal::utils {
namespace {

TEST(TimelineStateTest, WaitersAreWokenInOrderOfValueThenRegistration) {
  TimelineState timeline(0);
  std::vector<std::string> woken;
  auto waiter = [&](std::string name) { return [&woken, name] { woken.push_back(name); }; };
  EXPECT_TRUE(timeline.NotifyWhenScheduled(3, waiter("3a")));
  EXPECT_TRUE(timeline.NotifyWhenScheduled(1, waiter("1a")));
  EXPECT_TRUE(timeline.NotifyWhenScheduled(5, waiter("5")));
  EXPECT_TRUE(timeline.NotifyWhenScheduled(3, waiter("3b")));
  EXPECT_TRUE(timeline.NotifyWhenScheduled(1, waiter("1b")));
  TimelineState::Callbacks due;
  KILN_ASSERT_OK(timeline.Signal(3, &due));
  EXPECT_TRUE(woken.empty());  // Due, not run: the caller runs them without its lock.
  RunCallbacks(due);
  EXPECT_EQ(woken, (std::vector<std::string>{"1a", "1b", "3a", "3b"}));
  // A value already reached registers nothing.
  std::function<void()> now = waiter("now");
  EXPECT_FALSE(timeline.NotifyWhenScheduled(2, std::move(now)));
  ASSERT_TRUE(now);  // Left to the caller to run.
  KILN_ASSERT_OK(timeline.Schedule(5, &due));
  RunCallbacks(due);
  EXPECT_EQ(woken.back(), "5");
  EXPECT_EQ(timeline.reached(), 3u);
  EXPECT_EQ(timeline.scheduled(), 5u);
}

TEST(TimelineStateTest, ValuesGoingBackwardsAreRefusedWithTheSharedMessages) {
  TimelineState timeline(5);
  Status host = timeline.Signal(5);
  EXPECT_EQ(host.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(host.message(),
            "semaphore signal to 5 does not advance its value 5 (timeline values only grow)");
  KILN_ASSERT_OK(timeline.Schedule(8));
  EXPECT_EQ(timeline.Signal(7).message(),
            "semaphore signal to 7 does not advance its value 5 (scheduled to reach 8; timeline "
            "values only grow)");
  Status queue = timeline.Schedule(8);
  EXPECT_EQ(queue.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(queue.message(),
            "queue signal of a semaphore to 8 does not advance it (it is signaled or scheduled "
            "to reach 8; timeline values only grow)");
  // Reaching a scheduled value moves `reached` only forward.
  timeline.Reach(8);
  timeline.Reach(6);
  EXPECT_EQ(timeline.reached(), 8u);
  EXPECT_EQ(WaitTimeoutError(9, std::chrono::milliseconds(20), 8).message(),
            "semaphore wait for value 9 timed out after 20000 us (current value 8)");
}

TEST(TimelineStateTest, FailureWinsOnceReleasesEveryWaiterAndSticks) {
  TimelineState timeline(0);
  int released = 0;
  EXPECT_TRUE(timeline.NotifyWhenScheduled(10, [&] { ++released; }));
  EXPECT_TRUE(timeline.NotifyWhenScheduled(20, [&] { ++released; }));
  TimelineState::Callbacks due;
  EXPECT_TRUE(timeline.Fail(DataLossError("first"), &due));
  RunCallbacks(due);
  EXPECT_EQ(released, 2);
  EXPECT_FALSE(timeline.Fail(AbortedError("second"), &due));
  EXPECT_EQ(timeline.failure().message(), "first");
  EXPECT_TRUE(timeline.WaitDone(1000));
  EXPECT_EQ(timeline.Signal(30).message(), "first");
  // A failed timeline accepts queue signals and stays failed.
  KILN_ASSERT_OK(timeline.Schedule(1));
  EXPECT_FALSE(timeline.NotifyWhenScheduled(40, [] {}));
  // An OK status is not a failure.
  TimelineState other(0);
  EXPECT_TRUE(other.Fail(OkStatus()));
  EXPECT_EQ(other.failure().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace kiln::hal::utils
