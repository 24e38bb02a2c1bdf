// Strided reductions (strided_reduction.h).
#include "compiler/targets/strided_reduction.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

namespace kiln::compiler {

std::optional<StridedReduction> MatchStridedReduction(mlir::linalg::LinalgOp op,
                                                      mlir::RewriterBase& rewriter) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() != 1 || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1) {
    return std::nullopt;
  }
  if (mlir::linalg::isaContractionOpInterface(op) || mlir::linalg::isaConvolutionOpInterface(op)) {
    return std::nullopt;
  }
  auto tileable = llvm::dyn_cast<mlir::TilingInterface>(op.getOperation());
  if (!tileable || !llvm::isa<mlir::MemRefType>(op.getDpsInitOperand(0)->get().getType())) {
    return std::nullopt;
  }
  // The combiner.
  mlir::Block* body = op.getBlock();
  mlir::BlockArgument out = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  if (!out.hasOneUse()) return std::nullopt;
  mlir::Operation* combiner = *out.getUsers().begin();
  if (combiner->getBlock() != body || combiner->getNumOperands() != 2 ||
      combiner->getNumResults() != 1 || !combiner->getResult(0).hasOneUse() ||
      combiner->getOperand(0) == combiner->getOperand(1)) {
    return std::nullopt;
  }
  auto yield = llvm::dyn_cast<mlir::linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1 || yield.getOperand(0) != combiner->getResult(0)) {
    return std::nullopt;
  }
  std::optional<mlir::TypedAttr> neutral = mlir::arith::getNeutralElement(combiner);
  if (!neutral) return std::nullopt;
  // maxnumf/minnumf ignore a NaN operand, so upstream's neutral element for
  // them is NaN; Vulkan's FMax/FMin leave NaN operands undefined, so the
  // partials start from the infinity that loses every comparison instead.
  if (auto value = llvm::dyn_cast<mlir::FloatAttr>(*neutral); value && value.getValue().isNaN()) {
    const bool is_max = llvm::isa<mlir::arith::MaxNumFOp>(combiner);
    *neutral = mlir::FloatAttr::get(value.getType(),
                                    llvm::APFloat::getInf(value.getValue().getSemantics(), is_max));
  }

  StridedReduction reduction;
  reduction.op = op;
  reduction.combiner = combiner;
  reduction.accumulator_operand = combiner->getOperand(0) == out ? 0u : 1u;
  reduction.neutral = *neutral;
  mlir::OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  reduction.ranges = tileable.getIterationDomain(rewriter);
  for (auto [d, iterator] : llvm::enumerate(tileable.getLoopIteratorTypes())) {
    const mlir::Range& range = reduction.ranges[d];
    if (!mlir::isZeroInteger(range.offset) || !mlir::isOneInteger(range.stride)) {
      return std::nullopt;
    }
    if (iterator == mlir::utils::IteratorType::reduction) {
      reduction.reduction_dim = static_cast<int64_t>(d);
    } else {
      reduction.parallel_dims.push_back(static_cast<int64_t>(d));
    }
  }
  return reduction;
}

mlir::Value Combine(const StridedReduction& reduction, mlir::Value accumulator, mlir::Value other,
                    mlir::RewriterBase& rewriter) {
  mlir::IRMapping mapping;
  mlir::Operation* combiner = reduction.combiner;
  mapping.map(combiner->getOperand(reduction.accumulator_operand), accumulator);
  mapping.map(combiner->getOperand(1 - reduction.accumulator_operand), other);
  return rewriter.clone(*combiner, mapping)->getResult(0);
}

