// What the Vulkan backend of generated kernels may assume of the device: the
// optional SPIR-V capabilities a kernel may use and the limits it must fit.
//
// These are permissions, not requirements: the module declares only the
// capabilities and extensions its kernels actually use (upstream's
// spirv-update-vce trims the target environment to them), so a kernel on f32
// and i32 runs on any Vulkan 1.1 device whatever is allowed here. A kernel
// that needs a capability that is not allowed (f64 arithmetic with `float64`
// off) fails to compile with an error at the op.
#pragma once

#include <cstdint>

namespace kiln::compiler::vulkan {

struct VulkanTargetOptions {
  // Arithmetic on these types (Float16, Int8, Int16, Int64, Float64), and for
  // 8- and 16-bit types also their loads and stores in storage buffers
  // (VK_KHR_8bit_storage / VK_KHR_16bit_storage, core in Vulkan 1.2).
  bool float16 = true;
  bool int8 = true;
  bool int16 = true;
  bool int64 = true;
  // Off by default: many GPUs (most mobile ones) have no shaderFloat64.
  bool float64 = false;
  // The workgroup memory a kernel may use for its intermediates; 16 KiB is
  // Vulkan's guaranteed maxComputeSharedMemorySize.
  int64_t max_workgroup_memory_bytes = 16384;
};

}  // namespace kiln::compiler::vulkan
