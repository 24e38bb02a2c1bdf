// DispatchGroups: which linalg ops of a host function share one dispatch.
//
// Every linalg op left after elementwise fusion is the root of a dispatch,
// unless it joins its consumers': then tiling fuses it into each workgroup's
// tile of the root (scf::tileConsumerAndFuseProducersUsingSCF), computing
// there just the part of its result that tile reads. An op joins when
//
//   - it has one result, and every use of it is an input (not an init) of a
//     linalg op in the same block that is already in one dispatch, with the
//     root of that dispatch the same for all uses;
//   - each consumer reads it through a projected permutation: elementwise
//     (a matmul and its bias, a reduction and what scales by it) or, for a
//     consumer without reduction loops, broadcast along some of the
//     consumer's loops (the max of a softmax row, read by every element of
//     the row);
//   - the op's result along the loops no loop of the root tiles (those a
//     consumer reduces over) fits kMaxWholeLoopBytes: each tile computes
//     all of it (an elementwise producer of a 131072-long argmax stays a
//     dispatch of its own);
//   - the root's parallel loops that the op's result does not reach (the
//     row of that softmax) can stay whole in each workgroup: static, and
//     with the root's reduction loops at most kMaxWholeLoopBytes of the
//     widest element the op or the root makes, since the tile computes every
//     row it touches whole (a tile split along them would compute the op
//     again in each part).
//
// With library calls on, a contraction that a library would take
// (library_calls.h) joins only a consumer that the library computes in the
// same call (a bias, a residual, a ReLU): a library call cannot run what
// else a consumer computes.
//
// So a softmax (max, exp-sum, divide) or a layernorm (mean, variance,
// normalize) over rows of moderate length is one dispatch whose workgroups
// each own whole rows, where each reduction's rows would otherwise make a
// dispatch of their own and a round trip through device memory.
#pragma once

#include <cstdint>
#include <optional>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace kiln::compiler {

class DispatchGroups {
 public:
  // The most bytes a workgroup's tile may hold of one intermediate along
  // the loops it must keep whole: a GPU workgroup keeps the tile's
  // intermediates in workgroup memory (Vulkan guarantees 16 KiB of it), so
  // f32 rows of up to 1024 elements fuse (BERT's 768, a softmax over 128).
  static constexpr int64_t kMaxWholeLoopBytes = 4096;

  // Groups the linalg ops of `func` (nested blocks included).
  explicit DispatchGroups(mlir::func::FuncOp func, bool library_calls = false);

  // Whether `op` is computed inside its consumers' dispatch.
  bool JoinsConsumers(mlir::Operation* op) const;

  // For a root: which of its loops every workgroup must take whole (a
  // parallel loop some op of its dispatch computes whole rows along). The
  // reduction loops are not listed; they are never tiled.
  llvm::SmallVector<bool> LoopsKeptWhole(mlir::linalg::LinalgOp root) const;

  // For a root: the most elements an op joined into its dispatch computes
  // for one element of the root's tiled loops: along its loops no tile cuts
  // (a convolution's 7x7 output that a pooling sums into one element: 49)
  // and the root's loops kept whole that it runs along. A tile holds that
  // many of the op's result per element it covers, so tile sizes shrink by
  // it (1 where nothing joined, or only elementwise ops).
  int64_t UntiledElementsPerTileElement(mlir::linalg::LinalgOp root) const;

  // For a root: the longest reduction an op joined into its dispatch runs
  // for each element it computes (the product of its reduction loops: K of
  // a matmul that its bias-and-ReLU epilogue's dispatch computes), 1 where
  // none reduces. A tile's work is that many times its elements, so tile
  // sizes shrink by it as they do by the root's own reduction loops.
  int64_t JoinedReductionLength(mlir::linalg::LinalgOp root) const;

 private:
  // Whether `producer` can join its consumers' dispatch; if so, records it.
  bool TryJoin(mlir::linalg::LinalgOp producer);

  bool library_calls_ = false;
  // The roots a library contraction joined: one call computes one
  // contraction and its epilogue, so nothing else joins them (a ResNet
  // shortcut's second convolution stays a dispatch of its own, whose result
  // the first one's call adds).
  llvm::DenseSet<mlir::Operation*> library_roots_;
  // The dispatch root of each op placed so far (itself for a root).
  llvm::DenseMap<mlir::Operation*, mlir::Operation*> root_of_;
  // For each op placed so far, the root's parallel loop each of its loops
  // runs along (none for reduction loops, and loops the root has no
  // parallel counterpart of).
  llvm::DenseMap<mlir::Operation*, llvm::SmallVector<std::optional<unsigned>>> root_loop_of_;
  // For each root with ops joined: the parallel loops kept whole.
  llvm::DenseMap<mlir::Operation*, llvm::SmallVector<bool>> kept_whole_;
  // An op joined into a root's dispatch: the product of its parallel loops
  // that no loop of the root tiles, and which of the root's loops it runs
  // along (those kept whole multiply what a tile holds of it), and the
  // product of its reduction loops.
  struct JoinedOp {
    int64_t untiled_elements;
    llvm::SmallVector<bool> reached;
    int64_t reduction_length = 1;
  };
  llvm::DenseMap<mlir::Operation*, llvm::SmallVector<JoinedOp>> joined_;
};

}  // namespace kiln::compiler
