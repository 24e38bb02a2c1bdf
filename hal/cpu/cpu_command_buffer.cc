#include "hal/cpu/cpu_command_buffer.h"

#include <cstring>
#include <mutex>
#include <string>

#include "hal/cpu/host_allocator.h"

namespace kiln::hal::cpu {
namespace {

// A recorded range made concrete for one execution.
struct HostRange {
  uint8_t* data;
  size_t length;
};

// Resolves a recorded reference for one execution. Nothing is checked here:
// concrete references were checked when recorded (range and usage by
// CommandBuffer, host allocation by CheckHostBuffer below) and binding-table
// slots at submit (CommandBuffer::ValidateBindingTable and QueueExecute's
// host-allocation check), so executing a command buffer again costs no
// validation.
HostRange Resolve(const BufferRef& ref, std::span<const Ref<Buffer>> binding_table) {
  Buffer* buffer = ref.is_slot() ? binding_table[ref.slot].get() : ref.buffer.get();
  const size_t length =
      ref.length == kWholeBuffer ? buffer->byte_length() - ref.offset : ref.length;
  auto* host = static_cast<HostBuffer*>(buffer->allocated_buffer());
  return HostRange{host->data() + buffer->byte_offset() + ref.offset, length};
}

// A concrete reference must name memory this driver can address (slots are
// checked at submit).
template <typename Describe>
Status CheckHostBuffer(const BufferRef& ref, const Describe& what) {
  if (ref.is_slot() || dynamic_cast<HostBuffer*>(ref.buffer->allocated_buffer()) != nullptr) {
    return OkStatus();
  }
  return InvalidArgumentError(what() + ": the buffer was not allocated by a CPU device");
}

std::string FormatTriple(const uint32_t v[3]) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
         ")";
}

}  // namespace

Status CpuCommandBuffer::DispatchImpl(const Ref<Executable>& executable, uint32_t export_ordinal,
                                      std::array<uint32_t, 3> workgroup_count,
                                      std::span<const uint32_t> constants,
                                      std::span<const BufferRef> bindings) {
  auto* cpu_executable = dynamic_cast<CpuExecutable*>(executable.get());
  if (cpu_executable == nullptr) {
    return InvalidArgumentError("Dispatch: the " + executable->format() +
                                " executable was not created by a CPU device");
  }
  for (size_t i = 0; i < bindings.size(); ++i) {
    KILN_RETURN_IF_ERROR(CheckHostBuffer(bindings[i], [&] {
      return "Dispatch of '" + executable->export_at(export_ordinal).name + "' binding " +
             std::to_string(i);
    }));
  }
  commands_.push_back(DispatchCommand{Ref<CpuExecutable>(cpu_executable), export_ordinal,
                                      workgroup_count,
                                      std::vector<uint32_t>(constants.begin(), constants.end()),
                                      std::vector<BufferRef>(bindings.begin(), bindings.end())});
  return OkStatus();
}

Status CpuCommandBuffer::CopyBufferImpl(const BufferRef& source, const BufferRef& target,
                                        size_t length) {
  KILN_RETURN_IF_ERROR(CheckHostBuffer(source, [] { return std::string("CopyBuffer source"); }));
  KILN_RETURN_IF_ERROR(CheckHostBuffer(target, [] { return std::string("CopyBuffer target"); }));
  commands_.push_back(CopyCommand{source, target, length});
  return OkStatus();
}

Status CpuCommandBuffer::FillBufferImpl(const BufferRef& target, uint32_t pattern,
                                        size_t pattern_length) {
  KILN_RETURN_IF_ERROR(CheckHostBuffer(target, [] { return std::string("FillBuffer target"); }));
  commands_.push_back(FillCommand{target, pattern, pattern_length});
  return OkStatus();
}

Status CpuCommandBuffer::UpdateBufferImpl(std::span<const uint8_t> data, const BufferRef& target) {
  KILN_RETURN_IF_ERROR(CheckHostBuffer(target, [] { return std::string("UpdateBuffer target"); }));
  commands_.push_back(UpdateCommand{std::vector<uint8_t>(data.begin(), data.end()), target});
  return OkStatus();
}

