// --kiln-cpu-split-reductions (split_reductions.h).
#include "compiler/targets/cpu/split_reductions.h"

#include "compiler/targets/strided_reduction.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln::compiler::cpu {
namespace {

using mlir::Location;
using mlir::Value;

// The width of the tree (IREE's GPU reductions use 128 partials).
constexpr int64_t kPartials = 128;

// Reductions up to this long stay in order: the order of IREE's CPU
// reductions with reassociation off, which its expected values for short
// reductions encode; an in-order sum's error grows with its length, so
// longer ones use the tree.
constexpr int64_t kInOrderLimit = 1024;

mlir::LogicalResult Split(const StridedReduction& reduction, mlir::RewriterBase& rewriter) {
  mlir::linalg::LinalgOp op = reduction.op;
  const Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto constant = [&](int64_t value) -> Value {
    return mlir::arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value zero = constant(0), one = constant(1), width = constant(kPartials);
  Value partials =
      mlir::memref::AllocaOp::create(rewriter, loc, PartialsType(reduction, kPartials));

  // A loop nest over the output points.
  llvm::SmallVector<Value> point;
  for (int64_t d : reduction.parallel_dims) {
    Value size = mlir::getValueOrCreateConstantIndexOp(rewriter, loc, reduction.ranges[d].size);
    auto loop = mlir::scf::ForOp::create(rewriter, loc, zero, size, one);
    rewriter.setInsertionPointToStart(loop.getBody());
    point.push_back(loop.getInductionVar());
  }
  Value neutral = mlir::arith::ConstantOp::create(rewriter, loc, reduction.neutral);
  {
    auto init = mlir::scf::ForOp::create(rewriter, loc, zero, width, one);
    mlir::OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(init.getBody());
    mlir::memref::StoreOp::create(rewriter, loc, neutral, partials,
                                  PartialIndices(reduction, init.getInductionVar(), rewriter));
  }
  Value length = mlir::getValueOrCreateConstantIndexOp(
      rewriter, loc, reduction.ranges[reduction.reduction_dim].size);
  {
    auto outer = mlir::scf::ForOp::create(rewriter, loc, zero, length, width);
    mlir::OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(outer.getBody());
    Value k0 = outer.getInductionVar();
    Value left = mlir::arith::SubIOp::create(rewriter, loc, length, k0);
    Value count = mlir::arith::MinUIOp::create(rewriter, loc, left, width);
    auto inner = mlir::scf::ForOp::create(rewriter, loc, zero, count, one);
    rewriter.setInsertionPointToStart(inner.getBody());
    Value r = inner.getInductionVar();
    Value k = mlir::arith::AddIOp::create(rewriter, loc, k0, r);
    Value slot = SlotOf(reduction, partials, r, rewriter);
    if (mlir::failed(EmitElementIntoSlot(reduction, point, k, slot, rewriter))) {
      return mlir::failure();
    }
  }
  for (int64_t stride = kPartials / 2; stride >= 1; stride /= 2) {
    auto level = mlir::scf::ForOp::create(rewriter, loc, zero, constant(stride), one);
    mlir::OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(level.getBody());
    Value r = level.getInductionVar();
    Value partner = mlir::arith::AddIOp::create(rewriter, loc, r, constant(stride));
    llvm::SmallVector<Value> mine = PartialIndices(reduction, r, rewriter);
    Value own = mlir::memref::LoadOp::create(rewriter, loc, partials, mine);
    Value theirs = mlir::memref::LoadOp::create(rewriter, loc, partials,
                                                PartialIndices(reduction, partner, rewriter));
    mlir::memref::StoreOp::create(rewriter, loc, Combine(reduction, own, theirs, rewriter),
                                  partials, mine);
  }
  Value out = op.getDpsInitOperand(0)->get();
  llvm::SmallVector<Value> out_indices = OutputIndices(reduction, point, rewriter);
  Value initial = mlir::memref::LoadOp::create(rewriter, loc, out, out_indices);
  Value total = mlir::memref::LoadOp::create(rewriter, loc, partials,
                                             PartialIndices(reduction, zero, rewriter));
  mlir::memref::StoreOp::create(rewriter, loc, Combine(reduction, initial, total, rewriter), out,
                                out_indices);
  rewriter.eraseOp(op);
  return mlir::success();
}

class SplitReductionsPass
    : public mlir::PassWrapper<SplitReductionsPass, mlir::OperationPass<mlir::ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SplitReductionsPass)

  llvm::StringRef getArgument() const final { return "kiln-cpu-split-reductions"; }
  llvm::StringRef getDescription() const final {
    return "CPU kernels: reductions longer than 1024 as 128 strided in-order partials added as "
           "a tree (IREE's summation order)";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const final {
    registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                    mlir::memref::MemRefDialect, mlir::scf::SCFDialect>();
  }

  void runOnOperation() final {
    llvm::SmallVector<mlir::linalg::LinalgOp> ops;
    getOperation().walk([&](mlir::linalg::LinalgOp op) { ops.push_back(op); });
    mlir::IRRewriter rewriter(&getContext());
    for (mlir::linalg::LinalgOp op : ops) {
      std::optional<StridedReduction> reduction = MatchStridedReduction(op, rewriter);
      if (!reduction) continue;
      std::optional<int64_t> length =
          mlir::getConstantIntValue(reduction->ranges[reduction->reduction_dim].size);
      if (length && *length <= kInOrderLimit) continue;
      if (mlir::failed(Split(*reduction, rewriter))) return signalPassFailure();
    }
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createSplitReductionsPass() {
  return std::make_unique<SplitReductionsPass>();
}

void registerSplitReductionsPass() { mlir::PassRegistration<SplitReductionsPass>(); }

}  // namespace kiln::compiler::cpu
