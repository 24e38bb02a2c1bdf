// StreamCommandBuffer: the executor of the command list that replays it as
// direct launches on the device's stream at every submit
// (--cuda_use_streams; for debugging and comparison with the graph path).
//
// Dispatches become cuLaunchKernel (or their library call), fills
// cuMemsetD{8,16,32}Async, copies and updates cuMemcpyAsync, collectives
// their NCCL calls on the stream (NcclChannel::Enqueue). The stream runs
// them in order, so execution barriers need no work. Binding-table slots
// are resolved per submit.
#pragma once

#include "hal/cuda/cuda_command_buffer.h"

namespace kiln::hal::cuda {

class StreamCommandBuffer final : public CudaCommandBuffer {
 public:
  StreamCommandBuffer(Ref<CudaContext> context, CommandBufferMode mode)
      : CudaCommandBuffer(std::move(context), mode) {}

  Status Issue(std::span<const Ref<Buffer>> binding_table) override {
    return IssueAsStream(binding_table, nullptr);
  }
};

}  // namespace kiln::hal::cuda
