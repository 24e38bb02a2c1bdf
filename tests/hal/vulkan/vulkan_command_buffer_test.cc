// Vulkan command buffers: dispatches of real SPIR-V kernels, transfers with
// Vulkan's alignment limits worked around, barriers ordering commands, and
// reusable command buffers replayed with different binding tables.
#include "hal/vulkan/reusable_command_buffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "hal/cpu/cpu_device.h"
#include "hal/trace.h"
#include "tests/hal/trace_test_util.h"
#include "tests/hal/vulkan/vulkan_test_util.h"

namespace kiln::hal::vulkan {
namespace {

using testing::MakeBuffer;
using testing::ReadBuffer;
using testing::SubmitAndWait;
using testing::Unwrap;
using testing::VulkanTest;

std::vector<float> Iota(size_t n, float start) {
  std::vector<float> values(n);
  std::iota(values.begin(), values.end(), start);
  return values;
}

uint32_t GroupsOf64(uint32_t n) { return (n + 63) / 64; }

// Records add_constant(dim, value) over `target`.
Status AddConstant(CommandBuffer& commands, const Ref<Executable>& executable,
                   const BufferRef& target, uint32_t dim, uint32_t value) {
  const uint32_t constants[] = {dim, value};
  return commands.Dispatch(executable, testing::kAddConstant, {GroupsOf64(dim), 1, 1}, constants,
                           std::span(&target, 1));
}

TEST_F(VulkanTest, DispatchMultipliesAcrossWorkgroups) {
  Ref<Executable> executable = LoadTestExecutable();
  const uint32_t n = 1000;  // 16 workgroups, the last partial.
  Ref<Buffer> lhs = MakeBuffer(*device_, Iota(n, 1));
  Ref<Buffer> rhs = MakeBuffer(*device_, std::vector<float>(n, 0.5f));
  Ref<Buffer> out = MakeBuffer(*device_, std::vector<float>(n + 8, -1.0f));
  Ref<CommandBuffer> commands = Begin();
  const uint32_t constants[] = {n};
  const BufferRef bindings[] = {BufferRef::Of(lhs), BufferRef::Of(rhs), BufferRef::Of(out)};
  KILN_ASSERT_OK(
      commands->Dispatch(executable, testing::kMul, {GroupsOf64(n), 1, 1}, constants, bindings));
  KILN_ASSERT_OK(commands->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
  std::vector<float> result = ReadBuffer<float>(*out);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(result[i], (i + 1) * 0.5f) << i;
  for (uint32_t i = n; i < n + 8; ++i) EXPECT_EQ(result[i], -1.0f) << "past dim: " << i;
}

// With a trace attached, each dispatch of a submission becomes a device
// span from its timestamps (one-shot and reusable command buffers, the
// latter submitted twice); without one, none, and the results are the same.
TEST_F(VulkanTest, TracedSubmissionsHaveADeviceSpanPerDispatch) {
  Ref<Executable> executable = LoadTestExecutable();
  executable->set_name("ex");
  const uint32_t n = 256;
  Ref<Buffer> data = MakeBuffer(*device_, std::vector<uint32_t>(n, 0));
  const BufferRef target = BufferRef::Of(data);
  auto record = [&](CommandBufferMode mode) {
    Ref<CommandBuffer> commands = Begin(mode);
    EXPECT_TRUE(AddConstant(*commands, executable, target, n, 1).ok());
    EXPECT_TRUE(commands->ExecutionBarrier().ok());
    EXPECT_TRUE(AddConstant(*commands, executable, target, n, 10).ok());
    EXPECT_TRUE(commands->End().ok());
    return commands;
  };
  Ref<Trace> trace = Trace::Create(/*record_spans=*/true);
  KILN_ASSERT_OK(SubmitAndWait(*device_, record(CommandBufferMode::kOneShot)));
  EXPECT_TRUE(trace->Spans().empty());

  device_->AttachTrace(trace);
  const int64_t begin_ns = trace->Now();
  KILN_ASSERT_OK(SubmitAndWait(*device_, record(CommandBufferMode::kOneShot)));
  Ref<CommandBuffer> reusable = record(CommandBufferMode::kReusable);
  KILN_ASSERT_OK(SubmitAndWait(*device_, reusable));
  KILN_ASSERT_OK(SubmitAndWait(*device_, reusable));
  const int64_t end_ns = trace->Now();
  device_->FlushTrace();
  const std::string name = "dispatch @ex::@add_constant";
  hal::testing::ExpectDispatchSpans(*trace, std::vector<std::string>(6, name), begin_ns, end_ns);

  device_->AttachTrace(nullptr);
  KILN_ASSERT_OK(SubmitAndWait(*device_, reusable));
  EXPECT_EQ(hal::testing::DeviceSpans(*trace).size(), 6u);
  EXPECT_EQ(ReadBuffer<uint32_t>(*data), std::vector<uint32_t>(n, 5 * 11));
}

TEST_F(VulkanTest, DispatchRunsEveryWorkgroupOfA3DGrid) {
  Ref<Executable> executable = LoadTestExecutable();
  const std::array<uint32_t, 3> count = {3, 4, 2};
  const uint32_t total = 3 * 4 * 2;
  Ref<Buffer> out = MakeBuffer(*device_, std::vector<uint32_t>(total * 4, 0));
  Ref<CommandBuffer> commands = Begin();
  const BufferRef binding = BufferRef::Of(out);
  KILN_ASSERT_OK(
      commands->Dispatch(executable, testing::kWorkgroupIds, count, {}, std::span(&binding, 1)));
  KILN_ASSERT_OK(commands->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
  std::vector<uint32_t> ids = ReadBuffer<uint32_t>(*out);
  for (uint32_t z = 0; z < 2; ++z) {
    for (uint32_t y = 0; y < 4; ++y) {
      for (uint32_t x = 0; x < 3; ++x) {
        uint32_t linear = x + 3 * (y + 4 * z);
        EXPECT_EQ(ids[linear * 4 + 0], x + 1);
        EXPECT_EQ(ids[linear * 4 + 1], y + 1);
        EXPECT_EQ(ids[linear * 4 + 2], z + 1);
        EXPECT_EQ(ids[linear * 4 + 3], total);
      }
    }
  }
}

TEST_F(VulkanTest, DispatchBindsSubspansAtAlignedOffsets) {
  Ref<Executable> executable = LoadTestExecutable();
  const VkDeviceSize alignment = device_->logical().limits().minStorageBufferOffsetAlignment;
  const size_t words = 4 * alignment;  // Room for two aligned views.
  Ref<Buffer> buffer = MakeBuffer(*device_, std::vector<uint32_t>(words, 1));
  // Elements [alignment/4 * 4, + 8) of the buffer, through a subspan.
  Ref<Buffer> view = Unwrap(Buffer::Subspan(buffer, 4 * alignment, 32));
  Ref<CommandBuffer> commands = Begin();
  KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Of(view), 8, 10));
  KILN_ASSERT_OK(commands->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
  std::vector<uint32_t> values = ReadBuffer<uint32_t>(*buffer);
  for (size_t i = 0; i < words; ++i) {
    EXPECT_EQ(values[i], (i >= alignment && i < alignment + 8) ? 11u : 1u) << i;
  }
}

TEST_F(VulkanTest, UnalignedBindingOffsetIsAClearError) {
  Ref<Executable> executable = LoadTestExecutable();
  const VkDeviceSize alignment = device_->logical().limits().minStorageBufferOffsetAlignment;
  if (alignment < 8) GTEST_SKIP() << "the device binds at any 4-byte offset";
  Ref<Buffer> buffer = Allocate(256);
  Ref<CommandBuffer> commands = Begin();
  Status status = AddConstant(*commands, executable, BufferRef::Of(buffer, 4, 16), 4, 1);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("Dispatch of 'add_constant' binding 0: the range starts 4 bytes "
                                  "into its allocation, not a multiple of the device's "
                                  "minStorageBufferOffsetAlignment"),
            std::string::npos)
      << status.ToString();
}

TEST_F(VulkanTest, ForeignObjectsAreRejected) {
  Ref<Device> cpu = hal::testing::CreateDevice("cpu-sync");
  Ref<Buffer> cpu_buffer = Unwrap(cpu->allocator().Allocate(BufferParams{}, 64));
  Ref<Executable> executable = LoadTestExecutable();
  Ref<CommandBuffer> commands = Begin();
  Status status = AddConstant(*commands, executable, BufferRef::Of(cpu_buffer), 4, 1);
  EXPECT_EQ(status.message(),
            "Dispatch of 'add_constant' binding 0: the buffer was not allocated by this Vulkan "
            "device");
  Ref<Buffer> ours = Allocate(64);
  status = commands->CopyBuffer(BufferRef::Of(cpu_buffer), BufferRef::Of(ours), 16);
  EXPECT_EQ(status.message(),
            "CopyBuffer source: the buffer was not allocated by this Vulkan device");
  // A CPU command buffer and a CPU semaphore cannot go to this queue.
  Ref<CommandBuffer> cpu_commands = Unwrap(cpu->CreateCommandBuffer(CommandBufferMode::kOneShot));
  KILN_ASSERT_OK(cpu_commands->Begin());
  KILN_ASSERT_OK(cpu_commands->End());
  status = device_->QueueExecute(Fence(), Fence(), std::span(&cpu_commands, 1), {});
  EXPECT_EQ(status.message(),
            "QueueExecute: command buffer 0 was not created by this Vulkan device");
  Ref<Semaphore> cpu_semaphore = Unwrap(cpu->CreateSemaphore(0));
  status = device_->QueueExecute(Fence{{cpu_semaphore, 1}}, Fence(), {}, {});
  EXPECT_EQ(status.message(),
            "QueueExecute: a wait semaphore was not created by this Vulkan device");
}

TEST_F(VulkanTest, WorkgroupCountOverTheDeviceLimitIsRefused) {
  Ref<Executable> executable = LoadTestExecutable();
  Ref<Buffer> out = Allocate(64);
  Ref<CommandBuffer> commands = Begin();
  const BufferRef binding = BufferRef::Of(out);
  const uint32_t limit = device_->logical().limits().maxComputeWorkGroupCount[1];
  if (limit == UINT32_MAX) GTEST_SKIP() << "no limit";
  Status status = commands->Dispatch(executable, testing::kWorkgroupIds, {1, limit + 1, 1}, {},
                                     std::span(&binding, 1));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("maxComputeWorkGroupCount"), std::string::npos);
}

TEST_F(VulkanTest, CopyFillAndUpdate) {
  Ref<Buffer> source = MakeBuffer(*device_, std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8});
  Ref<Buffer> target = MakeBuffer(*device_, std::vector<uint32_t>(16, 0));
  Ref<CommandBuffer> commands = Begin();
  KILN_ASSERT_OK(commands->CopyBuffer(BufferRef::Of(source, 4), BufferRef::Of(target, 8), 12));
  KILN_ASSERT_OK(commands->FillBuffer(BufferRef::Of(target, 32, 16), 0xdeadbeef, 4));
  const uint32_t update[] = {100, 200};
  KILN_ASSERT_OK(commands->UpdateBuffer(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(update), sizeof(update)),
      BufferRef::Of(target, 56)));
  KILN_ASSERT_OK(commands->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
  EXPECT_EQ(ReadBuffer<uint32_t>(*target),
            (std::vector<uint32_t>{0, 0, 2, 3, 4, 0, 0, 0, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef,
                                   0xdeadbeef, 0, 0, 100, 200}));
}

