// CompileCpuKernels (cpu_target.h).
#include "compiler/targets/cpu/cpu_target.h"

#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/targets/cpu/lower_kernels_to_llvm.h"
#include "compiler/targets/cpu/shared_object.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

namespace kiln::compiler::cpu {
namespace {

// The dialects a contract kernel may use, plus those its lowering produces.
void RegisterKernelDialects(mlir::DialectRegistry& registry) {
  registry.insert<HAL::HALDialect, mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect, mlir::index::IndexDialect,
                  mlir::linalg::LinalgDialect, mlir::LLVM::LLVMDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect, mlir::ub::UBDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
}

// Collects every error (with its notes) as "location: message" lines.
class DiagnosticCollector {
 public:
  explicit DiagnosticCollector(mlir::MLIRContext& context)
      : handler_(&context, [this](mlir::Diagnostic& diagnostic) {
          if (diagnostic.getSeverity() != mlir::DiagnosticSeverity::Error) return mlir::success();
          Append(diagnostic);
          for (mlir::Diagnostic& note : diagnostic.getNotes()) Append(note);
          return mlir::success();
        }) {}

  // `what` followed by the collected diagnostics.
  Status Error(const std::string& what) const {
    return InvalidArgumentError(messages_.empty() ? what : what + ":\n" + messages_);
  }

 private:
  void Append(mlir::Diagnostic& diagnostic) {
    llvm::raw_string_ostream stream(messages_);
    if (!messages_.empty()) stream << "\n";
    // file:line:col as compilers print it, where the location has one.
    mlir::Location location = diagnostic.getLocation();
    if (auto file = location->findInstanceOf<mlir::FileLineColLoc>()) {
      stream << file.getFilename().getValue() << ":" << file.getLine() << ":" << file.getColumn();
    } else {
      stream << location;
    }
    stream << ": " << diagnostic.str();
  }

  std::string messages_;
  mlir::ScopedDiagnosticHandler handler_;
};

std::vector<std::string> KernelNames(mlir::ModuleOp module) {
  std::vector<std::string> names;
  for (auto function : module.getOps<mlir::func::FuncOp>()) {
    if (function.isPublic() && !function.isExternal()) names.push_back(function.getSymName().str());
  }
  return names;
}

}  // namespace

Result<std::vector<uint8_t>> CompileCpuKernels(mlir::ModuleOp kernels,
                                               const CpuTargetOptions& options) {
  // The copy goes through the generic textual form with every location, so
  // that diagnostics in the private context still point at the user's file.
  std::string text;
  {
    llvm::raw_string_ostream stream(text);
    kernels->print(stream, mlir::OpPrintingFlags().printGenericOpForm().enableDebugInfo());
  }

  mlir::MLIRContext* caller_context = kernels.getContext();
  mlir::DialectRegistry registry;
  caller_context->getDialectRegistry().appendTo(registry);
  RegisterKernelDialects(registry);
  // Threading off: the lowering is a handful of passes over small modules,
  // not worth a thread pool per call (callers parallelize across kernels).
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(caller_context->allowsUnregisteredDialects());
  // The messages name the op and its location; a dump of the half-lowered op
  // would only add noise.
  context.printOpOnDiagnostic(false);
  DiagnosticCollector diagnostics(context);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&context));
  if (!module) return diagnostics.Error("cannot copy the CPU kernels into the backend's context");
  const std::vector<std::string> exports = KernelNames(*module);
  if (exports.empty()) {
    return InvalidArgumentError("the CPU kernel module defines no kernel (public function)");
  }

  mlir::PassManager pm(&context);
  pm.addPass(createLowerKernelsToLLVMPass());
  if (mlir::failed(pm.run(*module))) {
    return diagnostics.Error("cannot lower the CPU kernels to LLVM");
  }

  SharedObjectOptions shared_object_options;
  shared_object_options.cpu = options.cpu;
  shared_object_options.features = options.features;
  shared_object_options.exported_symbols = exports;
  Result<std::vector<uint8_t>> shared_object = EmitSharedObject(*module, shared_object_options);
  if (!shared_object.ok()) {
    Status with_diagnostics = diagnostics.Error(shared_object.status().message());
    return Status(shared_object.status().code(), with_diagnostics.message());
  }
  return shared_object;
}

}  // namespace kiln::compiler::cpu