Status CpuCommandBuffer::RunDispatch(const DispatchCommand& command,
                                     std::span<const Ref<Buffer>> binding_table,
                                     ThreadPool* pool) const {
  const ExecutableExport& info = command.executable->export_at(command.export_ordinal);
  kiln_hal_kernel_fn kernel = command.executable->function(command.export_ordinal);
  std::vector<void*> pointers(command.bindings.size());
  std::vector<size_t> lengths(command.bindings.size());
  for (size_t i = 0; i < command.bindings.size(); ++i) {
    HostRange range = Resolve(command.bindings[i], binding_table);
    pointers[i] = range.data;
    lengths[i] = range.length;
  }
  kiln_hal_dispatch_state_t base = {};
  for (int i = 0; i < 3; ++i) {
    base.workgroup_count[i] = command.workgroup_count[i];
    base.workgroup_size[i] = info.workgroup_size[i];
  }
  base.constant_count = static_cast<uint32_t>(command.constants.size());
  base.constants = command.constants.data();
  base.binding_count = static_cast<uint32_t>(pointers.size());
  base.bindings = pointers.data();
  base.binding_lengths = lengths.data();

  const uint64_t count_x = command.workgroup_count[0];
  const uint64_t count_xy = count_x * command.workgroup_count[1];
  const uint64_t total = count_xy * command.workgroup_count[2];
  std::mutex failure_mutex;
  Status failure;
  auto run_workgroup = [&](uint64_t index) {
    kiln_hal_dispatch_state_t state = base;
    state.workgroup_id[0] = static_cast<uint32_t>(index % count_x);
    state.workgroup_id[1] = static_cast<uint32_t>((index % count_xy) / count_x);
    state.workgroup_id[2] = static_cast<uint32_t>(index / count_xy);
    int code = kernel(&state);
    if (code == 0) return true;
    std::lock_guard<std::mutex> lock(failure_mutex);
    if (failure.ok()) {
      failure = InternalError(
          "kernel '" + info.name + "' (export " + std::to_string(command.export_ordinal) +
          " of a " + command.executable->format() + " executable) failed in workgroup " +
          FormatTriple(state.workgroup_id) + " of " + FormatTriple(state.workgroup_count) +
          " with return code " + std::to_string(code));
    }
    return false;
  };
  if (pool != nullptr) {
    pool->ParallelFor(total, run_workgroup);
  } else {
    for (uint64_t i = 0; i < total; ++i) {
      if (!run_workgroup(i)) break;
    }
  }
  return failure;
}

Status CpuCommandBuffer::Execute(std::span<const Ref<Buffer>> binding_table,
                                 ThreadPool* pool) const {
  for (const Command& command : commands_) {
    if (const auto* dispatch = std::get_if<DispatchCommand>(&command)) {
      KILN_RETURN_IF_ERROR(RunDispatch(*dispatch, binding_table, pool));
    } else if (const auto* copy = std::get_if<CopyCommand>(&command)) {
      HostRange source = Resolve(copy->source, binding_table);
      HostRange target = Resolve(copy->target, binding_table);
      std::memmove(target.data, source.data, copy->length);
    } else if (const auto* fill = std::get_if<FillCommand>(&command)) {
      HostRange target = Resolve(fill->target, binding_table);
      if (fill->pattern_length == 1) {
        std::memset(target.data, static_cast<uint8_t>(fill->pattern), target.length);
      } else {
        for (size_t i = 0; i < target.length; i += fill->pattern_length) {
          std::memcpy(target.data + i, &fill->pattern, fill->pattern_length);
        }
      }
    } else if (const auto* update = std::get_if<UpdateCommand>(&command)) {
      HostRange target = Resolve(update->target, binding_table);
      if (!update->data.empty()) {
        std::memcpy(target.data, update->data.data(), update->data.size());
      }
    }
  }
  return OkStatus();
}

}  // namespace kiln::hal::cpu
