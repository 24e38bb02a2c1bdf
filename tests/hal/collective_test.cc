// Collectives as the HAL sees them, before any driver runs one:
// CollectiveBufferCounts (the table of hal/collective.h and its errors),
// DescribeCollective, and the checks of CommandBuffer::Collective (lengths,
// overlap, in-place all_reduce, binding-table slots at submit, null and
// refused channels).
#include "hal/collective.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "hal/command_buffer.h"
#include "hal/cpu/cpu_device.h"
#include "hal/utils/deferred_command_buffer.h"
#include "tests/hal/test_util.h"

namespace kiln::hal {
namespace {

using testing::Unwrap;

void ExpectError(const Status& status, StatusCode code, const std::string& fragment) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_NE(status.message().find(fragment), std::string::npos)
      << "'" << fragment << "' not in: " << status.message();
}

void ExpectCounts(const CollectiveOp& op, uint64_t n, int32_t count, uint64_t send, uint64_t recv) {
  Result<CollectiveCounts> counts = CollectiveBufferCounts(op, n, count);
  ASSERT_TRUE(counts.ok()) << DescribeCollective(op) << ": " << counts.status().ToString();
  EXPECT_EQ(counts->send, send) << DescribeCollective(op) << " n=" << n << " count=" << count;
  EXPECT_EQ(counts->recv, recv) << DescribeCollective(op) << " n=" << n << " count=" << count;
}

TEST(CollectiveBufferCountsTest, EveryKind) {
  const ElementType f32 = ElementType::kFloat32;
  for (int32_t count : {1, 2, 3, 8}) {
    const uint64_t n = 24;  // Divisible by every count above.
    ExpectCounts(CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum, f32}, n, count,
                 n, n);
    ExpectCounts(CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, f32}, n,
                 count, n, n * count);
    ExpectCounts(CollectiveOp{CollectiveKind::kReduceScatter, CollectiveReduction::kMaximum, f32},
                 n, count, n * count, n);
    ExpectCounts(CollectiveOp{CollectiveKind::kAllToAll, CollectiveReduction::kNone, f32}, n, count,
                 n, n);
    ExpectCounts(
        CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone, f32, count - 1, -1}, n,
        count, n, n);
  }
  // Zero elements are a valid (empty) collective.
  ExpectCounts(CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, f32}, 0, 4, 0,
               0);
}

TEST(CollectiveBufferCountsTest, EveryElementType) {
  for (ElementType type :
       {ElementType::kInt8, ElementType::kSint8, ElementType::kUint8, ElementType::kInt16,
        ElementType::kSint16, ElementType::kUint16, ElementType::kInt32, ElementType::kSint32,
        ElementType::kUint32, ElementType::kInt64, ElementType::kSint64, ElementType::kUint64,
        ElementType::kFloat16, ElementType::kBFloat16, ElementType::kFloat32,
        ElementType::kFloat64}) {
    ExpectCounts(CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kProduct, type}, 5,
                 2, 5, 5);
  }
  for (ElementType type : {ElementType::kBool, ElementType::kNone}) {
    ExpectError(
        CollectiveBufferCounts(
            CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, type}, 4, 2)
            .status(),
        StatusCode::kInvalidArgument, "is not one of i8/si8/ui8");
  }
}