// Fills and updates at offsets and lengths vkCmdFillBuffer and
// vkCmdUpdateBuffer cannot take (not multiples of 4; updates over 64 KiB),
// checked byte for byte against a host model.
TEST_F(VulkanTest, UnalignedFillsAndUpdatesMatchTheHostModel) {
  const size_t size = 256;
  struct Fill {
    size_t offset, length;
    uint32_t pattern;
    size_t pattern_length;
  } fills[] = {{1, 1, 0xaa, 1},   {3, 10, 0x5c, 1},    {18, 14, 0x1234, 2},     {34, 2, 0xbeef, 2},
               {41, 30, 0x77, 1}, {82, 38, 0xcafe, 2}, {124, 8, 0x01020304, 4}, {133, 0, 0x99, 1}};
  for (bool reusable : {false, true}) {
    SCOPED_TRACE(reusable ? "reusable" : "one-shot");
    std::vector<uint8_t> model(size, 0);
    Ref<Buffer> target = MakeBuffer(*device_, model);
    Ref<CommandBuffer> commands =
        Begin(reusable ? CommandBufferMode::kReusable : CommandBufferMode::kOneShot);
    for (const Fill& fill : fills) {
      KILN_ASSERT_OK(commands->FillBuffer(BufferRef::Of(target, fill.offset, fill.length),
                                          fill.pattern, fill.pattern_length));
      for (size_t i = 0; i < fill.length; ++i) {
        model[fill.offset + i] =
            static_cast<uint8_t>(fill.pattern >> (8 * (i % fill.pattern_length)));
      }
    }
    const uint8_t bytes[] = {1, 2, 3, 4, 5, 6, 7};
    KILN_ASSERT_OK(commands->UpdateBuffer(bytes, BufferRef::Of(target, 141)));
    std::copy(std::begin(bytes), std::end(bytes), model.begin() + 141);
    KILN_ASSERT_OK(commands->End());
    KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
    EXPECT_EQ(ReadBuffer<uint8_t>(*target), model);
  }
  // An update larger than vkCmdUpdateBuffer takes.
  std::vector<uint32_t> big(20000);
  std::iota(big.begin(), big.end(), 3u);
  Ref<Buffer> large = Allocate(big.size() * 4 + 4);
  Ref<CommandBuffer> commands = Begin();
  KILN_ASSERT_OK(commands->UpdateBuffer(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(big.data()), big.size() * 4),
      BufferRef::Of(large, 4)));
  KILN_ASSERT_OK(commands->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
  EXPECT_EQ(ReadBuffer<uint32_t>(*large, 4), big);
}

