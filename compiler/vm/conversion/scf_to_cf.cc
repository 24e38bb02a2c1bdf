// --kiln-scf-to-cf: scf into cf branches, with the loop shape the VM's
// counted-loop instruction wants. Upstream's scf.for lowering tests at the
// top of the loop (compare and branch in a header, an unconditional
// back-edge), which costs two extra instructions per iteration and cannot
// become vm.for.step; this pass rotates scf.for instead:
//
//   scf.for %i = %lb to %ub step %s iter_args(%a = %init) -> (T...)
//     ^B:   ... %entered = arith.cmpi slt, %lb, %ub
//               cf.cond_br %entered, ^body(%lb, %init...), ^exit(%init...)
//     ^body(%i, %a...): the body's blocks; its scf.yield %y... becomes
//               %next = arith.addi %i, %s
//               %more = arith.cmpi slt, %next, %ub
//               cf.cond_br %more, ^body(%next, %y...), ^exit(%y...)
//     ^exit(%r...): the for's results; the ops after the for.
//
// (ult instead of slt for `unsignedCmp` loops.) The guard takes the for's
// location, the latch the yield's. Every other scf op (if, while,
// index_switch, ...) is lowered by upstream's patterns.
#include "compiler/vm/conversion/passes.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::compiler {
namespace {

namespace scf = mlir::scf;
namespace arith = mlir::arith;
namespace cf = mlir::cf;

class RotatedForLowering : public mlir::OpRewritePattern<scf::ForOp> {
 public:
  // Preferred over upstream's ForLowering.
  RotatedForLowering(mlir::MLIRContext* context) : OpRewritePattern(context, /*benefit=*/2) {}

  mlir::LogicalResult matchAndRewrite(scf::ForOp op,
                                      mlir::PatternRewriter& rewriter) const override {
    const mlir::Location loc = op.getLoc();
    const auto predicate =
        op.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    mlir::Value lb = op.getLowerBound(), ub = op.getUpperBound(), step = op.getStep();

    // ^B ends with the for; everything after it moves to ^exit, whose
    // arguments are the for's results.
    mlir::Block* block = op->getBlock();
    mlir::Block* rest = rewriter.splitBlock(block, std::next(op->getIterator()));
    llvm::SmallVector<mlir::Location> result_locs(op.getNumResults(), loc);
    mlir::Block* exit = rewriter.createBlock(rest, op.getResultTypes(), result_locs);
    rewriter.mergeBlocks(rest, exit);

    mlir::Block* body = &op.getRegion().front();
    mlir::Block* last = &op.getRegion().back();
    rewriter.inlineRegionBefore(op.getRegion(), exit);
    auto yield = llvm::cast<scf::YieldOp>(last->getTerminator());
    rewriter.setInsertionPoint(yield);
    mlir::Value iv = body->getArgument(0);
    mlir::Value next = arith::AddIOp::create(rewriter, yield.getLoc(), iv, step);
    mlir::Value more = arith::CmpIOp::create(rewriter, yield.getLoc(), predicate, next, ub);
    llvm::SmallVector<mlir::Value> loop_args = {next};
    llvm::append_range(loop_args, yield.getResults());
    rewriter.replaceOpWithNewOp<cf::CondBranchOp>(yield, more, body, loop_args, exit,
                                                  yield.getResults());

    rewriter.setInsertionPoint(op);
    mlir::Value entered = arith::CmpIOp::create(rewriter, loc, predicate, lb, ub);
    llvm::SmallVector<mlir::Value> body_args = {lb};
    llvm::append_range(body_args, op.getInitArgs());
    cf::CondBranchOp::create(rewriter, loc, entered, body, body_args, exit, op.getInitArgs());
    rewriter.replaceOp(op, exit->getArguments());
    return mlir::success();
  }
};

class SCFToCFPass : public mlir::PassWrapper<SCFToCFPass, mlir::OperationPass<>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SCFToCFPass)

  llvm::StringRef getArgument() const override { return "kiln-scf-to-cf"; }
  llvm::StringRef getDescription() const override {
    return "scf into cf branches, scf.for rotated into a guard and a stepping latch";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<arith::ArithDialect, cf::ControlFlowDialect>();
  }

  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    patterns.add<RotatedForLowering>(&getContext());
    mlir::populateSCFToControlFlowConversionPatterns(patterns);
    mlir::ConversionTarget target(getContext());
    target.addIllegalOp<scf::ForallOp, scf::ForOp, scf::IfOp, scf::IndexSwitchOp,
                        scf::ParallelOp, scf::WhileOp, scf::ExecuteRegionOp>();
    target.markUnknownOpDynamicallyLegal([](mlir::Operation*) { return true; });
    if (failed(mlir::applyPartialConversion(getOperation(), target, std::move(patterns)))) {
      signalPassFailure();
    }
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> CreateSCFToCFPass() { return std::make_unique<SCFToCFPass>(); }

}  // namespace kiln::compiler
