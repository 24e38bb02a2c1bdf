// Cooperative reductions (cooperative_reduction.h).
#include "compiler/targets/gpu/cooperative_reduction.h"

#include "compiler/targets/strided_reduction.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace kiln::compiler::gpu {
namespace {

using mlir::Location;
using mlir::OpFoldResult;
using mlir::Value;

std::optional<int64_t> BoundOf(OpFoldResult size, UpperBoundFn upper_bound) {
  if (std::optional<int64_t> constant = mlir::getConstantIntValue(size)) return constant;
  return upper_bound(llvm::cast<Value>(size));
}

}  // namespace

mlir::FailureOr<bool> DistributeReductionCooperatively(mlir::linalg::LinalgOp op, Value thread_id,
                                                       int64_t thread_count,
                                                       UpperBoundFn upper_bound,
                                                       mlir::RewriterBase& rewriter) {
  std::optional<StridedReduction> reduction = MatchStridedReduction(op, rewriter);
  if (!reduction) return false;
  // Threads per point need a bound on the points.
  int64_t points_bound = 1;
  for (int64_t d : reduction->parallel_dims) {
    std::optional<int64_t> bound = BoundOf(reduction->ranges[d].size, upper_bound);
    if (!bound) return false;
    points_bound *= std::max<int64_t>(1, *bound);
    if (points_bound > thread_count / 2) return false;
  }
  std::optional<int64_t> reduction_bound =
      BoundOf(reduction->ranges[reduction->reduction_dim].size, upper_bound);
  // Lanes per point: a power of two, all points at once, at most 128 (the
  // width of IREE's reduction tree) and no more than the reduction's length.
  int64_t lanes = 1;
  while (lanes * 2 * points_bound <= thread_count && lanes * 2 <= 128) lanes *= 2;
  if (reduction_bound) {
    while (lanes > 1 && lanes > *reduction_bound) lanes /= 2;
  }
  if (lanes < 2) return false;

  const Location loc = op.getLoc();
  // One partial per thread, in workgroup memory.
  Value partials;
  {
    mlir::OpBuilder::InsertionGuard guard(rewriter);
    auto kernel = op->getParentOfType<mlir::func::FuncOp>();
    rewriter.setInsertionPointToStart(&kernel.getBody().front());
    auto workgroup =
        mlir::gpu::AddressSpaceAttr::get(op.getContext(), mlir::gpu::AddressSpace::Workgroup);
    partials = mlir::memref::AllocOp::create(rewriter, loc,
                                             PartialsType(*reduction, thread_count, workgroup));
  }
  rewriter.setInsertionPoint(op);
  auto constant = [&](int64_t value) -> Value {
    return mlir::arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value lane_count = constant(lanes);
  Value point_index = mlir::arith::DivUIOp::create(rewriter, loc, thread_id, lane_count);
  Value lane = mlir::arith::RemUIOp::create(rewriter, loc, thread_id, lane_count);
  llvm::SmallVector<OpFoldResult> parallel_sizes;
  Value total = constant(1);
  for (int64_t d : reduction->parallel_dims) {
    parallel_sizes.push_back(reduction->ranges[d].size);
    total = rewriter.createOrFold<mlir::arith::MulIOp>(
        loc, total, mlir::getValueOrCreateConstantIndexOp(rewriter, loc, parallel_sizes.back()));
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
  llvm::SmallVector<Value> mine = PartialIndices(*reduction, thread_id, rewriter);

  // Each lane's in-order partial over its elements of the reduction.
  auto accumulate = mlir::scf::IfOp::create(rewriter, loc, valid, /*withElseRegion=*/false);
  {
    mlir::OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(accumulate.thenBlock());
    Value neutral = mlir::arith::ConstantOp::create(rewriter, loc, reduction->neutral);
    mlir::memref::StoreOp::create(rewriter, loc, neutral, partials, mine);
    Value slot = SlotOf(*reduction, partials, thread_id, rewriter);
    Value length = mlir::getValueOrCreateConstantIndexOp(
        rewriter, loc, reduction->ranges[reduction->reduction_dim].size);
    auto loop = mlir::scf::ForOp::create(rewriter, loc, lane, length, lane_count);
    rewriter.setInsertionPointToStart(loop.getBody());
    if (mlir::failed(
            EmitElementIntoSlot(*reduction, point, loop.getInductionVar(), slot, rewriter))) {
      return mlir::failure();
    }
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
      Value own = mlir::memref::LoadOp::create(rewriter, loc, partials, mine);
      Value theirs = mlir::memref::LoadOp::create(rewriter, loc, partials,
                                                  PartialIndices(*reduction, partner, rewriter));
      mlir::memref::StoreOp::create(rewriter, loc, Combine(*reduction, own, theirs, rewriter),
                                    partials, mine);
    }
    mlir::gpu::BarrierOp::create(rewriter, loc);
  }

  // Lane 0 folds the point's total into the output's initial value.
  Value first = mlir::arith::AndIOp::create(
      rewriter, loc, valid,
      mlir::arith::CmpIOp::create(rewriter, loc, mlir::arith::CmpIPredicate::eq, lane,
                                  constant(0)));
  auto finish = mlir::scf::IfOp::create(rewriter, loc, first, /*withElseRegion=*/false);
  {
    mlir::OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(finish.thenBlock());
    Value out = op.getDpsInitOperand(0)->get();
    llvm::SmallVector<Value> out_indices = OutputIndices(*reduction, point, rewriter);
    Value initial = mlir::memref::LoadOp::create(rewriter, loc, out, out_indices);
    Value reduced = mlir::memref::LoadOp::create(rewriter, loc, partials, mine);
    mlir::memref::StoreOp::create(rewriter, loc, Combine(*reduction, initial, reduced, rewriter),
                                  out, out_indices);
  }
  rewriter.eraseOp(op);
  return true;
}

}  // namespace kiln::compiler::gpu
