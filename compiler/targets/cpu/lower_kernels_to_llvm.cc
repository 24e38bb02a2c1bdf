// --kiln-cpu-lower-kernels-to-llvm (lower_kernels_to_llvm.h).
#include "compiler/targets/cpu/lower_kernels_to_llvm.h"

#include <optional>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/targets/llvm_binding.h"
#include "llvm/ADT/DenseSet.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::compiler::cpu {
namespace {

using mlir::ConversionPatternRewriter;
using mlir::failure;
using mlir::Location;
using mlir::LogicalResult;
using mlir::OpBuilder;
using mlir::success;
using mlir::Type;
using mlir::Value;
namespace LLVM = mlir::LLVM;

//===----------------------------------------------------------------------===//
// The dispatch state (kiln_hal_dispatch_state_t)
//===----------------------------------------------------------------------===//

// Field indices of kiln_hal_dispatch_state_t, in declaration order.
enum StateField : int32_t {
  kWorkgroupId = 0,
  kWorkgroupCount = 1,
  kWorkgroupSize = 2,
  kConstantCount = 3,
  kConstants = 4,
  kBindingCount = 5,
  kBindings = 6,
  kBindingLengths = 7,
};

// The C struct as a literal LLVM struct: LLVM's data layout inserts the same
// padding as the C compiler (4 bytes after constant_count and after
// binding_count on LP64), so the fields need no hand-written offsets.
LLVM::LLVMStructType StateType(mlir::MLIRContext* context) {
  auto i32 = mlir::IntegerType::get(context, 32);
  auto uvec3 = LLVM::LLVMArrayType::get(i32, 3);
  auto ptr = LLVM::LLVMPointerType::get(context);
  return LLVM::LLVMStructType::getLiteral(context, {uvec3, uvec3, uvec3, i32, ptr, i32, ptr, ptr});
}

// The state pointer: argument 0 of the enclosing kernel (PrepareKernels gives
// every kernel that argument before the conversion starts).
Value StateArgument(mlir::Operation* op) {
  auto function = op->getParentOfType<mlir::FunctionOpInterface>();
  return function.getFunctionBody().front().getArgument(0);
}

// The state and everything it points to do not change during a call, which
// lets LLVM hoist these loads out of the kernel's loops.
Value LoadInvariant(OpBuilder& builder, Location loc, Type type, Value address) {
  return LLVM::LoadOp::create(builder, loc, type, address, /*alignment=*/0, /*isVolatile=*/false,
                              /*isNonTemporal=*/false, /*isInvariant=*/true);
}

// state->field[index] for the u32 array fields (workgroup_id/count/size).
Value LoadStateArrayElement(OpBuilder& builder, Location loc, Value state, StateField field,
                            int32_t index) {
  auto* context = builder.getContext();
  Value address =
      LLVM::GEPOp::create(builder, loc, LLVM::LLVMPointerType::get(context), StateType(context),
                          state, llvm::ArrayRef<LLVM::GEPArg>{0, field, index});
  return LoadInvariant(builder, loc, builder.getI32Type(), address);
}

// ((T*)state->field)[index] for the pointer fields (constants, bindings).
Value LoadThroughStatePointer(OpBuilder& builder, Location loc, Value state, StateField field,
                              Type element_type, int64_t index) {
  auto* context = builder.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  Value field_address = LLVM::GEPOp::create(builder, loc, ptr, StateType(context), state,
                                            llvm::ArrayRef<LLVM::GEPArg>{0, field});
  Value array = LoadInvariant(builder, loc, ptr, field_address);
  Value element_address =
      LLVM::GEPOp::create(builder, loc, ptr, element_type, array,
                          llvm::ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
  return LoadInvariant(builder, loc, element_type, element_address);
}

//===----------------------------------------------------------------------===//
// Conversion patterns of the interface ops
//===----------------------------------------------------------------------===//

template <typename OpT, StateField kField>
class WorkgroupOpLowering : public mlir::ConvertOpToLLVMPattern<OpT> {
 public:
  using mlir::ConvertOpToLLVMPattern<OpT>::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    const auto dimension = static_cast<int32_t>(op.getDimension().getZExtValue());
    Value value =
        LoadStateArrayElement(rewriter, op.getLoc(), StateArgument(op), kField, dimension);
    rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(op, this->getIndexType(), value);
    return success();
  }
};

class ConstantLoadOpLowering : public mlir::ConvertOpToLLVMPattern<HAL::InterfaceConstantLoadOp> {
 public:
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(HAL::InterfaceConstantLoadOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    const Location loc = op.getLoc();
    Value bits = LoadThroughStatePointer(rewriter, loc, StateArgument(op), kConstants,
                                         rewriter.getI32Type(), op.getOrdinal().getSExtValue());
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

class BindingSubspanOpLowering
    : public mlir::ConvertOpToLLVMPattern<HAL::InterfaceBindingSubspanOp> {
 public:
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(HAL::InterfaceBindingSubspanOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    // PrepareKernels has checked the type (CheckBindingSubspanType).
    auto type = llvm::cast<mlir::MemRefType>(op.getType());
    if (!getTypeConverter()->convertType(type)) {
      return rewriter.notifyMatchFailure(op, "unconvertible memref type");
    }
    const Location loc = op.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    Value base = LoadThroughStatePointer(rewriter, loc, StateArgument(op), kBindings, ptr,
                                         op.getBinding().getSExtValue());
    rewriter.replaceOp(op,
                       BuildBindingDescriptor(rewriter, loc, *getTypeConverter(), type, base,
                                              adaptor.getByteOffset(), adaptor.getDynamicDims()));
    return success();
  }
};

// hal.interface.timestamp: clock_gettime(CLOCK_MONOTONIC) in ns, the clock
// of std::chrono::steady_clock, so that records line up with host spans.
// The shared object imports clock_gettime from the process (shared_object.cc
// allows it).
class TimestampOpLowering : public mlir::ConvertOpToLLVMPattern<HAL::InterfaceTimestampOp> {
 public:
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(HAL::InterfaceTimestampOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    constexpr int32_t kClockMonotonic = 1;  // Linux's CLOCK_MONOTONIC.
    const Location loc = op.getLoc();
    auto* context = rewriter.getContext();
    auto i32 = rewriter.getI32Type();
    auto i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(context);
    auto module = op->getParentOfType<mlir::ModuleOp>();
    mlir::FailureOr<LLVM::LLVMFuncOp> clock_gettime =
        LLVM::lookupOrCreateFn(rewriter, module, "clock_gettime", {i32, ptr}, i32);
    if (mlir::failed(clock_gettime)) return failure();
    // struct timespec { time_t tv_sec; long tv_nsec; } on LP64.
    auto timespec = LLVM::LLVMStructType::getLiteral(context, {i64, i64});
    // The timespec in the entry block: a static stack slot, whichever block
    // reads the clock.
    Value spec;
    {
      mlir::OpBuilder::InsertionGuard guard(rewriter);
      auto function = op->getParentOfType<mlir::FunctionOpInterface>();
      rewriter.setInsertionPointToStart(&function.getFunctionBody().front());
      Value one = LLVM::ConstantOp::create(rewriter, loc, i64, 1);
      spec = LLVM::AllocaOp::create(rewriter, loc, ptr, timespec, one, /*alignment=*/8);
    }
    Value clock = LLVM::ConstantOp::create(rewriter, loc, i32, kClockMonotonic);
    LLVM::CallOp::create(rewriter, loc, *clock_gettime, mlir::ValueRange{clock, spec});
    Value sec_address =
        LLVM::GEPOp::create(rewriter, loc, ptr, timespec, spec, llvm::ArrayRef<LLVM::GEPArg>{0, 0});
    Value nsec_address =
        LLVM::GEPOp::create(rewriter, loc, ptr, timespec, spec, llvm::ArrayRef<LLVM::GEPArg>{0, 1});
    Value sec = LLVM::LoadOp::create(rewriter, loc, i64, sec_address);
    Value nsec = LLVM::LoadOp::create(rewriter, loc, i64, nsec_address);
    Value billion = LLVM::ConstantOp::create(rewriter, loc, i64, 1000000000);
    rewriter.replaceOpWithNewOp<LLVM::AddOp>(op, LLVM::MulOp::create(rewriter, loc, sec, billion),
                                             nsec);
    return success();
  }
};

// A CPU workgroup is one call on one thread: it needs no barrier, and its
// single invocation is the leader.
class WorkgroupBarrierOpLowering
    : public mlir::ConvertOpToLLVMPattern<HAL::InterfaceWorkgroupBarrierOp> {
 public:
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(HAL::InterfaceWorkgroupBarrierOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

class WorkgroupLeaderOpLowering
    : public mlir::ConvertOpToLLVMPattern<HAL::InterfaceWorkgroupLeaderOp> {
 public:
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(HAL::InterfaceWorkgroupLeaderOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ConstantOp>(op, rewriter.getI1Type(),
                                                  rewriter.getBoolAttr(true));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Before the conversion: checking the contract and giving kernels the ABI
//===----------------------------------------------------------------------===//

bool IsKernel(mlir::func::FuncOp function) { return function.isPublic() && !function.isExternal(); }

// Every public function defined in the module is a kernel `() -> ()`; it
// becomes `(!llvm.ptr) -> i32` returning 0, still in the func dialect, so
// that upstream's func-to-llvm lowers it with the rest.
LogicalResult PrepareKernels(mlir::ModuleOp module) {
  auto* context = module.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto i32 = mlir::IntegerType::get(context, 32);
  bool failed = false;
  for (auto function : module.getOps<mlir::func::FuncOp>()) {
    const bool kernel = IsKernel(function);
    function.walk([&](mlir::Operation* op) {
      if (!llvm::isa<HAL::InterfaceBindingSubspanOp, HAL::InterfaceConstantLoadOp,
                     HAL::InterfaceWorkgroupIDOp, HAL::InterfaceWorkgroupCountOp,
                     HAL::InterfaceWorkgroupSizeOp>(op)) {
        return;
      }
      if (!kernel) {
        op->emitOpError() << "is in @" << function.getSymName()
                          << ", which is not a kernel (a public function); only kernels "
                             "receive the dispatch state";
        failed = true;
      } else if (auto subspan = llvm::dyn_cast<HAL::InterfaceBindingSubspanOp>(op)) {
        failed |= mlir::failed(CheckBindingSubspanType(subspan, "CPU", "plain host memory"));
      }
    });
    if (!kernel) continue;
    if (function.getNumArguments() != 0 || function.getNumResults() != 0) {
      function.emitOpError() << "is a kernel (public) but has type " << function.getFunctionType()
                             << "; kernels take no arguments and return nothing";
      failed = true;
      continue;
    }
    if (mlir::failed(function.insertArgument(0, ptr, mlir::DictionaryAttr::get(context),
                                             function.getLoc()))) {
      failed = true;
      continue;
    }
    function.setFunctionType(mlir::FunctionType::get(context, {ptr}, {i32}));
    for (mlir::Block& block : function.getBody()) {
      auto ret = llvm::dyn_cast<mlir::func::ReturnOp>(block.getTerminator());
      if (!ret) continue;
      OpBuilder builder(ret);
      Value zero = mlir::arith::ConstantIntOp::create(builder, ret.getLoc(), i32, 0);
      ret->setOperands(zero);
    }
  }
  return mlir::failure(failed);
}

//===----------------------------------------------------------------------===//
// The pipeline
//===----------------------------------------------------------------------===//

// Bufferization leaves the intermediates of a kernel (a fused producer's
// tile) as memref.alloc without a dealloc; on the CPU an alloc is malloc, and
// a kernel runs once per workgroup per dispatch. Nothing a kernel allocates
// outlives it (kernels return nothing), so each alloc is freed at the end of
// the block that made it.
void FreeIntermediates(mlir::ModuleOp module) {
  llvm::SmallVector<mlir::memref::AllocOp> allocs;
  module.walk([&](mlir::memref::AllocOp alloc) { allocs.push_back(alloc); });
  for (mlir::memref::AllocOp alloc : allocs) {
    OpBuilder builder(alloc->getBlock()->getTerminator());
    mlir::memref::DeallocOp::create(builder, alloc.getLoc(), alloc.getResult());
  }
}

// Everything upstream's passes lower before the conversion to LLVM.
void BuildPreLoweringPipeline(mlir::OpPassManager& pm) {
  pm.addNestedPass<mlir::func::FuncOp>(mlir::createConvertLinalgToLoopsPass());
  // Subviews and other view ops become reinterpret_casts of the source's
  // metadata plus affine index arithmetic, which lower-affine then expands.
  pm.addPass(mlir::memref::createExpandStridedMetadataPass());
  pm.addPass(mlir::createLowerAffinePass());
  pm.addPass(mlir::arith::createArithExpandOpsPass());
  pm.addPass(mlir::createSCFToControlFlowPass());
}

// Math ops with an LLVM intrinsic stay for the conversion (MathToLLVM); those
// without one but with a libm function become calls to it. Which ops have an
// intrinsic is read off upstream's own pattern set, so this follows MLIR as
// it grows.
LogicalResult LowerMathToLibm(mlir::ModuleOp module, const mlir::LLVMTypeConverter& converter) {
  auto* context = module.getContext();
  mlir::RewritePatternSet intrinsic_patterns(context);
  mlir::populateMathToLLVMConversionPatterns(converter, intrinsic_patterns);
  llvm::DenseSet<mlir::OperationName> has_intrinsic;
  for (const auto& pattern : intrinsic_patterns.getNativePatterns()) {
    if (auto root = pattern->getRootKind()) has_intrinsic.insert(*root);
  }

  mlir::RewritePatternSet libm_patterns(context);
  mlir::populateMathToLibmConversionPatterns(libm_patterns);
  mlir::ConversionTarget target(*context);
  target.markUnknownOpDynamicallyLegal([](mlir::Operation*) { return true; });
  bool any = false;
  for (const auto& pattern : libm_patterns.getNativePatterns()) {
    std::optional<mlir::OperationName> root = pattern->getRootKind();
    if (!root || has_intrinsic.contains(*root)) continue;
    target.addIllegalOp(*root);
    any = true;
  }
  if (!any) return success();
  return mlir::applyPartialConversion(module, target, std::move(libm_patterns));
}

LogicalResult ConvertToLLVM(mlir::ModuleOp module) {
  auto* context = module.getContext();
  mlir::LowerToLLVMOptions options(context);
  mlir::LLVMTypeConverter converter(context, options);
  if (mlir::failed(LowerMathToLibm(module, converter))) return failure();

  mlir::RewritePatternSet patterns(context);
  mlir::populateFuncToLLVMConversionPatterns(converter, patterns);
  mlir::populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
  mlir::arith::populateArithToLLVMConversionPatterns(converter, patterns);
  mlir::populateMathToLLVMConversionPatterns(converter, patterns);
  mlir::cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  mlir::ub::populateUBToLLVMConversionPatterns(converter, patterns);
  patterns.add<WorkgroupOpLowering<HAL::InterfaceWorkgroupIDOp, kWorkgroupId>,
               WorkgroupOpLowering<HAL::InterfaceWorkgroupCountOp, kWorkgroupCount>,
               WorkgroupOpLowering<HAL::InterfaceWorkgroupSizeOp, kWorkgroupSize>,
               ConstantLoadOpLowering, BindingSubspanOpLowering, TimestampOpLowering,
               WorkgroupBarrierOpLowering, WorkgroupLeaderOpLowering>(converter);

  mlir::LLVMConversionTarget target(*context);
  target.addLegalOp<mlir::ModuleOp>();
  // A full conversion: any op without a pattern fails it, with an error at
  // the op that names it.
  return mlir::applyFullConversion(module, target, std::move(patterns));
}

// After reconcile-unrealized-casts, only LLVM ops may remain; a cast that
// could not be folded away means two conversions disagreed on a type.
LogicalResult CheckOnlyLLVM(mlir::ModuleOp module) {
  auto result = module.walk([](mlir::Operation* op) {
    if (llvm::isa<mlir::ModuleOp>(op) || llvm::isa<LLVM::LLVMDialect>(op->getDialect())) {
      return mlir::WalkResult::advance();
    }
    op->emitOpError() << "was not lowered to the LLVM dialect by the CPU backend";
    return mlir::WalkResult::interrupt();
  });
  return mlir::failure(result.wasInterrupted());
}

class LowerKernelsToLLVMPass
    : public mlir::PassWrapper<LowerKernelsToLLVMPass, mlir::OperationPass<mlir::ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerKernelsToLLVMPass)

  llvm::StringRef getArgument() const final { return "kiln-cpu-lower-kernels-to-llvm"; }
  llvm::StringRef getDescription() const final {
    return "Lowers a module of generated kernels to the LLVM dialect with kiln's CPU kernel "
           "ABI (hal/cpu/kernel_abi.h)";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const final {
    // The nested pipeline's dialects must be loaded before it runs.
    mlir::OpPassManager pm(mlir::ModuleOp::getOperationName());
    BuildPreLoweringPipeline(pm);
    pm.getDependentDialects(registry);
    registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                    mlir::cf::ControlFlowDialect, mlir::func::FuncDialect, LLVM::LLVMDialect,
                    mlir::math::MathDialect, mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                    mlir::ub::UBDialect>();
  }

  void runOnOperation() final {
    mlir::ModuleOp module = getOperation();
    if (mlir::failed(PrepareKernels(module))) return signalPassFailure();
    FreeIntermediates(module);
    mlir::OpPassManager pre_lowering(mlir::ModuleOp::getOperationName());
    BuildPreLoweringPipeline(pre_lowering);
    if (mlir::failed(runPipeline(pre_lowering, module))) return signalPassFailure();
    if (mlir::failed(ConvertToLLVM(module))) return signalPassFailure();
    mlir::OpPassManager cleanup(mlir::ModuleOp::getOperationName());
    cleanup.addPass(mlir::createReconcileUnrealizedCastsPass());
    if (mlir::failed(runPipeline(cleanup, module))) return signalPassFailure();
    if (mlir::failed(CheckOnlyLLVM(module))) return signalPassFailure();
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createLowerKernelsToLLVMPass() {
  return std::make_unique<LowerKernelsToLLVMPass>();
}

void registerLowerKernelsToLLVMPass() { mlir::PassRegistration<LowerKernelsToLLVMPass>(); }

}  // namespace kiln::compiler::cpu
