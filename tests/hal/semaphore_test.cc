// Timeline semaphores and fences: signal/wait across threads, timeouts,
// failure propagation, callbacks.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "hal/cpu/cpu_semaphore.h"
#include "hal/fence.h"
#include "tests/hal/test_util.h"

namespace kiln::hal {
namespace {

using cpu::CpuSemaphore;
using namespace std::chrono_literals;

TEST(SemaphoreTest, SignalAndQuery) {
  Ref<CpuSemaphore> semaphore = MakeRef<CpuSemaphore>(3);
  EXPECT_EQ(*semaphore->Query(), 3u);
  KILN_ASSERT_OK(semaphore->Signal(5));
  EXPECT_EQ(*semaphore->Query(), 5u);
  KILN_ASSERT_OK(semaphore->Wait(4, 0ns));  // Already reached: no blocking.
  Status status = semaphore->Signal(5);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("does not advance its value 5"), std::string::npos)
      << status.message();
}

TEST(SemaphoreTest, WaitTimesOutWithDeadlineExceeded) {
  Ref<CpuSemaphore> semaphore = MakeRef<CpuSemaphore>(0);
  auto start = std::chrono::steady_clock::now();
  Status status = semaphore->Wait(1, 20ms);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(status.message().find("value 1"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("current value 0"), std::string::npos) << status.message();
  EXPECT_EQ(semaphore->Wait(1, 0ns).code(), StatusCode::kDeadlineExceeded);
}

TEST(SemaphoreTest, SignalFromAnotherThreadWakesWaiters) {
  Ref<CpuSemaphore> semaphore = MakeRef<CpuSemaphore>(0);
  std::atomic<int> woken{0};
  std::vector<std::thread> waiters;
  for (int i = 1; i <= 4; ++i) {
    waiters.emplace_back([&, i] {
      Status status = semaphore->Wait(static_cast<uint64_t>(i), kInfiniteTimeout);
      EXPECT_TRUE(status.ok()) << status.ToString();
      woken.fetch_add(1);
    });
  }
  std::thread signaler([&] {
    for (uint64_t v = 1; v <= 4; ++v) {
      std::this_thread::sleep_for(1ms);
      EXPECT_TRUE(semaphore->Signal(v).ok());
    }
  });
  signaler.join();
  for (std::thread& t : waiters) t.join();
  EXPECT_EQ(woken.load(), 4);
}

TEST(SemaphoreTest, FailureWakesWaitersAndSticks) {
  Ref<CpuSemaphore> semaphore = MakeRef<CpuSemaphore>(0);
  Status seen;
  std::thread waiter([&] { seen = semaphore->Wait(10, kInfiniteTimeout); });
  std::this_thread::sleep_for(5ms);
  semaphore->Fail(InternalError("kernel 'k' exploded"));
  waiter.join();
  EXPECT_EQ(seen.code(), StatusCode::kInternal);
  EXPECT_EQ(seen.message(), "kernel 'k' exploded");
  // Later waits, queries and signals see the failure; the first one wins.
  semaphore->Fail(AbortedError("second"));
  EXPECT_EQ(semaphore->Wait(0, 0ns).message(), "kernel 'k' exploded");
  EXPECT_EQ(semaphore->Query().status().message(), "kernel 'k' exploded");
  EXPECT_EQ(semaphore->Signal(20).message(), "kernel 'k' exploded");
}

TEST(SemaphoreTest, CallbacksRunWhenReachedOrFailed) {
  Ref<CpuSemaphore> semaphore = MakeRef<CpuSemaphore>(1);
  int calls = 0;
  semaphore->NotifyWhenReached(1, [&] { ++calls; });  // Already reached: runs now.
  EXPECT_EQ(calls, 1);
  semaphore->NotifyWhenReached(3, [&] { calls += 10; });
  KILN_ASSERT_OK(semaphore->Signal(2));
  EXPECT_EQ(calls, 1);
  KILN_ASSERT_OK(semaphore->Signal(3));
  EXPECT_EQ(calls, 11);
  semaphore->NotifyWhenReached(9, [&] { calls += 100; });
  semaphore->Fail(InternalError("x"));
  EXPECT_EQ(calls, 111);
}

TEST(FenceTest, WaitsForEveryTimepoint) {
  Ref<Semaphore> a = MakeRef<CpuSemaphore>(0);
  Ref<Semaphore> b = MakeRef<CpuSemaphore>(0);
  Fence fence{{a, 1}, {b, 2}};
  fence.Insert(a, 2);  // The same semaphore keeps the larger value.
  fence.Insert(a, 1);
  ASSERT_EQ(fence.timepoints().size(), 2u);
  EXPECT_EQ(fence.timepoints()[0].value, 2u);
  EXPECT_EQ(fence.Wait(1ms).code(), StatusCode::kDeadlineExceeded);
  std::thread signaler([&] {
    EXPECT_TRUE(b->Signal(2).ok());
    EXPECT_TRUE(a->Signal(2).ok());
  });
  KILN_ASSERT_OK(fence.Wait(kInfiniteTimeout));
  signaler.join();
  EXPECT_TRUE(Fence().Wait(0ns).ok());
}

TEST(FenceTest, SignalAndFailEveryTimepoint) {
  Ref<Semaphore> a = MakeRef<CpuSemaphore>(0);
  Ref<Semaphore> b = MakeRef<CpuSemaphore>(0);
  Fence fence{{a, 4}, {b, 5}};
  KILN_ASSERT_OK(fence.Signal());
  EXPECT_EQ(*a->Query(), 4u);
  EXPECT_EQ(*b->Query(), 5u);
  Fence next{{a, 6}, {b, 6}};
  next.Fail(DataLossError("lost"));
  EXPECT_EQ(next.Wait(kInfiniteTimeout).code(), StatusCode::kDataLoss);
  EXPECT_EQ(b->Wait(1, 0ns).code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace kiln::hal
