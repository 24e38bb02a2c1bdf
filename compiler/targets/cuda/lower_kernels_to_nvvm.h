// Lowering generated kernels to the LLVM dialect with NVVM ops and kiln's
// CUDA dispatch ABI (DESIGN.md): kernel parameters are the binding device
// pointers in layout order, then the layout's constants as 32-bit values.
//
//   --kiln-cuda-lower-kernels-to-nvvm   thread-distributed kernels -> LLVM + NVVM
//
// The input is a `builtin.module` of contract kernels (public `func.func
// @name()`, see compiler/targets/cpu/lower_kernels_to_llvm.h for the
// contract) after --kiln-gpu-distribute-to-threads (no linalg left; loops
// over gpu.thread_id, gpu.barrier, workgroup-memory allocs). The output is
// the LLVM dialect, ready for translation to LLVM IR and the NVPTX backend:
// each kernel becomes
//
//   llvm.func @name(%b0: !llvm.ptr, ..., %bN-1: !llvm.ptr, %c0: i32, ..., %cM-1: i32)
//       attributes {nvvm.kernel, nvvm.reqntid = array<i32: x, y, z>}
//
// a PTX `.entry name(.param .u64 ..., .param .u32 ...)` whose parameters are
// ALL N bindings and M constants of the kernel's pipeline layout (the one its
// interface ops name; a kernel may name only one), used or not, because the
// CUDA driver passes them all (hal/cuda: CudaCommandBuffer::PackKernelParams).
// `.reqntid` is the kernel's `kiln.workgroup_size` (128x1x1 without one),
// the block size the thread distribution assumed: a launch with another
// block size fails instead of computing garbage.
//
// The interface ops become:
//   - binding.subspan binding(b) offset(o): a memref descriptor whose
//     allocated and aligned pointers are parameter b + o bytes, with offset
//     0, the sizes of the type (dynamic ones from the op) and row-major
//     contiguous strides, or the static strides of a strided layout (the
//     CPU backend's rules: no memory space, no dynamic strides);
//   - constant.load ordinal(k): parameter N + k as i32, zero-extended to
//     index, or its bits as f32;
//   - workgroup.id/count/size[d]: blockIdx/gridDim/blockDim (nvvm.read.ptx.
//     sreg.ctaid/nctaid/ntid), zero-extended to index;
//   - gpu.thread_id d: threadIdx (nvvm.read.ptx.sreg.tid) with its range
//     [0, workgroup size); gpu.barrier: bar.sync 0 (nvvm.barrier0), which
//     also orders the block's global and shared memory accesses;
//   - memref.alloc in #gpu.address_space<workgroup>: a `memref.global` in
//     that space (an LLVM global in addrspace(3), PTX `.shared`), one per
//     alloc, at most CudaTargetOptions::max_shared_memory_bytes per kernel.
//     Any other memref.alloc is an error: kernels cannot call malloc.
//
// Math: ops that PTX has an instruction for (sqrt, fma, abs, floor, ceil,
// trunc, round, copysign, ctlz, ...) go to LLVM intrinsics; fpowi, rsqrt
// (1 / sqrt, both correctly rounded) and clampf are expanded first. The
// transcendental ops (sin, cos, tan, exp, exp2, expm1, log, log2, log10,
// log1p, powf, atan, atan2, asin, acos, sinh, cosh, tanh, asinh, acosh,
// atanh, erf, erfc, cbrt) and arith.remf become calls to NVIDIA's
// libdevice (`llvm.call @__nv_sinf` on f32, `@__nv_sin` on f64), which
// EmitPtx links into the module (libdevice.h): the CUDA driver has no math
// library, so the PTX carries the functions it uses. Math on f16, bf16 and
// the 8-bit floats computes in f32 (math-extend-to-supported-types: extf, the
// f32 op, truncf).
//
// Without libdevice (the build found no CUDA toolkit, or the pass option
// libdevice=false / CudaTargetOptions::libdevice), upstream's f32 polynomial
// approximations remain for the ops that IREE's math suite did not find
// inaccurate with them (exp, expm1, log, log2, log1p, tanh, erf, erfc, atan,
// atan2, asin, acos); the other
// transcendental ops (sin, cos, tan, exp2, log10, cbrt, powf, the
// hyperbolics but tanh, and anything on f64) are an error at the op that
// says libdevice was not found when kiln was built. Any other math op left
// (f128, ...) is an error naming the op.
//
// The rest goes through upstream, in this order: canonicalize, cse,
// fold-memref-alias-ops, expand-strided-metadata, affine-expand-index-ops,
// lower-affine, arith-expand, scf-to-cf, math-extend-to-supported-types, the
// math above (libdevice calls by a partial conversion of their own), then
// one full conversion to LLVM (func, cf, arith, math intrinsics,
// finalize-memref, ub and the patterns above; index is 64-bit) and
// reconcile-unrealized-casts. An op or type that
// none of this lowers is an error at the op that names it.
#pragma once

#include <memory>

#include "compiler/targets/cuda/cuda_target_options.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler::cuda {

std::unique_ptr<mlir::Pass> createLowerKernelsToNVVMPass(const CudaTargetOptions& options = {});

// Registers --kiln-cuda-lower-kernels-to-nvvm (default options) for kiln-opt
// and --pass-pipeline.
void registerLowerKernelsToNVVMPass();

}  // namespace kiln::compiler::cuda
