// hal/utils/command_list.h and deferred_command_buffer.h: what a recording
// keeps for the drivers' executors, and how references resolve against a
// binding table.
#include "hal/utils/command_list.h"

#include <gtest/gtest.h>

#include "hal/cpu/host_allocator.h"
#include "hal/utils/deferred_command_buffer.h"
#include "tests/hal/test_util.h"

namespace kiln::hal::utils {
namespace {

using testing::Unwrap;

Ref<Buffer> Allocate(size_t size) {
  cpu::HostAllocator allocator;
  return Unwrap(allocator.Allocate({}, size));
}

// A command buffer whose driver refuses buffers of one size, to see refused
// calls leave the list untouched.
class TestCommandBuffer final : public DeferredCommandBuffer {
 public:
  explicit TestCommandBuffer(CommandBufferMode mode) : DeferredCommandBuffer(mode) {}
  size_t refused_size = 0;
  std::vector<std::string> checked;

 protected:
  Status CheckBuffer(const BufferRef& ref, const BufferSite& site) override {
    checked.push_back(site.Describe());
    if (ref.buffer->byte_length() != refused_size) return OkStatus();
    return InvalidArgumentError(site.Describe() + ": refused by the driver");
  }
};

TEST(CommandListTest, KeepsEveryKindWithItsPooledData) {
  Ref<Buffer> a = Allocate(64);
  Ref<Buffer> b = Allocate(64);
  Ref<Executable> executable = testing::MakeTestExecutable();
  CommandList list;
  const uint32_t constants[] = {4, 2, 1};
  const BufferRef bindings[] = {BufferRef::Of(a, 0, 16), BufferRef::Slot(3, 8, 8)};
  list.AppendDispatch(executable, testing::kMulAdd, {2, 1, 1}, constants, bindings);
  list.AppendBarrier();
  list.AppendCopy(BufferRef::Of(a, 0, 8), BufferRef::Of(b, 8, 8), 8);
  list.AppendFill(BufferRef::Slot(1), 0xaabbccdd, 2);
  const uint8_t bytes[] = {1, 2, 3};
  list.AppendUpdate(bytes, BufferRef::Of(b, 1, 3));
  ASSERT_EQ(list.size(), 5u);

  const auto& dispatch = std::get<DispatchCommand>(list[0]);
  EXPECT_EQ(dispatch.export_ordinal, testing::kMulAdd);
  EXPECT_EQ(std::vector<uint32_t>(list.constants(dispatch).begin(), list.constants(dispatch).end()),
            (std::vector<uint32_t>{4, 2, 1}));
  ASSERT_EQ(list.bindings(dispatch).size(), 2u);
  EXPECT_EQ(list.bindings(dispatch)[1].slot, 3u);
  EXPECT_TRUE(std::holds_alternative<BarrierCommand>(list[1]));
  // A fill keeps only its pattern's bytes.
  EXPECT_EQ(std::get<FillCommand>(list[3]).pattern, 0xccddu);
  const auto& update = std::get<UpdateCommand>(list[4]);
  EXPECT_EQ(std::vector<uint8_t>(list.data(update).begin(), list.data(update).end()),
            (std::vector<uint8_t>{1, 2, 3}));

  // References in order, and which commands use slots.
  std::vector<std::string> seen;
  for (const Command& command : list.commands()) {
    list.ForEachRef(command, [&](const BufferRef& ref) {
      seen.push_back(ref.is_slot() ? "slot " + std::to_string(ref.slot)
                                   : (ref.buffer == a ? "a" : "b"));
    });
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "slot 3", "a", "b", "slot 1", "b"}));
  EXPECT_TRUE(list.UsesSlots(list[0]));
  EXPECT_FALSE(list.UsesSlots(list[2]));
  EXPECT_TRUE(list.uses_slots());
  EXPECT_EQ(list.slot_count(), 4u);
}