TEST(CollectiveBufferCountsTest, Errors) {
  const ElementType f32 = ElementType::kFloat32;
  auto counts = [](const CollectiveOp& op, uint64_t n, int32_t count) {
    return CollectiveBufferCounts(op, n, count).status();
  };
  ExpectError(
      counts(CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kNone, f32}, 4, 2),
      StatusCode::kInvalidArgument, "all_reduce f32: needs a reduction");
  ExpectError(
      counts(CollectiveOp{CollectiveKind::kReduceScatter, CollectiveReduction::kNone, f32}, 4, 2),
      StatusCode::kInvalidArgument, "needs a reduction");
  ExpectError(
      counts(CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kSum, f32}, 4, 2),
      StatusCode::kInvalidArgument, "all_gather sum f32: takes no reduction");
  ExpectError(
      counts(CollectiveOp{CollectiveKind::kAllToAll, CollectiveReduction::kNone, f32}, 5, 2),
      StatusCode::kInvalidArgument, "5 elements do not split into 2 equal chunks");
  ExpectError(
      counts(CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone, f32, 2, 0}, 4, 2),
      StatusCode::kInvalidArgument, "rank 2 is not -1 or in [0, 2)");
  ExpectError(
      counts(CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone, f32, 0, -2}, 4, 2),
      StatusCode::kInvalidArgument, "rank -2 is not -1 or in [0, 2)");
  ExpectError(
      counts(CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, f32, 1, -1}, 4,
             2),
      StatusCode::kInvalidArgument, "send and recv ranks are for send_recv only");
  ExpectError(
      counts(CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, f32}, 4, 0),
      StatusCode::kInvalidArgument, "a channel of 0 participants");
  ExpectError(counts(CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, f32},
                     std::numeric_limits<uint64_t>::max() / 2, 3),
              StatusCode::kInvalidArgument, "overflow a buffer's size");
  CollectiveOp bad_kind = CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, f32};
  bad_kind.kind = static_cast<CollectiveKind>(9);
  ExpectError(counts(bad_kind, 4, 2), StatusCode::kInvalidArgument, "collective kind 9");
  CollectiveOp bad_reduction =
      CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum, f32};
  bad_reduction.reduction = static_cast<CollectiveReduction>(17);
  ExpectError(counts(bad_reduction, 4, 2), StatusCode::kInvalidArgument, "collective reduction 17");
}

TEST(CollectiveBufferCountsTest, Describe) {
  EXPECT_EQ(DescribeCollective(CollectiveOp{CollectiveKind::kAllReduce,
                                            CollectiveReduction::kAverage, ElementType::kBFloat16}),
            "all_reduce average bf16");
  EXPECT_EQ(DescribeCollective(CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone,
                                            ElementType::kSint8, 1, -1}),
            "send_recv si8 (send 1, recv -1)");
}

// A channel no driver made, with any participant count: the HAL's checks
// run before the driver looks at the channel, and then the CPU driver
// refuses it.
class ForeignChannel final : public Channel {
 public:
  explicit ForeignChannel(int32_t count) : Channel(0, count) {}
  Result<Ref<Channel>> Split(int32_t, int32_t) override {
    return UnavailableError("a foreign channel does not split");
  }
};

// A deferred command buffer of a driver without collectives: it keeps the
// default CheckChannel.
class NoCollectivesCommandBuffer final : public utils::DeferredCommandBuffer {
 public:
  NoCollectivesCommandBuffer() : DeferredCommandBuffer(CommandBufferMode::kOneShot) {}
};

class CommandBufferCollectiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cpu::CpuDeviceOptions options;
    options.asynchronous = false;
    device_ = Unwrap(cpu::CpuDevice::Create(options));
    ChannelParams params;  // A group of one: no rendezvous.
    channel_ = Unwrap(device_->CreateChannel(params));
    buffer_ = Unwrap(device_->allocator().Allocate({}, 256));
    command_buffer_ = Begin(CommandBufferMode::kOneShot);
  }

  Ref<CommandBuffer> Begin(CommandBufferMode mode) {
    Ref<CommandBuffer> command_buffer = Unwrap(device_->CreateCommandBuffer(mode));
    Status begun = command_buffer->Begin();
    EXPECT_TRUE(begun.ok()) << begun.ToString();
    return command_buffer;
  }

  Ref<cpu::CpuDevice> device_;
  Ref<Channel> channel_;
  Ref<Buffer> buffer_;
  Ref<CommandBuffer> command_buffer_;
};

const CollectiveOp kSumF32 =
    CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum, ElementType::kFloat32};
const CollectiveOp kGatherF32 =
    CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, ElementType::kFloat32};