TEST_F(VulkanTest, OverlappingCopyMovesLikeMemmove) {
  Ref<Buffer> buffer = MakeBuffer(*device_, std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  Ref<CommandBuffer> commands = Begin();
  KILN_ASSERT_OK(commands->CopyBuffer(BufferRef::Of(buffer, 0), BufferRef::Of(buffer, 8), 24));
  KILN_ASSERT_OK(commands->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
  EXPECT_EQ(ReadBuffer<uint32_t>(*buffer), (std::vector<uint32_t>{0, 1, 0, 1, 2, 3, 4, 5, 8, 9}));
}

TEST_F(VulkanTest, BarriersOrderDispatchesAndTransfers) {
  Ref<Executable> executable = LoadTestExecutable();
  const uint32_t n = 300;
  for (CommandBufferMode mode : {CommandBufferMode::kOneShot, CommandBufferMode::kReusable}) {
    SCOPED_TRACE(mode == CommandBufferMode::kOneShot ? "one-shot" : "reusable");
    Ref<Buffer> data = Allocate(n * 4);
    Ref<Buffer> copy = MakeBuffer(*device_, std::vector<uint32_t>(n, 0));
    Ref<CommandBuffer> commands = Begin(mode);
    // fill 5 -> +1 -> +10 -> copied, each step reading what the last wrote;
    // the doubled barrier orders as one.
    KILN_ASSERT_OK(commands->FillBuffer(BufferRef::Of(data), 5, 4));
    KILN_ASSERT_OK(commands->ExecutionBarrier());
    KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Of(data), n, 1));
    KILN_ASSERT_OK(commands->ExecutionBarrier());
    KILN_ASSERT_OK(commands->ExecutionBarrier());
    KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Of(data), n, 10));
    KILN_ASSERT_OK(commands->ExecutionBarrier());
    KILN_ASSERT_OK(commands->CopyBuffer(BufferRef::Of(data), BufferRef::Of(copy), n * 4));
    KILN_ASSERT_OK(commands->End());
    KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
    EXPECT_EQ(ReadBuffer<uint32_t>(*copy), std::vector<uint32_t>(n, 16));
  }
}

