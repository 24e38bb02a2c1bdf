#include "compiler/dialects/check/check_dialect.h"

#include "compiler/dialects/util/util_dialect.h"
#include "mlir/IR/PatternMatch.h"

// The generated definitions load the util dialect (a dependent dialect).
#include "compiler/dialects/check/check_dialect.cpp.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/check/check_ops.cpp.inc"

namespace kiln::compiler::Check {

void CheckDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/dialects/check/check_ops.cpp.inc"
      >();
}

}  // namespace kiln::compiler::Check

namespace kiln::compiler::Check {

// The `_const` forms compare with the constant as an unfoldable constant, so
// that it reaches the runtime as data (a buffer filled from the module's
// rodata), not as code to fold into the producer.
void ExpectEqConstOp::getCanonicalizationPatterns(mlir::RewritePatternSet& results,
                                                  mlir::MLIRContext*) {
  results.add(+[](ExpectEqConstOp op, mlir::PatternRewriter& rewriter) {
    mlir::Value expected = Util::UnfoldableConstantOp::create(
        rewriter, op.getLoc(), op.getLhs().getType(), llvm::cast<mlir::TypedAttr>(op.getValue()));
    rewriter.replaceOpWithNewOp<ExpectEqOp>(op, op.getDevice(), op.getLhs(), expected);
    return mlir::success();
  });
}

void ExpectAlmostEqConstOp::getCanonicalizationPatterns(mlir::RewritePatternSet& results,
                                                        mlir::MLIRContext*) {
  results.add(+[](ExpectAlmostEqConstOp op, mlir::PatternRewriter& rewriter) {
    mlir::Value expected = Util::UnfoldableConstantOp::create(
        rewriter, op.getLoc(), op.getLhs().getType(), llvm::cast<mlir::TypedAttr>(op.getValue()));
    rewriter.replaceOpWithNewOp<ExpectAlmostEqOp>(op, op.getDevice(), op.getLhs(), expected,
                                                  op.getAtolAttr(), op.getRtolAttr());
    return mlir::success();
  });
}

}  // namespace kiln::compiler::Check
