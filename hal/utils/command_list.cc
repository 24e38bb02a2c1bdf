#include "hal/utils/command_list.h"

#include <algorithm>

namespace kiln::hal::utils {

void CommandList::NoteRef(const BufferRef& ref) {
  if (ref.is_slot()) slot_count_ = std::max(slot_count_, ref.slot + 1);
}

void CommandList::AppendDispatch(Ref<Executable> executable, uint32_t export_ordinal,
                                 std::array<uint32_t, 3> workgroup_count,
                                 std::span<const uint32_t> constants,
                                 std::span<const BufferRef> bindings) {
  DispatchCommand command;
  command.executable = std::move(executable);
  command.export_ordinal = export_ordinal;
  command.workgroup_count = workgroup_count;
  command.constants = {static_cast<uint32_t>(constants_.size()),
                       static_cast<uint32_t>(constants.size())};
  command.bindings = {static_cast<uint32_t>(bindings_.size()),
                      static_cast<uint32_t>(bindings.size())};
  constants_.insert(constants_.end(), constants.begin(), constants.end());
  bindings_.insert(bindings_.end(), bindings.begin(), bindings.end());
  for (const BufferRef& ref : bindings) NoteRef(ref);
  commands_.emplace_back(std::move(command));
}

void CommandList::AppendCopy(const BufferRef& source, const BufferRef& target, size_t length) {
  NoteRef(source);
  NoteRef(target);
  commands_.emplace_back(CopyCommand{source, target, length});
}

void CommandList::AppendFill(const BufferRef& target, uint32_t pattern, uint32_t pattern_length) {
  NoteRef(target);
  const uint32_t mask = pattern_length >= 4 ? 0xffffffffu : (1u << (8 * pattern_length)) - 1;
  commands_.emplace_back(FillCommand{target, pattern & mask, pattern_length});
}

void CommandList::AppendUpdate(std::span<const uint8_t> data, const BufferRef& target) {
  NoteRef(target);
  const PoolRange range{static_cast<uint32_t>(bytes_.size()), static_cast<uint32_t>(data.size())};
  bytes_.insert(bytes_.end(), data.begin(), data.end());
  commands_.emplace_back(UpdateCommand{target, range});
}

void CommandList::AppendBarrier() { commands_.emplace_back(BarrierCommand{}); }

void CommandList::AppendCollective(Ref<Channel> channel, const CollectiveOp& op,
                                   const BufferRef& send, const BufferRef& recv,
                                   uint64_t element_count) {
  NoteRef(send);
  NoteRef(recv);
  commands_.emplace_back(CollectiveCommand{std::move(channel), op, send, recv, element_count});
}

bool CommandList::UsesSlots(const Command& command) const {
  bool uses = false;
  ForEachRef(command, [&](const BufferRef& ref) { uses = uses || ref.is_slot(); });
  return uses;
}

ResolvedRef CommandList::Resolve(const BufferRef& ref, std::span<const Ref<Buffer>> table) {
  Buffer* buffer = ref.buffer.get();
  if (ref.is_slot()) {
    if (ref.slot >= table.size()) return ResolvedRef{nullptr, ref.offset, 0};
    buffer = table[ref.slot].get();
    if (buffer == nullptr) return ResolvedRef{nullptr, ref.offset, 0};
  }
  const size_t length =
      ref.length == kWholeBuffer ? buffer->byte_length() - ref.offset : ref.length;
  return ResolvedRef{buffer, ref.offset, length};
}

}  // namespace kiln::hal::utils
