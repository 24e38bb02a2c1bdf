#include "hal/command_buffer.h"

#include <algorithm>
#include <optional>
#include <string>

namespace kiln::hal {

Status CommandBuffer::Begin() {
  if (state_ != State::kInitial) {
    return FailedPreconditionError(
        "command buffer Begin: already begun (a command buffer is "
        "recorded once)");
  }
  KILN_RETURN_IF_ERROR(BeginImpl());
  state_ = State::kRecording;
  return OkStatus();
}

Status CommandBuffer::End() {
  if (state_ != State::kRecording) {
    return FailedPreconditionError("command buffer End: not recording (call Begin first)");
  }
  KILN_RETURN_IF_ERROR(EndImpl());
  state_ = State::kEnded;
  return OkStatus();
}

Status CommandBuffer::CheckRecording(const char* command) const {
  if (state_ == State::kRecording) return OkStatus();
  return FailedPreconditionError(
      std::string("command buffer ") + command + ": " +
      (state_ == State::kInitial ? "recording has not begun" : "recording has ended"));
}

std::string CommandBuffer::RefSite::Describe() const {
  if (command != nullptr) return command;
  return "Dispatch of '" + std::string(export_name) + "' binding " + std::to_string(binding);
}

Result<size_t> CommandBuffer::CheckBufferUse(const Buffer& buffer, size_t offset, size_t length,
                                             BufferUsageBits usage, size_t alignment,
                                             const RefSite& site, int64_t slot) {
  auto what = [&] {
    std::string text = site.Describe();
    if (slot >= 0) text += " (binding-table slot " + std::to_string(slot) + ")";
    return text;
  };
  if ((buffer.allowed_usage() & usage) != usage) {
    return InvalidArgumentError(what() + ": the buffer allows " +
                                FormatBufferUsage(buffer.allowed_usage()) + ", not " +
                                FormatBufferUsage(usage));
  }
  std::optional<size_t> resolved = buffer.ResolveRange(offset, length);
  if (!resolved) return buffer.CheckRange(offset, length, what()).status();
  if (*resolved % alignment != 0) {
    return InvalidArgumentError(what() + ": length " + std::to_string(*resolved) +
                                " is not a multiple of " + std::to_string(alignment));
  }
  return *resolved;
}

Status CommandBuffer::CheckRef(const BufferRef& ref, BufferUsageBits usage, size_t alignment,
                               const RefSite& site, BufferRef* resolved,
                               std::vector<SlotUse>* slot_uses) const {
  *resolved = ref;
  if (ref.offset % alignment != 0) {
    return InvalidArgumentError(site.Describe() + ": offset " + std::to_string(ref.offset) +
                                " is not a multiple of " + std::to_string(alignment));
  }
  if (ref.is_slot()) {
    if (mode_ != CommandBufferMode::kReusable) {
      return InvalidArgumentError(site.Describe() + ": binding-table slot " +
                                  std::to_string(ref.slot) +
                                  " used in a one-shot command buffer (only reusable command "
                                  "buffers take a binding table)");
    }
    slot_uses->push_back({ref.slot, ref.offset, ref.length, usage, alignment, site.command,
                          std::string(site.export_name), site.binding});
    return OkStatus();
  }
  KILN_ASSIGN_OR_RETURN(resolved->length, CheckBufferUse(*ref.buffer, ref.offset, ref.length, usage,
                                                         alignment, site, /*slot=*/-1));
  return OkStatus();
}

Status CommandBuffer::Dispatch(const Ref<Executable>& executable, uint32_t export_ordinal,
                               std::array<uint32_t, 3> workgroup_count,
                               std::span<const uint32_t> constants,
                               std::span<const BufferRef> bindings) {
  KILN_RETURN_IF_ERROR(CheckRecording("Dispatch"));
  if (!executable) return InvalidArgumentError("Dispatch: null executable");
  if (export_ordinal >= executable->exports().size()) {
    return InvalidArgumentError("Dispatch: export ordinal " + std::to_string(export_ordinal) +
                                " is out of range (the executable has " +
                                std::to_string(executable->exports().size()) + " exports)");
  }
  const ExecutableExport& info = executable->export_at(export_ordinal);
  auto where = [&] { return "Dispatch of '" + info.name + "'"; };
  if (constants.size() != info.layout.constant_count) {
    return InvalidArgumentError(where() + ": " + std::to_string(constants.size()) +
                                " constants given but the layout declares " +
                                std::to_string(info.layout.constant_count));
  }
  if (bindings.size() != info.layout.bindings.size()) {
    return InvalidArgumentError(where() + ": " + std::to_string(bindings.size()) +
                                " bindings given but the layout declares " +
                                std::to_string(info.layout.bindings.size()));
  }
  for (int i = 0; i < 3; ++i) {
    if (workgroup_count[i] == 0) {
      return InvalidArgumentError(
          where() + ": workgroup count (" + std::to_string(workgroup_count[0]) + ", " +
          std::to_string(workgroup_count[1]) + ", " + std::to_string(workgroup_count[2]) +
          ") has a zero component "
          "(each must be >= 1)");
    }
  }
  // Resolved into a vector the command buffer keeps: recording a dispatch is
  // on the hot path and allocates nothing here after the first one.
  std::vector<BufferRef>& resolved = resolved_bindings_;
  resolved.resize(bindings.size());
  std::vector<SlotUse> uses;
  Status status;
  for (size_t i = 0; i < bindings.size() && status.ok(); ++i) {
    const RefSite site{nullptr, info.name, static_cast<uint32_t>(i)};
    status = CheckRef(bindings[i], kBufferUsageDispatchStorage, 1, site, &resolved[i], &uses);
  }
  if (status.ok()) {
    status = DispatchImpl(executable, export_ordinal, workgroup_count, constants, resolved);
  }
  // The driver copied what it keeps; the scratch holds no buffers alive.
  resolved.clear();
  if (!status.ok()) return status;
  KeepSlotUses(uses);
  return OkStatus();
}

Status CommandBuffer::CopyBuffer(const BufferRef& source, const BufferRef& target, size_t length) {
  KILN_RETURN_IF_ERROR(CheckRecording("CopyBuffer"));
  if (length == kWholeBuffer) {
    if (source.is_slot()) {
      return InvalidArgumentError("CopyBuffer from binding-table slot " +
                                  std::to_string(source.slot) + " needs an explicit length");
    }
    if (source.offset > source.buffer->byte_length()) {
      return OutOfRangeError("CopyBuffer source: offset " + std::to_string(source.offset) +
                             " is past the end of a buffer of " +
                             std::to_string(source.buffer->byte_length()) + " bytes");
    }
    length = source.buffer->byte_length() - source.offset;
  }
  BufferRef src = source, dst = target;
  src.length = length;
  dst.length = length;
  BufferRef resolved_src, resolved_dst;
  std::vector<SlotUse> uses;
  KILN_RETURN_IF_ERROR(
      CheckRef(src, kBufferUsageTransfer, 1, RefSite{"CopyBuffer source"}, &resolved_src, &uses));
  KILN_RETURN_IF_ERROR(
      CheckRef(dst, kBufferUsageTransfer, 1, RefSite{"CopyBuffer target"}, &resolved_dst, &uses));
  KILN_RETURN_IF_ERROR(CopyBufferImpl(resolved_src, resolved_dst, length));
  KeepSlotUses(uses);
  return OkStatus();
}

Status CommandBuffer::FillBuffer(const BufferRef& target, uint32_t pattern, size_t pattern_length) {
  KILN_RETURN_IF_ERROR(CheckRecording("FillBuffer"));
  if (pattern_length != 1 && pattern_length != 2 && pattern_length != 4) {
    return InvalidArgumentError("FillBuffer: pattern length " + std::to_string(pattern_length) +
                                " (must be 1, 2 or 4 bytes)");
  }
  BufferRef resolved;
  std::vector<SlotUse> uses;
  KILN_RETURN_IF_ERROR(CheckRef(target, kBufferUsageTransfer, pattern_length,
                                RefSite{"FillBuffer target"}, &resolved, &uses));
  KILN_RETURN_IF_ERROR(FillBufferImpl(resolved, pattern, pattern_length));
  KeepSlotUses(uses);
  return OkStatus();
}

Status CommandBuffer::UpdateBuffer(std::span<const uint8_t> data, const BufferRef& target) {
  KILN_RETURN_IF_ERROR(CheckRecording("UpdateBuffer"));
  if (target.length != kWholeBuffer && target.length != data.size()) {
    return InvalidArgumentError("UpdateBuffer: " + std::to_string(data.size()) +
                                " bytes given for a target range of " +
                                std::to_string(target.length));
  }
  BufferRef dst = target;
  dst.length = data.size();
  BufferRef resolved;
  std::vector<SlotUse> uses;
  KILN_RETURN_IF_ERROR(
      CheckRef(dst, kBufferUsageTransfer, 1, RefSite{"UpdateBuffer target"}, &resolved, &uses));
  KILN_RETURN_IF_ERROR(UpdateBufferImpl(data, resolved));
  KeepSlotUses(uses);
  return OkStatus();
}

Status CommandBuffer::ExecutionBarrier() {
  KILN_RETURN_IF_ERROR(CheckRecording("ExecutionBarrier"));
  return ExecutionBarrierImpl();
}

Status CommandBuffer::Collective(const Ref<Channel>& channel, const CollectiveOp& op,
                                 const BufferRef& send, const BufferRef& recv,
                                 uint64_t element_count) {
  KILN_RETURN_IF_ERROR(CheckRecording("Collective"));
  if (!channel)
    return InvalidArgumentError("Collective " + DescribeCollective(op) + ": null channel");
  KILN_ASSIGN_OR_RETURN(CollectiveCounts counts,
                        CollectiveBufferCounts(op, element_count, channel->count()));
  const uint64_t element_bytes = ElementByteSize(op.element_type);
  // CollectiveBufferCounts bounds the counts so that these products fit.
  const size_t send_bytes = counts.send * element_bytes;
  const size_t recv_bytes = counts.recv * element_bytes;
  auto exact = [&](const BufferRef& ref, size_t bytes, const char* role) -> Result<BufferRef> {
    if (ref.length != kWholeBuffer && ref.length != bytes) {
      return InvalidArgumentError("Collective " + DescribeCollective(op) + " " + role +
                                  ": a range of " + std::to_string(ref.length) +
                                  " bytes given for " + std::to_string(bytes) + " bytes (" +
                                  std::to_string(element_count) + " elements among " +
                                  std::to_string(channel->count()) + " participants)");
    }
    BufferRef exact_ref = ref;
    exact_ref.length = bytes;
    return exact_ref;
  };
  KILN_ASSIGN_OR_RETURN(BufferRef send_ref, exact(send, send_bytes, "send"));
  KILN_ASSIGN_OR_RETURN(BufferRef recv_ref, exact(recv, recv_bytes, "recv"));
  BufferRef resolved_send, resolved_recv;
  std::vector<SlotUse> uses;
  KILN_RETURN_IF_ERROR(CheckRef(send_ref, kBufferUsageDispatchStorage, 1,
                                RefSite{"Collective send"}, &resolved_send, &uses));
  KILN_RETURN_IF_ERROR(CheckRef(recv_ref, kBufferUsageDispatchStorage, 1,
                                RefSite{"Collective recv"}, &resolved_recv, &uses));
  if (!send_ref.is_slot() && !recv_ref.is_slot() &&
      send_ref.buffer->allocated_buffer() == recv_ref.buffer->allocated_buffer()) {
    const size_t send_begin = send_ref.buffer->byte_offset() + send_ref.offset;
    const size_t recv_begin = recv_ref.buffer->byte_offset() + recv_ref.offset;
    const bool in_place = send_begin == recv_begin && send_bytes == recv_bytes &&
                          op.kind == CollectiveKind::kAllReduce;
    const bool disjoint =
        send_begin + send_bytes <= recv_begin || recv_begin + recv_bytes <= send_begin;
    if (!in_place && !disjoint && send_bytes != 0 && recv_bytes != 0) {
      return InvalidArgumentError("Collective " + DescribeCollective(op) +
                                  ": the send and recv ranges overlap (only all_reduce may run in "
                                  "place, on identical ranges)");
    }
  }
  KILN_RETURN_IF_ERROR(CollectiveImpl(channel, op, resolved_send, resolved_recv, element_count));
  KeepSlotUses(uses);
  return OkStatus();
}

void CommandBuffer::KeepSlotUses(std::span<const SlotUse> uses) {
  for (const SlotUse& use : uses) {
    if (distinct_slot_uses_.emplace(use.slot, use.offset, use.length, use.usage, use.alignment)
            .second) {
      slot_uses_.push_back(use);
      AddSlotNeeds(use);
    }
  }
}

void CommandBuffer::AddSlotNeeds(const SlotUse& use) {
  SlotNeeds* needs = nullptr;
  for (SlotNeeds& n : slot_needs_) {
    if (n.slot == use.slot) needs = &n;
  }
  if (needs == nullptr) needs = &slot_needs_.emplace_back(SlotNeeds{use.slot});
  // CheckBufferUse passes a use exactly when the buffer allows its usage,
  // offset <= byte length, and then (a length given) length <= byte length
  // - offset, i.e. offset + length <= byte length, or (to the end) nothing
  // more; and the resolved length is a multiple of the alignment.
  needs->usage |= use.usage;
  if (use.length == kWholeBuffer) {
    needs->has_whole_buffer_use = true;
    needs->last_whole_offset = std::max(needs->last_whole_offset, use.offset);
    if (use.alignment != 1) needs->check_each_use = true;
    return;
  }
  size_t end = 0;
  if (use.length % use.alignment != 0 || __builtin_add_overflow(use.offset, use.length, &end)) {
    needs->check_each_use = true;
    return;
  }
  needs->end = std::max(needs->end, end);
}

bool CommandBuffer::SlotNeedsMet(std::span<const Ref<Buffer>> binding_table) const {
  for (const SlotNeeds& needs : slot_needs_) {
    if (needs.check_each_use || needs.slot >= binding_table.size()) return false;
    const Buffer* buffer = binding_table[needs.slot].get();
    if (buffer == nullptr || (buffer->allowed_usage() & needs.usage) != needs.usage ||
        needs.end > buffer->byte_length() ||
        (needs.has_whole_buffer_use && needs.last_whole_offset > buffer->byte_length())) {
      return false;
    }
  }
  return true;
}

Status CommandBuffer::ValidateBindingTable(std::span<const Ref<Buffer>> binding_table) const {
  if (SlotNeedsMet(binding_table)) [[likely]]
    return OkStatus();
  // A use fails (or a slot's uses are checked alone): the first use that
  // fails, in recording order, names the error.
  for (const SlotUse& use : slot_uses_) {
    if (use.slot >= binding_table.size() || !binding_table[use.slot]) {
      return InvalidArgumentError(
          use.site().Describe() + ": binding-table slot " + std::to_string(use.slot) +
          (use.slot >= binding_table.size() ? " is out of range (the table has " +
                                                  std::to_string(binding_table.size()) + " entries)"
                                            : " is empty"));
    }
    KILN_RETURN_IF_ERROR(CheckBufferUse(*binding_table[use.slot], use.offset, use.length, use.usage,
                                        use.alignment, use.site(), use.slot)
                             .status());
  }
  return OkStatus();
}

namespace {

Status ResubmittedError(size_t index) {
  return FailedPreconditionError("QueueExecute: command buffer " + std::to_string(index) +
                                 ": a one-shot command buffer was submitted a second time");
}

}  // namespace

Status CommandBuffer::ValidateSubmission(std::span<const Ref<CommandBuffer>> command_buffers,
                                         std::span<const Ref<Buffer>> binding_table) {
  for (size_t i = 0; i < command_buffers.size(); ++i) {
    auto where = [i] { return "QueueExecute: command buffer " + std::to_string(i); };
    const CommandBuffer* command_buffer = command_buffers[i].get();
    if (command_buffer == nullptr) return InvalidArgumentError(where() + " is null");
    if (!command_buffer->is_ended()) {
      return FailedPreconditionError(where() + " has not ended recording (call End first)");
    }
    Status valid = command_buffer->ValidateBindingTable(binding_table);
    if (!valid.ok()) return valid.WithContext(where());
    if (command_buffer->mode() != CommandBufferMode::kOneShot) continue;
    bool repeated = command_buffer->submitted();
    for (size_t j = 0; j < i; ++j) repeated |= command_buffers[j].get() == command_buffer;
    if (repeated) return ResubmittedError(i);
  }
  return OkStatus();
}

Status CommandBuffer::ClaimSubmission(std::span<const Ref<CommandBuffer>> command_buffers) {
  for (size_t i = 0; i < command_buffers.size(); ++i) {
    CommandBuffer* command_buffer = command_buffers[i].get();
    if (command_buffer->mode() != CommandBufferMode::kOneShot) continue;
    if (!command_buffer->submitted_.exchange(true, std::memory_order_acq_rel)) continue;
    // Claimed by a racing submission: give back what this one took.
    ReleaseSubmission(command_buffers.first(i));
    return ResubmittedError(i);
  }
  return OkStatus();
}

void CommandBuffer::ReleaseSubmission(std::span<const Ref<CommandBuffer>> command_buffers) {
  for (const Ref<CommandBuffer>& command_buffer : command_buffers) {
    if (command_buffer->mode() == CommandBufferMode::kOneShot) {
      command_buffer->submitted_.store(false, std::memory_order_release);
    }
  }
}

}  // namespace kiln::hal
