#include "hal/cuda/stream_command_buffer.h"

namespace kiln::hal::cuda {

Status StreamCommandBuffer::Issue(std::span<const Ref<Buffer>> binding_table) {
  const CudaSymbols& s = context().symbols();
  CUstream stream = context().stream();
  values_.resize(max_params_);
  pointers_.resize(max_params_);
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
              PackKernelParams(dispatch, binding_table, values_.data(), pointers_.data());
              const CudaKernel& kernel = KernelOf(dispatch);
              const ExecutableExport& info =
                  dispatch.executable->export_at(dispatch.export_ordinal);
              return context().Check(
                  s.cuLaunchKernel(kernel.function, dispatch.workgroup_count[0],
                                   dispatch.workgroup_count[1], dispatch.workgroup_count[2],
                                   info.workgroup_size[0], info.workgroup_size[1],
                                   info.workgroup_size[2], kernel.shared_memory_bytes, stream,
                                   pointers_.data(), nullptr),
                  "cuLaunchKernel");
            },
            [&](const utils::CopyCommand&) { return transfer(); },
            [&](const utils::FillCommand&) { return transfer(); },
            [&](const utils::UpdateCommand&) { return transfer(); },
            // The stream is in order.
            [](const utils::BarrierCommand&) { return OkStatus(); },
        },
        list[c]));
  }
  return OkStatus();
}

}  // namespace kiln::hal::cuda
