// A private copy of a module of generated kernels, for a target backend to
// lower and compile (compiler/targets/{cpu,cuda,vulkan}).
//
//   KILN_ASSIGN_OR_RETURN(std::unique_ptr<KernelContext> copy,
//                         KernelContext::Copy(kernels, registry, "CUDA"));
//   if (failed(pm.run(copy->module()))) return copy->Error("cannot lower ...");
//
// Why a copy in a context of its own: a backend loads dialects (LLVM, NVVM,
// SPIR-V) and runs passes that the caller's context should not see, and the
// caller (serialize-executables) compiles several executables in parallel,
// which is safe only when each compilation owns its context. The copy goes
// through the generic textual form with every location, so that diagnostics
// in the private context still point at the user's file.
//
// The context has the caller's dialect registry plus the backend's, MLIR
// threading off (a handful of passes over small modules; callers parallelize
// across executables), and a handler that collects every error with its
// notes as "file:line:col: message" lines; Error() prefixes them with what
// failed. The op is not printed with a diagnostic: the message names the op
// and its location, and a dump of a half-lowered op would only add noise.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace kiln::compiler {

class KernelContext {
 public:
  // Copies `kernels` into a new context that also has the dialects and
  // interfaces of `backend_registry`. `target` names the backend in the
  // message of a copy that fails ("CPU", "CUDA", "Vulkan").
  static Result<std::unique_ptr<KernelContext>> Copy(mlir::ModuleOp kernels,
                                                     const mlir::DialectRegistry& backend_registry,
                                                     const std::string& target);

  KernelContext(const KernelContext&) = delete;
  KernelContext& operator=(const KernelContext&) = delete;
  ~KernelContext();

  mlir::MLIRContext& context() { return context_; }
  mlir::ModuleOp module() { return *module_; }

  // InvalidArgument: `what`, then the errors collected so far, one a line.
  Status Error(const std::string& what) const;

 private:
  explicit KernelContext(const mlir::DialectRegistry& registry);

  void Append(mlir::Diagnostic& diagnostic);

  // Declared in destruction order's reverse: the module and the handler go
  // before the context.
  mlir::MLIRContext context_;
  std::string messages_;
  mlir::ScopedDiagnosticHandler handler_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
};

}  // namespace kiln::compiler
