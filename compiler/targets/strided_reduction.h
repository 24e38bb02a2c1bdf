// Strided reductions: the pieces both kernel backends use to compute a
// reduction as 128-or-fewer strided partials combined as a tree, the
// summation order of IREE's reductions (a 40,960-long f32 sum is 128
// strided in-order partial sums reduced pairwise).
//
// A linalg op on buffers qualifies when it has one reduction loop and one
// result, is not a convolution nor (unless asked) a contraction (those
// accumulate in order along K), and its payload folds
// each element into the output with one associative op that has a neutral
// element (addf, mulf, maximumf, maxnumf, minimumf, minnumf, addi, muli,
// andi, ori, xori, max/min si/ui): the op takes the output's block argument
// (its only use) and one other value, and its result is yielded.
//
// The GPU backends share each reduction among a workgroup's threads
// (gpu/cooperative_reduction.h); the CPU backend runs the same order in one
// thread with the partials in a stack array (cpu/split_reductions.h).
//
// Arg reductions (argmax, argmin) are matched separately
// (MatchStridedArgReduction): they have two results, a value and an index,
// and no associative op folds the pair, but their sequential result is a
// selection the partials can reproduce exactly; see StridedArgReduction.
#pragma once

#include <cstdint>
#include <optional>

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Support/LLVM.h"

