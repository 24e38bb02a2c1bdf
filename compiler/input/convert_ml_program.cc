// ConvertMLProgram (--kiln-convert-ml-program): upstream's ml_program
// globals (what torch-mlir and StableHLO importers emit for model state) as
// the util globals the rest of kiln lowers, first thing in the pipeline:
//
//   ml_program.global private mutable @g(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
//   %v = ml_program.global_load @g : tensor<4xf32>
//   %c = ml_program.global_load_const @w : tensor<4xf32>
//   ml_program.global_store @g = %v : tensor<4xf32>
// ->
//   util.global private mutable @g = dense<0.0> : tensor<4xf32>
//   %v = util.global.load @g : tensor<4xf32>
//   %c = util.global.load immutable @w : tensor<4xf32>
//   util.global.store %v, @g : tensor<4xf32>
//
// A global whose value is `#ml_program.extern` (bound at load time, which
// kiln has no way to do) and the graph forms (global_load_graph,
// global_store_graph: ordered by tokens, only in ml_program graph regions)
// are errors at the op.
#include "compiler/dialects/util/util_dialect.h"
#include "compiler/input/passes.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

namespace ml = mlir::ml_program;

// An ml_program global as a util global; failure (reported) for an extern
// value.
mlir::LogicalResult ConvertGlobal(ml::GlobalOp global) {
  mlir::Attribute value = global.getValueAttr();
  if (llvm::isa_and_nonnull<ml::ExternAttr>(value)) {
    return global.emitError() << "ml_program.global @" << global.getSymName()
                              << " has an external value (#ml_program.extern), which kiln "
                                 "cannot bind; give it a constant value";
  }
  mlir::OpBuilder b(global);
  Util::GlobalOp::create(b, global.getLoc(), global.getSymName(), global.getSymVisibilityAttr(),
                         global.getType(), global.getIsMutable(), value);
  global.erase();
  return mlir::success();
}

// Loads and stores name a global by a (flat) symbol reference.
mlir::FailureOr<mlir::FlatSymbolRefAttr> FlatGlobal(mlir::Operation* op,
                                                    mlir::SymbolRefAttr symbol) {
  if (auto flat = llvm::dyn_cast<mlir::FlatSymbolRefAttr>(symbol)) return flat;
  return op->emitError() << "global " << symbol
                         << " is in a nested symbol table; kiln takes "
                            "globals of the top-level module";
}

struct ConvertMLProgramPass
    : mlir::PassWrapper<ConvertMLProgramPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ConvertMLProgramPass)
  llvm::StringRef getArgument() const override { return "kiln-convert-ml-program"; }
  llvm::StringRef getDescription() const override {
    return "ml_program globals, loads and stores into util.global, util.global.load and "
           "util.global.store";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<Util::UtilDialect>();
  }
  void runOnOperation() override {
    bool failed = false;
    llvm::SmallVector<mlir::Operation*> ops;
    getOperation().walk([&](mlir::Operation* op) {
      if (llvm::isa<ml::GlobalOp, ml::GlobalLoadOp, ml::GlobalLoadConstOp, ml::GlobalStoreOp,
                    ml::GlobalLoadGraphOp, ml::GlobalStoreGraphOp>(op)) {
        ops.push_back(op);
      }
    });
    for (mlir::Operation* op : ops) {
      mlir::OpBuilder b(op);
      if (auto global = llvm::dyn_cast<ml::GlobalOp>(op)) {
        failed |= mlir::failed(ConvertGlobal(global));
        continue;
      }
      if (llvm::isa<ml::GlobalLoadGraphOp, ml::GlobalStoreGraphOp>(op)) {
        op->emitError() << "'" << op->getName()
                        << "' (ordered by tokens in ml_program graph regions) is not supported; "
                           "use ml_program.global_load / global_store in functions";
        failed = true;
        continue;
      }
      // A load (the _const form: of a global never stored) or a store.
      auto store = llvm::dyn_cast<ml::GlobalStoreOp>(op);
      auto load_const = llvm::dyn_cast<ml::GlobalLoadConstOp>(op);
      mlir::SymbolRefAttr global = store        ? store.getGlobal()
                                   : load_const ? load_const.getGlobal()
                                                : llvm::cast<ml::GlobalLoadOp>(op).getGlobal();
      mlir::FailureOr<mlir::FlatSymbolRefAttr> symbol = FlatGlobal(op, global);
      if (mlir::failed(symbol)) {
        failed = true;
        continue;
      }
      if (store) {
        Util::GlobalStoreOp::create(b, op->getLoc(), store.getValue(), *symbol);
      } else {
        op->getResult(0).replaceAllUsesWith(
            Util::GlobalLoadOp::create(b, op->getLoc(), op->getResult(0).getType(), *symbol,
                                       load_const ? b.getUnitAttr() : nullptr)
                .getResult());
      }
      op->erase();
    }
    if (failed) signalPassFailure();
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createConvertMLProgramPass() {
  return std::make_unique<ConvertMLProgramPass>();
}

}  // namespace kiln::compiler
