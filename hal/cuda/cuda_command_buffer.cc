#include "hal/cuda/cuda_command_buffer.h"

#include <algorithm>

#include "hal/cuda/cuda_executable.h"
#include "hal/utils/dispatch_spans.h"
#include "hal/utils/library_call_spec.h"

namespace kiln::hal::cuda {

CudaCommandBuffer::~CudaCommandBuffer() = default;

Status CudaCommandBuffer::CheckDispatch(const Executable& executable, uint32_t export_ordinal,
                                        std::array<uint32_t, 3> workgroup_count) {
  const auto* cuda_executable = dynamic_cast<const CudaExecutable*>(&executable);
  const ExecutableExport& info = executable.export_at(export_ordinal);
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
  return OkStatus();
}

namespace {

// The library call a dispatch of (executable, ordinal) runs, if any.
const LibraryCall* LibraryCallOf(const Executable& executable, uint32_t export_ordinal) {
  // CheckDispatch has made sure it is a CudaExecutable of this device.
  return static_cast<const CudaExecutable&>(executable).library_call(export_ordinal);
}

// The error of a library-call binding smaller than the call needs.
Status TooSmallError(const std::string& site, const LibraryCall& call, uint64_t required,
                     uint64_t length) {
  return utils::LibraryBindingTooSmallError(site, call.description(), required, length);
}

}  // namespace

Status CudaCommandBuffer::CheckBuffer(const BufferRef& ref, const utils::BufferSite& site) {
  if (CudaAllocationOf(*ref.buffer, *context_) == nullptr) {
    return ForeignBufferError(*ref.buffer, *context_, site.Describe());
  }
  if (!site.is_dispatch_binding() || site.executable == nullptr) return OkStatus();
  const LibraryCall* call = LibraryCallOf(*site.executable, site.export_ordinal);
  if (call == nullptr) return OkStatus();
  // Concrete ranges arrive resolved (never kWholeBuffer).
  const uint64_t required = call->RequiredBytes(site.binding);
  if (ref.length >= required) return OkStatus();
  return TooSmallError(site.Describe(), *call, required, ref.length);
}

Status CudaCommandBuffer::CheckChannel(const Channel& channel) {
  const auto* nccl = dynamic_cast<const NcclChannel*>(&channel);
  if (nccl == nullptr || &nccl->context() != context_.get()) {
    return InvalidArgumentError(
        "Collective: the channel was not made by this CUDA device (cuda://" +
        std::to_string(context_->ordinal()) + "; CreateChannel of the device that records)");
  }
  return nccl->health();
}

Status CudaCommandBuffer::CheckCollective(const Channel& channel, const CollectiveOp& op) {
  return NcclChannel::CheckOp(op);
}

Status CudaCommandBuffer::EnqueueCollective(size_t index, std::span<const Ref<Buffer>> table,
                                            CUstream stream) const {
  const auto& collective = std::get<utils::CollectiveCommand>(command_list()[index]);
  // CheckChannel has made sure it is an NcclChannel.
  return static_cast<const NcclChannel&>(*collective.channel)
      .Enqueue(collective.op, Address(collective.send, table), Address(collective.recv, table),
               collective.element_count, stream);
}

Status CudaCommandBuffer::CheckLibrarySlotUses(std::span<const Ref<Buffer>> binding_table) const {
  const utils::CommandList& list = command_list();
  for (const LibrarySlotUse& use : library_slot_uses_) {
    const auto& dispatch = std::get<utils::DispatchCommand>(list[use.command]);
    const BufferRef& ref = list.bindings(dispatch)[use.binding];
    const utils::ResolvedRef resolved = utils::CommandList::Resolve(ref, binding_table);
    if (resolved.length >= use.required) continue;
    const ExecutableExport& info = dispatch.executable->export_at(dispatch.export_ordinal);
    utils::BufferSite site{nullptr, &info, use.binding};
    return TooSmallError(site.Describe() + " (binding-table slot " + std::to_string(ref.slot) + ")",
                         *LibraryCallOf(*dispatch.executable, dispatch.export_ordinal),
                         use.required, resolved.length);
  }
  return OkStatus();
}

Status CudaCommandBuffer::PlanLibraryCalls() {
  const utils::CommandList& list = command_list();
  plans_.clear();
  plans_.resize(list.size());
  workspace_offsets_.assign(list.size(), 0);
  library_slot_uses_.clear();
  library_call_count_ = 0;
  workspace_ = nullptr;
  // Calls between two barriers may run at once (graph nodes): each has its
  // own range of the workspace; after a barrier the ranges are free again.
  constexpr size_t kAlignment = 256;
  size_t group_bytes = 0, workspace_bytes = 0;
  for (size_t c = 0; c < list.size(); ++c) {
    if (std::holds_alternative<utils::BarrierCommand>(list[c])) group_bytes = 0;
    const auto* dispatch = std::get_if<utils::DispatchCommand>(&list[c]);
    if (dispatch == nullptr) continue;
    const LibraryCall* call = LibraryCallOf(*dispatch->executable, dispatch->export_ordinal);
    if (call == nullptr) continue;
    if (library_call_count_ == 0) KILN_RETURN_IF_ERROR(context_->MakeCurrent());
    Result<std::unique_ptr<LibraryCallPlan>> plan = call->Plan();
    if (!plan.ok() && plan.status().code() == StatusCode::kUnimplemented) {
      continue;  // The library cannot run these shapes here: the kernel does.
    }
    if (!plan.ok()) {
      const ExecutableExport& info = dispatch->executable->export_at(dispatch->export_ordinal);
      return plan.status().WithContext("End: Dispatch of '" + info.name + "'");
    }
    plans_[c] = std::move(*plan);
    ++library_call_count_;
    workspace_offsets_[c] = (group_bytes + kAlignment - 1) / kAlignment * kAlignment;
    group_bytes = workspace_offsets_[c] + plans_[c]->workspace_bytes();
    workspace_bytes = std::max(workspace_bytes, group_bytes);
    const std::span<const BufferRef> bindings = list.bindings(*dispatch);
    for (uint32_t b = 0; b < bindings.size(); ++b) {
      const uint64_t required = call->RequiredBytes(b);
      if (bindings[b].is_slot() && required > 0) {
        library_slot_uses_.push_back({static_cast<uint32_t>(c), b, required});
      }
    }
  }
  if (workspace_bytes == 0) return OkStatus();
  BufferParams params;
  params.memory_type = kMemoryTypeDeviceLocal;
  params.usage = kBufferUsageDispatchStorage;
  KILN_ASSIGN_OR_RETURN(workspace_, CudaBuffer::Allocate(context_, params, workspace_bytes));
  return OkStatus();
}

Status CudaCommandBuffer::EnqueueLibraryCall(size_t index, std::span<const Ref<Buffer>> table,
                                             CUstream stream) {
  const auto& dispatch = std::get<utils::DispatchCommand>(command_list()[index]);
  library_addresses_.clear();
  for (const BufferRef& binding : command_list().bindings(dispatch)) {
    library_addresses_.push_back(Address(binding, table));
  }
  const CUdeviceptr workspace =
      workspace_ ? workspace_->device_pointer() + workspace_offsets_[index] : CUdeviceptr{0};
  return LibraryCallOf(*dispatch.executable, dispatch.export_ordinal)
      ->Enqueue(*plans_[index], stream, library_addresses_, workspace);
}

Status CudaCommandBuffer::EndImpl() {
  // The data is taken at record time: copy it into device memory this
  // command buffer owns, which executors copy from like a copy command.
  const utils::CommandList& list = command_list();
  staged_.assign(list.size(), nullptr);
  max_params_ = 0;
  channels_.clear();
  for (size_t i = 0; i < list.size(); ++i) {
    if (const auto* collective = std::get_if<utils::CollectiveCommand>(&list[i])) {
      // CheckChannel has made sure it is an NcclChannel.
      auto* channel = static_cast<NcclChannel*>(collective->channel.get());
      if (std::find_if(channels_.begin(), channels_.end(), [&](const Ref<NcclChannel>& known) {
            return known.get() == channel;
          }) == channels_.end()) {
        channels_.emplace_back(channel);
      }
      continue;
    }
    if (const auto* dispatch = std::get_if<utils::DispatchCommand>(&list[i])) {
      max_params_ = std::max(max_params_, dispatch->bindings.count + dispatch->constants.count);
      continue;
    }
    const auto* update = std::get_if<utils::UpdateCommand>(&list[i]);
    if (update == nullptr || update->data.count == 0) continue;
    BufferParams params;
    params.memory_type = kMemoryTypeDeviceLocal;
    params.usage = kBufferUsageTransfer | kBufferUsageMapping;
    KILN_ASSIGN_OR_RETURN(staged_[i], CudaBuffer::Allocate(context_, params, update->data.count));
    KILN_RETURN_IF_ERROR(staged_[i]->WriteData(0, list.data(*update)));
  }
  return PlanLibraryCalls();
}

CUdeviceptr CudaCommandBuffer::Address(const BufferRef& ref, std::span<const Ref<Buffer>> table) {
  const utils::ResolvedRef resolved = utils::CommandList::Resolve(ref, table);
  // Before the first submit (a graph built at End) slots have no address.
  if (resolved.buffer == nullptr) return 0;
  const auto* allocation = static_cast<const CudaBuffer*>(resolved.buffer->allocated_buffer());
  return allocation->device_pointer() + resolved.buffer->byte_offset() + resolved.offset;
}

const CudaKernel& CudaCommandBuffer::KernelOf(const utils::DispatchCommand& dispatch) {
  // Checked when recorded (CheckDispatch).
  return static_cast<const CudaExecutable&>(*dispatch.executable).kernel(dispatch.export_ordinal);
}

bool CudaCommandBuffer::TransferOf(size_t index, std::span<const Ref<Buffer>> table,
                                   Transfer* transfer) const {
  const utils::CommandList& list = command_list();
  return std::visit(
      utils::Overloaded{
          [](const utils::DispatchCommand&) { return false; },
          [](const utils::BarrierCommand&) { return false; },
          [](const utils::CollectiveCommand&) { return false; },
          [&](const utils::CopyCommand& copy) {
            *transfer = Transfer{false, Address(copy.source, table), Address(copy.target, table),
                                 copy.length};
            return true;
          },
          [&](const utils::UpdateCommand& update) {
            const CUdeviceptr source =
                staged_[index] ? staged_[index]->device_pointer() : CUdeviceptr{0};
            *transfer = Transfer{false, source, Address(update.target, table), update.data.count};
            return true;
          },
          [&](const utils::FillCommand& fill) {
            // Fills take the rest of a slot's buffer when recorded so.
            const utils::ResolvedRef target = utils::CommandList::Resolve(fill.target, table);
            *transfer = Transfer{true,
                                 0,
                                 Address(fill.target, table),
                                 target.length,
                                 fill.pattern,
                                 fill.pattern_length};
            return true;
          },
      },
      list[index]);
}

void CudaCommandBuffer::PackKernelParams(const utils::DispatchCommand& dispatch,
                                         std::span<const Ref<Buffer>> table, uint64_t* values,
                                         void** pointers) const {
  uint32_t p = 0;
  for (const BufferRef& binding : command_list().bindings(dispatch)) {
    values[p] = Address(binding, table);
    pointers[p] = &values[p];
    ++p;
  }
  for (uint32_t constant : command_list().constants(dispatch)) {
    // A 32-bit parameter: the driver copies 4 bytes from the pointer (the
    // low half of the 64-bit slot on this little-endian host).
    values[p] = constant;
    pointers[p] = &values[p];
    ++p;
  }
}

// The stream executor (StreamCommandBuffer's, traced or not).
Status CudaCommandBuffer::IssueAsStream(std::span<const Ref<Buffer>> binding_table,
                                        CudaDispatchTimer* timer) {
  const CudaSymbols& s = context().symbols();
  CUstream stream = context().stream();
  stream_values_.resize(max_params_);
  stream_pointers_.resize(max_params_);
  const utils::CommandList& list = command_list();
  for (size_t c = 0; c < list.size(); ++c) {
    // A copy (or an update, from its staged bytes) or a fill.
    auto transfer = [&]() -> Status {
      Transfer t;
      TransferOf(c, binding_table, &t);
      if (t.length == 0) return OkStatus();
      if (!t.fill) {
        return context().Check(s.cuMemcpyAsync(t.target, t.source, t.length, stream),
                               "cuMemcpyAsync");
      }
      CUresult result;
      if (t.pattern_length == 4) {
        result = s.cuMemsetD32Async(t.target, t.pattern, t.length / 4, stream);
      } else if (t.pattern_length == 2) {
        result = s.cuMemsetD16Async(t.target, static_cast<unsigned short>(t.pattern), t.length / 2,
                                    stream);
      } else {
        result =
            s.cuMemsetD8Async(t.target, static_cast<unsigned char>(t.pattern), t.length, stream);
      }
      return context().Check(result, "cuMemsetAsync");
    };
    KILN_RETURN_IF_ERROR(std::visit(
        utils::Overloaded{
            [&](const utils::DispatchCommand& dispatch) {
              if (PlanOf(c) != nullptr) {
                if (timer != nullptr) {
                  KILN_RETURN_IF_ERROR(timer->BeforeLaunch(
                      utils::DispatchSpanName(*dispatch.executable, dispatch.export_ordinal)));
                }
                KILN_RETURN_IF_ERROR(EnqueueLibraryCall(c, binding_table, stream));
                return timer != nullptr ? timer->AfterLaunch() : OkStatus();
              }
              PackKernelParams(dispatch, binding_table, stream_values_.data(),
                               stream_pointers_.data());
              const CudaKernel& kernel = KernelOf(dispatch);
              const ExecutableExport& info =
                  dispatch.executable->export_at(dispatch.export_ordinal);
              if (timer != nullptr) {
                KILN_RETURN_IF_ERROR(timer->BeforeLaunch(
                    utils::DispatchSpanName(*dispatch.executable, dispatch.export_ordinal)));
              }
              KILN_RETURN_IF_ERROR(context().Check(
                  s.cuLaunchKernel(kernel.function, dispatch.workgroup_count[0],
                                   dispatch.workgroup_count[1], dispatch.workgroup_count[2],
                                   info.workgroup_size[0], info.workgroup_size[1],
                                   info.workgroup_size[2], kernel.shared_memory_bytes, stream,
                                   stream_pointers_.data(), nullptr),
                  "cuLaunchKernel"));
              return timer != nullptr ? timer->AfterLaunch() : OkStatus();
            },
            [&](const utils::CopyCommand&) { return transfer(); },
            [&](const utils::FillCommand&) { return transfer(); },
            [&](const utils::UpdateCommand&) { return transfer(); },
            // The stream is in order.
            [](const utils::BarrierCommand&) { return OkStatus(); },
            [&](const utils::CollectiveCommand& collective) {
              if (timer != nullptr) {
                KILN_RETURN_IF_ERROR(timer->BeforeLaunch(DescribeCollective(collective.op)));
              }
              KILN_RETURN_IF_ERROR(EnqueueCollective(c, binding_table, stream));
              return timer != nullptr ? timer->AfterLaunch() : OkStatus();
            },
        },
        list[c]));
  }
  return OkStatus();
}

}  // namespace kiln::hal::cuda