namespace kiln::compiler {

// A reduction as described above, its loops and how it combines.
struct StridedReduction {
  mutable mlir::linalg::LinalgOp op;  // A handle; its methods are not const.
  // The payload op that folds an element into the accumulator, which of its
  // operands is the accumulator, and the value that changes nothing.
  mlir::Operation* combiner = nullptr;
  unsigned accumulator_operand = 0;
  mlir::TypedAttr neutral;
  // The loops (iteration domain, all from 0 by 1), the parallel ones in
  // order, and the reduction loop.
  llvm::SmallVector<mlir::Range> ranges;
  llvm::SmallVector<int64_t> parallel_dims;
  int64_t reduction_dim = -1;
};

// An argmax or argmin: a linalg op on buffers with one reduction loop and two
// outputs, a value `best` and an index `best_index`, whose payload is
//
//   %win = <strict comparison> %x, %best      (x beats best: cmpf ogt/olt,
//                                               cmpi sgt/slt/ugt/ult, either
//                                               operand order)
//   %v = arith.select %win, %x, %best         (or the max/min that matches
//                                               the comparison)
//   %n = arith.select %win, %i, %best_index
//   linalg.yield %v, %n                       (either order)
//
// where %x is an input's element, or any pure function of the inputs and
// the loop indices (a fused producer's), and %i does not depend on the outputs
// (typically linalg.index of the reduction loop, cast or offset). Because
// the comparison is strict, the sequential scan keeps the FIRST element that
// beats everything before it, and an element that cannot beat the lane
// sentinel (-inf for ogt, the lowest integer for sgt, ...) cannot beat any
// initial value either. So the sequential result is the payload applied
// once, with the output's initial value as the state, to the element at
// the smallest position whose value is the greatest (NaN elements never
// win a strict ordered comparison): a selection that strided partials of
// (value, position) reproduce exactly when ties go to the smaller position.
//
// maximumf/minimumf for the value (IREE's argmax tests) differ from the
// select in two ways the index does not see: the value is the fold of
// maximumf over everything (NaN if any element is NaN, +0 over -0), and
// after the first NaN element the comparison never holds again, so the
// index is the argmax of the elements before the first NaN. `fold_value`
// marks that case: the value output is then the fold of `value_op` over the
// initial value and all elements, and the index only looks at the elements
// before the first NaN. maxnumf/minnumf and non-strict comparisons are not
// matched.
struct StridedArgReduction {
  mutable mlir::linalg::LinalgOp op;  // A handle; its methods are not const.
  unsigned value_output = 0;          // Which of the two outputs is the value.
  // The compared element (a value of the payload), the comparison and which
  // of its operands is that element.
  mlir::Value element;
  mlir::Operation* comparison = nullptr;
  unsigned element_operand = 0;
  // The op that computes the value: a select, or a max/min.
  mlir::Operation* value_op = nullptr;
  bool fold_value = false;
  // The value no element beats that can win: the start of every partial.
  mlir::TypedAttr sentinel;
  llvm::SmallVector<mlir::Range> ranges;
  llvm::SmallVector<int64_t> parallel_dims;
  int64_t reduction_dim = -1;
};

// `op` as an arg reduction, or nothing when it does not qualify. Creates the
// constant ops of its iteration domain before `op` (harmless if unused).
std::optional<StridedArgReduction> MatchStridedArgReduction(mlir::linalg::LinalgOp op,
                                                            mlir::RewriterBase& rewriter);

// Whether `candidate` beats `best` (a copy of the payload's comparison).
mlir::Value Beats(const StridedArgReduction& reduction, mlir::Value candidate, mlir::Value best,
                  mlir::RewriterBase& rewriter);

// value_op(accumulator, element) where fold_value (maximumf/minimumf).
mlir::Value FoldValue(const StridedArgReduction& reduction, mlir::Value accumulator,
                      mlir::Value element, mlir::RewriterBase& rewriter);

// Emits the compared element at the parallel point `point` and reduction
// position `k`: the inputs it reads loaded through their indexing maps, and
// a copy of the payload's ops that compute it.
mlir::Value ComputeElement(const StridedArgReduction& reduction, mlir::ValueRange point,
                           mlir::Value k, mlir::RewriterBase& rewriter);

// Emits, at the rewriter's insertion point, the payload on the one element
// (`point`, `k`) folded into the op's own outputs: the sequential result
// once `k` is the winning position.
mlir::LogicalResult EmitElementIntoOutputs(const StridedArgReduction& reduction,
                                           mlir::ValueRange point, mlir::Value k,
                                           mlir::RewriterBase& rewriter);

// The indices of the value output at the parallel point `point`.
llvm::SmallVector<mlir::Value> ValueOutputIndices(const StridedArgReduction& reduction,
                                                  mlir::ValueRange point,
                                                  mlir::RewriterBase& rewriter);

// `op` as a strided reduction, or nothing when it does not qualify. Creates
// the constant ops of its iteration domain before `op` (harmless if unused).
// A contraction with one reduction loop (a matmul's payload folds its
// products with addf like a sum) qualifies only with `contractions`: the
// GPU backends share a long dot product among threads (a matrix-vector
// product), which changes its summation order from the in-order one.
std::optional<StridedReduction> MatchStridedReduction(mlir::linalg::LinalgOp op,
                                                      mlir::RewriterBase& rewriter,
                                                      bool contractions = false);

// combiner(accumulator, other): a copy of the payload's combining op.
mlir::Value Combine(const StridedReduction& reduction, mlir::Value accumulator, mlir::Value other,
                    mlir::RewriterBase& rewriter);

// Emits, at the rewriter's insertion point, the op on one element of its
// iteration space (`point` for the parallel loops, `k` for the reduction
// loop) folded into `slot` (a buffer of the output's rank, all sizes 1)
// instead of the output: upstream tiling to that element, then loops.
mlir::LogicalResult EmitElementIntoSlot(const StridedReduction& reduction, mlir::ValueRange point,
                                        mlir::Value k, mlir::Value slot,
                                        mlir::RewriterBase& rewriter);

// The output's indices of the parallel point `point` (through the output's
// indexing map).
llvm::SmallVector<mlir::Value> OutputIndices(const StridedReduction& reduction,
                                             mlir::ValueRange point, mlir::RewriterBase& rewriter);

// The type of a buffer of `count` partials: memref<count x 1 x .. x 1 x T>,
// one leading dimension and then the output's rank in unit dimensions.
mlir::MemRefType PartialsType(const StridedReduction& reduction, int64_t count,
                              mlir::Attribute memory_space = {});

// The indices of partial `index` in such a buffer.
llvm::SmallVector<mlir::Value> PartialIndices(const StridedReduction& reduction, mlir::Value index,
                                              mlir::RewriterBase& rewriter);

// Partial `index` of `partials` as a view of the output's rank: the slot
// EmitElementIntoSlot folds into.
mlir::Value SlotOf(const StridedReduction& reduction, mlir::Value partials, mlir::Value index,
                   mlir::RewriterBase& rewriter);

}  // namespace kiln::compiler
