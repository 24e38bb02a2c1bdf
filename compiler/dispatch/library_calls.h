// Library calls: the dispatches whose generated kernel computes exactly
// what one call of a vendor library computes (a cuBLASLt matmul, a cuDNN
// convolution), so that a target with the library can run the call instead
// (schemas/executable_cuda.fbs, `library_call`; hal/cuda/library_call.h).
// The kernel stays the executable's fallback: a device without the library
// runs it.
//
// What a call takes is one contraction and an epilogue the library fuses:
//
//   D = activation(A · B + bias + C)        matmul (batched or not, either
//                                           operand transposed)
//   y = activation(conv(x, w) + bias + z)   conv_2d_nchw_fchw
//
// with bias broadcast along every loop but the output channel (n, k), the
// addend C (z) shaped like the result, activation none or relu
// (max(x, 0)), and every operand a whole binding in row-major order (a
// reshape of one is the same bytes), except that a matmul's A, B, C and D
// may be strided views of their bindings (strided_matmul.h: column ranges,
// heads, transposes; form_dispatches.cc folds the permutations that make
// them into the contraction). Element types are f32, f16 or bf16, the same
// for every operand; shapes are static.
//
// The dispatch formation uses the first two predicates: a contraction a
// library would take joins its consumer's dispatch only when that consumer
// is such an epilogue (a matmul followed by a GELU becomes the library's
// matmul and a generated GELU, rather than one generated kernel for both);
// --kiln-select-library-calls then matches each formed kernel.
//
// Whether an op goes to a library is decided here, at compile time: every
// static matmul and conv_2d_nchw_fchw of at least kMinLibraryWork
// multiply-adds (the generated kernels are 10-100x slower than the
// libraries on the measured model shapes: tests/benchmarks/README.md).
// `kiln.library = "none"` on the linalg op keeps its generated kernel;
// `kiln.library = "always"` takes the library below the size threshold.
#pragma once

#include <optional>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace kiln::compiler {

// Below this many multiply-adds a contraction keeps its generated kernel:
// a library call's launch costs about as much as the kernel's work.
constexpr int64_t kMinLibraryWork = 1 << 15;

// The shortest dot product that the threads of a GPU workgroup share
// (compiler/targets/gpu/cooperative_reduction.h); below it one thread's
// in-order loop is as fast as a tree. A matrix-vector product (m or n is 1,
// no batch) with k at least this long is marked `generated_on_gpu = true`:
// on the H100 its generated kernel beats cuBLASLt's (tests/benchmarks/
// README.md), so GPU targets drop the call; `kiln.library = "always"` keeps
// it, and the CPU's oneDNN call is kept either way.
constexpr int64_t kMinSharedDotProduct = 256;

// Whether a library would take `op` (shape, types, init, size, override).
bool IsLibraryContraction(mlir::linalg::LinalgOp op);

// Whether `consumer`, reading a library contraction's result through
// `use`, is an epilogue the library computes in the same call.
bool IsLibraryEpilogue(mlir::linalg::LinalgOp consumer, mlir::OpOperand& use);

// The library call a generated kernel's function computes (before
// --kiln-distribute-to-workgroups), as the `kiln.library_call` dictionary
// of its export (see select_library_calls.cc), or nullopt.
std::optional<mlir::DictionaryAttr> MatchLibraryCall(mlir::func::FuncOp kernel, bool allow_tf32);

}  // namespace kiln::compiler
