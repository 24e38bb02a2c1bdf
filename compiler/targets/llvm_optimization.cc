#include "compiler/targets/llvm_optimization.h"

#include "llvm/Passes/PassBuilder.h"

namespace kiln::compiler {

void OptimizeWithLLVM(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager loop_analyses;
  llvm::FunctionAnalysisManager function_analyses;
  llvm::CGSCCAnalysisManager cgscc_analyses;
  llvm::ModuleAnalysisManager module_analyses;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(module_analyses);
  builder.registerCGSCCAnalyses(cgscc_analyses);
  builder.registerFunctionAnalyses(function_analyses);
  builder.registerLoopAnalyses(loop_analyses);
  builder.crossRegisterProxies(loop_analyses, function_analyses, cgscc_analyses, module_analyses);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, module_analyses);
}

}  // namespace kiln::compiler
