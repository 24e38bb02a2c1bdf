// Cooperative reductions (cooperative_reduction.h).
#include "compiler/targets/gpu/cooperative_reduction.h"

#include <cmath>
#include <limits>

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace kiln::compiler::gpu {
namespace {

using mlir::Location;
using mlir::OpFoldResult;
using mlir::Value;

// The op of the payload that folds each element into the output: it takes
// the output's block argument (its only use) and another value, and its
// result (used by nothing else) is yielded.
struct Combiner {
  mlir::Operation* op;
  unsigned accumulator_operand;
  mlir::TypedAttr neutral;
};

std::optional<Combiner> MatchCombiner(mlir::linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumRegions() != 1) return std::nullopt;
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
  return Combiner{combiner, combiner->getOperand(0) == out ? 0u : 1u, *neutral};
}

// combiner(accumulator, other), a copy of the payload's combining op.
Value Combine(const Combiner& combiner, Value accumulator, Value other,
              mlir::RewriterBase& rewriter) {
  mlir::IRMapping mapping;
  mapping.map(combiner.op->getOperand(combiner.accumulator_operand), accumulator);
  mapping.map(combiner.op->getOperand(1 - combiner.accumulator_operand), other);
  return rewriter.clone(*combiner.op, mapping)->getResult(0);
}

std::optional<int64_t> BoundOf(OpFoldResult size, UpperBoundFn upper_bound) {
  if (std::optional<int64_t> constant = mlir::getConstantIntValue(size)) return constant;
  return upper_bound(llvm::cast<Value>(size));
}

}  // namespace

