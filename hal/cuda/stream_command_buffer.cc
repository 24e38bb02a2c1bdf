#include "hal/cuda/stream_command_buffer.h"

namespace kiln::hal::cuda {

Status StreamCommandBuffer::Issue(std::span<const Ref<Buffer>> binding_table) {
  const CudaSymbols& s = context().symbols();
  CUstream stream = context().stream();
  values_.resize(max_params_);
  pointers_.resize(max_params_);
  for (const Command& command : commands_) {
    CUresult result = CUDA_SUCCESS;
    const char* what = "";
    switch (command.kind) {
      case Command::Kind::kDispatch:
        PackKernelParams(command, binding_table, values_.data(), pointers_.data());
        result =
            s.cuLaunchKernel(command.function, command.grid[0], command.grid[1], command.grid[2],
                             command.block[0], command.block[1], command.block[2],
                             command.shared_memory_bytes, stream, pointers_.data(), nullptr);
        what = "cuLaunchKernel";
        break;
      case Command::Kind::kFill: {
        const size_t length = ResolvedLength(command, binding_table);
        if (length == 0) continue;
        const CUdeviceptr target = Address(ranges_[command.first_range], binding_table);
        if (command.pattern_length == 4) {
          result = s.cuMemsetD32Async(target, command.pattern, length / 4, stream);
        } else if (command.pattern_length == 2) {
          result = s.cuMemsetD16Async(target, static_cast<unsigned short>(command.pattern),
                                      length / 2, stream);
        } else {
          result = s.cuMemsetD8Async(target, static_cast<unsigned char>(command.pattern), length,
                                     stream);
        }
        what = "cuMemsetAsync";
        break;
      }
      case Command::Kind::kCopy: {
        const size_t length = ResolvedLength(command, binding_table);
        if (length == 0) continue;
        result =
            s.cuMemcpyAsync(Address(ranges_[command.first_range + 1], binding_table),
                            Address(ranges_[command.first_range], binding_table), length, stream);
        what = "cuMemcpyAsync";
        break;
      }
      case Command::Kind::kBarrier:
        continue;  // The stream is in order.
    }
    KILN_RETURN_IF_ERROR(context().Check(result, what));
  }
  return OkStatus();
}

}  // namespace kiln::hal::cuda
