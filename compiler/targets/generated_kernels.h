// Generated kernels: the kernels kiln writes itself (compiler/dispatch), held
// as a builtin.module inside a hal.executable.source in the target-neutral
// form (bufferized, one workgroup's tile, bindings and constants through the
// hal.interface ops). Each target compiles that module into the object its
// executable format wraps:
//
//   cpu     compiler/targets/cpu: LLVM -> x86-64 -> a shared object linked
//           by lld's library ("llvm-cpu", "system-elf-x86_64")
//   cuda    compiler/targets/cuda: each workgroup's tile spread over its
//           threads (compiler/targets/gpu), PTX for sm_75 and newer from
//           LLVM's NVPTX backend ("cuda", "cuda-nvptx-fb", target_arch
//           "sm_75")
//   vulkan  compiler/targets/vulkan: each workgroup's tile spread over its
//           threads (compiler/targets/gpu), SPIR-V for Vulkan 1.2
//           ("vulkan-spirv", "vulkan-spirv-fb")
//
// Any other target is an error that names it.
#pragma once

#include <string>

#include "base/result.h"
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/targets/executable_serialization.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln::compiler {

// The generated kernels of `op`, or null when it is hand-written (objects).
mlir::ModuleOp GeneratedKernelsOf(HAL::ExecutableSourceOp op);

// Compiles `kernels` for `target` (kiln's name: cpu, cuda, vulkan) into one
// inline object of the target's format. `kernels` is not modified.
Result<TargetObjects> CompileGeneratedKernels(mlir::ModuleOp kernels, const std::string& target);

}  // namespace kiln::compiler
