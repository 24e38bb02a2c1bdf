// What the CUDA backend of generated kernels compiles for: the PTX target
// architecture and ISA version.
//
// PTX is JIT-compiled by the driver for the device that loads it, and PTX
// built for sm_NN runs on every device of capability NN or newer (the CUDA
// driver picks the newest image that runs, hal/cuda/cuda_executable.cc). The
// default, sm_75 (Turing), is the oldest architecture CUDA 13 still builds
// for, so one image covers every device a current driver supports; the
// kernels use nothing newer. ptx78 (CUDA 11.8) is a PTX ISA that every
// CUDA 12 and 13 driver and ptxas accept and that knows sm_75 through sm_90.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::compiler::cuda {

struct CudaTargetOptions {
  // The `.target` of the PTX, and the image's target_arch in the executable.
  std::string sm = "sm_75";
  // The LLVM NVPTX feature that selects the `.version` of the PTX.
  std::string ptx_feature = "+ptx78";
  // Static shared memory a kernel may use for its intermediates: 48 KiB is
  // what every CUDA device gives a block without an opt-in.
  int64_t max_shared_memory_bytes = 48 * 1024;
  // Math through NVIDIA's libdevice where the build embedded it
  // (libdevice.h); false keeps to PTX instructions and the polynomial
  // approximations that are accurate (tests of builds without libdevice).
  bool libdevice = true;
};

}  // namespace kiln::compiler::cuda
