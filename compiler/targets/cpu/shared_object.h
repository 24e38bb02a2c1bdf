// Emitting a shared object for kiln's CPU driver from an LLVM-dialect module.
//
// The module (the output of --kiln-cpu-lower-kernels-to-llvm) is translated
// to LLVM IR, optimized with LLVM's O3 pipeline, compiled for x86-64 into an
// ELF object in memory and linked by lld's library into a shared object, in a
// forked child process (lld resets the process's LLVM command-line options and
// is not reentrant; see shared_object.cc):
//
//   ld.lld -shared --gc-sections -z noexecstack -Bsymbolic -o k.so k.o
//
// Only the kernels are exported: every other definition gets internal
// linkage before optimization (nothing outside can reach it, so LLVM may
// inline or drop it). The CPU driver dlopens the bytes (hal/cpu/elf_loader.h)
// and looks each export up with dlsym.
//
// The object may leave undefined only the C library and libm functions that
// LLVM emits for intrinsics and idioms (kAllowedUndefinedSymbols in
// shared_object.cc): the math functions (expf, logf, powf, sinf, tanhf, ...,
// float and double), memcpy/memmove/memset and malloc/free/aligned_alloc.
// The shared object records no DT_NEEDED; these symbols resolve against the
// process that dlopens it, which the C++ runtime always links with libc and
// libm. Any other undefined symbol is an error that names it.
//
// Thread safety: each link runs in its own child process; the rest runs
// concurrently. The module's context must not be in use by
// another thread: the LLVM IR translation interfaces are registered into it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln::compiler::cpu {

struct SharedObjectOptions {
  // LLVM's CPU name (e.g. "x86-64-v3", "znver4"); empty: the host's CPU when
  // the host is x86-64, otherwise the baseline "x86-64".
  std::string cpu;
  // LLVM's feature string ("+avx2,-avx512f"); empty: the host's features
  // when `cpu` is empty and the host is x86-64, otherwise the CPU's own.
  std::string features;
  // The symbols to export; empty: every function the module defines with
  // external linkage.
  std::vector<std::string> exported_symbols;
};

// Returns the bytes of the linked shared object. Errors carry LLVM's or
// lld's message (InvalidArgument for what the module asks for, e.g. an
// undefined symbol; Internal for a failing tool).
Result<std::vector<uint8_t>> EmitSharedObject(mlir::ModuleOp llvm_module,
                                              const SharedObjectOptions& options = {});

}  // namespace kiln::compiler::cpu
