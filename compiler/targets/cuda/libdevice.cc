// Linking libdevice into CUDA kernels (libdevice.h).
#include "compiler/targets/cuda/libdevice.h"

#include <memory>
#include <string>
#include <vector>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace kiln::compiler::cuda {
namespace {

bool IsLibdeviceFunction(const llvm::Function& function) {
  return function.getName().starts_with("__nv_");
}

// The value CUDA gives a libdevice `__nvvm_reflect` query by default.
int ReflectValue(llvm::StringRef name, int sm_version) {
  if (name == "__CUDA_ARCH") return sm_version * 10;
  if (name == "__CUDA_PREC_SQRT") return 1;
  return 0;  // __CUDA_FTZ and anything unknown (as LLVM's NVVMReflect does).
}

// Replaces every `__nvvm_reflect("NAME")` call by its value, so that the
// libdevice branches for other configurations fold away and nothing calls
// a function PTX does not define.
Status ResolveReflect(llvm::Module& module, int sm_version) {
  for (const char* spelling : {"__nvvm_reflect", "llvm.nvvm.reflect"}) {
    llvm::Function* reflect = module.getFunction(spelling);
    if (!reflect) continue;
    for (llvm::User* user : llvm::make_early_inc_range(reflect->users())) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(user);
      llvm::StringRef name;
      if (!call || call->getCalledFunction() != reflect || call->arg_size() != 1 ||
          !llvm::getConstantStringInfo(call->getArgOperand(0), name)) {
        return InternalError(std::string("libdevice uses ") + spelling +
                             " other than as a call with a constant string");
      }
      call->replaceAllUsesWith(
          llvm::ConstantInt::get(call->getType(), ReflectValue(name, sm_version)));
      call->eraseFromParent();
    }
    if (reflect->use_empty()) reflect->eraseFromParent();
  }
  return OkStatus();
}

}  // namespace

Status LinkLibdevice(llvm::Module& module, int sm_version) {
  std::vector<std::string> needed;
  for (const llvm::Function& function : module) {
    if (function.isDeclaration() && IsLibdeviceFunction(function) && !function.use_empty()) {
      needed.push_back(function.getName().str());
    }
  }
  if (needed.empty()) return OkStatus();
  const std::string_view bitcode = EmbeddedLibdevice();
  if (bitcode.empty()) {
    return FailedPreconditionError(
        "the CUDA kernels call " + llvm::join(needed, ", ") +
        " from libdevice, which was not found when kiln was built (the CUDA toolkit's "
        "nvvm/libdevice/libdevice.10.bc; see KILN_CUDA_LIBDEVICE)");
  }

  // Lazily: the linker materializes only the functions the kernels need.
  llvm::Expected<std::unique_ptr<llvm::Module>> libdevice = llvm::getLazyBitcodeModule(
      llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), "libdevice.10.bc"),
      module.getContext());
  if (!libdevice) {
    return InternalError("cannot load the embedded libdevice.10.bc: " +
                         llvm::toString(libdevice.takeError()));
  }
  // Its triple (nvptx64-nvidia-gpulibs) and data layout are generic; take
  // the kernels' so that the linker has no mismatch to warn about.
  (*libdevice)->setTargetTriple(module.getTargetTriple());
  (*libdevice)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*libdevice),
                                llvm::Linker::Flags::LinkOnlyNeeded)) {
    return InternalError("cannot link libdevice into the CUDA kernels (for " +
                         llvm::join(needed, ", ") + ")");
  }
  for (llvm::Function& function : module) {
    if (!function.isDeclaration() && IsLibdeviceFunction(function)) {
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  for (const std::string& name : needed) {
    const llvm::Function* function = module.getFunction(name);
    if (!function || function->isDeclaration()) {
      return InvalidArgumentError("the CUDA kernels call " + name +
                                  ", which libdevice does not define");
    }
  }
  return ResolveReflect(module, sm_version);
}

}  // namespace kiln::compiler::cuda