mlir::LogicalResult EmitElementIntoSlot(const StridedReduction& reduction, mlir::ValueRange point,
                                        mlir::Value k, mlir::Value slot,
                                        mlir::RewriterBase& rewriter) {
  mlir::linalg::LinalgOp op = reduction.op;
  llvm::SmallVector<mlir::OpFoldResult> offsets, sizes;
  for (const mlir::Range& range : reduction.ranges) {
    offsets.push_back(range.offset);
    sizes.push_back(range.size);
  }
  for (auto [i, d] : llvm::enumerate(reduction.parallel_dims)) {
    offsets[d] = point[i];
    sizes[d] = rewriter.getIndexAttr(1);
  }
  offsets[reduction.reduction_dim] = k;
  sizes[reduction.reduction_dim] = rewriter.getIndexAttr(1);
  auto tileable = llvm::cast<mlir::TilingInterface>(op.getOperation());
  mlir::FailureOr<mlir::TilingResult> tiled =
      tileable.getTiledImplementation(rewriter, offsets, sizes);
  if (mlir::failed(tiled) || tiled->tiledOps.size() != 1) {
    return op.emitOpError("could not be tiled to one element of its reduction");
  }
  auto element_op = llvm::dyn_cast<mlir::linalg::LinalgOp>(tiled->tiledOps.front());
  if (!element_op) return op.emitOpError("tiled into something that is not a linalg op");
  rewriter.modifyOpInPlace(element_op, [&] { element_op.getDpsInitOperand(0)->set(slot); });
  rewriter.setInsertionPoint(element_op);
  if (mlir::failed(mlir::linalg::linalgOpToLoops(rewriter, element_op))) {
    return op.emitOpError("could not be lowered to loops");
  }
  rewriter.eraseOp(element_op);
  return mlir::success();
}

llvm::SmallVector<mlir::Value> OutputIndices(const StridedReduction& reduction,
                                             mlir::ValueRange point, mlir::RewriterBase& rewriter) {
  mlir::linalg::LinalgOp op = reduction.op;
  const mlir::Location loc = op.getLoc();
  mlir::Value zero = mlir::arith::ConstantIndexOp::create(rewriter, loc, 0);
  llvm::SmallVector<mlir::Value> loop_values(reduction.ranges.size(), zero);
  for (auto [i, d] : llvm::enumerate(reduction.parallel_dims)) loop_values[d] = point[i];
  mlir::AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  llvm::SmallVector<mlir::Value> indices;
  for (unsigned r = 0; r < map.getNumResults(); ++r) {
    indices.push_back(
        mlir::affine::AffineApplyOp::create(rewriter, loc, map.getSubMap({r}), loop_values));
  }
  return indices;
}

mlir::MemRefType PartialsType(const StridedReduction& reduction, int64_t count,
                              mlir::Attribute memory_space) {
  auto out_type = llvm::cast<mlir::MemRefType>(reduction.op.getDpsInitOperand(0)->get().getType());
  llvm::SmallVector<int64_t> shape = {count};
  shape.append(out_type.getRank(), 1);
  return mlir::MemRefType::get(shape, out_type.getElementType(), mlir::MemRefLayoutAttrInterface(),
                               memory_space);
}

llvm::SmallVector<mlir::Value> PartialIndices(const StridedReduction& reduction, mlir::Value index,
                                              mlir::RewriterBase& rewriter) {
  const int64_t rank =
      llvm::cast<mlir::MemRefType>(reduction.op.getDpsInitOperand(0)->get().getType()).getRank();
  llvm::SmallVector<mlir::Value> indices = {index};
  if (rank > 0) {
    mlir::Value zero = mlir::arith::ConstantIndexOp::create(rewriter, reduction.op.getLoc(), 0);
    indices.append(rank, zero);
  }
  return indices;
}

mlir::Value SlotOf(const StridedReduction& reduction, mlir::Value partials, mlir::Value index,
                   mlir::RewriterBase& rewriter) {
  auto type = llvm::cast<mlir::MemRefType>(partials.getType());
  const int64_t rank = type.getRank() - 1;
  llvm::SmallVector<mlir::OpFoldResult> offsets = {index};
  offsets.append(rank, rewriter.getIndexAttr(0));
  llvm::SmallVector<mlir::OpFoldResult> ones(rank + 1, rewriter.getIndexAttr(1));
  auto slot_type = mlir::memref::SubViewOp::inferRankReducedResultType(
      llvm::SmallVector<int64_t>(rank, 1), type, offsets, ones, ones);
  return mlir::memref::SubViewOp::create(rewriter, reduction.op.getLoc(),
                                         llvm::cast<mlir::MemRefType>(slot_type), partials, offsets,
                                         ones, ones);
}

}  // namespace kiln::compiler
