// DetachUnreadInits (--kiln-detach-unread-inits): a linalg op whose payload
// never reads an init gets a fresh tensor.empty of the same shape as that
// init instead. Upstream's conversions pick an existing tensor as the
// destination of an elementwise op (convert-elementwise-to-linalg writes
// `outs(%a)` for `arith.addf %a, %b`); that extra use of %a is a false
// dependence which keeps the producer of %a from fusing into its consumer
// and would make a dispatch write over its input.
//
//   %0 = linalg.generic ... ins(%a, %b) outs(%a) { ^bb0(%x, %y, %unused): ... }
// ->
//   %e = tensor.empty(%d) : tensor<?xf32>      (%d = tensor.dim %a, 0)
//   %0 = linalg.generic ... ins(%a, %b) outs(%e) { ... }
#include "compiler/input/passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln::compiler {
namespace {

struct DetachUnreadInit : mlir::OpInterfaceRewritePattern<mlir::linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  mlir::LogicalResult matchAndRewrite(mlir::linalg::LinalgOp op,
                                      mlir::PatternRewriter& rewriter) const override {
    if (!op.hasPureTensorSemantics()) return mlir::failure();
    bool changed = false;
    for (mlir::OpOperand& init : op.getDpsInitsMutable()) {
      mlir::Value value = init.get();
      if (value.getDefiningOp<mlir::tensor::EmptyOp>()) continue;
      if (op.payloadUsesValueFromOperand(&init)) continue;
      auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
      if (!type) continue;
      rewriter.setInsertionPoint(op);
      // The sizes from the init's producer where it can say them: a
      // tensor.dim of the init itself would be one more use of it, and keep
      // it from fusing just the same.
      llvm::SmallVector<mlir::OpFoldResult> sizes;
      auto result = llvm::dyn_cast<mlir::OpResult>(value);
      mlir::ReifiedRankedShapedTypeDims reified;
      if (result && mlir::succeeded(mlir::reifyResultShapes(rewriter, result.getOwner(), reified))) {
        sizes = reified[result.getResultNumber()];
      } else {
        sizes = mlir::tensor::getMixedSizes(rewriter, op.getLoc(), value);
      }
      mlir::Value empty =
          mlir::tensor::EmptyOp::create(rewriter, op.getLoc(), sizes, type.getElementType());
      if (empty.getType() != type) {
        empty = mlir::tensor::CastOp::create(rewriter, op.getLoc(), type, empty);
      }
      rewriter.modifyOpInPlace(op, [&] { init.set(empty); });
      changed = true;
    }
    return mlir::success(changed);
  }
};

struct DetachUnreadInitsPass
    : mlir::PassWrapper<DetachUnreadInitsPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DetachUnreadInitsPass)
  llvm::StringRef getArgument() const override { return "kiln-detach-unread-inits"; }
  llvm::StringRef getDescription() const override {
    return "Inits a linalg op's payload never reads become tensor.empty (no false dependence)";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<mlir::tensor::TensorDialect>();
  }
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    patterns.add<DetachUnreadInit>(&getContext());
    if (mlir::failed(mlir::applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      return signalPassFailure();
    }
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createDetachUnreadInitsPass() {
  return std::make_unique<DetachUnreadInitsPass>();
}

}  // namespace kiln::compiler
