// The LLVM-dialect module -> PTX text path (ptx_emission.h).
#include "compiler/targets/cuda/ptx_emission.h"

#include <memory>
#include <mutex>

#include "compiler/targets/cuda/libdevice.h"
#include "compiler/targets/llvm_optimization.h"
#include "compiler/targets/llvm_translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

namespace kiln::compiler::cuda {
namespace {

constexpr char kTriple[] = "nvptx64-nvidia-cuda";

void InitializeNVPTXTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

Result<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const CudaTargetOptions& options) {
  InitializeNVPTXTarget();
  const llvm::Triple triple{llvm::StringRef(kTriple)};
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) return InternalError("no LLVM target for " + triple.str() + ": " + error);
  // LLVM takes an unknown CPU name with only a warning on stderr and emits
  // PTX for its default; an unknown sm must be an error instead, found before
  // the target machine is made for it.
  std::unique_ptr<llvm::MCSubtargetInfo> generic(target->createMCSubtargetInfo(triple, "", ""));
  if (!generic || !generic->isCPUStringValid(options.sm)) {
    return InvalidArgumentError("unknown CUDA architecture '" + options.sm +
                                "' (LLVM's NVPTX backend takes sm_NN, e.g. sm_75)");
  }
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(triple, options.sm, options.ptx_feature, llvm::TargetOptions(),
                                  std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine) {
    return InvalidArgumentError("cannot create an NVPTX target machine for '" + options.sm +
                                "' with features '" + options.ptx_feature + "'");
  }
  return machine;
}

// The NN of sm_NN (75 for sm_75, 90 for sm_90a); CreateTargetMachine has
// checked the name.
int SmVersion(const std::string& sm) {
  int version = 0;
  for (size_t i = 3; i < sm.size() && sm[i] >= '0' && sm[i] <= '9'; ++i) {
    version = version * 10 + (sm[i] - '0');
  }
  return version;
}

// Helpers are private: once inlined into the kernels, O3 drops them.
void InternalizeHelpers(llvm::Module& module, const std::vector<std::string>& kernels) {
  for (llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    if (llvm::is_contained(kernels, function.getName().str())) continue;
    function.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
}

Status CheckNoUndefinedFunctions(const llvm::Module& module) {
  std::vector<std::string> undefined;
  for (const llvm::Function& function : module) {
    if (function.isDeclaration() && !function.isIntrinsic() && !function.use_empty()) {
      undefined.push_back(function.getName().str());
    }
  }
  if (undefined.empty()) return OkStatus();
  return InvalidArgumentError(
      "the CUDA kernels call functions that no PTX module defines (only libdevice is linked "
      "in; the driver has no libm): " +
      llvm::join(undefined, ", "));
}

Result<std::string> EmitAssembly(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    return InternalError("the NVPTX target cannot emit PTX");
  }
  passes.run(module);
  return std::string(buffer.str());
}

// Whether `ptx` has `.entry <name>` followed by its parameter list.
bool HasEntry(const std::string& ptx, const std::string& name) {
  const std::string directive = ".entry " + name;
  for (size_t at = ptx.find(directive); at != std::string::npos; at = ptx.find(directive, at + 1)) {
    const size_t end = at + directive.size();
    if (end < ptx.size() && (ptx[end] == '(' || ptx[end] == '\n' || ptx[end] == ' ')) return true;
  }
  return false;
}

}  // namespace

Result<std::string> EmitPtx(mlir::ModuleOp llvm_module, const std::vector<std::string>& kernels,
                            const CudaTargetOptions& options) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine, CreateTargetMachine(options));

  mlir::registerNVVMDialectTranslation(*llvm_module.getContext());
  llvm::LLVMContext llvm_context;
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module,
                        TranslateToLLVMIR(llvm_module, llvm_context, *machine, "kiln_cuda_kernels",
                                          "the CUDA kernels"));
  // Before O3, which inlines the libdevice functions into the kernels.
  KILN_RETURN_IF_ERROR(LinkLibdevice(*module, SmVersion(options.sm)));
  InternalizeHelpers(*module, kernels);
  OptimizeWithLLVM(*module, *machine);
  KILN_RETURN_IF_ERROR(CheckNoUndefinedFunctions(*module));
  KILN_ASSIGN_OR_RETURN(std::string ptx, EmitAssembly(*module, *machine));
  for (const std::string& kernel : kernels) {
    if (!HasEntry(ptx, kernel)) {
      return InternalError("the PTX has no '.entry " + kernel + "' for kernel @" + kernel);
    }
  }
  return ptx;
}

}  // namespace kiln::compiler::cuda