TEST_F(VulkanTest, OneShotCommandBuffersRunOnce) {
  Ref<CommandBuffer> commands = Begin();
  KILN_ASSERT_OK(commands->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
  Status again = device_->QueueExecute(Fence(), Fence(), std::span(&commands, 1), {});
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(again.message(),
            "QueueExecute: command buffer 0: a one-shot command buffer was submitted a second "
            "time");
  Ref<CommandBuffer> unfinished = Begin();
  Status not_ended = device_->QueueExecute(Fence(), Fence(), std::span(&unfinished, 1), {});
  EXPECT_EQ(not_ended.code(), StatusCode::kFailedPrecondition);
}

// hal/utils/submission.h claims one-shot command buffers at one point for
// every driver: a resubmission is refused the same way here and on the CPU.
TEST_F(VulkanTest, OneShotResubmissionIsRefusedAsOnTheCpuDriver) {
  Ref<Device> cpu = Unwrap(cpu::CpuDevice::Create({.asynchronous = false}));
  std::vector<Status> refusals;
  for (Device* device : {static_cast<Device*>(device_.get()), cpu.get()}) {
    Ref<CommandBuffer> commands = Unwrap(device->CreateCommandBuffer(CommandBufferMode::kOneShot));
    KILN_ASSERT_OK(commands->Begin());
    KILN_ASSERT_OK(commands->End());
    KILN_ASSERT_OK(SubmitAndWait(*device, commands));
    EXPECT_TRUE(commands->submitted());
    refusals.push_back(device->QueueExecute(Fence(), Fence(), std::span(&commands, 1), {}));
  }
  EXPECT_EQ(refusals[0].code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(refusals[0].code(), refusals[1].code());
  EXPECT_EQ(refusals[0].message(), refusals[1].message());
}

// A submission the queue refuses did not happen: its one-shot command
// buffer can still be submitted.
TEST_F(VulkanTest, OneShotRefusedByTheQueueIsNotUsedUp) {
  Ref<Semaphore> semaphore = Unwrap(device_->CreateSemaphore(0));
  KILN_ASSERT_OK(semaphore->Signal(1));
  Ref<CommandBuffer> commands = Begin();
  KILN_ASSERT_OK(commands->End());
  Status stale = device_->QueueExecute(Fence(), Fence{{semaphore, 1}}, std::span(&commands, 1), {});
  EXPECT_EQ(stale.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(stale.message().find("does not advance it"), std::string::npos) << stale.ToString();
  EXPECT_FALSE(commands->submitted());
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
  EXPECT_TRUE(commands->submitted());
}

TEST_F(VulkanTest, ReusableCommandBufferWithConcreteBuffersReplays) {
  Ref<Executable> executable = LoadTestExecutable();
  const uint32_t n = 100;
  Ref<Buffer> data = MakeBuffer(*device_, std::vector<uint32_t>(n, 0));
  Ref<CommandBuffer> commands = Begin(CommandBufferMode::kReusable);
  KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Of(data), n, 3));
  KILN_ASSERT_OK(commands->ExecutionBarrier());
  KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Of(data), n, 4));
  KILN_ASSERT_OK(commands->End());
  auto* vulkan = static_cast<ReusableCommandBuffer*>(commands.get());
  EXPECT_EQ(vulkan->record_count(), 1u);  // Recorded once, at End.
  // Submitted back to back without waiting: the queue keeps them in order.
  Ref<Semaphore> done = Unwrap(device_->CreateSemaphore(0));
  for (uint64_t i = 1; i <= 5; ++i) {
    KILN_ASSERT_OK(device_->QueueExecute(Fence(), Fence{{done, i}}, std::span(&commands, 1), {}));
  }
  KILN_ASSERT_OK(done->Wait(5, std::chrono::seconds(30)));
  EXPECT_EQ(ReadBuffer<uint32_t>(*data), std::vector<uint32_t>(n, 35));
  EXPECT_EQ(vulkan->record_count(), 1u);
  EXPECT_EQ(vulkan->recording_count(), 1u);
  EXPECT_EQ(vulkan->submit_descriptor_writes(), 0u);
}

