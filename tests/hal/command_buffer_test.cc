// Command buffer recording: state machine and every record-time validation,
// plus submit-time validation of binding tables.
#include "hal/command_buffer.h"

#include <gtest/gtest.h>

#include "tests/hal/test_util.h"

namespace kiln::hal {
namespace {

using testing::kDescribe;
using testing::kMulAdd;
using testing::MakeTestExecutable;
using testing::Unwrap;

class CommandBufferTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device_ = testing::CreateDevice("cpu-sync");
    executable_ = MakeTestExecutable();
    buffer_ = Unwrap(device_->allocator().Allocate({}, 64));
    command_buffer_ = Unwrap(device_->CreateCommandBuffer(CommandBufferMode::kOneShot));
    KILN_ASSERT_OK(command_buffer_->Begin());
  }

  Status DispatchMulAdd(std::array<uint32_t, 3> count, std::vector<uint32_t> constants,
                        std::vector<BufferRef> bindings, uint32_t ordinal = kMulAdd) {
    return command_buffer_->Dispatch(executable_, ordinal, count, constants, bindings);
  }

  static void ExpectError(const Status& status, StatusCode code, const std::string& fragment) {
    EXPECT_EQ(status.code(), code) << status.ToString();
    EXPECT_NE(status.message().find(fragment), std::string::npos)
        << "'" << fragment << "' not in: " << status.message();
  }

  Ref<Device> device_;
  Ref<Executable> executable_;
  Ref<Buffer> buffer_;
  Ref<CommandBuffer> command_buffer_;
};

TEST_F(CommandBufferTest, RecordingStateMachine) {
  Ref<CommandBuffer> cb = Unwrap(device_->CreateCommandBuffer(CommandBufferMode::kReusable));
  EXPECT_EQ(cb->mode(), CommandBufferMode::kReusable);
  ExpectError(cb->ExecutionBarrier(), StatusCode::kFailedPrecondition, "recording has not begun");
  ExpectError(cb->End(), StatusCode::kFailedPrecondition, "not recording");
  KILN_ASSERT_OK(cb->Begin());
  EXPECT_TRUE(cb->is_recording());
  ExpectError(cb->Begin(), StatusCode::kFailedPrecondition, "already begun");
  KILN_ASSERT_OK(cb->End());
  EXPECT_TRUE(cb->is_ended());
  ExpectError(cb->FillBuffer(BufferRef::Of(buffer_), 0, 4), StatusCode::kFailedPrecondition,
              "recording has ended");
}

TEST_F(CommandBufferTest, ExportOrdinalOutOfRange) {
  ExpectError(DispatchMulAdd({1, 1, 1}, {}, {}, 9), StatusCode::kInvalidArgument,
              "export ordinal 9 is out of range (the executable has 5 exports)");
  ExpectError(command_buffer_->Dispatch(nullptr, 0, {1, 1, 1}, {}, {}),
              StatusCode::kInvalidArgument, "null executable");
}

TEST_F(CommandBufferTest, ConstantCountMustMatchTheLayout) {
  ExpectError(DispatchMulAdd({1, 1, 1}, {1, 2}, {BufferRef::Of(buffer_), BufferRef::Of(buffer_)}),
              StatusCode::kInvalidArgument,
              "Dispatch of 'mul_add': 2 constants given but the layout declares 3");
}

TEST_F(CommandBufferTest, BindingCountMustMatchTheLayout) {
  ExpectError(DispatchMulAdd({1, 1, 1}, {1, 2, 3}, {BufferRef::Of(buffer_)}),
              StatusCode::kInvalidArgument,
              "Dispatch of 'mul_add': 1 bindings given but the layout declares 2");
}

TEST_F(CommandBufferTest, ZeroWorkgroupCountIsAnError) {
  for (std::array<uint32_t, 3> count : {std::array<uint32_t, 3>{0, 1, 1}, {1, 0, 1}, {4, 2, 0}}) {
    ExpectError(DispatchMulAdd(count, {1, 2, 3}, {BufferRef::Of(buffer_), BufferRef::Of(buffer_)}),
                StatusCode::kInvalidArgument, "has a zero component");
  }
}

