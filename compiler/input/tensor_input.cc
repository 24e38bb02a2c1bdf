// TensorInput (--kiln-tensor-input): the input pipeline of tensor programs,
// run on each function that computes on tensors and on nothing else:
//
//   --kiln-expand-tensor-inserts    tensor.insert -> an elementwise linalg.generic
//   --kiln-lower-tensor-pads        tensor.pad -> a linalg.generic reading in bounds
//   --kiln-decompose-aggregates     linalg.softmax -> its linalg ops
//   convert-elementwise-to-linalg   arith/math on whole tensors -> linalg.generic
//   --kiln-detach-unread-inits      no false dependences through unread inits
//   resolve-ranked-shaped-type-result-dims, canonicalize
//                                   dims of results -> dims of what sized them
//   --kiln-fuse-elementwise         elementwise producers into their consumers
//                                   (not into contractions)
//
// Scalar programs (the VM's own benchmarks, a 300,000-op function) have no
// tensors; three module-wide greedy rewrites would cost them a large part of
// their compile time for nothing, so functions without a tensor are skipped
// after one walk.
#include "compiler/input/passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

namespace kiln::compiler {
namespace {

bool ComputesOnTensors(mlir::func::FuncOp func) {
  auto is_tensor = [](mlir::Type type) { return llvm::isa<mlir::TensorType>(type); };
  if (llvm::any_of(func.getArgumentTypes(), is_tensor) ||
      llvm::any_of(func.getResultTypes(), is_tensor)) {
    return true;
  }
  return func
      .walk([&](mlir::Operation* op) {
        return llvm::any_of(op->getResultTypes(), is_tensor) ? mlir::WalkResult::interrupt()
                                                             : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}

struct TensorInputPass : mlir::PassWrapper<TensorInputPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TensorInputPass)
  llvm::StringRef getArgument() const override { return "kiln-tensor-input"; }
  llvm::StringRef getDescription() const override {
    return "On each function that computes on tensors: elementwise ops into linalg, unread "
           "inits detached, elementwise fusion";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    mlir::OpPassManager pipeline(mlir::func::FuncOp::getOperationName());
    Build(pipeline);
    pipeline.getDependentDialects(registry);
  }
  static void Build(mlir::OpPassManager& pipeline) {
    pipeline.addPass(createExpandTensorInsertsPass());
    pipeline.addPass(createLowerTensorPadsPass());
    pipeline.addPass(createDecomposeAggregatesPass());
    pipeline.addPass(mlir::createConvertElementwiseToLinalgPass());
    pipeline.addPass(createDetachUnreadInitsPass());
    // The conversion sizes its inits with tensor.dim of its operands, some of
    // them results of other linalg ops: each such use keeps its producer from
    // fusing. They become dims of what those ops were sized by.
    pipeline.addPass(mlir::memref::createResolveRankedShapeTypeResultDimsPass());
    pipeline.addPass(mlir::createCanonicalizerPass());
    pipeline.addPass(createFuseElementwisePass());
  }
  void runOnOperation() override {
    mlir::OpPassManager pipeline(mlir::func::FuncOp::getOperationName());
    Build(pipeline);
    for (auto func : getOperation().getOps<mlir::func::FuncOp>()) {
      if (func.isExternal() || !ComputesOnTensors(func)) continue;
      if (mlir::failed(runPipeline(pipeline, func))) return signalPassFailure();
      // Fusion reshapes some inits (expand_shape of a tensor.empty): they
      // become empty tensors of the new shape, or bufferization would give
      // the dispatch a private buffer and copy it whole into its output.
      mlir::RewritePatternSet patterns(&getContext());
      mlir::tensor::populateFoldTensorEmptyPatterns(patterns);
      if (mlir::failed(mlir::applyPatternsGreedily(func, std::move(patterns)))) {
        return signalPassFailure();
      }
    }
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createTensorInputPass() { return std::make_unique<TensorInputPass>(); }

}  // namespace kiln::compiler