// The heart of "record once, replay many": a reusable command buffer whose
// dispatches and copies name binding-table slots, replayed with two tables.
class VulkanReusableTest : public VulkanTest,
                           public ::testing::WithParamInterface<bool /*update_after_bind*/> {
 protected:
  void SetUp() override {
    VulkanTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    VulkanDriverOptions options = testing::TestOptions();
    options.update_after_bind = GetParam();
    CreateDevice(options);
  }
};

TEST_P(VulkanReusableTest, ReplaysWithDifferentBindingTables) {
  Ref<Executable> executable = LoadTestExecutable();
  const uint32_t n = 200;
  // Slot 0: lhs, slot 1: rhs, slot 2: out (mul); slot 3: copy of out.
  Ref<CommandBuffer> commands = Begin(CommandBufferMode::kReusable);
  const uint32_t constants[] = {n};
  const BufferRef bindings[] = {BufferRef::Slot(0), BufferRef::Slot(1), BufferRef::Slot(2)};
  KILN_ASSERT_OK(
      commands->Dispatch(executable, testing::kMul, {GroupsOf64(n), 1, 1}, constants, bindings));
  KILN_ASSERT_OK(commands->ExecutionBarrier());
  KILN_ASSERT_OK(commands->CopyBuffer(BufferRef::Slot(2), BufferRef::Slot(3), n * 4));
  KILN_ASSERT_OK(commands->End());
  auto* vulkan = static_cast<ReusableCommandBuffer*>(commands.get());

  struct Table {
    std::vector<Ref<Buffer>> buffers;
    float scale;
  };
  auto make_table = [&](float scale) {
    return Table{
        {MakeBuffer(*device_, Iota(n, 1)), MakeBuffer(*device_, std::vector<float>(n, scale)),
         MakeBuffer(*device_, std::vector<float>(n, 0)),
         MakeBuffer(*device_, std::vector<float>(n, 0))},
        scale};
  };
  Table a = make_table(2.0f), b = make_table(-3.0f);
  auto check = [&](const Table& table) {
    std::vector<float> copied = ReadBuffer<float>(*table.buffers[3]);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(copied[i], (i + 1) * table.scale) << i;
  };
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands, a.buffers));
  check(a);
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands, b.buffers));
  check(b);
  // Alternating tables, several in flight at once, then each table again.
  Ref<Semaphore> done = Unwrap(device_->CreateSemaphore(0));
  for (uint64_t i = 1; i <= 6; ++i) {
    KILN_ASSERT_OK(device_->QueueExecute(Fence(), Fence{{done, i}}, std::span(&commands, 1),
                                         i % 2 ? a.buffers : b.buffers));
  }
  KILN_ASSERT_OK(done->Wait(6, std::chrono::seconds(30)));
  check(a);
  check(b);
  // Each table settled into a recording of its own: replays rewrote
  // nothing. Copies name slots, so a table change re-records.
  EXPECT_EQ(vulkan->recording_count(), 2u);
  const uint64_t writes = vulkan->submit_descriptor_writes();
  const uint64_t records = vulkan->record_count();
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands, a.buffers));
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands, b.buffers));
  EXPECT_EQ(vulkan->submit_descriptor_writes(), writes);
  EXPECT_EQ(vulkan->record_count(), records);
}

