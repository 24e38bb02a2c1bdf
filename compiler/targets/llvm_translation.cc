// Translation of kernels to LLVM IR (llvm_translation.h).
#include "compiler/targets/llvm_translation.h"

#include <string>

#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

namespace kiln::compiler {

Result<std::unique_ptr<llvm::Module>> TranslateToLLVMIR(mlir::ModuleOp module,
                                                        llvm::LLVMContext& context,
                                                        const llvm::TargetMachine& machine,
                                                        std::string_view name,
                                                        std::string_view what) {
  mlir::registerBuiltinDialectTranslation(*module.getContext());
  mlir::registerLLVMDialectTranslation(*module.getContext());
  std::unique_ptr<llvm::Module> llvm_module =
      mlir::translateModuleToLLVMIR(module, context, llvm::StringRef(name.data(), name.size()));
  if (!llvm_module) {
    return InvalidArgumentError("cannot translate " + std::string(what) +
                                " to LLVM IR (the diagnostics name the op)");
  }
  llvm_module->setTargetTriple(machine.getTargetTriple());
  llvm_module->setDataLayout(machine.createDataLayout());
  std::string message;
  llvm::raw_string_ostream stream(message);
  if (llvm::verifyModule(*llvm_module, &stream)) {
    return InternalError("the translated LLVM IR is invalid: " + message);
  }
  return llvm_module;
}

}  // namespace kiln::compiler
