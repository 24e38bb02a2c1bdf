#include "hal/cpu/cpu_command_buffer.h"

#include <cstring>
#include <mutex>
#include <string>

#include "hal/cpu/cpu_channel.h"
#include "hal/cpu/host_allocator.h"
#include "hal/utils/dispatch_spans.h"
#include "hal/utils/library_call_spec.h"

namespace kiln::hal::cpu {
namespace {

// A recorded range made concrete for one execution. Nothing is checked
// here: concrete references were checked when recorded (range and usage by
// CommandBuffer, host allocation by CheckBuffer below) and binding-table
// slots at submit (CommandBuffer::ValidateBindingTable and the device's
// host-allocation check), so executing a command buffer again costs no
// validation.
struct HostRange {
  uint8_t* data;
  size_t length;
};

HostRange Resolve(const BufferRef& ref, std::span<const Ref<Buffer>> binding_table) {
  const utils::ResolvedRef resolved = utils::CommandList::Resolve(ref, binding_table);
  auto* host = static_cast<HostBuffer*>(resolved.buffer->allocated_buffer());
  return HostRange{host->data() + resolved.buffer->byte_offset() + resolved.offset,
                   resolved.length};
}

std::string FormatTriple(const uint32_t v[3]) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
         ")";
}

// The error of a library-call binding smaller than the call needs.
Status TooSmallError(const std::string& site, const CpuLibraryCall& call, uint64_t required,
                     uint64_t length) {
  return utils::LibraryBindingTooSmallError(site, call.description(), required, length);
}

}  // namespace

Status CpuCommandBuffer::CheckDispatch(const Executable& executable, uint32_t export_ordinal,
                                       std::array<uint32_t, 3> workgroup_count) {
  if (dynamic_cast<const CpuExecutable*>(&executable) == nullptr) {
    return InvalidArgumentError("Dispatch: the " + executable.format() +
                                " executable was not created by a CPU device");
  }
  return OkStatus();
}

Status CpuCommandBuffer::CheckBuffer(const BufferRef& ref, const utils::BufferSite& site) {
  if (dynamic_cast<HostBuffer*>(ref.buffer->allocated_buffer()) == nullptr) {
    return InvalidArgumentError(site.Describe() + ": the buffer was not allocated by a CPU device");
  }
  if (!site.is_dispatch_binding() || site.executable == nullptr) return OkStatus();
  // CheckDispatch has made sure it is a CpuExecutable.
  const CpuLibraryCall* call =
      static_cast<const CpuExecutable&>(*site.executable).library_call(site.export_ordinal);
  if (call == nullptr) return OkStatus();
  // Concrete ranges arrive resolved (never kWholeBuffer).
  const uint64_t required = call->RequiredBytes(site.binding);
  if (ref.length >= required) return OkStatus();
  return TooSmallError(site.Describe(), *call, required, ref.length);
}

Status CpuCommandBuffer::CheckChannel(const Channel& channel) {
  if (dynamic_cast<const CpuChannel*>(&channel) == nullptr) {
    return InvalidArgumentError("Collective: the channel was not created by a CPU device");
  }
  return OkStatus();
}