TEST_P(VulkanReusableTest, DispatchOnlySlotsRewriteOnlyChangedDescriptors) {
  Ref<Executable> executable = LoadTestExecutable();
  const uint32_t n = 64;
  Ref<CommandBuffer> commands = Begin(CommandBufferMode::kReusable);
  // 50 dispatches adding 1 to slot 0, one adding 1000 to slot 1.
  for (int i = 0; i < 50; ++i) {
    KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Slot(0), n, 1));
    KILN_ASSERT_OK(commands->ExecutionBarrier());
  }
  KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Slot(1), n, 1000));
  KILN_ASSERT_OK(commands->End());
  auto* vulkan = static_cast<ReusableCommandBuffer*>(commands.get());
  Ref<Buffer> x = MakeBuffer(*device_, std::vector<uint32_t>(n, 0));
  Ref<Buffer> y = MakeBuffer(*device_, std::vector<uint32_t>(n, 0));
  Ref<Buffer> z = MakeBuffer(*device_, std::vector<uint32_t>(n, 0));
  // The 50 dispatches on slot 0 share one descriptor set: the first table
  // writes two descriptors, not 51.
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands, std::vector<Ref<Buffer>>{x, y}));
  EXPECT_EQ(vulkan->submit_descriptor_writes(), 2u);
  // Only slot 1 changes: one descriptor is rewritten in the same recording.
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands, std::vector<Ref<Buffer>>{x, z}));
  EXPECT_EQ(vulkan->submit_descriptor_writes(), 3u);
  EXPECT_EQ(vulkan->recording_count(), 1u);
  // With update-after-bind, the recording was kept; without, recorded again.
  EXPECT_EQ(vulkan->record_count(), device_->logical().update_after_bind() ? 1u : 2u);
  EXPECT_EQ(ReadBuffer<uint32_t>(*x), std::vector<uint32_t>(n, 100));
  EXPECT_EQ(ReadBuffer<uint32_t>(*y), std::vector<uint32_t>(n, 1000));
  EXPECT_EQ(ReadBuffer<uint32_t>(*z), std::vector<uint32_t>(n, 1000));
}

