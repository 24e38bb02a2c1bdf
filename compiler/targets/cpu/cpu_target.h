// The CPU target backend of generated kernels: a module of contract kernels
// (lower_kernels_to_llvm.h describes the form) in, the bytes of a shared
// object for kiln's CPU driver out, one exported symbol per kernel with the
// ABI of hal/cpu/kernel_abi.h.
//
//   Result<std::vector<uint8_t>> so = CompileCpuKernels(kernels, {});
//   // -> EmbedElfExecutable(...) (executable_serialization.h)
//
// The caller's module is left untouched: it is copied into a private
// MLIRContext, where --kiln-cpu-lower-kernels-to-llvm runs and the LLVM IR
// translation interfaces are registered (shared_object.h). This keeps the
// caller's context free of the LLVM dialect and its registry unchanged, and
// makes the function safe to call from a pass that runs on several
// executables in parallel (lld links are serialized inside).
//
// Errors come back as a Status whose message holds the diagnostics, each
// with its location (`file:line:col: 'tensor.empty' op ...`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln::compiler::cpu {

struct CpuTargetOptions {
  // LLVM CPU name and feature string; empty: the host's (shared_object.h).
  std::string cpu;
  std::string features;
};

// The kernels are the public functions the module defines; each becomes an
// export of the same name.
Result<std::vector<uint8_t>> CompileCpuKernels(mlir::ModuleOp kernels,
                                               const CpuTargetOptions& options = {});

}  // namespace kiln::compiler::cpu