Status CpuCommandBuffer::RunDispatch(const utils::DispatchCommand& command,
                                     std::span<const Ref<Buffer>> binding_table,
                                     ThreadPool* pool) const {
  // Checked when recorded (CheckDispatch).
  const auto& executable = static_cast<const CpuExecutable&>(*command.executable);
  const ExecutableExport& info = executable.export_at(command.export_ordinal);
  kiln_hal_kernel_fn kernel = executable.function(command.export_ordinal);
  const std::span<const BufferRef> bindings = command_list().bindings(command);
  const std::span<const uint32_t> constants = command_list().constants(command);
  std::vector<void*> pointers(bindings.size());
  std::vector<size_t> lengths(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    HostRange range = Resolve(bindings[i], binding_table);
    pointers[i] = range.data;
    lengths[i] = range.length;
  }
  if (const CpuLibraryCall* call = executable.library_call(command.export_ordinal)) {
    // Binding-table slots are only known now (concrete ranges were checked
    // when recorded; checking them again costs a comparison each).
    for (uint32_t i = 0; i < bindings.size(); ++i) {
      const uint64_t required = call->RequiredBytes(i);
      if (lengths[i] >= required) continue;
      utils::BufferSite site{nullptr, &info, i};
      return TooSmallError(site.Describe(), *call, required, lengths[i]);
    }
    // Once per dispatch: the library spreads the call over its own threads.
    Status status = call->Execute(pointers, lengths);
    if (status.ok()) return status;
    return status.WithContext("dispatch of '" + info.name + "' (export " +
                              std::to_string(command.export_ordinal) + ")");
  }
  kiln_hal_dispatch_state_t base = {};
  for (int i = 0; i < 3; ++i) {
    base.workgroup_count[i] = command.workgroup_count[i];
    base.workgroup_size[i] = info.workgroup_size[i];
  }
  base.constant_count = static_cast<uint32_t>(constants.size());
  base.constants = constants.data();
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
          " of a " + executable.format() + " executable) failed in workgroup " +
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

Status CpuCommandBuffer::Execute(std::span<const Ref<Buffer>> binding_table, ThreadPool* pool,
                                 Trace* trace, uint64_t track) const {
  const utils::CommandList& list = command_list();
  for (const utils::Command& command : list.commands()) {
    KILN_RETURN_IF_ERROR(std::visit(
        utils::Overloaded{
            [&](const utils::DispatchCommand& dispatch) {
              if (trace == nullptr) return RunDispatch(dispatch, binding_table, pool);
              const int64_t start_ns = trace->Now();
              Status status = RunDispatch(dispatch, binding_table, pool);
              const int64_t end_ns = trace->Now();
              const CpuLibraryCall* call = static_cast<const CpuExecutable&>(*dispatch.executable)
                                               .library_call(dispatch.export_ordinal);
              trace->AddSpan(
                  {.name = utils::DispatchSpanName(*dispatch.executable, dispatch.export_ordinal),
                   .category = "device",
                   .detail = call != nullptr ? call->description() : std::string(),
                   .start_ns = start_ns,
                   .duration_ns = end_ns - start_ns,
                   .track = track});
              return status;
            },
            [&](const utils::CopyCommand& copy) {
              HostRange source = Resolve(copy.source, binding_table);
              HostRange target = Resolve(copy.target, binding_table);
              if (copy.length != 0) std::memmove(target.data, source.data, copy.length);
              return OkStatus();
            },
            [&](const utils::FillCommand& fill) {
              HostRange target = Resolve(fill.target, binding_table);
              if (fill.pattern_length == 1) {
                std::memset(target.data, static_cast<uint8_t>(fill.pattern), target.length);
              } else {
                for (size_t i = 0; i < target.length; i += fill.pattern_length) {
                  std::memcpy(target.data + i, &fill.pattern, fill.pattern_length);
                }
              }
              return OkStatus();
            },
            [&](const utils::UpdateCommand& update) {
              std::span<const uint8_t> data = list.data(update);
              if (!data.empty()) {
                std::memcpy(Resolve(update.target, binding_table).data, data.data(), data.size());
              }
              return OkStatus();
            },
            // Commands run one after another: nothing to order.
            [](const utils::BarrierCommand&) { return OkStatus(); },
            [&](const utils::CollectiveCommand& collective) {
              // Checked when recorded (CheckChannel).
              auto& channel = static_cast<CpuChannel&>(*collective.channel);
              HostRange send = Resolve(collective.send, binding_table);
              HostRange recv = Resolve(collective.recv, binding_table);
              if (trace == nullptr) {
                return channel.Run(collective.op, send.data, recv.data, collective.element_count);
              }
              // Timed like a dispatch: the span includes the wait for peers.
              const int64_t start_ns = trace->Now();
              Status status =
                  channel.Run(collective.op, send.data, recv.data, collective.element_count);
              const int64_t end_ns = trace->Now();
              trace->AddSpan({.name = "collective " + DescribeCollective(collective.op),
                              .category = "device",
                              .detail = std::to_string(collective.element_count) +
                                        " elements, rank " + std::to_string(channel.rank()) +
                                        " of " + std::to_string(channel.count()),
                              .start_ns = start_ns,
                              .duration_ns = end_ns - start_ns,
                              .track = track});
              return status;
            },
        },
        command));
  }
  return OkStatus();
}

}  // namespace kiln::hal::cpu
