// FuseElementwise (--kiln-fuse-elementwise): upstream's elementwise fusion
// (linalg's elementwise-op and reshape-by-expansion patterns, with the
// canonicalizations that upstream's linalg-fuse-elementwise-ops runs beside
// them), except that nothing fuses into a contraction's operands.
//
// A matmul whose operand was computed in its own body (a softmax's
// normalization multiplied into attention's second matmul, say) is no
// longer a matmul: no library can take it (compiler/dispatch/library_calls.h),
// and the generated kernel computes the operand once per output tile
// instead of once. So an elementwise producer of a contraction stays a
// linalg op of its own (IREE's dispatch formation keeps a matmul's
// operands apart likewise), while its consumers (a bias, an activation)
// still fuse with each other.
//
//   %p = linalg.generic {exp} ins(%x) ...
//   %m = linalg.generic {mul-add contraction} ins(%p, %w) ...  // stays
//   %r = linalg.generic {add bias} ins(%m, %b) ...
//   %s = linalg.generic {relu} ins(%r) ...  // fuses into the bias add
//
// A linalg op that a pattern replaces passes its `kiln.library` choice (a
// matmul marked "none" or "always", library_calls.h) on to the linalg op
// that computes its replacement: reshape fusion rewrites a named
// batch_matmul whose result is expanded into a generic on the expanded
// shape, and upstream's rewrite keeps no attribute of the op it replaces.
#include "compiler/input/passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln::compiler {
namespace {

// Whether `op` only broadcasts its one input (a bias spread over the rows
// of a matmul's result): a copy that costs nothing to compute again in each
// consumer, where as a tensor of its own it is a dispatch and a round trip
// through memory, and hides the bias from a library's epilogue.
bool IsBroadcast(mlir::Operation* op) {
  auto generic = llvm::dyn_cast<mlir::linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0 || !generic.hasPureTensorSemantics()) {
    return false;
  }
  mlir::OpOperand* input = generic.getDpsInputOperand(0);
  mlir::AffineMap map = generic.getMatchingIndexingMap(input);
  if (!map.isProjectedPermutation() || map.getNumResults() >= map.getNumDims() ||
      !generic.getIndexingMapMatchingResult(generic->getResult(0)).isIdentity()) {
    return false;
  }
  mlir::Block& body = generic.getRegion().front();
  auto yield = llvm::dyn_cast<mlir::linalg::YieldOp>(body.getTerminator());
  return yield && body.getOperations().size() == 1 &&
         yield->getOperand(0) == generic.getMatchingBlockArgument(input);
}

// Upstream's rule (a producer of one use fuses; here also a broadcast of
// many uses, into each), and no contraction takes a producer into its body.
bool FusesInto(mlir::OpOperand* fused) {
  mlir::Operation* producer = fused->get().getDefiningOp();
  if (!producer || (!producer->hasOneUse() && !IsBroadcast(producer))) return false;
  auto consumer = llvm::dyn_cast<mlir::linalg::LinalgOp>(fused->getOwner());
  return !consumer || !mlir::linalg::isaContractionOpInterface(consumer);
}

// Carries `kiln.library` from each replaced linalg op to the linalg op its
// replacement values come from, through the reshapes reshape fusion puts
// between them.
struct KeepLibraryChoice : mlir::RewriterBase::Listener {
  void notifyOperationReplaced(mlir::Operation* op, mlir::ValueRange replacement) override {
    auto choice = op->getAttrOfType<mlir::StringAttr>("kiln.library");
    if (!choice || !llvm::isa<mlir::linalg::LinalgOp>(op)) return;
    for (mlir::Value value : replacement) {
      mlir::Operation* def = value.getDefiningOp();
      while (
          llvm::isa_and_nonnull<mlir::tensor::ExpandShapeOp, mlir::tensor::CollapseShapeOp>(def)) {
        def = def->getOperand(0).getDefiningOp();
      }
      if (llvm::isa_and_nonnull<mlir::linalg::LinalgOp>(def) && !def->hasAttr("kiln.library")) {
        def->setAttr("kiln.library", choice);
      }
    }
  }
};

struct FuseElementwisePass
    : mlir::PassWrapper<FuseElementwisePass, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseElementwisePass)
  llvm::StringRef getArgument() const override { return "kiln-fuse-elementwise"; }
  llvm::StringRef getDescription() const override {
    return "Elementwise producers into their consumers, except into contractions";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<mlir::affine::AffineDialect, mlir::linalg::LinalgDialect,
                    mlir::tensor::TensorDialect>();
  }
  void runOnOperation() override {
    mlir::MLIRContext* context = &getContext();
    mlir::RewritePatternSet patterns(context);
    mlir::linalg::populateElementwiseOpsFusionPatterns(patterns, FusesInto);
    mlir::linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, FusesInto);
    mlir::tensor::populateBubbleUpExpandShapePatterns(patterns);
    mlir::affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    mlir::linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    mlir::tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    mlir::tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<mlir::linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    mlir::linalg::populateConstantFoldLinalgOperations(patterns, FusesInto);
    // Top-down, as upstream's pass does, for compile time.
    KeepLibraryChoice keep_library_choice;
    if (mlir::failed(mlir::applyPatternsGreedily(
            getOperation(), std::move(patterns),
            mlir::GreedyRewriteConfig().setUseTopDownTraversal().setListener(
                &keep_library_choice)))) {
      return signalPassFailure();
    }
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createFuseElementwisePass() {
  return std::make_unique<FuseElementwisePass>();
}

}  // namespace kiln::compiler
