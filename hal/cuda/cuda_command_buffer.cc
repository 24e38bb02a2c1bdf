#include "hal/cuda/cuda_command_buffer.h"

#include <cstring>

#include "hal/cuda/cuda_executable.h"

namespace kiln::hal::cuda {

CudaCommandBuffer::~CudaCommandBuffer() = default;

template <typename Describe>
Status CudaCommandBuffer::AddRange(const BufferRef& ref, const Describe& what) {
  Range range;
  range.offset = ref.offset;
  range.length = ref.length;
  if (ref.is_slot()) {
    range.slot = ref.slot;
  } else {
    const CudaBuffer* allocation = CudaAllocationOf(*ref.buffer, *context_);
    if (allocation == nullptr) return ForeignBufferError(*ref.buffer, *context_, what());
    range.base = allocation->device_pointer() + ref.buffer->byte_offset() + ref.offset;
    range.buffer = ref.buffer;
  }
  ranges_.push_back(std::move(range));
  return OkStatus();
}

void CudaCommandBuffer::Append(const Command& command) {
  uses_slots_ = uses_slots_ || command.uses_slots;
  commands_.push_back(command);
}

Status CudaCommandBuffer::DispatchImpl(const Ref<Executable>& executable, uint32_t export_ordinal,
                                       std::array<uint32_t, 3> workgroup_count,
                                       std::span<const uint32_t> constants,
                                       std::span<const BufferRef> bindings) {
  const auto* cuda_executable = dynamic_cast<const CudaExecutable*>(executable.get());
  const ExecutableExport& info = executable->export_at(export_ordinal);
  if (cuda_executable == nullptr || &cuda_executable->context() != context_.get()) {
    return InvalidArgumentError("Dispatch of '" + info.name +
                                "': the executable was not loaded on this CUDA device");
  }
  // CUDA's grid limits: 2^31 - 1 blocks in x, 65535 in y and z.
  if (workgroup_count[0] > 0x7fffffffu || workgroup_count[1] > 65535 ||
      workgroup_count[2] > 65535) {
    return InvalidArgumentError(
        "Dispatch of '" + info.name + "': workgroup count (" + std::to_string(workgroup_count[0]) +
        ", " + std::to_string(workgroup_count[1]) + ", " + std::to_string(workgroup_count[2]) +
        ") exceeds CUDA's grid limits (2147483647, 65535, 65535)");
  }
  const size_t ranges_before = ranges_.size();
  bool uses_slots = false;
  for (size_t i = 0; i < bindings.size(); ++i) {
    Status added = AddRange(bindings[i], [&] {
      return "Dispatch of '" + info.name + "' binding " + std::to_string(i);
    });
    if (!added.ok()) {
      ranges_.resize(ranges_before);
      return added;
    }
    uses_slots = uses_slots || bindings[i].is_slot();
  }
  Command command;
  command.kind = Command::Kind::kDispatch;
  command.function = cuda_executable->kernel(export_ordinal).function;
  command.shared_memory_bytes = cuda_executable->kernel(export_ordinal).shared_memory_bytes;
  for (int i = 0; i < 3; ++i) {
    command.grid[i] = workgroup_count[i];
    command.block[i] = info.workgroup_size[i];
  }
  command.first_range = static_cast<uint32_t>(ranges_before);
  command.binding_count = static_cast<uint32_t>(bindings.size());
  command.first_constant = static_cast<uint32_t>(constants_.size());
  command.constant_count = static_cast<uint32_t>(constants.size());
  command.uses_slots = uses_slots;
  constants_.insert(constants_.end(), constants.begin(), constants.end());
  max_params_ = std::max(max_params_, command.binding_count + command.constant_count);
  Append(command);
  return OkStatus();
}

Status CudaCommandBuffer::FillBufferImpl(const BufferRef& target, uint32_t pattern,
                                         size_t pattern_length) {
  const size_t ranges_before = ranges_.size();
  KILN_RETURN_IF_ERROR(AddRange(target, [] { return "FillBuffer target"; }));
  Command command;
  command.kind = Command::Kind::kFill;
  command.first_range = static_cast<uint32_t>(ranges_before);
  command.pattern = pattern_length == 4   ? pattern
                    : pattern_length == 2 ? (pattern & 0xffffu)
                                          : (pattern & 0xffu);
  command.pattern_length = static_cast<uint32_t>(pattern_length);
  command.length = target.length;
  command.uses_slots = target.is_slot();
  Append(command);
  return OkStatus();
}

Status CudaCommandBuffer::CopyBufferImpl(const BufferRef& source, const BufferRef& target,
                                         size_t length) {
  const size_t ranges_before = ranges_.size();
  KILN_RETURN_IF_ERROR(AddRange(source, [] { return "CopyBuffer source"; }));
  Status added = AddRange(target, [] { return "CopyBuffer target"; });
  if (!added.ok()) {
    ranges_.resize(ranges_before);
    return added;
  }
  Command command;
  command.kind = Command::Kind::kCopy;
  command.first_range = static_cast<uint32_t>(ranges_before);
  command.length = length;
  command.uses_slots = source.is_slot() || target.is_slot();
  Append(command);
  return OkStatus();
}

Status CudaCommandBuffer::UpdateBufferImpl(std::span<const uint8_t> data, const BufferRef& target) {
  // The data is taken now: copy it into device memory this command buffer
  // owns, and record a copy from there.
  BufferParams params;
  params.memory_type = kMemoryTypeDeviceLocal;
  params.usage = kBufferUsageTransfer | kBufferUsageMapping;
  KILN_ASSIGN_OR_RETURN(Ref<CudaBuffer> staging,
                        CudaBuffer::Allocate(context_, params, data.size()));
  KILN_RETURN_IF_ERROR(staging->WriteData(0, data));
  KILN_RETURN_IF_ERROR(
      CopyBufferImpl(BufferRef::Of(Ref<Buffer>(staging), 0, data.size()), target, data.size()));
  staging_.push_back(Ref<Buffer>(std::move(staging)));
  return OkStatus();
}

Status CudaCommandBuffer::ExecutionBarrierImpl() {
  Command command;
  command.kind = Command::Kind::kBarrier;
  Append(command);
  return OkStatus();
}

CUdeviceptr CudaCommandBuffer::Address(const Range& range, std::span<const Ref<Buffer>> table) {
  if (!range.is_slot()) return range.base;
  // Before the first submit (a graph built at End) slots have no address.
  if (range.slot >= table.size()) return 0;
  const Buffer& buffer = *table[range.slot];
  const auto* allocation = static_cast<const CudaBuffer*>(buffer.allocated_buffer());
  return allocation->device_pointer() + buffer.byte_offset() + range.offset;
}

size_t CudaCommandBuffer::Length(const Range& range, std::span<const Ref<Buffer>> table) {
  if (range.length != kWholeBuffer) return range.length;
  return table[range.slot]->byte_length() - range.offset;
}

size_t CudaCommandBuffer::ResolvedLength(const Command& command,
                                         std::span<const Ref<Buffer>> table) const {
  if (command.length != kWholeBuffer) return command.length;
  // Fills take the rest of the target (copies always have a length).
  return Length(ranges_[command.first_range], table);
}

void CudaCommandBuffer::PackKernelParams(const Command& command, std::span<const Ref<Buffer>> table,
                                         uint64_t* values, void** pointers) const {
  uint32_t p = 0;
  for (uint32_t i = 0; i < command.binding_count; ++i, ++p) {
    values[p] = Address(ranges_[command.first_range + i], table);
    pointers[p] = &values[p];
  }
  for (uint32_t i = 0; i < command.constant_count; ++i, ++p) {
    // A 32-bit parameter: the driver copies 4 bytes from the pointer (the
    // low half of the 64-bit slot on this little-endian host).
    values[p] = constants_[command.first_constant + i];
    pointers[p] = &values[p];
  }
}

}  // namespace kiln::hal::cuda
