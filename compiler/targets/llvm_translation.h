// Translating generated kernels in the LLVM dialect into LLVM IR for a
// target machine, for the backends that compile through LLVM (cpu, cuda):
// the module gets the machine's triple and data layout and is verified.
#pragma once

#include <memory>
#include <string_view>

#include "base/result.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln::compiler {

// `module` as LLVM IR in `context`, named `name`. The builtin and LLVM
// dialects' translations are registered here; a backend with more dialects
// (NVVM) registers theirs first. `what` names the kernels in errors ("the
// CUDA kernels").
Result<std::unique_ptr<llvm::Module>> TranslateToLLVMIR(mlir::ModuleOp module,
                                                        llvm::LLVMContext& context,
                                                        const llvm::TargetMachine& machine,
                                                        std::string_view name,
                                                        std::string_view what);

}  // namespace kiln::compiler
