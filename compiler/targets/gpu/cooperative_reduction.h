// Cooperative reductions: the threads of a GPU workgroup share each
// reduction of its tile instead of one thread reducing a whole row.
//
// A linalg op with one reduction loop whose result is combined by one
// associative op with a neutral element (a sum, product, max, min, and, or,
// xor: what a softmax, a layernorm or a mean reduces with) is distributed so
// that R threads (a power of two, as many as the workgroup's threads allow
// for the tile's output points, at most 128) reduce each output point: lane
// r accumulates the elements r, r + R, r + 2R, ... of the reduction loop in
// order into its own partial, starting from the neutral element; the R
// partials are then combined as a binary tree in workgroup memory (a
// barrier between levels), and lane 0 combines the result into the output's
// initial value. This is the summation order of IREE's GPU reductions: a
// 40,960-long f32 sum is 128 strided in-order partial sums reduced as a
// tree.
//
// Argmax and argmin (two results, value and index; MatchStridedArgReduction
// in strided_reduction.h) are shared the same way with a pair per lane:
// lane r keeps the value and position of the first greatest of its
// elements, starting from a sentinel that no element able to win fails to
// beat; the tree keeps the greater value and, of equal ones, the smaller
// position; lane 0 then applies the op's payload once, to the winning
// element, with the outputs' initial values as the state. That is the
// sequential scan's result exactly: the first greatest element when it
// beats the initial value, the initial value and index otherwise (the init
// keeps ties). Where the value is maximumf/minimumf, a first pass folds the
// value over every element and finds the first NaN, after which the
// sequential index no longer moves; the index pass stops there.
//
// A contraction with one reduction loop of at least kMinSharedDotProduct
// (compiler/dispatch/library_calls.h; static) is shared the same way: its payload folds each product into the
// output with addf. That is what makes a matrix-vector product fast: a
// 1x1024 by 1024x1024 matmul with its bias and ReLU is a dispatch of one
// output element per workgroup (form_dispatches.cc counts the joined
// matmul's K as the tile's work), whose 128 threads each read 8 elements of
// the matrix's row, consecutive threads consecutive elements; one thread
// per output element reading its row alone took 600 µs on the H100, where
// cuBLASLt takes about 5 µs. Shorter contractions, convolutions, ops with
// several reduction loops or results that are not an argmax/argmin,
// combiners that are not one associative op, and tiles with more output
// points than threads accumulate in order along their reduction loops
// within one thread.
#pragma once

#include <cstdint>
#include <optional>

#include "llvm/ADT/STLFunctionalExtras.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"

namespace kiln::compiler::gpu {

// A static upper bound of an index value, where one is known.
using UpperBoundFn = llvm::function_ref<std::optional<int64_t>(mlir::Value)>;

// Distributes `op` (on buffers) over the workgroup's `thread_count` threads,
// `thread_id` the linear id of this one, as described above, and erases it:
// true. False, with nothing changed, when `op` is not such a reduction (the
// caller distributes it a point per thread); failure with an error at the op
// when it is one but cannot be lowered.
mlir::FailureOr<bool> DistributeReductionCooperatively(mlir::linalg::LinalgOp op,
                                                       mlir::Value thread_id, int64_t thread_count,
                                                       UpperBoundFn upper_bound,
                                                       mlir::RewriterBase& rewriter);

}  // namespace kiln::compiler::gpu
