// CompileCudaKernels (cuda_target.h).
#include "compiler/targets/cuda/cuda_target.h"

#include <memory>
#include <vector>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/targets/cuda/lower_kernels_to_nvvm.h"
#include "compiler/targets/cuda/ptx_emission.h"
#include "compiler/targets/gpu/distribute_to_threads.h"
#include "compiler/targets/kernel_context.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/AllInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

namespace kiln::compiler::cuda {
namespace {

// The dialects a contract kernel may use, those its lowering produces, the
// interfaces the thread distribution uses (tiling linalg ops, bounding tile
// sizes) and the translations to LLVM IR.
mlir::DialectRegistry KernelDialects() {
  mlir::DialectRegistry registry;
  registry.insert<HAL::HALDialect, mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::index::IndexDialect, mlir::linalg::LinalgDialect, mlir::LLVM::LLVMDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect, mlir::NVVM::NVVMDialect,
                  mlir::scf::SCFDialect, mlir::ub::UBDialect>();
  mlir::linalg::registerAllDialectInterfaceImplementations(registry);
  mlir::affine::registerValueBoundsOpInterfaceExternalModels(registry);
  mlir::arith::registerValueBoundsOpInterfaceExternalModels(registry);
  mlir::memref::registerValueBoundsOpInterfaceExternalModels(registry);
  mlir::scf::registerValueBoundsOpInterfaceExternalModels(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
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

Result<std::string> CompileCudaKernels(mlir::ModuleOp kernels, const CudaTargetOptions& options) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<KernelContext> copy,
                        KernelContext::Copy(kernels, KernelDialects(), "CUDA"));
  const std::vector<std::string> names = KernelNames(copy->module());
  if (names.empty()) {
    return InvalidArgumentError("the CUDA kernel module defines no kernel (public function)");
  }

  mlir::PassManager pm(&copy->context());
  pm.addPass(gpu::createDistributeToThreadsPass());
  pm.addPass(createLowerKernelsToNVVMPass(options));
  if (mlir::failed(pm.run(copy->module()))) {
    return copy->Error("cannot lower the CUDA kernels to NVVM");
  }

  Result<std::string> ptx = EmitPtx(copy->module(), names, options);
  if (!ptx.ok()) {
    // Translation errors are diagnostics; add them to the message.
    Status with_diagnostics = copy->Error(std::string(ptx.status().message()));
    return Status(ptx.status().code(), with_diagnostics.message());
  }
  return ptx;
}

}  // namespace kiln::compiler::cuda
