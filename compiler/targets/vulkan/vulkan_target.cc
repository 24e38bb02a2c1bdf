// CompileVulkanKernels (vulkan_target.h).
#include "compiler/targets/vulkan/vulkan_target.h"

#include <cstring>
#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/targets/gpu/distribute_to_threads.h"
#include "compiler/targets/vulkan/lower_kernels_to_spirv.h"
#include "llvm/Support/raw_ostream.h"
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
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"

namespace kiln::compiler::vulkan {
namespace {

// The dialects a contract kernel may use, those its lowering produces, and
// the interfaces the distribution uses (tiling linalg ops, bounding tile
// sizes).
void RegisterKernelDialects(mlir::DialectRegistry& registry) {
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
}

// Collects every error (with its notes) as "location: message" lines.
class DiagnosticCollector {
 public:
  explicit DiagnosticCollector(mlir::MLIRContext& context)
      : handler_(&context, [this](mlir::Diagnostic& diagnostic) {
          if (diagnostic.getSeverity() != mlir::DiagnosticSeverity::Error) return mlir::success();
          Append(diagnostic);
          for (mlir::Diagnostic& note : diagnostic.getNotes()) Append(note);
          return mlir::success();
        }) {}

  Status Error(const std::string& what) const {
    return InvalidArgumentError(messages_.empty() ? what : what + ":\n" + messages_);
  }

 private:
  void Append(mlir::Diagnostic& diagnostic) {
    llvm::raw_string_ostream stream(messages_);
    if (!messages_.empty()) stream << "\n";
    mlir::Location location = diagnostic.getLocation();
    if (auto file = location->findInstanceOf<mlir::FileLineColLoc>()) {
      stream << file.getFilename().getValue() << ":" << file.getLine() << ":" << file.getColumn();
    } else {
      stream << location;
    }
    stream << ": " << diagnostic.str();
  }

  std::string messages_;
  mlir::ScopedDiagnosticHandler handler_;
};

}  // namespace

Result<std::vector<uint8_t>> CompileVulkanKernels(mlir::ModuleOp kernels,
                                                  const VulkanTargetOptions& options) {
  // The copy goes through the generic textual form with every location, so
  // that diagnostics in the private context still point at the user's file.
  std::string text;
  {
    llvm::raw_string_ostream stream(text);
    kernels->print(stream, mlir::OpPrintingFlags().printGenericOpForm().enableDebugInfo());
  }

  mlir::MLIRContext* caller_context = kernels.getContext();
  mlir::DialectRegistry registry;
  caller_context->getDialectRegistry().appendTo(registry);
  RegisterKernelDialects(registry);
  // Threading off: a handful of passes over small modules (callers
  // parallelize across executables).
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(caller_context->allowsUnregisteredDialects());
  context.printOpOnDiagnostic(false);
  DiagnosticCollector diagnostics(context);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&context));
  if (!module) {
    return diagnostics.Error("cannot copy the Vulkan kernels into the backend's context");
  }

  mlir::PassManager pm(&context);
  pm.addPass(gpu::createDistributeToThreadsPass());
  pm.addPass(createLowerKernelsToSPIRVPass(options));
  if (mlir::failed(pm.run(*module))) {
    return diagnostics.Error("cannot lower the Vulkan kernels to SPIR-V");
  }

  auto spirv_modules = module->getOps<mlir::spirv::ModuleOp>();
  if (std::distance(spirv_modules.begin(), spirv_modules.end()) != 1) {
    return InternalError("the Vulkan lowering did not produce exactly one spirv.module");
  }
  llvm::SmallVector<uint32_t> words;
  if (mlir::failed(mlir::spirv::serialize(*spirv_modules.begin(), words))) {
    return diagnostics.Error("cannot serialize the Vulkan kernels' SPIR-V module");
  }
  std::vector<uint8_t> bytes(words.size() * sizeof(uint32_t));
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

}  // namespace kiln::compiler::vulkan
