// KernelContext (kernel_context.h).
#include "compiler/targets/kernel_context.h"

#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"

namespace kiln::compiler {

KernelContext::KernelContext(const mlir::DialectRegistry& registry)
    : context_(registry, mlir::MLIRContext::Threading::DISABLED),
      handler_(&context_, [this](mlir::Diagnostic& diagnostic) {
        if (diagnostic.getSeverity() != mlir::DiagnosticSeverity::Error) return mlir::success();
        Append(diagnostic);
        for (mlir::Diagnostic& note : diagnostic.getNotes()) Append(note);
        return mlir::success();
      }) {
  context_.printOpOnDiagnostic(false);
}

KernelContext::~KernelContext() = default;

Result<std::unique_ptr<KernelContext>> KernelContext::Copy(
    mlir::ModuleOp kernels, const mlir::DialectRegistry& backend_registry,
    const std::string& target) {
  std::string text;
  {
    llvm::raw_string_ostream stream(text);
    kernels->print(stream, mlir::OpPrintingFlags().printGenericOpForm().enableDebugInfo());
  }
  mlir::MLIRContext* caller_context = kernels.getContext();
  mlir::DialectRegistry registry;
  caller_context->getDialectRegistry().appendTo(registry);
  backend_registry.appendTo(registry);
  std::unique_ptr<KernelContext> copy(new KernelContext(registry));
  copy->context_.allowUnregisteredDialects(caller_context->allowsUnregisteredDialects());
  copy->module_ =
      mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&copy->context_));
  if (!copy->module_) {
    return copy->Error("cannot copy the " + target + " kernels into the backend's context");
  }
  return copy;
}

Status KernelContext::Error(const std::string& what) const {
  return InvalidArgumentError(messages_.empty() ? what : what + ":\n" + messages_);
}

void KernelContext::Append(mlir::Diagnostic& diagnostic) {
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

}  // namespace kiln::compiler
