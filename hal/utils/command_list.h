// CommandList: the commands a command buffer recorded, kept for a driver to
// replay or translate.
//
// Every driver records the same way (DeferredCommandBuffer appends here once
// hal::CommandBuffer has validated a call) and differs only in its executor:
// the CPU driver replays the list on the host at each submit, CUDA translates
// it into graph nodes (once) or stream launches (each submit), Vulkan into
// VkCommandBuffers (once per recording). Keeping one list means a command
// kind is defined once, with one meaning of its fields, for all of them.
//
// A command is a std::variant of the kinds below; executors dispatch with
// std::visit over an overload set, so an executor that lacks a case for a
// kind does not compile.
//
// Adding a command kind:
//   1. its public recording call and its validation in hal/command_buffer.h
//      (checked once, for every driver);
//   2. a struct here, added to `Command` (and to ForEachRef if it names
//      buffers), with an Append call;
//   3. its append in DeferredCommandBuffer (deferred_command_buffer.h);
//   4. a case in each executor: CpuCommandBuffer::Execute,
//      GraphCommandBuffer and StreamCommandBuffer (hal/cuda) and
//      VulkanCommandBuffer::Translate. The compiler lists the ones missing.
// Nothing else (queues, submission, semaphores) sees command kinds.
//
// Buffer references are BufferRefs as recorded: a concrete buffer (its range
// resolved, never kWholeBuffer) or a binding-table slot (its length may be
// kWholeBuffer: the rest of whatever buffer the slot holds at submit).
// Resolve turns either into a concrete range for one submission.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "base/ref.h"
#include "hal/buffer.h"
#include "hal/channel.h"
#include "hal/collective.h"
#include "hal/command_buffer.h"
#include "hal/executable.h"

namespace kiln::hal::utils {

// A range of one of the list's pools (constants, bindings, bytes).
struct PoolRange {
  uint32_t begin = 0;
  uint32_t count = 0;
};

// Runs workgroup_count workgroups of export `export_ordinal`; binding i of
// the export's layout is bindings[i] (CommandList::bindings).
struct DispatchCommand {
  Ref<Executable> executable;
  uint32_t export_ordinal = 0;
  std::array<uint32_t, 3> workgroup_count = {1, 1, 1};
  PoolRange constants;
  PoolRange bindings;
};
// memmove semantics: the ranges may overlap. `length` is explicit.
struct CopyCommand {
  BufferRef source;
  BufferRef target;
  size_t length = 0;
};
// Repeats the low `pattern_length` (1, 2 or 4) bytes of `pattern` over the
// target; the pattern's other bytes are zero.
struct FillCommand {
  BufferRef target;
  uint32_t pattern = 0;
  uint32_t pattern_length = 1;
};
// Writes bytes taken at record time (CommandList::data) to the target.
struct UpdateCommand {
  BufferRef target;
  PoolRange data;
};
// Orders every command before it before every command after it.
struct BarrierCommand {};
// Runs a collective (hal/collective.h) over `channel`, one of the device's
// own. `send` and `recv` have the exact lengths the op reads and writes
// (never kWholeBuffer, slots included).
struct CollectiveCommand {
  Ref<Channel> channel;
  CollectiveOp op;
  BufferRef send;
  BufferRef recv;
  uint64_t element_count = 0;
};

using Command = std::variant<DispatchCommand, CopyCommand, FillCommand, UpdateCommand,
                             BarrierCommand, CollectiveCommand>;

// A reference made concrete for one submission.
struct ResolvedRef {
  // Null only for a slot the table lacks: a driver translating the list
  // before its first submit (the table empty) gets no buffer for slots.
  Buffer* buffer = nullptr;
  size_t offset = 0;  // Within `buffer` (add its byte_offset() for the allocation).
  size_t length = 0;
};

// For std::visit: Overloaded{[](const DispatchCommand&) {...}, ...}.
template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

class CommandList {
 public:
  void AppendDispatch(Ref<Executable> executable, uint32_t export_ordinal,
                      std::array<uint32_t, 3> workgroup_count, std::span<const uint32_t> constants,
                      std::span<const BufferRef> bindings);
  void AppendCopy(const BufferRef& source, const BufferRef& target, size_t length);
  void AppendFill(const BufferRef& target, uint32_t pattern, uint32_t pattern_length);
  void AppendUpdate(std::span<const uint8_t> data, const BufferRef& target);
  void AppendBarrier();
  void AppendCollective(Ref<Channel> channel, const CollectiveOp& op, const BufferRef& send,
                        const BufferRef& recv, uint64_t element_count);

  std::span<const Command> commands() const { return commands_; }
  size_t size() const { return commands_.size(); }
  bool empty() const { return commands_.empty(); }
  const Command& operator[](size_t index) const { return commands_[index]; }

  std::span<const uint32_t> constants(const DispatchCommand& dispatch) const {
    return std::span(constants_).subspan(dispatch.constants.begin, dispatch.constants.count);
  }
  std::span<const BufferRef> bindings(const DispatchCommand& dispatch) const {
    return std::span(bindings_).subspan(dispatch.bindings.begin, dispatch.bindings.count);
  }
  std::span<const uint8_t> data(const UpdateCommand& update) const {
    return std::span(bytes_).subspan(update.data.begin, update.data.count);
  }

  // Calls `f(const BufferRef&)` on each reference `command` uses, in order:
  // a dispatch's bindings; a copy's source, then target; a fill's or an
  // update's target; a collective's send, then recv.
  template <typename F>
  void ForEachRef(const Command& command, F&& f) const {
    std::visit(Overloaded{
                   [&](const DispatchCommand& c) {
                     for (const BufferRef& ref : bindings(c)) f(ref);
                   },
                   [&](const CopyCommand& c) {
                     f(c.source);
                     f(c.target);
                   },
                   [&](const FillCommand& c) { f(c.target); },
                   [&](const UpdateCommand& c) { f(c.target); },
                   [&](const BarrierCommand&) {},
                   [&](const CollectiveCommand& c) {
                     f(c.send);
                     f(c.recv);
                   },
               },
               command);
  }
  // Whether `command` names a binding-table slot.
  bool UsesSlots(const Command& command) const;
  // Whether any command does.
  bool uses_slots() const { return slot_count_ != 0; }
  // 1 + the largest slot any command uses (0 when none does).
  uint32_t slot_count() const { return slot_count_; }

  // `ref` for a submission whose binding table is `table` (checked by
  // CommandBuffer::ValidateBindingTable: nothing is checked here, so
  // replaying costs no validation). A slot's kWholeBuffer length becomes the
  // rest of the slot's buffer; a slot past the end of `table` resolves to
  // no buffer (ResolvedRef::buffer null, length 0).
  static ResolvedRef Resolve(const BufferRef& ref, std::span<const Ref<Buffer>> table);

 private:
  void NoteRef(const BufferRef& ref);

  std::vector<Command> commands_;
  std::vector<uint32_t> constants_;
  std::vector<BufferRef> bindings_;
  std::vector<uint8_t> bytes_;
  uint32_t slot_count_ = 0;
};

}  // namespace kiln::hal::utils
