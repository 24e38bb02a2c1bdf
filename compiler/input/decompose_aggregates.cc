// DecomposeAggregates (--kiln-decompose-aggregates): linalg's aggregate ops
// (linalg.softmax today: ops implementing AggregatedOpInterface) become the
// linalg ops they are made of, which dispatch formation and fusion know:
//
//   %s = linalg.softmax dimension(2) ins(%x) outs(%e)
// ->
//   %max = linalg.generic (reduction: maximum along dim 2)
//   %exp = linalg.generic (parallel: exp(x - max))
//   %sum = linalg.generic (reduction: sum of exp)
//   %s   = linalg.generic (parallel: exp / sum)
//
// as the op's own decomposition writes them (the same as IREE's input
// pipeline uses).
#include "compiler/input/passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

struct DecomposeAggregatesPass
    : mlir::PassWrapper<DecomposeAggregatesPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DecomposeAggregatesPass)
  llvm::StringRef getArgument() const override { return "kiln-decompose-aggregates"; }
  llvm::StringRef getDescription() const override {
    return "linalg's aggregate ops (linalg.softmax) into the linalg ops they are made of";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<mlir::linalg::LinalgDialect>();
  }
  void runOnOperation() override {
    llvm::SmallVector<mlir::linalg::AggregatedOpInterface> aggregates;
    getOperation()->walk(
        [&](mlir::linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    mlir::IRRewriter rewriter(&getContext());
    for (mlir::linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      mlir::FailureOr<llvm::SmallVector<mlir::Value>> parts = op.decomposeOperation(rewriter);
      if (mlir::failed(parts)) {
        op->emitOpError("cannot be decomposed into linalg ops");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *parts);
    }
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createDecomposeAggregatesPass() {
  return std::make_unique<DecomposeAggregatesPass>();
}

}  // namespace kiln::compiler
