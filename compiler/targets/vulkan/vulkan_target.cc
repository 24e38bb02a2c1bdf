// CompileVulkanKernels (vulkan_target.h).
#include "compiler/targets/vulkan/vulkan_target.h"

#include <cstring>
#include <memory>
#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/targets/gpu/distribute_to_threads.h"
#include "compiler/targets/kernel_context.h"
#include "compiler/targets/vulkan/lower_kernels_to_spirv.h"
#include "compiler/targets/vulkan/shader_clock.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/AllInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"

namespace kiln::compiler::vulkan {
namespace {

// The dialects a contract kernel may use, those its lowering produces, and
// the interfaces the distribution uses (tiling linalg ops, bounding tile
// sizes).
mlir::DialectRegistry KernelDialects() {
  mlir::DialectRegistry registry;
  registry.insert<HAL::HALDialect, mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::index::IndexDialect, mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect, mlir::spirv::SPIRVDialect,
                  mlir::ub::UBDialect>();
  mlir::linalg::registerAllDialectInterfaceImplementations(registry);
  mlir::affine::registerValueBoundsOpInterfaceExternalModels(registry);
  mlir::arith::registerValueBoundsOpInterfaceExternalModels(registry);
  mlir::memref::registerValueBoundsOpInterfaceExternalModels(registry);
  mlir::scf::registerValueBoundsOpInterfaceExternalModels(registry);
  return registry;
}

}  // namespace

Result<std::vector<uint8_t>> CompileVulkanKernels(mlir::ModuleOp kernels,
                                                  const VulkanTargetOptions& options) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<KernelContext> copy,
                        KernelContext::Copy(kernels, KernelDialects(), "Vulkan"));
  mlir::ModuleOp module = copy->module();

  mlir::PassManager pm(&copy->context());
  pm.addPass(gpu::createDistributeToThreadsPass());
  pm.addPass(createLowerKernelsToSPIRVPass(options));
  if (mlir::failed(pm.run(module))) {
    return copy->Error("cannot lower the Vulkan kernels to SPIR-V");
  }

  auto spirv_modules = module.getOps<mlir::spirv::ModuleOp>();
  if (std::distance(spirv_modules.begin(), spirv_modules.end()) != 1) {
    return InternalError("the Vulkan lowering did not produce exactly one spirv.module");
  }
  llvm::SmallVector<uint32_t> words;
  if (mlir::failed(mlir::spirv::serialize(*spirv_modules.begin(), words))) {
    return copy->Error("cannot serialize the Vulkan kernels' SPIR-V module");
  }
  // The device clock of instrumented kernels, which the SPIR-V dialect
  // cannot express (shader_clock.h).
  KILN_RETURN_IF_ERROR(PatchShaderClock(words));
  std::vector<uint8_t> bytes(words.size() * sizeof(uint32_t));
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

}  // namespace kiln::compiler::vulkan