TEST_F(CommandBufferCollectiveTest, NullChannel) {
  ExpectError(command_buffer_->Collective(nullptr, kSumF32, BufferRef::Of(buffer_, 0, 16),
                                          BufferRef::Of(buffer_, 16, 16), 4),
              StatusCode::kInvalidArgument, "Collective all_reduce sum f32: null channel");
}

TEST_F(CommandBufferCollectiveTest, InvalidOpIsRefused) {
  ExpectError(
      command_buffer_->Collective(channel_,
                                  CollectiveOp{CollectiveKind::kAllReduce,
                                               CollectiveReduction::kNone, ElementType::kFloat32},
                                  BufferRef::Of(buffer_, 0, 16), BufferRef::Of(buffer_, 16, 16), 4),
      StatusCode::kInvalidArgument, "needs a reduction");
}

TEST_F(CommandBufferCollectiveTest, LengthsMustBeExact) {
  Ref<Channel> three = MakeRef<ForeignChannel>(3);
  // all_gather of 4 f32 among 3: send 16 bytes, recv 48.
  ExpectError(command_buffer_->Collective(three, kGatherF32, BufferRef::Of(buffer_, 0, 12),
                                          BufferRef::Of(buffer_, 64, 48), 4),
              StatusCode::kInvalidArgument,
              "Collective all_gather f32 send: a range of 12 bytes given for 16 bytes (4 "
              "elements among 3 participants)");
  ExpectError(command_buffer_->Collective(three, kGatherF32, BufferRef::Of(buffer_, 0, 16),
                                          BufferRef::Of(buffer_, 64, 16), 4),
              StatusCode::kInvalidArgument, "recv: a range of 16 bytes given for 48 bytes");
  // kWholeBuffer takes exactly what the op needs, which must fit.
  ExpectError(command_buffer_->Collective(three, kGatherF32, BufferRef::Of(buffer_, 0),
                                          BufferRef::Of(buffer_, 240), 4),
              StatusCode::kOutOfRange, "Collective");
  // Exact lengths pass the HAL's checks and reach the driver, which refuses
  // a channel it did not make.
  ExpectError(command_buffer_->Collective(three, kGatherF32, BufferRef::Of(buffer_, 0),
                                          BufferRef::Of(buffer_, 64), 4),
              StatusCode::kInvalidArgument, "the channel was not created by a CPU device");
}

TEST_F(CommandBufferCollectiveTest, OverlapIsRefusedButInPlaceAllReduceIsNot) {
  ExpectError(command_buffer_->Collective(channel_, kSumF32, BufferRef::Of(buffer_, 0, 16),
                                          BufferRef::Of(buffer_, 8, 16), 4),
              StatusCode::kInvalidArgument, "the send and recv ranges overlap");
  // Overlap through a subspan of the same allocation is caught too.
  Ref<Buffer> view = Unwrap(Buffer::Subspan(buffer_, 8, 64));
  ExpectError(command_buffer_->Collective(channel_, kSumF32, BufferRef::Of(buffer_, 0, 16),
                                          BufferRef::Of(view, 0, 16), 4),
              StatusCode::kInvalidArgument, "overlap");
  // In place: identical ranges, all_reduce only.
  ExpectError(command_buffer_->Collective(channel_, kGatherF32, BufferRef::Of(buffer_, 0, 16),
                                          BufferRef::Of(buffer_, 0, 16), 4),
              StatusCode::kInvalidArgument, "only all_reduce may run in place");
  KILN_ASSERT_OK(command_buffer_->Collective(channel_, kSumF32, BufferRef::Of(buffer_, 0, 16),
                                             BufferRef::Of(buffer_, 0, 16), 4));
  // The same bytes named through a subspan are in place too.
  KILN_ASSERT_OK(command_buffer_->Collective(channel_, kSumF32, BufferRef::Of(buffer_, 8, 16),
                                             BufferRef::Of(view, 0, 16), 4));
  // Adjacent ranges are disjoint.
  KILN_ASSERT_OK(command_buffer_->Collective(channel_, kSumF32, BufferRef::Of(buffer_, 0, 16),
                                             BufferRef::Of(buffer_, 16, 16), 4));
}

