// --kiln-vm-emit-module: writes the .kmod of the module's vm.module to a file,
// leaving the IR unchanged, so FileCheck tests can emit a hand-written
// vm-dialect module with kiln-opt and check it with kiln-dump-module or run
// it with kiln-run-module. kiln-compile calls EmitModule (module_emitter.h)
// directly.
#include <fstream>

#include "compiler/vm/module_emitter.h"
#include "compiler/vm/passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

namespace kiln::compiler {
namespace {

struct EmitModulePass : public mlir::PassWrapper<EmitModulePass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmitModulePass)

  EmitModulePass() = default;
  EmitModulePass(const EmitModulePass& other) : PassWrapper(other) {}

  llvm::StringRef getArgument() const override { return "kiln-vm-emit-module"; }
  llvm::StringRef getDescription() const override {
    return "Writes the bytecode (.kmod) of the vm.module to a file";
  }

  void runOnOperation() override {
    if (output_.empty()) {
      getOperation().emitError("--kiln-vm-emit-module needs output=PATH");
      return signalPassFailure();
    }
    EmitModuleOptions options;
    options.module_name = module_name_;
    options.debug_locations = debug_locations_;
    Result<std::vector<uint8_t>> bytes = EmitModule(getOperation(), options);
    if (!bytes.ok()) return signalPassFailure();  // Reported at the ops.
    std::ofstream file(output_, std::ios::binary);
    file.write(reinterpret_cast<const char*>(bytes->data()),
               static_cast<std::streamsize>(bytes->size()));
    if (!file) {
      getOperation().emitError() << "cannot write " << output_;
      return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }

  Option<std::string> output_{*this, "output", llvm::cl::desc("Path of the .kmod to write")};
  Option<std::string> module_name_{
      *this, "module-name", llvm::cl::desc("Module name (default: the vm.module's name)")};
  Option<bool> debug_locations_{*this, "debug-locations",
                                llvm::cl::desc("Emit the debug location table"),
                                llvm::cl::init(true)};
};

}  // namespace

std::unique_ptr<mlir::Pass> createEmitModulePass() { return std::make_unique<EmitModulePass>(); }

void registerVMBackendPasses() {
  mlir::registerPass(createAllocateRegistersPass);
  mlir::registerPass(createEmitModulePass);
}

}  // namespace kiln::compiler
