#include "hal/utils/deferred_command_buffer.h"

namespace kiln::hal::utils {

std::string BufferSite::Describe() const {
  if (dispatch == nullptr) return command;
  return "Dispatch of '" + dispatch->name + "' binding " + std::to_string(binding);
}

Status DeferredCommandBuffer::CheckConcrete(const BufferRef& ref, const BufferSite& site) {
  return ref.is_slot() ? OkStatus() : CheckBuffer(ref, site);
}

Status DeferredCommandBuffer::DispatchImpl(const Ref<Executable>& executable,
                                           uint32_t export_ordinal,
                                           std::array<uint32_t, 3> workgroup_count,
                                           std::span<const uint32_t> constants,
                                           std::span<const BufferRef> bindings) {
  KILN_RETURN_IF_ERROR(CheckDispatch(*executable, export_ordinal, workgroup_count));
  const ExecutableExport& info = executable->export_at(export_ordinal);
  for (size_t i = 0; i < bindings.size(); ++i) {
    KILN_RETURN_IF_ERROR(CheckConcrete(
        bindings[i],
        BufferSite{nullptr, &info, static_cast<uint32_t>(i), executable.get(), export_ordinal}));
  }
  commands_.AppendDispatch(executable, export_ordinal, workgroup_count, constants, bindings);
  return OkStatus();
}

Status DeferredCommandBuffer::CopyBufferImpl(const BufferRef& source, const BufferRef& target,
                                             size_t length) {
  KILN_RETURN_IF_ERROR(CheckConcrete(source, BufferSite{"CopyBuffer source"}));
  KILN_RETURN_IF_ERROR(CheckConcrete(target, BufferSite{"CopyBuffer target"}));
  commands_.AppendCopy(source, target, length);
  return OkStatus();
}

Status DeferredCommandBuffer::FillBufferImpl(const BufferRef& target, uint32_t pattern,
                                             size_t pattern_length) {
  KILN_RETURN_IF_ERROR(CheckConcrete(target, BufferSite{"FillBuffer target"}));
  commands_.AppendFill(target, pattern, static_cast<uint32_t>(pattern_length));
  return OkStatus();
}

Status DeferredCommandBuffer::UpdateBufferImpl(std::span<const uint8_t> data,
                                               const BufferRef& target) {
  KILN_RETURN_IF_ERROR(CheckConcrete(target, BufferSite{"UpdateBuffer target"}));
  commands_.AppendUpdate(data, target);
  return OkStatus();
}

Status DeferredCommandBuffer::CheckChannel(const Channel& channel) {
  return UnavailableError(
      "this device's driver has no collectives (channels are made by the cpu "
      "and cuda drivers)");
}

Status DeferredCommandBuffer::CollectiveImpl(const Ref<Channel>& channel, const CollectiveOp& op,
                                             const BufferRef& send, const BufferRef& recv,
                                             uint64_t element_count) {
  KILN_RETURN_IF_ERROR(CheckChannel(*channel));
  KILN_RETURN_IF_ERROR(CheckCollective(*channel, op));
  KILN_RETURN_IF_ERROR(CheckConcrete(send, BufferSite{"Collective send"}));
  KILN_RETURN_IF_ERROR(CheckConcrete(recv, BufferSite{"Collective recv"}));
  commands_.AppendCollective(channel, op, send, recv, element_count);
  return OkStatus();
}

Status DeferredCommandBuffer::ExecutionBarrierImpl() {
  commands_.AppendBarrier();
  return OkStatus();
}

}  // namespace kiln::hal::utils