TEST_F(CommandBufferCollectiveTest, BuffersNeedDispatchStorageUsage) {
  BufferParams params;
  params.usage = kBufferUsageTransfer | kBufferUsageMapping;
  Ref<Buffer> transfer_only = Unwrap(device_->allocator().Allocate(params, 64));
  ExpectError(command_buffer_->Collective(channel_, kSumF32, BufferRef::Of(transfer_only, 0, 16),
                                          BufferRef::Of(buffer_, 0, 16), 4),
              StatusCode::kInvalidArgument, "Collective send");
}

TEST_F(CommandBufferCollectiveTest, DriverWithoutCollectivesRefusesAtRecordTime) {
  Ref<CommandBuffer> command_buffer = MakeRef<NoCollectivesCommandBuffer>();
  KILN_ASSERT_OK(command_buffer->Begin());
  ExpectError(command_buffer->Collective(channel_, kSumF32, BufferRef::Of(buffer_, 0, 16),
                                         BufferRef::Of(buffer_, 16, 16), 4),
              StatusCode::kUnavailable, "this device's driver has no collectives");
  EXPECT_TRUE(static_cast<utils::DeferredCommandBuffer&>(*command_buffer).command_list().empty());
}

TEST_F(CommandBufferCollectiveTest, SlotsAreCheckedAtSubmit) {
  Ref<CommandBuffer> reusable = Begin(CommandBufferMode::kReusable);
  // Slot ranges are unknown until submit: recording accepts them.
  KILN_ASSERT_OK(
      reusable->Collective(channel_, kSumF32, BufferRef::Slot(0), BufferRef::Slot(1, 8), 4));
  KILN_ASSERT_OK(reusable->End());
  Ref<Buffer> small = Unwrap(device_->allocator().Allocate({}, 12));
  Ref<Buffer> big = Unwrap(device_->allocator().Allocate({}, 64));
  std::vector<Ref<Buffer>> table = {small, big};
  Status status = testing::SubmitAndWait(*device_, reusable, table);
  ExpectError(status, StatusCode::kOutOfRange, "binding-table slot 0");
  ExpectError(status, StatusCode::kOutOfRange, "Collective send");
  table = {big};
  ExpectError(testing::SubmitAndWait(*device_, reusable, table), StatusCode::kInvalidArgument,
              "binding-table slot 1 is out of range");
  // One-shot command buffers take no slots.
  ExpectError(command_buffer_->Collective(channel_, kSumF32, BufferRef::Slot(0),
                                          BufferRef::Of(buffer_, 0, 16), 4),
              StatusCode::kInvalidArgument, "used in a one-shot command buffer");
}

// A refused recording changes nothing: the command buffer still runs what
// it recorded before.
TEST_F(CommandBufferCollectiveTest, RefusedCallRecordsNothing) {
  std::vector<float> values = {1, 2, 3, 4};
  Ref<Buffer> input = testing::MakeBuffer(*device_, values);
  Ref<Buffer> output = Unwrap(device_->allocator().Allocate({}, 16));
  ExpectError(command_buffer_->Collective(channel_, kGatherF32, BufferRef::Of(input, 0, 8),
                                          BufferRef::Of(output), 4),
              StatusCode::kInvalidArgument, "a range of 8 bytes");
  KILN_ASSERT_OK(command_buffer_->Collective(channel_, kGatherF32, BufferRef::Of(input),
                                             BufferRef::Of(output), 4));
  KILN_ASSERT_OK(command_buffer_->End());
  KILN_ASSERT_OK(testing::SubmitAndWait(*device_, command_buffer_));
  EXPECT_EQ(testing::ReadBuffer<float>(*output), values);
}

}  // namespace
}  // namespace kiln::hal