TEST_F(CommandBufferTest, BindingRangesMustFitTheirBuffers) {
  ExpectError(DispatchMulAdd({1, 1, 1}, {1, 2, 3},
                             {BufferRef::Of(buffer_), BufferRef::Of(buffer_, 32, 40)}),
              StatusCode::kOutOfRange, "Dispatch of 'mul_add' binding 1: range [32, 32 + 40)");
  ExpectError(
      DispatchMulAdd({1, 1, 1}, {1, 2, 3}, {BufferRef::Of(buffer_, 65), BufferRef::Of(buffer_)}),
      StatusCode::kOutOfRange, "binding 0: offset 65 is past the end");
}

TEST_F(CommandBufferTest, UsagesAreChecked) {
  Ref<Buffer> transfer_only =
      Unwrap(device_->allocator().Allocate({kMemoryTypeDeviceLocal, kBufferUsageTransfer}, 64));
  ExpectError(
      DispatchMulAdd({1, 1, 1}, {1, 2, 3}, {BufferRef::Of(buffer_), BufferRef::Of(transfer_only)}),
      StatusCode::kInvalidArgument, "binding 1: the buffer allows transfer, not dispatch-storage");
  Ref<Buffer> storage_only = Unwrap(
      device_->allocator().Allocate({kMemoryTypeDeviceLocal, kBufferUsageDispatchStorage}, 64));
  ExpectError(command_buffer_->CopyBuffer(BufferRef::Of(buffer_), BufferRef::Of(storage_only), 4),
              StatusCode::kInvalidArgument, "CopyBuffer target");
}

TEST_F(CommandBufferTest, TransferValidation) {
  Ref<Buffer> small = Unwrap(device_->allocator().Allocate({}, 8));
  ExpectError(
      command_buffer_->CopyBuffer(BufferRef::Of(buffer_), BufferRef::Of(small), kWholeBuffer),
      StatusCode::kOutOfRange, "CopyBuffer target: range [0, 0 + 64)");
  ExpectError(command_buffer_->FillBuffer(BufferRef::Of(buffer_), 0, 3),
              StatusCode::kInvalidArgument, "pattern length 3");
  ExpectError(command_buffer_->FillBuffer(BufferRef::Of(buffer_, 2), 0, 4),
              StatusCode::kInvalidArgument, "offset 2 is not a multiple of 4");
  ExpectError(command_buffer_->FillBuffer(BufferRef::Of(buffer_, 0, 6), 0, 4),
              StatusCode::kInvalidArgument, "length 6 is not a multiple of 4");
  const uint8_t bytes[8] = {};
  ExpectError(command_buffer_->UpdateBuffer(bytes, BufferRef::Of(buffer_, 60)),
              StatusCode::kOutOfRange, "UpdateBuffer target");
  ExpectError(command_buffer_->UpdateBuffer(bytes, BufferRef::Of(buffer_, 0, 4)),
              StatusCode::kInvalidArgument, "8 bytes given for a target range of 4");
}

// A buffer some other driver allocated (the CPU driver cannot address it).
class ForeignBuffer final : public Buffer {
 public:
  ForeignBuffer() : Buffer(kMemoryTypeDeviceLocal, kBufferUsageDefault, 64) {}

 protected:
  Result<uint8_t*> MapAllocation(size_t, size_t) override {
    return UnavailableError("not host memory");
  }
};

// Concrete references are checked for host memory when recorded, so
// executing a command buffer checks nothing again.
TEST_F(CommandBufferTest, ForeignBuffersAreRejectedWhenRecorded) {
  Ref<Buffer> foreign = MakeRef<ForeignBuffer>();
  ExpectError(
      DispatchMulAdd({1, 1, 1}, {1, 2, 3}, {BufferRef::Of(buffer_), BufferRef::Of(foreign)}),
      StatusCode::kInvalidArgument,
      "Dispatch of 'mul_add' binding 1: the buffer was not allocated by a CPU device");
  ExpectError(command_buffer_->CopyBuffer(BufferRef::Of(foreign), BufferRef::Of(buffer_), 4),
              StatusCode::kInvalidArgument,
              "CopyBuffer source: the buffer was not allocated by a CPU device");
  ExpectError(command_buffer_->FillBuffer(BufferRef::Of(foreign), 0, 4),
              StatusCode::kInvalidArgument, "FillBuffer target: the buffer was not allocated");
  const uint8_t bytes[4] = {};
  ExpectError(command_buffer_->UpdateBuffer(bytes, BufferRef::Of(foreign)),
              StatusCode::kInvalidArgument, "UpdateBuffer target: the buffer was not allocated");
}

