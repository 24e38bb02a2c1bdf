// LLVM's O3 pipeline over a translated module, for the backends that compile
// generated kernels through LLVM (cpu, cuda): the target machine's own
// passes and cost model take part (PassBuilder with the machine).
#pragma once

#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace kiln::compiler {

void OptimizeWithLLVM(llvm::Module& module, llvm::TargetMachine& machine);

}  // namespace kiln::compiler
