// CommandBuffer: a recorded sequence of dispatches and transfers that a
// device queue executes.
//
// Recording happens between Begin and End; the commands run, in order, when
// the command buffer is passed to Device::QueueExecute. Within a command
// buffer, ExecutionBarrier orders everything before it before everything
// after it (a driver may overlap commands between barriers).
//
// Two modes:
//   - one-shot: submitted once, then done (FAILED_PRECONDITION if submitted
//     again);
//   - reusable: recorded once and submitted many times ("record once, replay
//     many"). Its buffer references may name binding-table slots instead of
//     buffers; each submission passes the table, so the same recording runs
//     on different buffers without re-recording.
//
// Every command is validated while it is recorded, by this base class, before
// the driver sees it: the export ordinal is in range, the dispatch passes as
// many constants and bindings as the export's layout declares, each
// workgroup count component is >= 1 (zero is an error, not a no-op), and
// every concrete buffer range lies inside its buffer with the usage the
// command needs. Ranges of binding-table slots are checked at submit.
// A failed recording call leaves the command buffer unchanged.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/buffer.h"
#include "hal/channel.h"
#include "hal/collective.h"
#include "hal/executable.h"

namespace kiln::hal {

enum class CommandBufferMode : uint8_t {
  kOneShot,
  kReusable,
};

// A byte range of either a concrete buffer or a binding-table slot.
struct BufferRef {
  Ref<Buffer> buffer;  // Null when `slot` is used.
  uint32_t slot = 0;   // Binding-table index, when buffer is null.
  size_t offset = 0;
  size_t length = kWholeBuffer;

  static BufferRef Of(Ref<Buffer> buffer, size_t offset = 0, size_t length = kWholeBuffer) {
    return {std::move(buffer), 0, offset, length};
  }
  static BufferRef Slot(uint32_t slot, size_t offset = 0, size_t length = kWholeBuffer) {
    return {nullptr, slot, offset, length};
  }
  bool is_slot() const { return !buffer; }
};

class CommandBuffer : public RefObject {
 public:
  CommandBufferMode mode() const { return mode_; }
  bool is_recording() const { return state_ == State::kRecording; }
  bool is_ended() const { return state_ == State::kEnded; }

  Status Begin();
  Status End();

  // Runs workgroup_count[0] * [1] * [2] workgroups of export
  // `export_ordinal`, each with `constants` and the buffer ranges
  // `bindings` (binding i of the layout is bindings[i]).
  Status Dispatch(const Ref<Executable>& executable, uint32_t export_ordinal,
                  std::array<uint32_t, 3> workgroup_count, std::span<const uint32_t> constants,
                  std::span<const BufferRef> bindings);
  // Copies `length` bytes (kWholeBuffer: the rest of the source).
  Status CopyBuffer(const BufferRef& source, const BufferRef& target, size_t length);
  // Repeats the low 1, 2 or 4 bytes of `pattern` (in little-endian order)
  // over the target range, whose offset and length must be multiples of the
  // pattern size.
  Status FillBuffer(const BufferRef& target, uint32_t pattern, size_t pattern_length);
  // Copies `data` (taken now, at record time) into the target.
  Status UpdateBuffer(std::span<const uint8_t> data, const BufferRef& target);
  Status ExecutionBarrier();
  // Runs collective `op` (collective.h) over `channel` with this
  // participant's `send` and `recv` ranges, whose element counts follow from
  // `element_count` and the channel's participant count
  // (CollectiveBufferCounts). A range given as kWholeBuffer takes exactly the
  // bytes the op needs; an explicit length must equal them. Checked like a
  // dispatch binding (usage dispatch storage; slot ranges at submit). The
  // send and recv ranges of a concrete buffer must be disjoint or, for
  // all_reduce only, identical (in place). The channel must be one of this
  // device's (checked by the driver).
  Status Collective(const Ref<Channel>& channel, const CollectiveOp& op, const BufferRef& send,
                    const BufferRef& recv, uint64_t element_count);

  // Checks, at submit, that every slot the recording uses exists in
  // `binding_table` and that its ranges fit (the table's buffers are only
  // known then). Devices call it from QueueExecute.
  Status ValidateBindingTable(std::span<const Ref<Buffer>> binding_table) const;

  // What every device checks of a submission's command buffers (after
  // checking they are its own), naming the index of the one at fault: each
  // has ended recording, `binding_table` holds every slot it uses with
  // ranges that fit (ValidateBindingTable), and no one-shot command buffer
  // was submitted before or is listed twice (FAILED_PRECONDITION).
  static Status ValidateSubmission(std::span<const Ref<CommandBuffer>> command_buffers,
                                   std::span<const Ref<Buffer>> binding_table);
  // One-shot command buffers run once. A validated submission claims its
  // one-shot command buffers (from then on they read as submitted) and
  // gives the claims back if it does not happen; hal/utils/submission.h
  // is the one place drivers do both, and says why there. The claim is a
  // test-and-set: if another submission claimed one of them since this one
  // was validated, it fails as ValidateSubmission would, claiming none.
  static Status ClaimSubmission(std::span<const Ref<CommandBuffer>> command_buffers);
  static void ReleaseSubmission(std::span<const Ref<CommandBuffer>> command_buffers);
  bool submitted() const { return submitted_.load(std::memory_order_acquire); }

