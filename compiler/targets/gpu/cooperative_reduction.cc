// Cooperative reductions (cooperative_reduction.h).
#include "compiler/targets/gpu/cooperative_reduction.h"

#include <limits>

#include "compiler/dispatch/library_calls.h"
#include "compiler/targets/strided_reduction.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::compiler::gpu {
namespace {

using mlir::Location;
using mlir::OpFoldResult;
using mlir::Value;
using mlir::ValueRange;

std::optional<int64_t> BoundOf(OpFoldResult size, UpperBoundFn upper_bound) {
  if (std::optional<int64_t> constant = mlir::getConstantIntValue(size)) return constant;
  return upper_bound(llvm::cast<Value>(size));
}

// How a tile's output points and reduction lanes map onto the threads.
struct Lanes {
  int64_t count = 0;  // Lanes per point, a power of two.
  Value count_value;
  Value lane;   // This thread's lane in its point.
  Value valid;  // Whether this thread's point is one of the tile's.
  llvm::SmallVector<Value> point;
};

// The lanes for an op of these loops, or nothing when there are too many
// points or too short a reduction to share (the caller then distributes
// the op a point per thread). Creates ops at the insertion point.
std::optional<Lanes> LayOutLanes(llvm::ArrayRef<mlir::Range> ranges,
                                 llvm::ArrayRef<int64_t> parallel_dims, int64_t reduction_dim,
                                 Value thread_id, int64_t thread_count, UpperBoundFn upper_bound,
                                 Location loc, mlir::RewriterBase& rewriter) {
  // Threads per point need a bound on the points.
  int64_t points_bound = 1;
  for (int64_t d : parallel_dims) {
    std::optional<int64_t> bound = BoundOf(ranges[d].size, upper_bound);
    if (!bound) return std::nullopt;
    points_bound *= std::max<int64_t>(1, *bound);
    if (points_bound > thread_count / 2) return std::nullopt;
  }
  std::optional<int64_t> reduction_bound = BoundOf(ranges[reduction_dim].size, upper_bound);
  // Lanes per point: a power of two, all points at once, at most 128 (the
  // width of IREE's reduction tree) and no more than the reduction's length.
  Lanes lanes;
  lanes.count = 1;
  while (lanes.count * 2 * points_bound <= thread_count && lanes.count * 2 <= 128) {
    lanes.count *= 2;
  }
  if (reduction_bound) {
    while (lanes.count > 1 && lanes.count > *reduction_bound) lanes.count /= 2;
  }
  if (lanes.count < 2) return std::nullopt;

  lanes.count_value = mlir::arith::ConstantIndexOp::create(rewriter, loc, lanes.count);
  Value point_index = mlir::arith::DivUIOp::create(rewriter, loc, thread_id, lanes.count_value);
  lanes.lane = mlir::arith::RemUIOp::create(rewriter, loc, thread_id, lanes.count_value);
  llvm::SmallVector<OpFoldResult> parallel_sizes;
  Value total = mlir::arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (int64_t d : parallel_dims) {
    parallel_sizes.push_back(ranges[d].size);
    total = rewriter.createOrFold<mlir::arith::MulIOp>(
        loc, total, mlir::getValueOrCreateConstantIndexOp(rewriter, loc, parallel_sizes.back()));
  }
  lanes.valid = mlir::arith::CmpIOp::create(rewriter, loc, mlir::arith::CmpIPredicate::ult,
                                            point_index, total);
  if (parallel_sizes.size() == 1) {
    lanes.point.push_back(point_index);
  } else if (parallel_sizes.size() > 1) {
    auto delinearized = mlir::affine::AffineDelinearizeIndexOp::create(
        rewriter, loc, point_index, parallel_sizes, /*hasOuterBound=*/true);
    lanes.point.assign(delinearized.getResults().begin(), delinearized.getResults().end());
  }
  return lanes;
}

// A buffer of `type` in workgroup memory, one element per thread, allocated
// at the start of the kernel.
Value AllocateWorkgroupBuffer(mlir::Operation* op, int64_t thread_count, mlir::Type type,
                              mlir::RewriterBase& rewriter) {
  mlir::OpBuilder::InsertionGuard guard(rewriter);
  auto kernel = op->getParentOfType<mlir::func::FuncOp>();
  rewriter.setInsertionPointToStart(&kernel.getBody().front());
  auto workgroup =
      mlir::gpu::AddressSpaceAttr::get(op->getContext(), mlir::gpu::AddressSpace::Workgroup);
  return mlir::memref::AllocOp::create(
      rewriter, op->getLoc(),
      mlir::MemRefType::get({thread_count}, type, mlir::MemRefLayoutAttrInterface(), workgroup));
}

// Emits `body` under `if (condition)` at the insertion point.
template <typename Body>
mlir::LogicalResult EmitIf(Value condition, Location loc, mlir::RewriterBase& rewriter,
                           Body&& body) {
  auto if_op = mlir::scf::IfOp::create(rewriter, loc, condition, /*withElseRegion=*/false);
  mlir::OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(if_op.thenBlock());
  return body();
}

// The partials of each point combined as a binary tree: at each level the
// lanes below `stride` fold their partner's (this thread + stride) into
// their own with `combine(partner)`, and a barrier follows each level.
template <typename Combine>
void EmitTree(const Lanes& lanes, Value thread_id, Location loc, mlir::RewriterBase& rewriter,
              Combine&& combine) {
  for (int64_t stride = lanes.count / 2; stride >= 1; stride /= 2) {
    Value stride_value = mlir::arith::ConstantIndexOp::create(rewriter, loc, stride);
    Value active = mlir::arith::AndIOp::create(
        rewriter, loc, lanes.valid,
        mlir::arith::CmpIOp::create(rewriter, loc, mlir::arith::CmpIPredicate::ult, lanes.lane,
                                    stride_value));
    (void)EmitIf(active, loc, rewriter, [&] {
      combine(mlir::arith::AddIOp::create(rewriter, loc, thread_id, stride_value).getResult());
      return mlir::success();
    });
    mlir::gpu::BarrierOp::create(rewriter, loc);
  }
}

// The argmax/argmin counterpart of DistributeReductionCooperatively (see
// the header).
mlir::FailureOr<bool> DistributeArgReductionCooperatively(mlir::linalg::LinalgOp op,
                                                          Value thread_id, int64_t thread_count,
                                                          UpperBoundFn upper_bound,
                                                          mlir::RewriterBase& rewriter) {
  std::optional<StridedArgReduction> reduction = MatchStridedArgReduction(op, rewriter);
  if (!reduction) return false;
  // Positions travel as i32 in workgroup memory; "none" is the largest.
  constexpr int64_t kNone = std::numeric_limits<int32_t>::max();
  if (std::optional<int64_t> bound =
          BoundOf(reduction->ranges[reduction->reduction_dim].size, upper_bound);
      bound && *bound >= kNone) {
    return false;
  }
  const Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  std::optional<Lanes> lanes =
      LayOutLanes(reduction->ranges, reduction->parallel_dims, reduction->reduction_dim, thread_id,
                  thread_count, upper_bound, loc, rewriter);
  if (!lanes) return false;

  auto index_constant = [&](int64_t value) -> Value {
    return mlir::arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  auto i32_constant = [&](int64_t value) -> Value {
    return mlir::arith::ConstantIntOp::create(rewriter, loc, value, 32);
  };
  auto cmpi = [&](mlir::arith::CmpIPredicate predicate, Value a, Value b) -> Value {
    return mlir::arith::CmpIOp::create(rewriter, loc, predicate, a, b);
  };
  auto to_i32 = [&](Value index) -> Value {
    return mlir::arith::IndexCastUIOp::create(rewriter, loc, rewriter.getI32Type(), index);
  };
  auto to_index = [&](Value i32) -> Value {
    return mlir::arith::IndexCastUIOp::create(rewriter, loc, rewriter.getIndexType(), i32);
  };
  auto barrier = [&] { mlir::gpu::BarrierOp::create(rewriter, loc); };
  mlir::Type value_type = reduction->sentinel.getType();
  Value length = mlir::getValueOrCreateConstantIndexOp(
      rewriter, loc, reduction->ranges[reduction->reduction_dim].size);
  Value sentinel = mlir::arith::ConstantOp::create(rewriter, loc, reduction->sentinel);
  Value none = index_constant(kNone);
  Value first_lane = mlir::arith::SubIOp::create(rewriter, loc, thread_id, lanes->lane);

  // With maximumf/minimumf the value is the fold of everything, and the
  // index only sees the elements before the first NaN: a first pass finds
  // both (per lane, then as a tree).
  Value limit = length;
  Value folded, first_nan;
  if (reduction->fold_value) {
    folded = AllocateWorkgroupBuffer(op, thread_count, value_type, rewriter);
    first_nan = AllocateWorkgroupBuffer(op, thread_count, rewriter.getI32Type(), rewriter);
    if (mlir::failed(EmitIf(lanes->valid, loc, rewriter, [&] {
          auto loop = mlir::scf::ForOp::create(rewriter, loc, lanes->lane, length,
                                               lanes->count_value, ValueRange{sentinel, none});
          {
            mlir::OpBuilder::InsertionGuard guard(rewriter);
            rewriter.setInsertionPointToStart(loop.getBody());
            Value k = loop.getInductionVar();
            Value x = ComputeElement(*reduction, lanes->point, k, rewriter);
            Value fold = FoldValue(*reduction, loop.getRegionIterArg(0), x, rewriter);
            Value is_nan =
                mlir::arith::CmpFOp::create(rewriter, loc, mlir::arith::CmpFPredicate::UNO, x, x);
            Value nan_at = mlir::arith::MinUIOp::create(
                rewriter, loc, loop.getRegionIterArg(1),
                mlir::arith::SelectOp::create(rewriter, loc, is_nan, k, none));
            mlir::scf::YieldOp::create(rewriter, loc, ValueRange{fold, nan_at});
          }
          mlir::memref::StoreOp::create(rewriter, loc, loop.getResult(0), folded, thread_id);
          mlir::memref::StoreOp::create(rewriter, loc, to_i32(loop.getResult(1)), first_nan,
                                        thread_id);
          return mlir::success();
        }))) {
      return mlir::failure();
    }
    barrier();
    EmitTree(*lanes, thread_id, loc, rewriter, [&](Value partner) {
      Value own = mlir::memref::LoadOp::create(rewriter, loc, folded, thread_id);
      Value theirs = mlir::memref::LoadOp::create(rewriter, loc, folded, partner);
      mlir::memref::StoreOp::create(rewriter, loc, FoldValue(*reduction, own, theirs, rewriter),
                                    folded, thread_id);
      Value own_nan = mlir::memref::LoadOp::create(rewriter, loc, first_nan, thread_id);
      Value their_nan = mlir::memref::LoadOp::create(rewriter, loc, first_nan, partner);
      mlir::memref::StoreOp::create(rewriter, loc,
                                    mlir::arith::MinUIOp::create(rewriter, loc, own_nan, their_nan),
                                    first_nan, thread_id);
    });
    // Lanes of a point past the tile read lane 0's slot of a point that is
    // not there; their limit is never used.
    Value point_nan = to_index(mlir::memref::LoadOp::create(rewriter, loc, first_nan, first_lane));
    limit = mlir::arith::MinUIOp::create(rewriter, loc, length, point_nan);
  }

  // Each lane's (value, position) partial over its elements in order: the
  // first of its greatest, starting from the sentinel that no element able
  // to win fails to beat.
  Value values = AllocateWorkgroupBuffer(op, thread_count, value_type, rewriter);
  Value positions = AllocateWorkgroupBuffer(op, thread_count, rewriter.getI32Type(), rewriter);
  if (mlir::failed(EmitIf(lanes->valid, loc, rewriter, [&] {
        auto loop = mlir::scf::ForOp::create(rewriter, loc, lanes->lane, limit, lanes->count_value,
                                             ValueRange{sentinel, none});
        {
          mlir::OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPointToStart(loop.getBody());
          Value k = loop.getInductionVar();
          Value x = ComputeElement(*reduction, lanes->point, k, rewriter);
          Value wins = Beats(*reduction, x, loop.getRegionIterArg(0), rewriter);
          mlir::scf::YieldOp::create(
              rewriter, loc,
              ValueRange{
                  mlir::arith::SelectOp::create(rewriter, loc, wins, x, loop.getRegionIterArg(0)),
                  mlir::arith::SelectOp::create(rewriter, loc, wins, k, loop.getRegionIterArg(1))});
        }
        mlir::memref::StoreOp::create(rewriter, loc, loop.getResult(0), values, thread_id);
        mlir::memref::StoreOp::create(rewriter, loc, to_i32(loop.getResult(1)), positions,
                                      thread_id);
        return mlir::success();
      }))) {
    return mlir::failure();
  }
  barrier();

  // The partials combined as a tree: the greater value wins, and of equal
  // ones the smaller position (the first, as in the sequential scan).
  EmitTree(*lanes, thread_id, loc, rewriter, [&](Value partner) {
    Value own = mlir::memref::LoadOp::create(rewriter, loc, values, thread_id);
    Value theirs = mlir::memref::LoadOp::create(rewriter, loc, values, partner);
    Value own_at = mlir::memref::LoadOp::create(rewriter, loc, positions, thread_id);
    Value their_at = mlir::memref::LoadOp::create(rewriter, loc, positions, partner);
    Value tie = mlir::arith::AndIOp::create(
        rewriter, loc,
        mlir::arith::XOrIOp::create(rewriter, loc, Beats(*reduction, own, theirs, rewriter),
                                    mlir::arith::ConstantIntOp::create(rewriter, loc, 1, 1)),
        cmpi(mlir::arith::CmpIPredicate::ult, their_at, own_at));
    Value take =
        mlir::arith::OrIOp::create(rewriter, loc, Beats(*reduction, theirs, own, rewriter), tie);
    mlir::memref::StoreOp::create(rewriter, loc,
                                  mlir::arith::SelectOp::create(rewriter, loc, take, theirs, own),
                                  values, thread_id);
    mlir::memref::StoreOp::create(
        rewriter, loc, mlir::arith::SelectOp::create(rewriter, loc, take, their_at, own_at),
        positions, thread_id);
  });

  // Lane 0 applies the payload once, to the winner, with the output's
  // initial value as the state (the init is the element before all others:
  // it keeps ties). Without a winner the output keeps its initial value.
  Value first = mlir::arith::AndIOp::create(
      rewriter, loc, lanes->valid,
      cmpi(mlir::arith::CmpIPredicate::eq, lanes->lane, index_constant(0)));
  if (mlir::failed(EmitIf(first, loc, rewriter, [&]() -> mlir::LogicalResult {
        Value value_out = op.getDpsInitOperand(reduction->value_output)->get();
        llvm::SmallVector<Value> out_indices =
            ValueOutputIndices(*reduction, lanes->point, rewriter);
        Value initial;
        if (reduction->fold_value) {
          initial = mlir::memref::LoadOp::create(rewriter, loc, value_out, out_indices);
        }
        Value winner = mlir::memref::LoadOp::create(rewriter, loc, positions, thread_id);
        Value found = cmpi(mlir::arith::CmpIPredicate::ne, winner, i32_constant(kNone));
        if (mlir::failed(EmitIf(found, loc, rewriter, [&] {
              return EmitElementIntoOutputs(*reduction, lanes->point, to_index(winner), rewriter);
            }))) {
          return mlir::failure();
        }
        if (reduction->fold_value) {
          Value all = mlir::memref::LoadOp::create(rewriter, loc, folded, thread_id);
          mlir::memref::StoreOp::create(
              rewriter, loc, FoldValue(*reduction, initial, all, rewriter), value_out, out_indices);
        }
        return mlir::success();
      }))) {
    return mlir::failure();
  }
  rewriter.eraseOp(op);
  return true;
}

}  // namespace

mlir::FailureOr<bool> DistributeReductionCooperatively(mlir::linalg::LinalgOp op, Value thread_id,
                                                       int64_t thread_count,
                                                       UpperBoundFn upper_bound,
                                                       mlir::RewriterBase& rewriter) {
  std::optional<StridedReduction> reduction =
      MatchStridedReduction(op, rewriter, /*contractions=*/true);
  if (!reduction) {
    return DistributeArgReductionCooperatively(op, thread_id, thread_count, upper_bound, rewriter);
  }
  if (mlir::linalg::isaContractionOpInterface(op)) {
    // A short dot product stays in one thread, in order.
    std::optional<int64_t> length =
        mlir::getConstantIntValue(reduction->ranges[reduction->reduction_dim].size);
    if (!length || *length < kMinSharedDotProduct) return false;
  }
  const Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  std::optional<Lanes> layout =
      LayOutLanes(reduction->ranges, reduction->parallel_dims, reduction->reduction_dim, thread_id,
                  thread_count, upper_bound, loc, rewriter);
  if (!layout) return false;
  Value lane_count = layout->count_value;
  Value lane = layout->lane;
  Value valid = layout->valid;
  llvm::SmallVector<Value>& point = layout->point;

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
  auto constant = [&](int64_t value) -> Value {
    return mlir::arith::ConstantIndexOp::create(rewriter, loc, value);
  };
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
  EmitTree(*layout, thread_id, loc, rewriter, [&](Value partner) {
    Value own = mlir::memref::LoadOp::create(rewriter, loc, partials, mine);
    Value theirs = mlir::memref::LoadOp::create(rewriter, loc, partials,
                                                PartialIndices(*reduction, partner, rewriter));
    mlir::memref::StoreOp::create(rewriter, loc, Combine(*reduction, own, theirs, rewriter),
                                  partials, mine);
  });

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
