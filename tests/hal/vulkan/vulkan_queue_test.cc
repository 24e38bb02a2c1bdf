// Vulkan semaphores and the queue: host signal/wait/timeout, queue order,
// waits on host-signaled semaphores, failure propagation down chains of
// submissions, queue alloca/dealloca, and device shutdown with work pending.
#include <gtest/gtest.h>

#include <thread>

#include "hal/vulkan/vulkan_allocator.h"
#include "tests/hal/vulkan/vulkan_test_util.h"

namespace kiln::hal::vulkan {
namespace {

using std::chrono::milliseconds;
using testing::MakeBuffer;
using testing::ReadBuffer;
using testing::Unwrap;
using testing::VulkanTest;

constexpr std::chrono::seconds kLong(30);

TEST_F(VulkanTest, SemaphoreSignalQueryAndWait) {
  Ref<Semaphore> semaphore = Unwrap(device_->CreateSemaphore(5));
  EXPECT_EQ(Unwrap(semaphore->Query()), 5u);
  KILN_ASSERT_OK(semaphore->Wait(5, Timeout(0)));
  Status timed_out = semaphore->Wait(6, milliseconds(20));
  EXPECT_EQ(timed_out.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(timed_out.message().find("semaphore wait for value 6 timed out after 20000 us "
                                     "(current value 5)"),
            std::string::npos)
      << timed_out.ToString();
  KILN_ASSERT_OK(semaphore->Signal(9));
  EXPECT_EQ(Unwrap(semaphore->Query()), 9u);
  KILN_ASSERT_OK(semaphore->Wait(7, Timeout(0)));
  Status backwards = semaphore->Signal(9);
  EXPECT_EQ(backwards.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(backwards.message(),
            "semaphore signal to 9 does not advance its value 9 (timeline values only grow)");
}

TEST_F(VulkanTest, HostWaitWakesOnAnotherThreadsSignal) {
  Ref<Semaphore> semaphore = Unwrap(device_->CreateSemaphore(0));
  std::thread signaler([&] {
    std::this_thread::sleep_for(milliseconds(20));
    EXPECT_TRUE(semaphore->Signal(3).ok());
  });
  KILN_ASSERT_OK(semaphore->Wait(2, kLong));
  signaler.join();
}

TEST_F(VulkanTest, SubmissionWaitsForAHostSignal) {
  Ref<Executable> executable = LoadTestExecutable();
  // Host-visible: reading device-local memory the host cannot map goes
  // through the queue, which the submission below holds up.
  Ref<Buffer> data = Allocate(256, kMemoryTypeDeviceLocal | kMemoryTypeHostVisible);
  KILN_ASSERT_OK(data->WriteData(0, std::vector<uint8_t>(256, 0)));
  Ref<CommandBuffer> commands = Begin();
  const uint32_t constants[] = {64, 2};
  const BufferRef binding = BufferRef::Of(data);
  KILN_ASSERT_OK(commands->Dispatch(executable, testing::kAddConstant, {1, 1, 1}, constants,
                                    std::span(&binding, 1)));
  KILN_ASSERT_OK(commands->End());
  Ref<Semaphore> go = Unwrap(device_->CreateSemaphore(0));
  Ref<Semaphore> done = Unwrap(device_->CreateSemaphore(0));
  KILN_ASSERT_OK(
      device_->QueueExecute(Fence{{go, 1}}, Fence{{done, 1}}, std::span(&commands, 1), {}));
  // Nothing runs before the host signals.
  EXPECT_EQ(done->Wait(1, milliseconds(50)).code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(ReadBuffer<uint32_t>(*data)[0], 0u);
  KILN_ASSERT_OK(go->Signal(1));
  KILN_ASSERT_OK(done->Wait(1, kLong));
  EXPECT_EQ(ReadBuffer<uint32_t>(*data), std::vector<uint32_t>(64, 2));
}

TEST_F(VulkanTest, SubmissionsRunInOrderAndChainThroughSemaphores) {
  Ref<Executable> executable = LoadTestExecutable();
  Ref<Buffer> data = MakeBuffer(*device_, std::vector<uint32_t>(64, 1));
  const BufferRef binding = BufferRef::Of(data);
  // Twenty submissions of one read-modify-write each: a lost or reordered
  // one would show in the sum.
  Ref<Semaphore> timeline = Unwrap(device_->CreateSemaphore(0));
  for (uint32_t step = 1; step <= 20; ++step) {
    Ref<CommandBuffer> commands = Begin();
    const uint32_t constants[] = {64, step};
    KILN_ASSERT_OK(commands->Dispatch(executable, testing::kAddConstant, {1, 1, 1}, constants,
                                      std::span(&binding, 1)));
    KILN_ASSERT_OK(commands->End());
    // Each waits for the previous one's signal (already scheduled: ordered
    // by the queue) and signals the next value.
    KILN_ASSERT_OK(device_->QueueExecute(Fence{{timeline, step - 1}}, Fence{{timeline, step}},
                                         std::span(&commands, 1), {}));
  }
  KILN_ASSERT_OK(timeline->Wait(20, kLong));
  EXPECT_EQ(ReadBuffer<uint32_t>(*data), std::vector<uint32_t>(64, 1 + 20 * 21 / 2));
  // A queue signal must advance what is already scheduled.
  Status stale = device_->QueueExecute(Fence(), Fence{{timeline, 20}}, {}, {});
  EXPECT_EQ(stale.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(stale.message().find("does not advance it"), std::string::npos) << stale.ToString();
}

TEST_F(VulkanTest, HostSignalPastAPendingQueueSignalIsRefused) {
  Ref<Semaphore> gate = Unwrap(device_->CreateSemaphore(0));
  Ref<Semaphore> semaphore = Unwrap(device_->CreateSemaphore(0));
  KILN_ASSERT_OK(device_->QueueExecute(Fence{{gate, 1}}, Fence{{semaphore, 5}}, {}, {}));
  // Below the pending signal: allowed (as Vulkan allows it).
  KILN_ASSERT_OK(semaphore->Signal(2));
  Status past = semaphore->Signal(7);
  EXPECT_EQ(past.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(past.message().find("a queued operation will signal this semaphore to 5"),
            std::string::npos)
      << past.ToString();
  KILN_ASSERT_OK(gate->Signal(1));
  KILN_ASSERT_OK(semaphore->Wait(5, kLong));
  KILN_ASSERT_OK(semaphore->Signal(7));
}

TEST_F(VulkanTest, FailureFlowsDownAChainOfSubmissions) {
  Ref<Semaphore> input = Unwrap(device_->CreateSemaphore(0));
  Ref<Semaphore> middle = Unwrap(device_->CreateSemaphore(0));
  Ref<Semaphore> last = Unwrap(device_->CreateSemaphore(0));
  Ref<Semaphore> unrelated = Unwrap(device_->CreateSemaphore(0));
  KILN_ASSERT_OK(device_->QueueExecute(Fence{{input, 1}}, Fence{{middle, 1}}, {}, {}));
  KILN_ASSERT_OK(device_->QueueExecute(Fence{{middle, 1}}, Fence{{last, 1}}, {}, {}));
  KILN_ASSERT_OK(device_->QueueExecute(Fence(), Fence{{unrelated, 1}}, {}, {}));
  // A host thread blocked on the end of the chain wakes with the failure.
  Status waited;
  std::thread waiter([&] { waited = last->Wait(1, kLong); });
  std::this_thread::sleep_for(milliseconds(20));
  input->Fail(DataLossError("the input went bad"));
  waiter.join();
  EXPECT_EQ(waited.code(), StatusCode::kDataLoss);
  EXPECT_EQ(waited.message(), "the input went bad");
  EXPECT_EQ(middle->Query().status().message(), "the input went bad");
  EXPECT_EQ(middle->Signal(2).message(), "the input went bad");
  // The submission not waiting on the failed semaphore still completes,
  // after the released ones (the queue stays in order).
  KILN_ASSERT_OK(unrelated->Wait(1, kLong));
  // A later submission that waits on a failed semaphore fails its signals
  // without running.
  Ref<Semaphore> after = Unwrap(device_->CreateSemaphore(0));
  KILN_ASSERT_OK(device_->QueueExecute(Fence{{last, 1}}, Fence{{after, 1}}, {}, {}));
  EXPECT_EQ(after->Wait(1, kLong).message(), "the input went bad");
  KILN_ASSERT_OK(device_->health());
}

TEST_F(VulkanTest, FailingAReachedValueDoesNotFailItsWaiters) {
  Ref<Semaphore> reached = Unwrap(device_->CreateSemaphore(0));
  Ref<Semaphore> signal = Unwrap(device_->CreateSemaphore(0));
  KILN_ASSERT_OK(reached->Signal(1));
  Ref<Semaphore> gate = Unwrap(device_->CreateSemaphore(0));
  // Holds the queue so the waiter below is still in flight when `reached` fails.
  KILN_ASSERT_OK(device_->QueueExecute(Fence{{gate, 1}}, Fence(), {}, {}));
  KILN_ASSERT_OK(device_->QueueExecute(Fence{{reached, 1}}, Fence{{signal, 1}}, {}, {}));
  reached->Fail(AbortedError("too late to matter"));
  KILN_ASSERT_OK(gate->Signal(1));
  KILN_ASSERT_OK(signal->Wait(1, kLong));
}

TEST_F(VulkanTest, QueueAllocaAndDeallocaFollowTheFences) {
  VulkanAllocator& allocator = device_->logical().allocator();
  const VkDeviceSize in_use = allocator.stats().bytes_in_use;
  Ref<Semaphore> semaphore = Unwrap(device_->CreateSemaphore(0));
  BufferParams params;
  Ref<Buffer> buffer =
      Unwrap(device_->QueueAlloca(Fence(), Fence{{semaphore, 1}}, params, 1 << 16));
  EXPECT_EQ(buffer->byte_length(), 1u << 16);
  KILN_ASSERT_OK(semaphore->Wait(1, kLong));
  EXPECT_GT(allocator.stats().bytes_in_use, in_use);
  // Released only once the wait is reached: the gate holds it.
  Ref<Semaphore> gate = Unwrap(device_->CreateSemaphore(0));
  KILN_ASSERT_OK(device_->QueueDealloca(Fence{{gate, 1}}, Fence{{semaphore, 2}}, buffer));
  buffer = nullptr;
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_GT(allocator.stats().bytes_in_use, in_use);
  KILN_ASSERT_OK(gate->Signal(1));
  KILN_ASSERT_OK(semaphore->Wait(2, kLong));
  // The worker retires the dealloca shortly after the signal.
  for (int i = 0; i < 1000 && allocator.stats().bytes_in_use != in_use; ++i) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_EQ(allocator.stats().bytes_in_use, in_use);
  Status null_buffer = device_->QueueDealloca(Fence(), Fence(), nullptr);
  EXPECT_EQ(null_buffer.code(), StatusCode::kInvalidArgument);
}

TEST_F(VulkanTest, DroppingTheDeviceAbortsWaitsNothingWillSatisfy) {
  Ref<Semaphore> never = Unwrap(device_->CreateSemaphore(0));
  Ref<Semaphore> signal = Unwrap(device_->CreateSemaphore(0));
  KILN_ASSERT_OK(device_->QueueExecute(Fence{{never, 1}}, Fence{{signal, 1}}, {}, {}));
  device_ = nullptr;
  Status status = signal->Wait(1, kLong);
  EXPECT_EQ(status.code(), StatusCode::kAborted);
  EXPECT_NE(status.message().find("the Vulkan device was destroyed"), std::string::npos);
}

TEST_F(VulkanTest, ManySmallSubmissionsRetire) {
  // Retirement recycles submission records and pools: a long run of
  // submissions completes and leaves nothing behind.
  Ref<Semaphore> semaphore = Unwrap(device_->CreateSemaphore(0));
  for (uint64_t i = 1; i <= 500; ++i) {
    Ref<CommandBuffer> commands = Begin();
    KILN_ASSERT_OK(commands->End());
    KILN_ASSERT_OK(
        device_->QueueExecute(Fence(), Fence{{semaphore, i}}, std::span(&commands, 1), {}));
  }
  KILN_ASSERT_OK(semaphore->Wait(500, kLong));
}

}  // namespace
}  // namespace kiln::hal::vulkan