 protected:
  explicit CommandBuffer(CommandBufferMode mode) : mode_(mode) {}

  // Driver hooks, called after validation. Ranges are resolved: no
  // kWholeBuffer reaches them for concrete buffers (slot ranges may still
  // be kWholeBuffer, resolved at submit).
  virtual Status BeginImpl() { return OkStatus(); }
  virtual Status EndImpl() { return OkStatus(); }
  virtual Status DispatchImpl(const Ref<Executable>& executable, uint32_t export_ordinal,
                              std::array<uint32_t, 3> workgroup_count,
                              std::span<const uint32_t> constants,
                              std::span<const BufferRef> bindings) = 0;
  virtual Status CopyBufferImpl(const BufferRef& source, const BufferRef& target,
                                size_t length) = 0;
  virtual Status FillBufferImpl(const BufferRef& target, uint32_t pattern,
                                size_t pattern_length) = 0;
  virtual Status UpdateBufferImpl(std::span<const uint8_t> data, const BufferRef& target) = 0;
  virtual Status ExecutionBarrierImpl() = 0;
  // `send` and `recv` have exact lengths (never kWholeBuffer).
  virtual Status CollectiveImpl(const Ref<Channel>& channel, const CollectiveOp& op,
                                const BufferRef& send, const BufferRef& recv,
                                uint64_t element_count) = 0;

 private:
  enum class State : uint8_t { kInitial, kRecording, kEnded };
  // Where a buffer reference is used ("CopyBuffer source", "Dispatch of 'f'
  // binding 2"). Rendered only when an error needs it, so recording and
  // submitting build no strings.
  struct RefSite {
    const char* command = nullptr;      // For non-dispatch commands.
    std::string_view export_name = {};  // Dispatches: the export (command is null).
    uint32_t binding = 0;               // Dispatches: the binding index.
    std::string Describe() const;
  };
  struct SlotUse {
    uint32_t slot;
    size_t offset;
    size_t length;  // May be kWholeBuffer.
    BufferUsageBits usage;
    size_t alignment;  // The resolved length must be a multiple of it.
    // The RefSite of the use, owned (it outlives the recording call).
    const char* command;
    std::string export_name;
    uint32_t binding;
    RefSite site() const { return {command, export_name, binding}; }
  };

  Status CheckRecording(const char* command) const;
  // Validates a concrete range (resolving kWholeBuffer into `resolved`) or
  // remembers a slot use for submit-time validation.
  Status CheckRef(const BufferRef& ref, BufferUsageBits usage, size_t alignment,
                  const RefSite& site, BufferRef* resolved, std::vector<SlotUse>* slot_uses) const;
  // The usage, range and alignment checks shared by a concrete reference at
  // record time and a binding-table slot at submit. `slot` >= 0 adds
  // "(binding-table slot N)" to the message.
  static Result<size_t> CheckBufferUse(const Buffer& buffer, size_t offset, size_t length,
                                       BufferUsageBits usage, size_t alignment, const RefSite& site,
                                       int64_t slot);

  // Keeps the submit-time checks of `uses`, once per distinct use: identical
  // uses (a chain of dispatches on one slot) pass or fail together, and the
  // first one recorded names them, so a submit checks each once.
  void KeepSlotUses(std::span<const SlotUse> uses);

  // What the uses of one slot need of its buffer, together: the table
  // passes every use of the slot exactly when its buffer is there, allows
  // `usage`, holds `end` bytes and, for the uses that run to the end of the
  // buffer, starts no later than its end. ValidateBindingTable checks a
  // submit's table against these, one per slot (a model's recording uses a
  // slot in many ranges: one per dispatch of an arena), and the uses one by
  // one, as before, only for an error that names the first failing use.
  struct SlotNeeds {
    uint32_t slot;
    BufferUsageBits usage = 0;
    // Set when a use has a check the summary cannot state (a use to the end
    // of the buffer with an alignment above 1: the remaining length decides;
    // a length that is not a multiple of its alignment or whose end
    // overflows: it always fails): the slot's uses are checked one by one.
    bool check_each_use = false;
    bool has_whole_buffer_use = false;
    size_t end = 0;                // The largest offset + length of the uses with a length.
    size_t last_whole_offset = 0;  // The largest offset of the uses to the end.
  };
  void AddSlotNeeds(const SlotUse& use);
  // Whether every slot use passes under `binding_table` (the summaries say
  // exactly that); false when one of them fails or must be checked alone.
  bool SlotNeedsMet(std::span<const Ref<Buffer>> binding_table) const;

  CommandBufferMode mode_;
  State state_ = State::kInitial;
  std::atomic<bool> submitted_{false};  // One-shot: accepted by a queue.
  std::vector<SlotUse> slot_uses_;
  std::vector<SlotNeeds> slot_needs_;  // One per slot slot_uses_ name.
  // (slot, offset, length, usage, alignment) of each of slot_uses_.
  std::set<std::tuple<uint32_t, size_t, size_t, BufferUsageBits, size_t>> distinct_slot_uses_;
  std::vector<BufferRef> resolved_bindings_;  // Dispatch's scratch, empty between calls.
};

}  // namespace kiln::hal
