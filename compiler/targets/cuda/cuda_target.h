// The CUDA target backend of generated kernels: a module of contract kernels
// in (compiler/targets/cpu/lower_kernels_to_llvm.h describes the form), PTX
// text out, with an `.entry` per kernel for kiln's CUDA driver
// ("cuda-nvptx-fb").
//
//   Result<std::string> ptx = CompileCudaKernels(kernels, {});
//   // -> the inline object of #hal.executable.target<"cuda", "cuda-nvptx-fb",
//   //    {target_arch = "sm_75"}> (executable_serialization.h)
//
// Each public function of the module is a kernel and becomes the `.entry` of
// the same name (the export's name), its `.reqntid` the kernel's
// `kiln.workgroup_size` (128x1x1 without one; the export's workgroup_size,
// which the driver launches with, must agree). The ABI is DESIGN.md's: the
// parameters are the device pointers of the layout's bindings in order, then
// its constants as 32-bit values (lower_kernels_to_nvvm.h). The PTX targets
// `options.sm` (sm_75 by default, which the driver JITs for any newer GPU)
// and needs no libdevice.
//
// The caller's module is left untouched: it is copied into a private
// MLIRContext (compiler/targets/kernel_context.h) where
// --kiln-gpu-distribute-to-threads (compiler/targets/gpu/distribute_to_threads.h)
// and --kiln-cuda-lower-kernels-to-nvvm run and LLVM's NVPTX backend writes
// the PTX (ptx_emission.h). The function is safe to call from several
// threads on different modules.
//
// Errors come back as a Status whose message holds the diagnostics, each
// with its location (`file:line:col: 'math.exp' op on f64 ...`); unsupported
// ops and types are errors, never crashes.
#pragma once

#include <string>

#include "base/result.h"
#include "compiler/targets/cuda/cuda_target_options.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln::compiler::cuda {

Result<std::string> CompileCudaKernels(mlir::ModuleOp kernels,
                                       const CudaTargetOptions& options = {});

}  // namespace kiln::compiler::cuda
