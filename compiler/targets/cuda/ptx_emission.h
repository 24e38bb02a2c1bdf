// From an LLVM-dialect module of NVVM kernels (lower_kernels_to_nvvm.h) to
// PTX text, with LLVM's NVPTX backend in process.
//
//   Result<std::string> ptx = EmitPtx(llvm_module, {"add_dispatch_0"}, options);
//
// The module is translated to LLVM IR (with the NVVM translation: nvvm.kernel
// -> ptx_kernel calling convention, nvvm.reqntid -> .reqntid) for the
// nvptx64-nvidia-cuda triple at `options.sm` with `options.ptx_feature`,
// linked with the libdevice functions it calls (libdevice.h), optimized by
// LLVM's O3 pipeline and printed by the NVPTX AsmPrinter. Only the NVPTX
// target is initialized (once per process), and the target machine and LLVM
// context are per call, so concurrent calls are safe.
//
// What the runtime needs is checked before the text is returned: no
// function is left undefined (PTX cannot link to a libdevice or libm the
// driver does not have, so libdevice is compiled in; the error names the
// function), and every kernel is a `.entry` of its own name (the name the
// executable's export looks up with cuModuleGetFunction;
// executable_serialization.h checks it again).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "compiler/targets/cuda/cuda_target_options.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln::compiler::cuda {

Result<std::string> EmitPtx(mlir::ModuleOp llvm_module, const std::vector<std::string>& kernels,
                            const CudaTargetOptions& options);

}  // namespace kiln::compiler::cuda
