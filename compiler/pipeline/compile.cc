#include "compiler/pipeline/compile.h"

#include "compiler/dialects/registration.h"
#include "compiler/vm/module_emitter.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

namespace kiln::compiler {

mlir::FailureOr<std::vector<uint8_t>> EmitBytecode(mlir::ModuleOp module,
                                                    const CompileOptions& options) {
  EmitModuleOptions emit;
  emit.module_name = options.module_name;
  emit.debug_locations = options.debug_locations;
  // Problems are reported at the ops through the context's diagnostics; any
  // other failure (none is expected) is reported at the module.
  bool reported = false;
  mlir::ScopedDiagnosticHandler watch(module.getContext(), [&](mlir::Diagnostic& diagnostic) {
    reported |= diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error;
    return mlir::failure();  // Not handled here: the caller's handler prints it.
  });
  Result<std::vector<uint8_t>> bytes = EmitModule(module, emit);
  if (!bytes.ok()) {
    if (!reported) module.emitError(bytes.status().message());
    return mlir::failure();
  }
  return std::move(*bytes);
}

mlir::FailureOr<std::vector<uint8_t>> CompileModule(mlir::ModuleOp module,
                                                     const CompileOptions& options) {
  mlir::PassManager pm(module->getName());
  BuildPipeline(pm, options.pipeline);
  if (mlir::failed(pm.run(module))) return mlir::failure();
  return EmitBytecode(module, options);
}

Result<std::vector<uint8_t>> CompileSource(std::string path, std::string text,
                                           const CompileOptions& options) {
  mlir::DialectRegistry registry;
  RegisterDialects(registry);
  // One thread: the callers (the fuzzer, tests) compile many small programs.
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);

  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, path), llvm::SMLoc());
  std::string rendered;
  llvm::raw_string_ostream stream(rendered);
  mlir::SourceMgrDiagnosticHandler handler(sources, &context, stream);

  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(sources, &context);
  mlir::FailureOr<std::vector<uint8_t>> bytes =
      module ? CompileModule(*module, options) : mlir::FailureOr<std::vector<uint8_t>>();
  if (mlir::failed(bytes)) {
    return InvalidArgumentError(rendered.empty() ? path + ": error: compilation failed" : rendered);
  }
  return std::move(*bytes);
}

}  // namespace kiln::compiler