TEST_P(VulkanReusableTest, DispatchesOnTheSameReferencesShareADescriptorSet) {
  Ref<Executable> executable = LoadTestExecutable();
  const uint32_t n = 64;
  Ref<CommandBuffer> commands = Begin(CommandBufferMode::kReusable);
  // Alternating sets (slot 0, slot 1, slot 0, ...), and between them a
  // dispatch of another layout (mul: three bindings, one constant), after
  // which slot 0's set must be bound again.
  const uint32_t mul_constants[] = {n};
  const BufferRef mul_bindings[] = {BufferRef::Slot(2), BufferRef::Slot(3), BufferRef::Slot(4)};
  for (int i = 0; i < 5; ++i) {
    KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Slot(0), n, 1));
    KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Slot(1), n, 10));
    KILN_ASSERT_OK(commands->ExecutionBarrier());
    KILN_ASSERT_OK(commands->Dispatch(executable, testing::kMul, {GroupsOf64(n), 1, 1},
                                      mul_constants, mul_bindings));
    KILN_ASSERT_OK(commands->ExecutionBarrier());
  }
  KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Slot(0), n, 100));
  // A subrange of slot 1 is another reference: a set of its own.
  KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Slot(1, 0, n * 2), n / 2, 1000));
  // The same reference under another layout (workgroup_ids has no
  // constants) is a set of its own, and add_constant's set for slot 5 is
  // bound again after it (the validation layer reports a dispatch without
  // a compatible set bound).
  const BufferRef ids = BufferRef::Slot(5);
  KILN_ASSERT_OK(AddConstant(*commands, executable, ids, n, 1));
  KILN_ASSERT_OK(commands->ExecutionBarrier());
  KILN_ASSERT_OK(
      commands->Dispatch(executable, testing::kWorkgroupIds, {4, 1, 1}, {}, std::span(&ids, 1)));
  KILN_ASSERT_OK(commands->ExecutionBarrier());
  KILN_ASSERT_OK(AddConstant(*commands, executable, ids, n, 7));
  KILN_ASSERT_OK(commands->End());
  auto* vulkan = static_cast<ReusableCommandBuffer*>(commands.get());
  Ref<Buffer> x = MakeBuffer(*device_, std::vector<uint32_t>(n, 0));
  Ref<Buffer> y = MakeBuffer(*device_, std::vector<uint32_t>(n, 0));
  Ref<Buffer> lhs = MakeBuffer(*device_, Iota(n, 1));
  Ref<Buffer> rhs = MakeBuffer(*device_, std::vector<float>(n, 2.0f));
  Ref<Buffer> out = MakeBuffer(*device_, std::vector<float>(n, 0.0f));
  Ref<Buffer> z = MakeBuffer(*device_, std::vector<uint32_t>(n, 0));
  KILN_ASSERT_OK(
      SubmitAndWait(*device_, commands, std::vector<Ref<Buffer>>{x, y, lhs, rhs, out, z}));
  // Six sets: slot 0, slot 1, mul's three, slot 1's first half, slot 5
  // under each of two layouts.
  EXPECT_EQ(vulkan->submit_descriptor_writes(), 8u);
  EXPECT_EQ(ReadBuffer<uint32_t>(*x), std::vector<uint32_t>(n, 105));
  std::vector<uint32_t> expected_y(n, 50);
  for (uint32_t i = 0; i < n / 2; ++i) expected_y[i] += 1000;
  EXPECT_EQ(ReadBuffer<uint32_t>(*y), expected_y);
  std::vector<float> product = ReadBuffer<float>(*out);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(product[i], 2.0f * static_cast<float>(i + 1)) << i;
  // Workgroup w of 4 wrote (w + 1, 1, 1, 4) at 4w; then every element + 7.
  std::vector<uint32_t> expected_z(n, 1 + 7);
  for (uint32_t w = 0; w < 4; ++w) {
    const uint32_t written[] = {w + 1, 1, 1, 4};
    for (uint32_t j = 0; j < 4; ++j) expected_z[4 * w + j] = written[j] + 7;
  }
  EXPECT_EQ(ReadBuffer<uint32_t>(*z), expected_z);
}