TEST_F(CommandBufferTest, SlotsNeedAReusableCommandBuffer) {
  ExpectError(command_buffer_->FillBuffer(BufferRef::Slot(0), 0, 1), StatusCode::kInvalidArgument,
              "only reusable command buffers take a binding table");
}

TEST_F(CommandBufferTest, BindingTableIsValidatedAtSubmit) {
  Ref<CommandBuffer> cb = Unwrap(device_->CreateCommandBuffer(CommandBufferMode::kReusable));
  KILN_ASSERT_OK(cb->Begin());
  KILN_ASSERT_OK(
      cb->Dispatch(executable_, kDescribe, {1, 1, 1}, {},
                   std::vector<BufferRef>{BufferRef::Slot(0), BufferRef::Slot(1, 8, 40)}));
  KILN_ASSERT_OK(cb->End());
  std::vector<Ref<Buffer>> one = {buffer_};
  Status status = device_->QueueExecute(Fence(), Fence(), std::span(&cb, 1), one);
  ExpectError(status, StatusCode::kInvalidArgument,
              "binding-table slot 1 is out of range (the table has 1 entries)");
  EXPECT_NE(status.message().find("QueueExecute: command buffer 0"), std::string::npos);
  Ref<Buffer> small = Unwrap(device_->allocator().Allocate({}, 32));
  std::vector<Ref<Buffer>> too_small = {buffer_, small};
  ExpectError(device_->QueueExecute(Fence(), Fence(), std::span(&cb, 1), too_small),
              StatusCode::kOutOfRange, "(binding-table slot 1): range [8, 8 + 40)");
  std::vector<Ref<Buffer>> with_null = {buffer_, nullptr};
  ExpectError(device_->QueueExecute(Fence(), Fence(), std::span(&cb, 1), with_null),
              StatusCode::kInvalidArgument, "slot 1 is empty");
}

// A submit checks each slot's uses together (CommandBuffer::SlotNeeds) and
// one by one only on failure: the table passes exactly when every use
// would, and the error names the first failing use in recording order.
TEST_F(CommandBufferTest, SlotUsesCheckedTogetherPassAndFailAsEachUseWould) {
  Ref<CommandBuffer> cb = Unwrap(device_->CreateCommandBuffer(CommandBufferMode::kReusable));
  KILN_ASSERT_OK(cb->Begin());
  // Slot 0: ranges ending at 24 and 48, and one to the end from 16.
  KILN_ASSERT_OK(
      cb->Dispatch(executable_, kDescribe, {1, 1, 1}, {},
                   std::vector<BufferRef>{BufferRef::Slot(0, 8, 16), BufferRef::Slot(0, 16)}));
  KILN_ASSERT_OK(
      cb->Dispatch(executable_, kDescribe, {1, 1, 1}, {},
                   std::vector<BufferRef>{BufferRef::Slot(0, 32, 16), BufferRef::Slot(1)}));
  // Slot 1 is also copied to (transfer usage), and slot 2 filled to its end
  // with a 4-byte pattern (its length then decides).
  KILN_ASSERT_OK(cb->CopyBuffer(BufferRef::Slot(0), BufferRef::Slot(1, 4), 8));
  KILN_ASSERT_OK(cb->FillBuffer(BufferRef::Slot(2, 4), 0, 4));
  KILN_ASSERT_OK(cb->End());
  auto buffer = [&](size_t size, BufferUsageBits usage = kBufferUsageDefault) {
    return Unwrap(device_->allocator().Allocate({kMemoryTypeDeviceLocal, usage}, size));
  };
  // What QueueExecute checks (without running the dispatches).
  auto execute = [&](std::vector<Ref<Buffer>> table) { return cb->ValidateBindingTable(table); };
  const Ref<Buffer> b48 = buffer(48), b64 = buffer(64), b12 = buffer(12);
  KILN_ASSERT_OK(execute({b48, b12, b12}));
  KILN_ASSERT_OK(execute({b64, b64, b64}));
  // Slot 0 too short for the second dispatch's range only.
  ExpectError(execute({buffer(47), b12, b12}), StatusCode::kOutOfRange,
              "Dispatch of 'describe' binding 0 (binding-table slot 0): range [32, 32 + 16)");
  // Too short for the first range too: the first use recorded is named.
  ExpectError(execute({buffer(20), b12, b12}), StatusCode::kOutOfRange,
              "Dispatch of 'describe' binding 0 (binding-table slot 0): range [8, 8 + 16)");
  // Slot 1: a buffer for dispatches only fails the copy; one of 11 bytes
  // fails the copy's range [4, 12).
  ExpectError(execute({b48, buffer(12, kBufferUsageDispatchStorage), b12}),
              StatusCode::kInvalidArgument,
              "CopyBuffer target (binding-table slot 1): the buffer allows dispatch-storage, not "
              "transfer");
  ExpectError(execute({b48, buffer(11), b12}), StatusCode::kOutOfRange,
              "CopyBuffer target (binding-table slot 1): range [4, 4 + 8)");
  // Slot 2: the fill covers [4, end), which must be a multiple of 4 bytes.
  ExpectError(execute({b48, b12, buffer(10)}), StatusCode::kInvalidArgument,
              "FillBuffer target (binding-table slot 2): length 6 is not a multiple of 4");
  ExpectError(execute({b48, b12, buffer(3)}), StatusCode::kOutOfRange,
              "FillBuffer target (binding-table slot 2): offset 4 is past the end");
  KILN_ASSERT_OK(execute({b48, b12, buffer(4)}));  // An empty fill.
  // Missing and empty slots; then a good table passes again.
  ExpectError(execute({b48, b12}), StatusCode::kInvalidArgument,
              "binding-table slot 2 is out of range (the table has 2 entries)");
  ExpectError(execute({b48, nullptr, b12}), StatusCode::kInvalidArgument, "slot 1 is empty");
  KILN_ASSERT_OK(execute({b48, b12, b12}));
}