TEST(CommandListTest, ResolvesSlotsAgainstTheTable) {
  Ref<Buffer> a = Allocate(64);
  Ref<Buffer> sub = Unwrap(Buffer::Subspan(Allocate(128), 32, 48));
  const std::vector<Ref<Buffer>> table = {a, sub};
  // A concrete reference is what was recorded.
  ResolvedRef concrete = CommandList::Resolve(BufferRef::Of(a, 4, 12), table);
  EXPECT_EQ(concrete.buffer, a.get());
  EXPECT_EQ(concrete.offset, 4u);
  EXPECT_EQ(concrete.length, 12u);
  // A slot's whole-buffer length is the rest of the slot's buffer.
  ResolvedRef slot = CommandList::Resolve(BufferRef::Slot(1, 8), table);
  EXPECT_EQ(slot.buffer, sub.get());
  EXPECT_EQ(slot.offset, 8u);
  EXPECT_EQ(slot.length, 40u);
  // A slot past the table has no buffer (a graph built before its first
  // submit); submissions never get there (ValidateBindingTable).
  ResolvedRef missing = CommandList::Resolve(BufferRef::Slot(2, 0, 4), table);
  EXPECT_EQ(missing.buffer, nullptr);
  EXPECT_EQ(missing.length, 0u);
}

TEST(DeferredCommandBufferTest, RecordsAfterTheDriverChecksAndRefusalsLeaveNoCommand) {
  Ref<Buffer> a = Allocate(64);
  Ref<Buffer> refused = Allocate(32);
  Ref<TestCommandBuffer> commands = MakeRef<TestCommandBuffer>(CommandBufferMode::kReusable);
  commands->refused_size = 32;
  KILN_ASSERT_OK(commands->Begin());
  KILN_ASSERT_OK(commands->FillBuffer(BufferRef::Of(a), 7, 1));
  Status status = commands->CopyBuffer(BufferRef::Of(a), BufferRef::Of(refused), 16);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "CopyBuffer target: refused by the driver");
  // Slots are not the driver's to check when recorded.
  KILN_ASSERT_OK(commands->CopyBuffer(BufferRef::Of(a), BufferRef::Slot(5, 0, 16), 16));
  KILN_ASSERT_OK(commands->ExecutionBarrier());
  KILN_ASSERT_OK(commands->End());
  EXPECT_EQ(commands->checked,
            (std::vector<std::string>{"FillBuffer target", "CopyBuffer source", "CopyBuffer target",
                                      "CopyBuffer source"}));
  const CommandList& list = commands->command_list();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<FillCommand>(list[0]));
  EXPECT_EQ(std::get<CopyCommand>(list[1]).target.slot, 5u);
  EXPECT_EQ(std::get<CopyCommand>(list[1]).length, 16u);
  EXPECT_TRUE(std::holds_alternative<BarrierCommand>(list[2]));
}

TEST(DeferredCommandBufferTest, SlotOutOfRangeIsRefusedAtSubmit) {
  Ref<Buffer> a = Allocate(64);
  Ref<CommandBuffer> commands = MakeRef<TestCommandBuffer>(CommandBufferMode::kReusable);
  KILN_ASSERT_OK(commands->Begin());
  KILN_ASSERT_OK(commands->FillBuffer(BufferRef::Slot(2, 0, 16), 0, 4));
  KILN_ASSERT_OK(commands->End());
  const std::vector<Ref<Buffer>> short_table = {a, a};
  Status status = CommandBuffer::ValidateSubmission(std::span(&commands, 1), short_table);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("FillBuffer target: binding-table slot 2 is out of range (the "
                                  "table has 2 entries)"),
            std::string::npos)
      << status.ToString();
  const std::vector<Ref<Buffer>> table = {a, a, a};
  KILN_ASSERT_OK(CommandBuffer::ValidateSubmission(std::span(&commands, 1), table));
}

}  // namespace
}  // namespace kiln::hal::utils
