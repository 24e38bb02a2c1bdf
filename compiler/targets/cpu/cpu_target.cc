// CompileCpuKernels (cpu_target.h).
#include "compiler/targets/cpu/cpu_target.h"

#include <memory>
#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/targets/cpu/lower_kernels_to_llvm.h"
#include "compiler/targets/cpu/shared_object.h"
#include "compiler/targets/cpu/split_reductions.h"
#include "compiler/targets/kernel_context.h"
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
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

namespace kiln::compiler::cpu {
namespace {

// The dialects a contract kernel may use, plus those its lowering produces.
mlir::DialectRegistry KernelDialects() {
  mlir::DialectRegistry registry;
  registry.insert<HAL::HALDialect, mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect, mlir::index::IndexDialect,
                  mlir::linalg::LinalgDialect, mlir::LLVM::LLVMDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect, mlir::ub::UBDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  return registry;
}

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
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<KernelContext> copy,
                        KernelContext::Copy(kernels, KernelDialects(), "CPU"));
  mlir::ModuleOp module = copy->module();
  const std::vector<std::string> exports = KernelNames(module);
  if (exports.empty()) {
    return InvalidArgumentError("the CPU kernel module defines no kernel (public function)");
  }

  mlir::PassManager pm(&copy->context());
  pm.addPass(createSplitReductionsPass());
  pm.addPass(createLowerKernelsToLLVMPass());
  if (mlir::failed(pm.run(module))) {
    return copy->Error("cannot lower the CPU kernels to LLVM");
  }

  SharedObjectOptions shared_object_options;
  shared_object_options.cpu = options.cpu;
  shared_object_options.features = options.features;
  shared_object_options.exported_symbols = exports;
  Result<std::vector<uint8_t>> shared_object = EmitSharedObject(module, shared_object_options);
  if (!shared_object.ok()) {
    Status with_diagnostics = copy->Error(shared_object.status().message());
    return Status(shared_object.status().code(), with_diagnostics.message());
  }
  return shared_object;
}

}  // namespace kiln::compiler::cpu