// A slot range whose end overflows never fits (nor passes as a summary).
TEST_F(CommandBufferTest, SlotRangeWhoseEndOverflowsIsAnError) {
  Ref<CommandBuffer> cb = Unwrap(device_->CreateCommandBuffer(CommandBufferMode::kReusable));
  KILN_ASSERT_OK(cb->Begin());
  KILN_ASSERT_OK(cb->Dispatch(
      executable_, kDescribe, {1, 1, 1}, {},
      std::vector<BufferRef>{BufferRef::Slot(0, 8, ~size_t{0} - 4), BufferRef::Slot(0, 0, 8)}));
  KILN_ASSERT_OK(cb->End());
  std::vector<Ref<Buffer>> table = {buffer_};
  ExpectError(cb->ValidateBindingTable(table), StatusCode::kOutOfRange,
              "(binding-table slot 0): range [8, 8 + ");
}

TEST_F(CommandBufferTest, SubmitNeedsAnEndedCommandBufferAndOneShotRunsOnce) {
  ExpectError(device_->QueueExecute(Fence(), Fence(), std::span(&command_buffer_, 1), {}),
              StatusCode::kFailedPrecondition, "has not ended recording");
  KILN_ASSERT_OK(command_buffer_->End());
  KILN_ASSERT_OK(testing::SubmitAndWait(*device_, command_buffer_));
  ExpectError(testing::SubmitAndWait(*device_, command_buffer_), StatusCode::kFailedPrecondition,
              "one-shot command buffer was submitted a second time");
}

TEST_F(CommandBufferTest, OneShotTwiceInOneSubmissionIsRejectedWithoutMarkingIt) {
  KILN_ASSERT_OK(command_buffer_->End());
  const Ref<CommandBuffer> twice[] = {command_buffer_, command_buffer_};
  ExpectError(device_->QueueExecute(Fence(), Fence(), twice, {}), StatusCode::kFailedPrecondition,
              "command buffer 1: a one-shot command buffer was submitted a second time");
  // The rejected submission did not use it up.
  KILN_ASSERT_OK(testing::SubmitAndWait(*device_, command_buffer_));
}

TEST_F(CommandBufferTest, FailedRecordingLeavesNoCommand) {
  // A rejected dispatch must not run: the buffer stays untouched.
  EXPECT_FALSE(
      DispatchMulAdd({0, 1, 1}, {4, 2, 1}, {BufferRef::Of(buffer_), BufferRef::Of(buffer_)}).ok());
  KILN_ASSERT_OK(command_buffer_->End());
  KILN_ASSERT_OK(testing::SubmitAndWait(*device_, command_buffer_));
  for (uint8_t byte : Unwrap(buffer_->Map())) EXPECT_EQ(byte, 0);
}

}  // namespace
}  // namespace kiln::hal
