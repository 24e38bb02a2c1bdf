// Strided reductions: the pieces both kernel backends use to compute a
// reduction as 128-or-fewer strided partials combined as a tree, the
// summation order of IREE's reductions (a 40,960-long f32 sum is 128
// strided in-order partial sums reduced pairwise).
//
// A linalg op on buffers qualifies when it has one reduction loop and one
// result, is not a contraction or a convolution (those accumulate in order
// along K, the order their expected values encode), and its payload folds
// each element into the output with one associative op that has a neutral
// element (addf, mulf, maximumf, maxnumf, minimumf, minnumf, addi, muli,
// andi, ori, xori, max/min si/ui): the op takes the output's block argument
// (its only use) and one other value, and its result is yielded.
//
// The GPU backends share each reduction among a workgroup's threads
// (gpu/cooperative_reduction.h); the CPU backend runs the same order in one
// thread with the partials in a stack array (cpu/split_reductions.h).
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

// `op` as a strided reduction, or nothing when it does not qualify. Creates
// the constant ops of its iteration domain before `op` (harmless if unused).
std::optional<StridedReduction> MatchStridedReduction(mlir::linalg::LinalgOp op,
                                                      mlir::RewriterBase& rewriter);

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
