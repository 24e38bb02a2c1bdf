// The Vulkan target backend of generated kernels: a module of contract
// kernels in (compiler/targets/cpu/lower_kernels_to_llvm.h describes the
// form), one SPIR-V module out, with a GLCompute entry point per kernel for
// kiln's Vulkan driver ("vulkan-spirv-fb").
//
//   Result<std::vector<uint8_t>> spirv = CompileVulkanKernels(kernels, {});
//   // -> an inline object of #hal.executable.target<"vulkan-spirv",
//   //    "vulkan-spirv-fb"> (executable_serialization.h)
//
// Each public function of the module is a kernel and becomes the entry point
// of the same name (the export's name), its LocalSize the kernel's
// `kiln.workgroup_size` (128x1x1 without one: the export's workgroup_size
// must agree, executable_serialization.h checks it). The ABI is DESIGN.md's:
// binding i at descriptor set 0, binding i (storage buffers); the layout's
// constants as the push-constant block. The bytes are the module's 32-bit
// words in host byte order.
//
// The caller's module is left untouched: it is copied into a private
// MLIRContext where --kiln-gpu-distribute-to-threads
// (compiler/targets/gpu/distribute_to_threads.h) and
// --kiln-vulkan-lower-kernels-to-spirv (lower_kernels_to_spirv.h) run and
// upstream's serializer writes the binary. The caller's context gains no
// dialect, and the function is safe to call from several threads on
// different modules.
//
// Errors come back as a Status whose message holds the diagnostics, each
// with its location (`file:line:col: 'math.erf' op ...`); unsupported ops and
// types are errors, never crashes.
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "compiler/targets/vulkan/vulkan_target_options.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln::compiler::vulkan {

Result<std::vector<uint8_t>> CompileVulkanKernels(mlir::ModuleOp kernels,
                                                  const VulkanTargetOptions& options = {});

}  // namespace kiln::compiler::vulkan