mlir::FailureOr<bool> DistributeReductionCooperatively(mlir::linalg::LinalgOp op, Value thread_id,
                                                       int64_t thread_count,
                                                       UpperBoundFn upper_bound,
                                                       mlir::RewriterBase& rewriter) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() != 1) return false;
  if (mlir::linalg::isaContractionOpInterface(op) || mlir::linalg::isaConvolutionOpInterface(op)) {
    return false;
  }
  std::optional<Combiner> combiner = MatchCombiner(op);
  if (!combiner) return false;
  auto tileable = llvm::dyn_cast<mlir::TilingInterface>(op.getOperation());
  if (!tileable) return false;
  mlir::OpOperand* init = op.getDpsInitOperand(0);
  auto out_type = llvm::dyn_cast<mlir::MemRefType>(init->get().getType());
  if (!out_type) return false;

  const Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  llvm::SmallVector<mlir::Range> ranges = tileable.getIterationDomain(rewriter);
  llvm::SmallVector<mlir::utils::IteratorType> iterators = tileable.getLoopIteratorTypes();
  llvm::SmallVector<OpFoldResult> parallel_sizes;
  llvm::SmallVector<int64_t> parallel_dims;
  int64_t reduction_dim = -1;
  int64_t points_bound = 1;
  std::optional<int64_t> reduction_bound;
  for (auto [d, iterator] : llvm::enumerate(iterators)) {
    if (!mlir::isZeroInteger(ranges[d].offset) || !mlir::isOneInteger(ranges[d].stride)) {
      return false;
    }
    std::optional<int64_t> bound = BoundOf(ranges[d].size, upper_bound);
    if (iterator == mlir::utils::IteratorType::reduction) {
      reduction_dim = static_cast<int64_t>(d);
      reduction_bound = bound;
      continue;
    }
    if (!bound) return false;  // Threads per point need a bound on the points.
    parallel_dims.push_back(static_cast<int64_t>(d));
    parallel_sizes.push_back(ranges[d].size);
    points_bound *= std::max<int64_t>(1, *bound);
    if (points_bound > thread_count / 2) return false;
  }
  // Lanes per point: a power of two, all points at once, at most 128 (the
  // width of IREE's reduction tree) and no more than the reduction's length.
  int64_t lanes = 1;
  while (lanes * 2 * points_bound <= thread_count && lanes * 2 <= 128) lanes *= 2;
  if (reduction_bound) {
    while (lanes > 1 && lanes > *reduction_bound) lanes /= 2;
  }
  if (lanes < 2) return false;

  mlir::MLIRContext* context = op.getContext();
  mlir::Type element = out_type.getElementType();
  const int64_t out_rank = out_type.getRank();

  // One partial per thread, in workgroup memory: memref<threads x 1..1 x T>.
  mlir::Value partial;
  {
    mlir::OpBuilder::InsertionGuard guard(rewriter);
    auto kernel = op->getParentOfType<mlir::func::FuncOp>();
    rewriter.setInsertionPointToStart(&kernel.getBody().front());
    llvm::SmallVector<int64_t> shape = {thread_count};
    shape.append(out_rank, 1);
    auto workgroup = mlir::gpu::AddressSpaceAttr::get(context, mlir::gpu::AddressSpace::Workgroup);
    partial = mlir::memref::AllocOp::create(
        rewriter, loc,
        mlir::MemRefType::get(shape, element, mlir::MemRefLayoutAttrInterface(), workgroup));
  }
  auto constant = [&](int64_t value) -> Value {
    return mlir::arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value zero = constant(0);
  Value lane_count = constant(lanes);
  Value point_index = mlir::arith::DivUIOp::create(rewriter, loc, thread_id, lane_count);
  Value lane = mlir::arith::RemUIOp::create(rewriter, loc, thread_id, lane_count);
  Value total = constant(1);
  for (OpFoldResult size : parallel_sizes) {
    total = rewriter.createOrFold<mlir::arith::MulIOp>(
        loc, total, mlir::getValueOrCreateConstantIndexOp(rewriter, loc, size));
  }
  Value valid = mlir::arith::CmpIOp::create(rewriter, loc, mlir::arith::CmpIPredicate::ult,
                                            point_index, total);
  llvm::SmallVector<Value> point;
  if (parallel_sizes.size() == 1) {
    point.push_back(point_index);
  } else if (parallel_sizes.size() > 1) {
    auto delinearized = mlir::affine::AffineDelinearizeIndexOp::create(
        rewriter, loc, point_index, parallel_sizes, /*hasOuterBound=*/true);
    point.assign(delinearized.getResults().begin(), delinearized.getResults().end());
  }
  auto slot_indices = [&](Value thread) {
    llvm::SmallVector<Value> indices = {thread};
    indices.append(out_rank, zero);
    return indices;
  };

  // Each lane's in-order partial over its elements of the reduction.
  auto accumulate = mlir::scf::IfOp::create(rewriter, loc, valid, /*withElseRegion=*/false);
  {
    mlir::OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(accumulate.thenBlock());
    Value neutral = mlir::arith::ConstantOp::create(rewriter, loc, combiner->neutral);
    mlir::memref::StoreOp::create(rewriter, loc, neutral, partial, slot_indices(thread_id));
    // This thread's partial as a view of the output's rank.
    const auto partial_type = llvm::cast<mlir::MemRefType>(partial.getType());
    llvm::SmallVector<OpFoldResult> offsets = {thread_id};
    offsets.append(out_rank, rewriter.getIndexAttr(0));
    llvm::SmallVector<OpFoldResult> ones(out_rank + 1, rewriter.getIndexAttr(1));
    auto slot_type = mlir::memref::SubViewOp::inferRankReducedResultType(
        llvm::SmallVector<int64_t>(out_rank, 1), partial_type, offsets, ones, ones);
    Value slot = mlir::memref::SubViewOp::create(
        rewriter, loc, llvm::cast<mlir::MemRefType>(slot_type), partial, offsets, ones, ones);
    Value length = mlir::getValueOrCreateConstantIndexOp(rewriter, loc, ranges[reduction_dim].size);
    auto loop = mlir::scf::ForOp::create(rewriter, loc, lane, length, lane_count);
    rewriter.setInsertionPointToStart(loop.getBody());
    llvm::SmallVector<OpFoldResult> tile_offsets, tile_sizes;
    for (const mlir::Range& range : ranges) {
      tile_offsets.push_back(range.offset);
      tile_sizes.push_back(range.size);
    }
    for (auto [i, d] : llvm::enumerate(parallel_dims)) {
      tile_offsets[d] = point[i];
      tile_sizes[d] = rewriter.getIndexAttr(1);
    }
    tile_offsets[reduction_dim] = loop.getInductionVar();
    tile_sizes[reduction_dim] = rewriter.getIndexAttr(1);
    mlir::FailureOr<mlir::TilingResult> tiled =
        tileable.getTiledImplementation(rewriter, tile_offsets, tile_sizes);
    if (mlir::failed(tiled) || tiled->tiledOps.size() != 1) {
      return op.emitOpError("could not be tiled to one element of a reduction per thread");
    }
    auto element_op = llvm::dyn_cast<mlir::linalg::LinalgOp>(tiled->tiledOps.front());
    if (!element_op) return op.emitOpError("tiled into something that is not a linalg op");
    rewriter.modifyOpInPlace(element_op, [&] { element_op.getDpsInitOperand(0)->set(slot); });
    rewriter.setInsertionPoint(element_op);
    if (mlir::failed(mlir::linalg::linalgOpToLoops(rewriter, element_op))) {
      return op.emitOpError("could not be lowered to loops");
    }
    rewriter.eraseOp(element_op);
  }
  mlir::gpu::BarrierOp::create(rewriter, loc);

  // The partials of each point combined as a binary tree.
  for (int64_t stride = lanes / 2; stride >= 1; stride /= 2) {
    Value active = mlir::arith::AndIOp::create(
        rewriter, loc, valid,
        mlir::arith::CmpIOp::create(rewriter, loc, mlir::arith::CmpIPredicate::ult, lane,
                                    constant(stride)));
    auto level = mlir::scf::IfOp::create(rewriter, loc, active, /*withElseRegion=*/false);
    {
      mlir::OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(level.thenBlock());
      Value partner = mlir::arith::AddIOp::create(rewriter, loc, thread_id, constant(stride));
      Value mine = mlir::memref::LoadOp::create(rewriter, loc, partial, slot_indices(thread_id));
      Value theirs = mlir::memref::LoadOp::create(rewriter, loc, partial, slot_indices(partner));
      mlir::memref::StoreOp::create(rewriter, loc, Combine(*combiner, mine, theirs, rewriter),
                                    partial, slot_indices(thread_id));
    }
    mlir::gpu::BarrierOp::create(rewriter, loc);
  }

  // Lane 0 folds the point's total into the output's initial value.
  Value first = mlir::arith::AndIOp::create(
      rewriter, loc, valid,
      mlir::arith::CmpIOp::create(rewriter, loc, mlir::arith::CmpIPredicate::eq, lane, zero));
  auto finish = mlir::scf::IfOp::create(rewriter, loc, first, /*withElseRegion=*/false);
  {
    mlir::OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(finish.thenBlock());
    llvm::SmallVector<Value> loop_values(ranges.size(), zero);
    for (auto [i, d] : llvm::enumerate(parallel_dims)) loop_values[d] = point[i];
    mlir::AffineMap map = op.getMatchingIndexingMap(init);
    llvm::SmallVector<Value> out_indices;
    for (unsigned r = 0; r < map.getNumResults(); ++r) {
      out_indices.push_back(
          mlir::affine::AffineApplyOp::create(rewriter, loc, map.getSubMap({r}), loop_values));
    }
    Value initial = mlir::memref::LoadOp::create(rewriter, loc, init->get(), out_indices);
    Value reduced = mlir::memref::LoadOp::create(rewriter, loc, partial, slot_indices(thread_id));
    mlir::memref::StoreOp::create(rewriter, loc, Combine(*combiner, initial, reduced, rewriter),
                                  init->get(), out_indices);
  }
  rewriter.eraseOp(op);
  return true;
}

}  // namespace kiln::compiler::gpu
