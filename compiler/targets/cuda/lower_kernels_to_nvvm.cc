// --kiln-cuda-lower-kernels-to-nvvm (lower_kernels_to_nvvm.h).
#include "compiler/targets/cuda/lower_kernels_to_nvvm.h"

#include <array>
#include <optional>
#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/targets/cuda/libdevice.h"
#include "compiler/targets/gpu/distribute_to_threads.h"
#include "compiler/targets/llvm_binding.h"
#include "llvm/ADT/StringMap.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

namespace kiln::compiler::cuda {
namespace {

using mlir::ConversionPatternRewriter;
using mlir::failure;
using mlir::Location;
using mlir::LogicalResult;
using mlir::success;
using mlir::Type;
using mlir::Value;
namespace LLVM = mlir::LLVM;
namespace NVVM = mlir::NVVM;

bool IsKernel(mlir::func::FuncOp function) { return function.isPublic() && !function.isExternal(); }

bool IsInterfaceOp(mlir::Operation* op) {
  return llvm::isa<HAL::InterfaceBindingSubspanOp, HAL::InterfaceConstantLoadOp,
                   HAL::InterfaceWorkgroupIDOp, HAL::InterfaceWorkgroupCountOp,
                   HAL::InterfaceWorkgroupSizeOp>(op);
}

// The pipeline layout an interface op names, or null (the workgroup ops).
HAL::PipelineLayoutAttr LayoutOf(mlir::Operation* op) {
  if (auto subspan = llvm::dyn_cast<HAL::InterfaceBindingSubspanOp>(op)) {
    return subspan.getLayout();
  }
  if (auto load = llvm::dyn_cast<HAL::InterfaceConstantLoadOp>(op)) return load.getLayout();
  return nullptr;
}

// The kernel's parameter list: its layout's binding and constant counts.
struct KernelParameters {
  int64_t bindings = 0;
  int64_t constants = 0;
};

KernelParameters ParametersOf(HAL::PipelineLayoutAttr layout) {
  return {static_cast<int64_t>(layout.getBindings().size()), layout.getConstants()};
}

// Parameter `index` of the kernel enclosing `op` (before the conversion a
// func.func, during it the llvm.func that took its body).
Value KernelParameter(mlir::Operation* op, int64_t index) {
  auto function = op->getParentOfType<mlir::FunctionOpInterface>();
  return function.getFunctionBody().front().getArgument(static_cast<unsigned>(index));
}

//===----------------------------------------------------------------------===//
// Before the conversion: checking the contract and giving kernels the ABI
//===----------------------------------------------------------------------===//

// Each kernel takes its layout's bindings as pointers, then its constants as
// i32 (still a func.func, so that upstream's func-to-llvm lowers it with the
// rest). The layout is the one its interface ops name, read before any
// canonicalization can erase an unused subspan.
LogicalResult PrepareKernels(mlir::ModuleOp module) {
  auto* context = module.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto i32 = mlir::IntegerType::get(context, 32);
  bool failed = false;
  for (auto function : module.getOps<mlir::func::FuncOp>()) {
    const bool kernel = IsKernel(function);
    HAL::PipelineLayoutAttr layout;
    function.walk([&](mlir::Operation* op) {
      if (!IsInterfaceOp(op)) return;
      if (!kernel) {
        op->emitOpError() << "is in @" << function.getSymName()
                          << ", which is not a kernel (a public function); only kernels "
                             "have the dispatch interface";
        failed = true;
        return;
      }
      // (The binding, the constant's ordinal and its type are in range of the
      // layout by the ops' own verifiers.)
      if (auto subspan = llvm::dyn_cast<HAL::InterfaceBindingSubspanOp>(op)) {
        failed |= mlir::failed(CheckBindingSubspanType(subspan, "CUDA", "global memory"));
      }
      HAL::PipelineLayoutAttr named = LayoutOf(op);
      if (!named) return;
      if (!layout) {
        layout = named;
      } else if (named != layout) {
        op->emitOpError() << "names the layout " << named << " but @" << function.getSymName()
                          << " already used " << layout
                          << "; a CUDA kernel's parameters come from one layout";
        failed = true;
      }
    });
    if (!kernel) continue;
    if (function.getNumArguments() != 0 || function.getNumResults() != 0) {
      function.emitOpError() << "is a kernel (public) but has type " << function.getFunctionType()
                             << "; kernels take no arguments and return nothing";
      failed = true;
      continue;
    }
    const KernelParameters parameters = layout ? ParametersOf(layout) : KernelParameters{};
    llvm::SmallVector<Type> types(parameters.bindings, ptr);
    types.append(parameters.constants, i32);
    if (types.empty()) continue;
    llvm::SmallVector<unsigned> indices(types.size(), 0);
    llvm::SmallVector<mlir::DictionaryAttr> attributes(types.size(),
                                                       mlir::DictionaryAttr::get(context));
    llvm::SmallVector<Location> locations(types.size(), function.getLoc());
    if (mlir::failed(function.insertArguments(indices, types, attributes, locations))) {
      failed = true;
    }
  }
  return mlir::failure(failed);
}

// Intermediates in workgroup memory (from the thread distribution) become
// module-level globals in that memory space, which the conversion turns into
// addrspace(3) globals (PTX .shared); any other alloc would be a malloc call.
LogicalResult PlaceWorkgroupMemory(mlir::ModuleOp module, const CudaTargetOptions& options) {
  mlir::SymbolTable symbols(module);
  mlir::OpBuilder builder(module.getContext());
  bool failed = false;
  for (auto function : module.getOps<mlir::func::FuncOp>()) {
    int64_t bytes = 0;
    llvm::SmallVector<mlir::memref::AllocOp> allocs;
    function.walk([&](mlir::memref::AllocOp alloc) { allocs.push_back(alloc); });
    for (mlir::memref::AllocOp alloc : allocs) {
      mlir::MemRefType type = alloc.getType();
      auto space = llvm::dyn_cast_if_present<mlir::gpu::AddressSpaceAttr>(type.getMemorySpace());
      if (!space || space.getValue() != mlir::gpu::AddressSpace::Workgroup) {
        alloc.emitOpError() << "allocates " << type
                            << " outside workgroup memory; CUDA kernels cannot allocate "
                               "memory (intermediates go to shared memory)";
        failed = true;
        continue;
      }
      if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat()) {
        alloc.emitOpError() << "allocates " << type
                            << "; shared memory needs a static shape of integers or floats";
        failed = true;
        continue;
      }
      bytes += type.getNumElements() * ((type.getElementType().getIntOrFloatBitWidth() + 7) / 8);
      builder.setInsertionPoint(function);
      const int64_t alignment = alloc.getAlignment() ? *alloc.getAlignment() : 16;
      auto global = mlir::memref::GlobalOp::create(
          builder, alloc.getLoc(), (function.getSymName() + "_shared").str(),
          builder.getStringAttr("private"), type, mlir::Attribute(), /*constant=*/false,
          builder.getI64IntegerAttr(alignment));
      symbols.insert(global);  // Renames it if the name is taken.
      builder.setInsertionPoint(alloc);
      Value memory =
          mlir::memref::GetGlobalOp::create(builder, alloc.getLoc(), type, global.getSymName());
      for (mlir::Operation* user : llvm::make_early_inc_range(alloc->getUsers())) {
        if (llvm::isa<mlir::memref::DeallocOp>(user)) user->erase();
      }
      alloc.getResult().replaceAllUsesWith(memory);
      alloc.erase();
    }
    if (bytes > options.max_shared_memory_bytes) {
      function.emitOpError() << "needs " << bytes << " bytes of shared memory for its "
                             << "intermediates; the CUDA target allows "
                             << options.max_shared_memory_bytes;
      failed = true;
    }
  }
  return mlir::failure(failed);
}

//===----------------------------------------------------------------------===//
// Math: PTX instructions, libdevice, or (without libdevice) polynomials
//===----------------------------------------------------------------------===//

// The math ops that reach LLVM intrinsics the NVPTX backend selects to PTX
// instructions (never to a libcall, which PTX could not resolve).
bool HasNativeLowering(mlir::Operation* op) {
  return llvm::isa<mlir::math::AbsFOp, mlir::math::AbsIOp, mlir::math::CeilOp, mlir::math::FloorOp,
                   mlir::math::TruncOp, mlir::math::RoundOp, mlir::math::RoundEvenOp,
                   mlir::math::SqrtOp, mlir::math::FmaOp, mlir::math::CopySignOp,
                   mlir::math::CountLeadingZerosOp, mlir::math::CountTrailingZerosOp,
                   mlir::math::CtPopOp, mlir::math::IsNaNOp, mlir::math::IsInfOp,
                   mlir::math::IsFiniteOp>(op);
}

// The ops that become libdevice calls (upstream's
// populateLibDeviceConversionPatterns: __nv_sinf on f32, __nv_sin on f64).
bool GoesToLibdevice(mlir::Operation* op) {
  return llvm::isa<mlir::math::AcosOp, mlir::math::AcoshOp, mlir::math::AsinOp, mlir::math::AsinhOp,
                   mlir::math::AtanOp, mlir::math::Atan2Op, mlir::math::AtanhOp, mlir::math::CbrtOp,
                   mlir::math::CosOp, mlir::math::CoshOp, mlir::math::ErfOp, mlir::math::ErfcOp,
                   mlir::math::ExpOp, mlir::math::Exp2Op, mlir::math::ExpM1Op, mlir::math::LogOp,
                   mlir::math::Log10Op, mlir::math::Log1pOp, mlir::math::Log2Op, mlir::math::PowFOp,
                   mlir::math::SinOp, mlir::math::SinhOp, mlir::math::TanOp, mlir::math::TanhOp,
                   mlir::arith::RemFOp>(op);
}

// Whether the op computes on a type the libdevice patterns take (scalars or
// vectors): f32 and f64, and f16/bf16, which they extend to f32 (math ops
// on those were extended before; arith.remf was not).
bool HasLibdeviceType(mlir::Operation* op) {
  if (op->getNumResults() != 1) return false;
  Type element = mlir::getElementTypeOrSelf(op->getResult(0).getType());
  return element.isF16() || element.isBF16() || element.isF32() || element.isF64();
}

// Without libdevice: the f32 polynomial approximations that IREE's math
// suite (tolerances ~1e-6 on f32) did not find inaccurate; it failed sin,
// cos, tan, exp2, cbrt and asinh (the last three through expansions into
// exp/log), which are errors instead, as are the ops never approximated.
constexpr llvm::StringLiteral kApproximated[] = {
    "math.acos", "math.asin",  "math.atan", "math.atan2", "math.erf",   "math.erfc",
    "math.exp",  "math.expm1", "math.log",  "math.log2",  "math.log1p", "math.tanh"};

// Math ops -> libdevice calls, as a partial conversion before the main one
// (whose math-to-llvm patterns would make llvm.intr.sin & co of them, which
// the NVPTX backend cannot select).
LogicalResult LowerMathToLibdevice(mlir::ModuleOp module) {
  auto* context = module.getContext();
  mlir::LowerToLLVMOptions options(context);
  mlir::LLVMTypeConverter converter(context, options);
  mlir::RewritePatternSet patterns(context);
  mlir::populateLibDeviceConversionPatterns(converter, patterns);
  mlir::ConversionTarget target(*context);
  target.markUnknownOpDynamicallyLegal(
      [](mlir::Operation* op) { return !(GoesToLibdevice(op) && HasLibdeviceType(op)); });
  target.addLegalDialect<LLVM::LLVMDialect>();
  return mlir::applyPartialConversion(module, target, std::move(patterns));
}

// math-extend-to-supported-types: math (but fma) on f16, bf16 and the 8-bit
// floats computes in f32, the type of libdevice's functions and of the
// approximations, between arith.extf and arith.truncf (both `contract`, so
// arith.extf's fold drops a truncf/extf pair between two such ops, which
// then keep f32 between them). f80 and f128 stay as they are, to be errors
// (the pass would "extend" them to f32).
std::unique_ptr<mlir::Pass> CreateExtendMathPass() {
  mlir::math::MathExtendToSupportedTypesOptions options;
  options.extraTypeStrs = {"f80", "f128"};
  return mlir::math::createMathExtendToSupportedTypes(options);
}

// After CreateExtendMathPass.
LogicalResult LowerMath(mlir::ModuleOp module, bool libdevice) {
  auto* context = module.getContext();
  auto is_approximated = [&](llvm::StringRef name) {
    return !libdevice && llvm::is_contained(kApproximated, name);
  };
  mlir::RewritePatternSet patterns(context);
  // fpowi into multiplications (or powf), rsqrt into 1 / sqrt (both
  // correctly rounded, unlike rsqrt.approx), clampf into min/max.
  mlir::math::populateExpansionPatterns(patterns, {"fpowi", "rsqrt", "clampf"});
  mlir::populateMathPolynomialApproximationPatterns(patterns, is_approximated);
  if (mlir::failed(mlir::applyPatternsGreedily(module, std::move(patterns)))) {
    return module.emitOpError("the math expansions did not converge");
  }
  if (libdevice && mlir::failed(LowerMathToLibdevice(module))) return failure();
  // What is left must be an op with a PTX instruction (arith.remf without
  // libdevice is llvm.frem, which NVPTX expands).
  auto left = module.walk([&](mlir::Operation* op) {
    if (!llvm::isa<mlir::math::MathDialect>(op->getDialect()) || HasNativeLowering(op)) {
      return mlir::WalkResult::advance();
    }
    Type type = op->getNumResults() ? op->getResult(0).getType() : Type();
    if (!libdevice && GoesToLibdevice(op)) {
      op->emitOpError() << "on " << type
                        << " needs libdevice in the CUDA backend, which was not found when kiln "
                           "was built (the CUDA toolkit's nvvm/libdevice/libdevice.10.bc, "
                           "embedded at build time; see KILN_CUDA_LIBDEVICE)";
    } else {
      op->emitOpError() << "on " << type
                        << " has no lowering in the CUDA backend (PTX instructions, or "
                           "libdevice on f32/f64 and on f16/bf16 through f32)";
    }
    return mlir::WalkResult::interrupt();
  });
  return mlir::failure(left.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Conversion patterns of the interface and GPU ops
//===----------------------------------------------------------------------===//

// A special register (i32) zero-extended to index, with its range where known.
template <typename X, typename Y, typename Z>
Value ReadRegister(ConversionPatternRewriter& rewriter, Location loc, uint64_t dimension,
                   Type index_type, std::optional<int64_t> upper_bound) {
  auto i32 = rewriter.getI32Type();
  LLVM::ConstantRangeAttr range;
  if (upper_bound) range = LLVM::ConstantRangeAttr::get(rewriter.getContext(), 32, 0, *upper_bound);
  Value value;
  switch (dimension) {
    case 0:
      value = X::create(rewriter, loc, i32, range);
      break;
    case 1:
      value = Y::create(rewriter, loc, i32, range);
      break;
    default:
      value = Z::create(rewriter, loc, i32, range);
      break;
  }
  return LLVM::ZExtOp::create(rewriter, loc, index_type, value);
}

template <typename OpT, typename X, typename Y, typename Z>
class WorkgroupOpLowering : public mlir::ConvertOpToLLVMPattern<OpT> {
 public:
  using mlir::ConvertOpToLLVMPattern<OpT>::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    const uint64_t d = op.getDimension().getZExtValue();
    if (d >= 3) return op.emitOpError() << "has dimension " << d << "; workgroups have 3";
    rewriter.replaceOp(
        op, ReadRegister<X, Y, Z>(rewriter, op.getLoc(), d, this->getIndexType(), std::nullopt));
    return success();
  }
};

class ThreadIdLowering : public mlir::ConvertOpToLLVMPattern<mlir::gpu::ThreadIdOp> {
 public:
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(mlir::gpu::ThreadIdOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    std::optional<int64_t> bound;
    if (mlir::IntegerAttr upper = op.getUpperBoundAttr()) bound = upper.getInt();
    rewriter.replaceOp(op, ReadRegister<NVVM::ThreadIdXOp, NVVM::ThreadIdYOp, NVVM::ThreadIdZOp>(
                               rewriter, op.getLoc(), static_cast<uint64_t>(op.getDimension()),
                               getIndexType(), bound));
    return success();
  }
};

class BarrierLowering : public mlir::ConvertOpToLLVMPattern<mlir::gpu::BarrierOp> {
 public:
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(mlir::gpu::BarrierOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::Barrier0Op>(op);
    return success();
  }
};

// hal.interface.timestamp: PTX's %globaltimer, a 64-bit nanosecond clock
// shared by the device's SMs (its resolution depends on the device).
class TimestampLowering : public mlir::ConvertOpToLLVMPattern<HAL::InterfaceTimestampOp> {
 public:
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(HAL::InterfaceTimestampOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::GlobalTimerOp>(op, rewriter.getI64Type());
    return success();
  }
};

class ConstantLoadLowering : public mlir::ConvertOpToLLVMPattern<HAL::InterfaceConstantLoadOp> {
 public:
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(HAL::InterfaceConstantLoadOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    // The op's verifier has checked the ordinal and the type.
    const KernelParameters parameters = ParametersOf(op.getLayout());
    Value bits = KernelParameter(op, parameters.bindings + op.getOrdinal().getSExtValue());
    Type type = op.getType();
    if (type.isIndex()) {
      rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(op, getIndexType(), bits);
    } else if (type.isF32()) {
      rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(op, type, bits);
    } else {
      rewriter.replaceOp(op, bits);
    }
    return success();
  }
};

class BindingSubspanLowering : public mlir::ConvertOpToLLVMPattern<HAL::InterfaceBindingSubspanOp> {
 public:
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(HAL::InterfaceBindingSubspanOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    // PrepareKernels has checked the type (CheckBindingSubspanType).
    auto type = llvm::cast<mlir::MemRefType>(op.getType());
    if (!getTypeConverter()->convertType(type)) {
      return rewriter.notifyMatchFailure(op, "unconvertible memref type");
    }
    rewriter.replaceOp(op,
                       BuildBindingDescriptor(rewriter, op.getLoc(), *getTypeConverter(), type,
                                              KernelParameter(op, op.getBinding().getSExtValue()),
                                              adaptor.getByteOffset(), adaptor.getDynamicDims()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pipeline
//===----------------------------------------------------------------------===//

void BuildPreLoweringPipeline(mlir::OpPassManager& pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  // Subviews (the workgroup tile, each thread's point) into the indices of
  // the loads and stores; what remains becomes descriptor arithmetic.
  pm.addPass(mlir::memref::createFoldMemRefAliasOpsPass());
  pm.addPass(mlir::memref::createExpandStridedMetadataPass());
  pm.addPass(mlir::affine::createAffineExpandIndexOpsPass());
  pm.addPass(mlir::createLowerAffinePass());
  pm.addPass(mlir::arith::createArithExpandOpsPass());
  pm.addPass(mlir::createSCFToControlFlowPass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

LogicalResult ConvertToLLVM(mlir::ModuleOp module) {
  auto* context = module.getContext();
  mlir::LowerToLLVMOptions options(context);
  mlir::LLVMTypeConverter converter(context, options);
  // Memory spaces as NVPTX address spaces: workgroup memory is shared (3).
  mlir::populateGpuMemorySpaceAttributeConversions(
      converter, [](mlir::gpu::AddressSpace space) -> unsigned {
        switch (space) {
          case mlir::gpu::AddressSpace::Global:
            return static_cast<unsigned>(NVVM::NVVMMemorySpace::Global);
          case mlir::gpu::AddressSpace::Workgroup:
            return static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
          case mlir::gpu::AddressSpace::Private:
            return 0;
        }
        return 0;
      });

  mlir::RewritePatternSet patterns(context);
  mlir::populateFuncToLLVMConversionPatterns(converter, patterns);
  mlir::populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
  mlir::arith::populateArithToLLVMConversionPatterns(converter, patterns);
  mlir::populateMathToLLVMConversionPatterns(converter, patterns);
  mlir::cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  mlir::ub::populateUBToLLVMConversionPatterns(converter, patterns);
  patterns.add<WorkgroupOpLowering<HAL::InterfaceWorkgroupIDOp, NVVM::BlockIdXOp, NVVM::BlockIdYOp,
                                   NVVM::BlockIdZOp>,
               WorkgroupOpLowering<HAL::InterfaceWorkgroupCountOp, NVVM::GridDimXOp,
                                   NVVM::GridDimYOp, NVVM::GridDimZOp>,
               WorkgroupOpLowering<HAL::InterfaceWorkgroupSizeOp, NVVM::BlockDimXOp,
                                   NVVM::BlockDimYOp, NVVM::BlockDimZOp>,
               ThreadIdLowering, BarrierLowering, ConstantLoadLowering, BindingSubspanLowering,
               TimestampLowering>(converter);

  mlir::LLVMConversionTarget target(*context);
  target.addLegalDialect<NVVM::NVVMDialect>();
  target.addLegalOp<mlir::ModuleOp>();
  // A full conversion: any op without a pattern fails it, with an error at
  // the op that names it.
  return mlir::applyFullConversion(module, target, std::move(patterns));
}

LogicalResult CheckOnlyLLVM(mlir::ModuleOp module) {
  auto result = module.walk([](mlir::Operation* op) {
    if (llvm::isa<mlir::ModuleOp>(op) ||
        llvm::isa<LLVM::LLVMDialect, NVVM::NVVMDialect>(op->getDialect())) {
      return mlir::WalkResult::advance();
    }
    op->emitOpError() << "was not lowered to the LLVM dialect by the CUDA backend";
    return mlir::WalkResult::interrupt();
  });
  return mlir::failure(result.wasInterrupted());
}

// The kernels' entry attributes: nvvm.kernel (a PTX .entry) and their block
// size as .reqntid.
void MarkKernels(mlir::ModuleOp module,
                 const llvm::StringMap<std::array<int64_t, 3>>& workgroup_sizes) {
  mlir::OpBuilder builder(module.getContext());
  for (auto function : module.getOps<LLVM::LLVMFuncOp>()) {
    auto size = workgroup_sizes.find(function.getSymName());
    if (size == workgroup_sizes.end()) continue;
    function->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), builder.getUnitAttr());
    const std::array<int64_t, 3>& xyz = size->second;
    function->setAttr(
        NVVM::NVVMDialect::getReqntidAttrName(),
        builder.getDenseI32ArrayAttr({static_cast<int32_t>(xyz[0]), static_cast<int32_t>(xyz[1]),
                                      static_cast<int32_t>(xyz[2])}));
    function->removeAttr("kiln.workgroup_size");
  }
}

class LowerKernelsToNVVMPass
    : public mlir::PassWrapper<LowerKernelsToNVVMPass, mlir::OperationPass<mlir::ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerKernelsToNVVMPass)

  explicit LowerKernelsToNVVMPass(const CudaTargetOptions& options = {}) : options_(options) {
    libdevice_ = options.libdevice && HaveLibdevice();
  }
  LowerKernelsToNVVMPass(const LowerKernelsToNVVMPass& other)
      : PassWrapper(other), options_(other.options_) {}

  llvm::StringRef getArgument() const final { return "kiln-cuda-lower-kernels-to-nvvm"; }
  llvm::StringRef getDescription() const final {
    return "Lowers a module of thread-distributed generated kernels to the LLVM dialect with "
           "NVVM ops and kiln's CUDA ABI (binding pointers, then 32-bit constants, as kernel "
           "parameters)";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const final {
    mlir::OpPassManager pm(mlir::ModuleOp::getOperationName());
    BuildPreLoweringPipeline(pm);
    pm.addPass(CreateExtendMathPass());
    pm.getDependentDialects(registry);
    registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                    mlir::cf::ControlFlowDialect, mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                    LLVM::LLVMDialect, mlir::math::MathDialect, mlir::memref::MemRefDialect,
                    NVVM::NVVMDialect, mlir::scf::SCFDialect, mlir::ub::UBDialect>();
  }

  void runOnOperation() final {
    mlir::ModuleOp module = getOperation();
    llvm::StringMap<std::array<int64_t, 3>> workgroup_sizes;
    for (auto function : module.getOps<mlir::func::FuncOp>()) {
      if (IsKernel(function)) {
        workgroup_sizes[function.getSymName()] = gpu::KernelWorkgroupSize(function);
      }
    }
    if (workgroup_sizes.empty()) {
      module.emitOpError("defines no kernel (public function) to lower to NVVM");
      return signalPassFailure();
    }
    if (mlir::failed(PrepareKernels(module))) return signalPassFailure();
    if (mlir::failed(PlaceWorkgroupMemory(module, options_))) return signalPassFailure();
    mlir::OpPassManager pre_lowering(mlir::ModuleOp::getOperationName());
    BuildPreLoweringPipeline(pre_lowering);
    if (mlir::failed(runPipeline(pre_lowering, module))) return signalPassFailure();
    mlir::OpPassManager extend(mlir::ModuleOp::getOperationName());
    extend.addPass(CreateExtendMathPass());
    if (mlir::failed(runPipeline(extend, module))) return signalPassFailure();
    if (mlir::failed(LowerMath(module, libdevice_))) return signalPassFailure();
    if (mlir::failed(ConvertToLLVM(module))) return signalPassFailure();
    mlir::OpPassManager cleanup(mlir::ModuleOp::getOperationName());
    cleanup.addPass(mlir::createReconcileUnrealizedCastsPass());
    if (mlir::failed(runPipeline(cleanup, module))) return signalPassFailure();
    if (mlir::failed(CheckOnlyLLVM(module))) return signalPassFailure();
    MarkKernels(module, workgroup_sizes);
  }

 private:
  CudaTargetOptions options_;
  Option<bool> libdevice_{
      *this, "libdevice",
      llvm::cl::desc("Lower math to libdevice calls (default: whether the build embedded "
                     "libdevice; true lowers to the calls even where it did not, false uses "
                     "only PTX instructions and polynomial approximations)")};
};

}  // namespace

std::unique_ptr<mlir::Pass> createLowerKernelsToNVVMPass(const CudaTargetOptions& options) {
  return std::make_unique<LowerKernelsToNVVMPass>(options);
}

void registerLowerKernelsToNVVMPass() {
  mlir::PassRegistration<LowerKernelsToNVVMPass>(
      [] { return std::make_unique<LowerKernelsToNVVMPass>(); });
}

}  // namespace kiln::compiler::cuda
