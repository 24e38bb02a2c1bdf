// hal/utils/submission.h: the checks, their order and wording, and the one
// point where one-shot command buffers count as submitted.
#include "hal/utils/submission.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "hal/cpu/cpu_semaphore.h"
#include "hal/cpu/host_allocator.h"
#include "hal/utils/deferred_command_buffer.h"
#include "tests/hal/test_util.h"

namespace kiln::hal::utils {
namespace {

using testing::Unwrap;

class TestCommandBuffer final : public DeferredCommandBuffer {
 public:
  explicit TestCommandBuffer(CommandBufferMode mode) : DeferredCommandBuffer(mode) {}
};

class OtherCommandBuffer final : public DeferredCommandBuffer {
 public:
  OtherCommandBuffer() : DeferredCommandBuffer(CommandBufferMode::kOneShot) {}
};

// A device that owns TestCommandBuffers, CpuSemaphores and buffers of
// 64 bytes.
struct TestObjects {
  Status lost;
  std::string_view owner() const { return "the test device"; }
  Status health() const { return lost; }
  bool OwnsSemaphore(const Semaphore& semaphore, SemaphoreRole) const {
    return dynamic_cast<const cpu::CpuSemaphore*>(&semaphore) != nullptr;
  }
  bool OwnsBuffer(const Buffer& buffer) const { return buffer.byte_length() == 64; }
  Status ForeignBufferError(const Buffer&, const std::string& where) const {
    return InvalidArgumentError(where + " is not the test device's");
  }
  TestCommandBuffer* OwnCommandBuffer(CommandBuffer& command_buffer) const {
    return dynamic_cast<TestCommandBuffer*>(&command_buffer);
  }
};

class ForeignSemaphore final : public Semaphore {
 public:
  Result<uint64_t> Query() override { return uint64_t{0}; }
  Status Signal(uint64_t) override { return OkStatus(); }
  void Fail(Status) override {}
  Status Wait(uint64_t, Timeout) override { return OkStatus(); }
};

Ref<CommandBuffer> Ended(CommandBufferMode mode) {
  Ref<CommandBuffer> commands = MakeRef<TestCommandBuffer>(mode);
  EXPECT_TRUE(commands->Begin().ok());
  EXPECT_TRUE(commands->End().ok());
  return commands;
}

Status Execute(const TestObjects& objects, const Fence& wait, const Fence& signal,
               std::span<const Ref<CommandBuffer>> command_buffers,
               std::span<const Ref<Buffer>> table, Status enqueued = OkStatus(),
               Submission<TestCommandBuffer>* out = nullptr) {
  return QueueExecute<TestCommandBuffer>(objects, wait, signal, command_buffers, table,
                                         [&](Submission<TestCommandBuffer> submission) {
                                           if (out != nullptr) *out = std::move(submission);
                                           return enqueued;
                                         });
}

TEST(SubmissionTest, ChecksInOrderWithOneWording) {
  TestObjects objects;
  Ref<Semaphore> semaphore = MakeRef<cpu::CpuSemaphore>(0);
  Ref<Semaphore> foreign = MakeRef<ForeignSemaphore>();
  const Ref<CommandBuffer> own[] = {Ended(CommandBufferMode::kReusable)};
  cpu::HostAllocator allocator;
  Ref<Buffer> small = Unwrap(allocator.Allocate({}, 16));

  objects.lost = UnavailableError("device lost");
  EXPECT_EQ(Execute(objects, Fence(), Fence(), own, {}).message(), "device lost");
  objects.lost = OkStatus();
  EXPECT_EQ(Execute(objects, Fence{{foreign, 1}}, Fence(), own, {}).message(),
            "QueueExecute: a wait semaphore was not created by the test device");
  EXPECT_EQ(Execute(objects, Fence(), Fence{{foreign, 1}}, own, {}).message(),
            "QueueExecute: a signal semaphore was not created by the test device");
  const Ref<Buffer> table[] = {small};
  EXPECT_EQ(Execute(objects, Fence(), Fence(), own, table).message(),
            "QueueExecute: binding-table slot 0 is not the test device's");
  const Ref<CommandBuffer> other[] = {own[0], MakeRef<OtherCommandBuffer>()};
  KILN_ASSERT_OK(other[1]->Begin());
  KILN_ASSERT_OK(other[1]->End());
  EXPECT_EQ(Execute(objects, Fence(), Fence(), other, {}).message(),
            "QueueExecute: command buffer 1 was not created by the test device");

  Submission<TestCommandBuffer> submission;
  KILN_ASSERT_OK(Execute(objects, Fence{{semaphore, 1}}, Fence{{semaphore, 2}}, own, {}, OkStatus(),
                         &submission));
  ASSERT_EQ(submission.waits.size(), 1u);
  EXPECT_EQ(submission.signals[0].value, 2u);
  ASSERT_EQ(submission.command_buffers.size(), 1u);
  EXPECT_EQ(submission.command_buffers[0].get(), own[0].get());
}

TEST(SubmissionTest, OneShotsAreClaimedBeforeTheQueueSeesThemAndGivenBackIfRefused) {
  TestObjects objects;
  const Ref<CommandBuffer> once[] = {Ended(CommandBufferMode::kOneShot)};
  // A queue that refuses the submission does not use it up.
  EXPECT_EQ(Execute(objects, Fence(), Fence(), once, {}, AbortedError("refused")).message(),
            "refused");
  EXPECT_FALSE(once[0]->submitted());
  // The queue already sees it submitted: a queue that runs it at once, or a
  // thread woken by its signal, cannot submit it again.
  bool submitted_when_enqueued = false;
  Status nested;
  KILN_ASSERT_OK((QueueExecute<TestCommandBuffer>(
      objects, Fence(), Fence(), once, {}, [&](Submission<TestCommandBuffer>) {
        submitted_when_enqueued = once[0]->submitted();
        nested = Execute(objects, Fence(), Fence(), once, {});
        return OkStatus();
      })));
  EXPECT_EQ(nested.code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(submitted_when_enqueued);
  Status again = Execute(objects, Fence(), Fence(), once, {});
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(again.message(),
            "QueueExecute: command buffer 0: a one-shot command buffer was submitted a second "
            "time");
  // Reusable command buffers are never claimed.
  const Ref<CommandBuffer> reusable[] = {Ended(CommandBufferMode::kReusable)};
  KILN_ASSERT_OK(Execute(objects, Fence(), Fence(), reusable, {}));
  KILN_ASSERT_OK(Execute(objects, Fence(), Fence(), reusable, {}));
}

TEST(SubmissionTest, RacingSubmissionsOfOneOneShotRunItOnce) {
  TestObjects objects;
  for (int round = 0; round < 200; ++round) {
    const Ref<CommandBuffer> once[] = {Ended(CommandBufferMode::kOneShot)};
    std::atomic<int> enqueued{0};
    auto submit = [&] {
      Status status = QueueExecute<TestCommandBuffer>(objects, Fence(), Fence(), once, {},
                                                      [&](Submission<TestCommandBuffer>) {
                                                        enqueued.fetch_add(1);
                                                        return OkStatus();
                                                      });
      EXPECT_TRUE(status.ok() || status.code() == StatusCode::kFailedPrecondition)
          << status.ToString();
    };
    std::thread a(submit), b(submit);
    a.join();
    b.join();
    ASSERT_EQ(enqueued.load(), 1) << "round " << round;
  }
}

TEST(SubmissionTest, CompleteSignalsSignalsOrFails) {
  Ref<Semaphore> a = MakeRef<cpu::CpuSemaphore>(0);
  Ref<Semaphore> b = MakeRef<cpu::CpuSemaphore>(5);
  const std::vector<Fence::Timepoint> signals = {{a, 1}, {b, 5}};
  CompleteSignals(signals, OkStatus());
  EXPECT_EQ(Unwrap(a->Query()), 1u);
  // A signal that does not advance is the submitter's error, carried by the
  // semaphore to whoever waits.
  EXPECT_EQ(b->Query().status().code(), StatusCode::kInvalidArgument);
  const std::vector<Fence::Timepoint> next = {{a, 2}};
  CompleteSignals(next, DataLossError("kernel failed"));
  EXPECT_EQ(a->Wait(2, Timeout(0)).message(), "kernel failed");
}

}  // namespace
}  // namespace kiln::hal::utils
