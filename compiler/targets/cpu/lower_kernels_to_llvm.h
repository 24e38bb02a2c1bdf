// Lowering generated kernels to the LLVM dialect with kiln's CPU kernel ABI
// (hal/cpu/kernel_abi.h).
//
//   --kiln-cpu-lower-kernels-to-llvm   a module of contract kernels -> LLVM dialect
//
// The input is what the target-independent code generator hands each target
// for one dispatch: a `builtin.module` of kernels, each a public
// `func.func @name()` (no arguments, no results) that is already bufferized
// and tiled into workgroups, reaching its operands only through the
// executable interface ops (hal.interface.binding.subspan,
// hal.interface.constant.load, hal.interface.workgroup.id/count/size), with
// linalg, scf, affine, arith, math and memref ops in its body.
//
// The output is the LLVM dialect, ready for translation to LLVM IR. Each
// kernel becomes
//
//   llvm.func @name(%state: !llvm.ptr) -> i32    // external; returns 0
//
// where %state points at a kiln_hal_dispatch_state_t, modelled as the literal
// struct !llvm.struct<(array<3 x i32>, array<3 x i32>, array<3 x i32>, i32,
// ptr, i32, ptr, ptr)> so that LLVM's data layout places the fields exactly
// as the C compiler does. The interface ops read it:
//   - workgroup.id/count/size[d]: the u32 field, zero-extended to index;
//   - constant.load ordinal(k): state->constants[k] as i32, zero-extended to
//     index, or its bits as f32;
//   - binding.subspan binding(b) offset(o): a memref descriptor whose
//     allocated and aligned pointers are state->bindings[b] + o bytes, with
//     offset 0, the sizes of the type (dynamic ones from the op) and
//     row-major contiguous strides, or the static strides of a strided
//     layout. Layouts the ABI cannot honour (dynamic strides, a static
//     non-zero offset, a memory space) are rejected with an error on the op.
//
// Everything else is lowered the upstream way, in this order: linalg to
// loops (correct and simple; vectorization is a later step),
// expand-strided-metadata, affine, arith expansion, scf to cf, math ops
// without an LLVM intrinsic to libm calls, then one full conversion to LLVM
// (func, cf, arith, math intrinsics, finalize-memref, ub and the interface
// ops above) and reconcile-unrealized-casts. An op that survives all of this
// is an error naming it, at its location.
//
// Private functions of the module are helpers: lowered with the standard
// calling convention, never exported, and not allowed to use the interface.
#pragma once

#include <memory>

#include "mlir/Pass/Pass.h"

namespace kiln::compiler::cpu {

std::unique_ptr<mlir::Pass> createLowerKernelsToLLVMPass();

// Registers --kiln-cpu-lower-kernels-to-llvm for kiln-opt and --pass-pipeline.
void registerLowerKernelsToLLVMPass();

}  // namespace kiln::compiler::cpu