TEST_P(VulkanReusableTest, SlotRangesResolveAgainstEachTable) {
  Ref<Executable> executable = LoadTestExecutable();
  const size_t alignment = device_->logical().limits().minStorageBufferOffsetAlignment;
  Ref<CommandBuffer> commands = Begin(CommandBufferMode::kReusable);
  // Slot 0 from `alignment` bytes to the end; fill the first 6 bytes of slot 1.
  KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Slot(0, alignment), 4, 7));
  KILN_ASSERT_OK(commands->FillBuffer(BufferRef::Slot(1, 2, 6), 0xab, 1));
  KILN_ASSERT_OK(commands->End());
  Ref<Buffer> data = MakeBuffer(*device_, std::vector<uint32_t>(alignment / 4 + 4, 1));
  Ref<Buffer> bytes = MakeBuffer(*device_, std::vector<uint8_t>(12, 0));
  Ref<Buffer> view = Unwrap(Buffer::Subspan(bytes, 1, 10));
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands, std::vector<Ref<Buffer>>{data, view}));
  std::vector<uint32_t> values = ReadBuffer<uint32_t>(*data);
  EXPECT_EQ(values.back(), 8u);
  EXPECT_EQ(values.front(), 1u);
  EXPECT_EQ(ReadBuffer<uint8_t>(*bytes),
            (std::vector<uint8_t>{0, 0, 0, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0, 0, 0}));
}

TEST_P(VulkanReusableTest, MissingOrForeignSlotsFailTheSubmission) {
  Ref<Executable> executable = LoadTestExecutable();
  Ref<CommandBuffer> commands = Begin(CommandBufferMode::kReusable);
  KILN_ASSERT_OK(AddConstant(*commands, executable, BufferRef::Slot(1), 4, 1));
  KILN_ASSERT_OK(commands->End());
  Ref<Buffer> data = Allocate(16);
  std::vector<Ref<Buffer>> short_table = {data};
  Status status = device_->QueueExecute(Fence(), Fence(), std::span(&commands, 1), short_table);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("binding-table slot 1 is out of range"), std::string::npos)
      << status.ToString();
  Ref<Device> cpu = hal::testing::CreateDevice("cpu-sync");
  std::vector<Ref<Buffer>> foreign = {data, Unwrap(cpu->allocator().Allocate(BufferParams{}, 16))};
  status = device_->QueueExecute(Fence(), Fence(), std::span(&commands, 1), foreign);
  EXPECT_EQ(
      status.message(),
      "QueueExecute: binding-table slot 1 holds a buffer not allocated by this Vulkan device");
  // A slot whose offset cannot be bound is refused at submit, and the
  // command buffer still works with a good table afterwards.
  const size_t alignment = device_->logical().limits().minStorageBufferOffsetAlignment;
  if (alignment >= 8) {
    std::vector<Ref<Buffer>> unaligned = {data, Unwrap(Buffer::Subspan(data, 4, 8))};
    status = device_->QueueExecute(Fence(), Fence(), std::span(&commands, 1), unaligned);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(status.message().find("(binding-table slot 1): the range starts 4 bytes"),
              std::string::npos)
        << status.ToString();
  }
  Ref<Buffer> good = MakeBuffer(*device_, std::vector<uint32_t>{1, 2, 3, 4});
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands, std::vector<Ref<Buffer>>{data, good}));
  EXPECT_EQ(ReadBuffer<uint32_t>(*good), (std::vector<uint32_t>{2, 3, 4, 5}));
}

// Synchronization validation is on in validated runs: two writes of the
// same range with no barrier between them are reported, which shows the
// tests' no-message check catches a missing barrier. (Both fills write the
// same bytes, so the race is harmless.)
TEST_F(VulkanTest, MissingBarrierIsReportedByTheValidationLayer) {
  if (!validation_enabled()) GTEST_SKIP() << "needs KILN_VULKAN_VALIDATION=1";
  Ref<Buffer> data = MakeBuffer(*device_, std::vector<uint32_t>(64, 0));
  Ref<CommandBuffer> commands = Begin();
  KILN_ASSERT_OK(commands->FillBuffer(BufferRef::Of(data), 7, 4));
  KILN_ASSERT_OK(commands->FillBuffer(BufferRef::Of(data), 7, 4));
  KILN_ASSERT_OK(commands->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
  EXPECT_EQ(ReadBuffer<uint32_t>(*data), std::vector<uint32_t>(64, 7));
  std::vector<std::string> messages = driver_->instance().validation_log().Take();
  ASSERT_FALSE(messages.empty());
  EXPECT_NE(messages[0].find("SYNC-HAZARD-WRITE-AFTER-WRITE"), std::string::npos) << messages[0];
}

INSTANTIATE_TEST_SUITE_P(Descriptors, VulkanReusableTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "UpdateAfterBind" : "Rerecord";
                         });

}  // namespace
}  // namespace kiln::hal::vulkan
