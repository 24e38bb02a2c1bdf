// --kiln-vulkan-lower-kernels-to-spirv (lower_kernels_to_spirv.h).
#include "compiler/targets/vulkan/lower_kernels_to_spirv.h"

#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/targets/gpu/distribute_to_threads.h"
#include "compiler/targets/vulkan/shader_clock.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Conversion/FuncToSPIRV/FuncToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Conversion/UBToSPIRV/UBToSPIRV.h"
#include "mlir/Conversion/VectorToSPIRV/VectorToSPIRV.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

namespace kiln::compiler::vulkan {
namespace {

using mlir::ConversionPatternRewriter;
using mlir::Location;
using mlir::LogicalResult;
using mlir::OpFoldResult;
using mlir::Type;
using mlir::Value;
namespace spirv = mlir::spirv;

bool IsKernel(mlir::func::FuncOp function) { return function.isPublic() && !function.isExternal(); }

bool IsInterfaceOp(mlir::Operation* op) {
  return llvm::isa<HAL::InterfaceBindingSubspanOp, HAL::InterfaceConstantLoadOp,
                   HAL::InterfaceWorkgroupIDOp, HAL::InterfaceWorkgroupCountOp,
                   HAL::InterfaceWorkgroupSizeOp>(op);
}

//===----------------------------------------------------------------------===//
// The target environment
//===----------------------------------------------------------------------===//

// SPIR-V 1.3 (Vulkan 1.1 and later): from 1.4 on, an entry point lists
// every global variable it uses, which upstream's ABI lowering does only
// when the target version allows 1.4 while update-vce then lowers the
// module's version to what its ops need (1.0), an invalid combination.
// update-vce also trims the capabilities and extensions to those used.
spirv::TargetEnvAttr VulkanTargetEnv(mlir::MLIRContext* context,
                                     const VulkanTargetOptions& options) {
  using spirv::Capability;
  using spirv::Extension;
  llvm::SmallVector<Capability> capabilities = {Capability::Shader};
  llvm::SmallVector<Extension> extensions = {Extension::SPV_KHR_storage_buffer_storage_class};
  if (options.float16) capabilities.push_back(Capability::Float16);
  if (options.int8) capabilities.push_back(Capability::Int8);
  if (options.int16) capabilities.push_back(Capability::Int16);
  if (options.int64) capabilities.push_back(Capability::Int64);
  if (options.float64) capabilities.push_back(Capability::Float64);
  if (options.float16 || options.int16) {
    capabilities.push_back(Capability::StorageBuffer16BitAccess);
    extensions.push_back(Extension::SPV_KHR_16bit_storage);
  }
  if (options.int8) {
    capabilities.push_back(Capability::StorageBuffer8BitAccess);
    extensions.push_back(Extension::SPV_KHR_8bit_storage);
  }
  auto triple = spirv::VerCapExtAttr::get(spirv::Version::V_1_3, capabilities, extensions, context);
  return spirv::TargetEnvAttr::get(triple, spirv::getDefaultResourceLimits(context),
                                   spirv::ClientAPI::Vulkan);
}

//===----------------------------------------------------------------------===//
// Before the conversion: the kernels in a form SPIR-V can express
//===----------------------------------------------------------------------===//

LogicalResult CheckInterfaceUse(mlir::ModuleOp module) {
  bool failed = false;
  for (auto function : module.getOps<mlir::func::FuncOp>()) {
    if (IsKernel(function)) {
      if (function.getNumArguments() != 0 || function.getNumResults() != 0) {
        function.emitOpError() << "is a kernel (public) but has type " << function.getFunctionType()
                               << "; kernels take no arguments and return nothing";
        failed = true;
      }
      continue;
    }
    function.walk([&](mlir::Operation* op) {
      if (!IsInterfaceOp(op)) return;
      op->emitOpError() << "is in @" << function.getSymName()
                        << ", which is not a kernel (a public function); only kernels have "
                           "the dispatch interface";
      failed = true;
    });
  }
  return mlir::failure(failed);
}

// hal.interface.workgroup.size -> the kernel's constant size; memref.dim of
// a subspan -> its size.
void FoldInterfaceSizes(mlir::ModuleOp module) {
  mlir::IRRewriter rewriter(module.getContext());
  module.walk([&](HAL::InterfaceWorkgroupSizeOp op) {
    auto kernel = op->getParentOfType<mlir::func::FuncOp>();
    const std::array<int64_t, 3> size = gpu::KernelWorkgroupSize(kernel);
    rewriter.setInsertionPoint(op);
    const uint64_t d = op.getDimension().getZExtValue();
    rewriter.replaceOpWithNewOp<mlir::arith::ConstantIndexOp>(op, d < 3 ? size[d] : 1);
  });
  module.walk([&](mlir::memref::DimOp dim) {
    auto subspan = dim.getSource().getDefiningOp<HAL::InterfaceBindingSubspanOp>();
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!subspan || !index) return;
    auto type = llvm::cast<mlir::MemRefType>(subspan.getType());
    if (*index < 0 || *index >= type.getRank()) return;
    rewriter.setInsertionPoint(dim);
    if (!type.isDynamicDim(*index)) {
      rewriter.replaceOpWithNewOp<mlir::arith::ConstantIndexOp>(dim, type.getDimSize(*index));
    } else {
      rewriter.replaceOp(dim, subspan.getDynamicDims()[type.getDynamicDimIndex(*index)]);
    }
  });
}

// A reshape (collapse_shape, expand_shape) of a binding is the binding
// viewed with another shape: it becomes a subspan of that shape, so that
// every access reaches a subspan directly (folding a reshape of dynamic
// sizes into its loads would need the strided metadata of the binding,
// which SPIR-V has no form for).
void ReshapesToSubspans(mlir::ModuleOp module) {
  mlir::IRRewriter rewriter(module.getContext());
  bool changed = true;
  while (changed) {
    changed = false;
    llvm::SmallVector<mlir::Operation*> reshapes;
    module.walk([&](mlir::Operation* op) {
      if (!llvm::isa<mlir::memref::CollapseShapeOp, mlir::memref::ExpandShapeOp>(op)) return;
      auto subspan = op->getOperand(0).getDefiningOp<HAL::InterfaceBindingSubspanOp>();
      auto type = llvm::dyn_cast<mlir::MemRefType>(op->getResult(0).getType());
      if (subspan && type && type.getLayout().isIdentity() &&
          llvm::cast<mlir::MemRefType>(subspan.getType()).getLayout().isIdentity()) {
        reshapes.push_back(op);
      }
    });
    for (mlir::Operation* op : reshapes) {
      auto subspan = op->getOperand(0).getDefiningOp<HAL::InterfaceBindingSubspanOp>();
      auto source_type = llvm::cast<mlir::MemRefType>(subspan.getType());
      auto type = llvm::cast<mlir::MemRefType>(op->getResult(0).getType());
      const Location loc = op->getLoc();
      rewriter.setInsertionPoint(op);
      auto source_dim = [&](int64_t d) -> Value {
        if (!source_type.isDynamicDim(d)) {
          return mlir::arith::ConstantIndexOp::create(rewriter, loc, source_type.getDimSize(d));
        }
        return subspan.getDynamicDims()[source_type.getDynamicDimIndex(d)];
      };
      llvm::SmallVector<Value> dims;
      if (auto collapse = llvm::dyn_cast<mlir::memref::CollapseShapeOp>(op)) {
        for (auto [r, group] : llvm::enumerate(collapse.getReassociationIndices())) {
          if (!type.isDynamicDim(r)) continue;
          Value size = mlir::arith::ConstantIndexOp::create(rewriter, loc, 1);
          for (int64_t d : group) {
            size = rewriter.createOrFold<mlir::arith::MulIOp>(loc, size, source_dim(d));
          }
          dims.push_back(size);
        }
      } else {
        auto expand = llvm::cast<mlir::memref::ExpandShapeOp>(op);
        for (auto [r, size] : llvm::enumerate(expand.getMixedOutputShape())) {
          if (type.isDynamicDim(r)) {
            dims.push_back(mlir::getValueOrCreateConstantIndexOp(rewriter, loc, size));
          }
        }
      }
      auto view = HAL::InterfaceBindingSubspanOp::create(
          rewriter, loc, type, subspan.getLayoutAttr(), subspan.getBindingAttr(),
          subspan.getByteOffset(), dims, subspan.getAlignmentAttr(),
          subspan.getDescriptorFlagsAttr());
      rewriter.replaceOp(op, view.getResult());
      changed = true;
    }
  }
}

// Every subspan becomes a 1-D memref<?xT> at offset 0 of its binding (a
// runtime array in SPIR-V), its loads and stores indexed linearly.
LogicalResult FlattenSubspan(HAL::InterfaceBindingSubspanOp subspan) {
  auto type = llvm::dyn_cast<mlir::MemRefType>(subspan.getType());
  if (!type) {
    return subspan.emitOpError() << "result " << subspan.getType()
                                 << " is not a ranked memref; the Vulkan backend cannot bind it";
  }
  if (type.getMemorySpace()) {
    return subspan.emitOpError() << "result " << type
                                 << " has a memory space; Vulkan bindings are storage buffers";
  }
  if (!type.getLayout().isIdentity()) {
    return subspan.emitOpError() << "result " << type
                                 << " has a layout; the Vulkan backend binds row-major "
                                    "contiguous memrefs only";
  }
  Type element = type.getElementType();
  if (!element.isIntOrFloat() ||
      (element.getIntOrFloatBitWidth() % 8 != 0 && !element.isInteger(1))) {
    return subspan.emitOpError() << "result " << type
                                 << " has elements that are not whole bytes; the Vulkan "
                                    "backend cannot bind them";
  }
  for (mlir::Operation* user : subspan->getUsers()) {
    // Atomics: the instrumentation ring's counter (instrument_dispatches.cc).
    if (!llvm::isa<mlir::memref::LoadOp, mlir::memref::StoreOp, mlir::memref::AtomicRMWOp>(user)) {
      return user->emitOpError() << "uses binding " << subspan.getBinding().getZExtValue()
                                 << " in a way the Vulkan backend cannot lower (only loads, "
                                    "stores and atomics, after subviews are folded into them)";
    }
  }

  mlir::IRRewriter rewriter(subspan.getContext());
  const Location loc = subspan.getLoc();
  rewriter.setInsertionPoint(subspan);
  // The sizes of the N-D view, for the linear index.
  llvm::SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (type.isDynamicDim(d)) {
      sizes.push_back(subspan.getDynamicDims()[type.getDynamicDimIndex(d)]);
    } else {
      sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
    }
  }
  // The byte offset as a whole number of elements (the ABI requires offsets
  // aligned to the element size).
  Value element_offset;
  if (Value byte_offset = subspan.getByteOffset()) {
    if (!mlir::isZeroInteger(byte_offset)) {
      Value element_bytes =
          mlir::arith::ConstantIndexOp::create(rewriter, loc, element.getIntOrFloatBitWidth() / 8);
      element_offset = mlir::arith::DivUIOp::create(rewriter, loc, byte_offset, element_bytes);
    }
  }
  // The flat view's size is informative only (SPIR-V runtime arrays carry
  // none): the element count of the N-D view.
  Value count = mlir::arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (OpFoldResult size : sizes) {
    count = rewriter.createOrFold<mlir::arith::MulIOp>(
        loc, count, mlir::getValueOrCreateConstantIndexOp(rewriter, loc, size));
  }
  auto flat_type = mlir::MemRefType::get({mlir::ShapedType::kDynamic}, element);
  auto flat = HAL::InterfaceBindingSubspanOp::create(
      rewriter, loc, flat_type, subspan.getLayoutAttr(), subspan.getBindingAttr(),
      /*byte_offset=*/Value(), mlir::ValueRange{count}, subspan.getAlignmentAttr(),
      subspan.getDescriptorFlagsAttr());

  auto linear_index = [&](mlir::OpBuilder& builder, Location at, mlir::ValueRange indices) {
    Value index = indices.size() == 1
                      ? indices.front()
                      : mlir::affine::AffineLinearizeIndexOp::create(builder, at, indices, sizes,
                                                                     /*disjoint=*/true)
                            .getResult();
    if (element_offset) index = mlir::arith::AddIOp::create(builder, at, index, element_offset);
    return index;
  };
  for (mlir::Operation* user : llvm::make_early_inc_range(subspan->getUsers())) {
    rewriter.setInsertionPoint(user);
    if (auto load = llvm::dyn_cast<mlir::memref::LoadOp>(user)) {
      Value index = linear_index(rewriter, load.getLoc(), load.getIndices());
      rewriter.replaceOpWithNewOp<mlir::memref::LoadOp>(load, flat, mlir::ValueRange{index});
    } else if (auto atomic = llvm::dyn_cast<mlir::memref::AtomicRMWOp>(user)) {
      Value index = linear_index(rewriter, atomic.getLoc(), atomic.getIndices());
      rewriter.replaceOpWithNewOp<mlir::memref::AtomicRMWOp>(
          atomic, atomic.getKind(), atomic.getValue(), flat, mlir::ValueRange{index});
    } else {
      auto store = llvm::cast<mlir::memref::StoreOp>(user);
      Value index = linear_index(rewriter, store.getLoc(), store.getIndices());
      rewriter.replaceOpWithNewOp<mlir::memref::StoreOp>(store, store.getValueToStore(), flat,
                                                         mlir::ValueRange{index});
    }
  }
  rewriter.eraseOp(subspan);
  return mlir::success();
}

// Element types SPIR-V cannot keep in memory, and the type that holds them:
// i1 (a bool has no size in SPIR-V) as a byte, 0 or 1, as kiln's buffers hold
// it; bf16 (arithmetic on it was emulated in f32 before) as its 16 bits.
Type StorageType(Type element) {
  if (element.isInteger(1)) return mlir::IntegerType::get(element.getContext(), 8);
  if (element.isBF16()) return mlir::IntegerType::get(element.getContext(), 16);
  return {};
}

// Retypes `memref` (a flattened binding or a workgroup allocation whose
// only users are loads and stores) to hold StorageType of its elements,
// converting each loaded and stored value.
LogicalResult LegalizeStorage(mlir::TypedValue<mlir::MemRefType> memref) {
  mlir::MemRefType type = memref.getType();
  Type element = type.getElementType();
  Type storage = StorageType(element);
  if (!storage) return mlir::success();
  for (mlir::Operation* user : memref.getUsers()) {
    if (!llvm::isa<mlir::memref::LoadOp, mlir::memref::StoreOp>(user)) {
      return user->emitOpError() << "uses a memref of " << element
                                 << " in a way the Vulkan backend cannot emulate (only loads "
                                    "and stores)";
    }
  }
  memref.setType(mlir::MemRefType::Builder(type).setElementType(storage));
  mlir::IRRewriter rewriter(memref.getContext());
  for (mlir::Operation* user : llvm::make_early_inc_range(memref.getUsers())) {
    const Location loc = user->getLoc();
    if (auto load = llvm::dyn_cast<mlir::memref::LoadOp>(user)) {
      rewriter.setInsertionPointAfter(load);
      load.getResult().setType(storage);
      Value value;
      if (element.isInteger(1)) {
        Value zero = mlir::arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(storage));
        value = mlir::arith::CmpIOp::create(rewriter, loc, mlir::arith::CmpIPredicate::ne,
                                            load.getResult(), zero);
      } else {
        value = mlir::arith::BitcastOp::create(rewriter, loc, element, load.getResult());
      }
      rewriter.replaceAllUsesExcept(load.getResult(), value, value.getDefiningOp());
    } else {
      auto store = llvm::cast<mlir::memref::StoreOp>(user);
      rewriter.setInsertionPoint(store);
      Value value = store.getValueToStore();
      Value stored =
          element.isInteger(1)
              ? mlir::arith::ExtUIOp::create(rewriter, loc, storage, value).getResult()
              : mlir::arith::BitcastOp::create(rewriter, loc, storage, value).getResult();
      rewriter.modifyOpInPlace(store, [&] { store.getValueMutable().assign(stored); });
    }
  }
  return mlir::success();
}

// The bits of a bf16 select are the select of its operands' bits: a value
// chosen between bf16 constants (an identity matrix) never exists as bf16.
LogicalResult BitcastThroughSelects(mlir::ModuleOp module) {
  mlir::RewritePatternSet patterns(module.getContext());
  patterns.add(+[](mlir::arith::BitcastOp op, mlir::PatternRewriter& rewriter) -> LogicalResult {
    auto select = op.getIn().getDefiningOp<mlir::arith::SelectOp>();
    if (!select || !select.getType().isBF16()) return mlir::failure();
    const Location loc = op.getLoc();
    Value if_true =
        mlir::arith::BitcastOp::create(rewriter, loc, op.getType(), select.getTrueValue());
    Value if_false =
        mlir::arith::BitcastOp::create(rewriter, loc, op.getType(), select.getFalseValue());
    rewriter.replaceOpWithNewOp<mlir::arith::SelectOp>(op, select.getCondition(), if_true,
                                                       if_false);
    return mlir::success();
  });
  mlir::arith::BitcastOp::getCanonicalizationPatterns(patterns, module.getContext());
  return mlir::applyPatternsGreedily(module, std::move(patterns));
}

LogicalResult LegalizeStorageTypes(mlir::ModuleOp module) {
  llvm::SmallVector<mlir::TypedValue<mlir::MemRefType>> memrefs;
  module.walk([&](mlir::Operation* op) {
    if (llvm::isa<HAL::InterfaceBindingSubspanOp, mlir::memref::AllocOp, mlir::memref::AllocaOp>(
            op)) {
      for (Value result : op->getResults()) {
        if (auto memref = llvm::dyn_cast<mlir::TypedValue<mlir::MemRefType>>(result)) {
          memrefs.push_back(memref);
        }
      }
    }
  });
  bool failed = false;
  for (auto memref : memrefs) failed |= mlir::failed(LegalizeStorage(memref));
  return mlir::failure(failed);
}

LogicalResult FlattenSubspans(mlir::ModuleOp module) {
  llvm::SmallVector<HAL::InterfaceBindingSubspanOp> subspans;
  module.walk([&](HAL::InterfaceBindingSubspanOp op) { subspans.push_back(op); });
  bool failed = false;
  for (HAL::InterfaceBindingSubspanOp subspan : subspans) {
    failed |= mlir::failed(FlattenSubspan(subspan));
  }
  return mlir::failure(failed);
}

// The workgroup memory of each kernel must fit the device's guarantee.
LogicalResult CheckWorkgroupMemory(mlir::ModuleOp module, const VulkanTargetOptions& options) {
  bool failed = false;
  for (auto function : module.getOps<mlir::func::FuncOp>()) {
    int64_t bytes = 0;
    function.walk([&](mlir::memref::AllocOp alloc) {
      mlir::MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat()) return;
      bytes += type.getNumElements() * type.getElementType().getIntOrFloatBitWidth() / 8;
    });
    if (bytes > options.max_workgroup_memory_bytes) {
      function.emitOpError() << "needs " << bytes << " bytes of workgroup memory for its "
                             << "intermediates; the Vulkan target allows "
                             << options.max_workgroup_memory_bytes;
      failed = true;
    }
  }
  return mlir::failure(failed);
}

// f32 division refined by one Newton step: Vulkan lets OpFDiv be 2.5 ulp
// off, where CUDA and the CPU round correctly (a mean subtracted from its
// values must cancel exactly). NaN from the refinement (a zero or infinite
// divisor) keeps the plain quotient. Each division of the kernels is
// rewritten once (the refinement's own divisions stay plain).
void RefineDivisions(mlir::ModuleOp module) {
  llvm::SmallVector<mlir::arith::DivFOp> divisions;
  module.walk([&](mlir::arith::DivFOp op) {
    if (op.getType().isF32()) divisions.push_back(op);
  });
  mlir::IRRewriter rewriter(module.getContext());
  for (mlir::arith::DivFOp op : divisions) {
    rewriter.setInsertionPoint(op);
    const Location loc = op.getLoc();
    Value a = op.getLhs(), b = op.getRhs();
    Value quotient = mlir::arith::DivFOp::create(rewriter, loc, a, b);
    Value negated = mlir::arith::NegFOp::create(rewriter, loc, b);
    Value residual = mlir::math::FmaOp::create(rewriter, loc, negated, quotient, a);
    Value one = mlir::arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(1.0f));
    Value reciprocal = mlir::arith::DivFOp::create(rewriter, loc, one, b);
    Value refined = mlir::math::FmaOp::create(rewriter, loc, residual, reciprocal, quotient);
    Value unordered = mlir::arith::CmpFOp::create(rewriter, loc, mlir::arith::CmpFPredicate::UNO,
                                                  refined, refined);
    rewriter.replaceOpWithNewOp<mlir::arith::SelectOp>(op, unordered, quotient, refined);
  }
}

// 2^x of an f32 to within about an ulp, whatever the driver's GLSL Exp2
// (lavapipe's is 2 ulp off): x = n + f with n = round(x) and f exact, 2^f =
// e^(f ln2) by its Taylor polynomial of degree 7 (|f ln2| <= ln2/2: the
// remainder is below 1e-8 relative), then scaled by 2^n as two powers built
// from their exponent bits (x clamped so both stay normal).
Value AccurateExp2(mlir::OpBuilder& b, Location loc, Value x) {
  auto f32 = [&](double value) -> Value {
    return mlir::arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(value)));
  };
  auto i32 = [&](int32_t value) -> Value {
    return mlir::arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  };
  // Beyond these 2^x is infinite or below the smallest denormal.
  Value clamped = mlir::arith::MaximumFOp::create(
      b, loc, mlir::arith::MinimumFOp::create(b, loc, x, f32(129.0)), f32(-150.0));
  Value n =
      mlir::math::FloorOp::create(b, loc, mlir::arith::AddFOp::create(b, loc, clamped, f32(0.5)));
  Value f = mlir::arith::SubFOp::create(b, loc, clamped, n);  // Exact.
  Value r = mlir::arith::MulFOp::create(b, loc, f, f32(0.693147180559945309));
  Value p = f32(1.0 / 5040.0);
  for (double coefficient : {1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0}) {
    p = mlir::math::FmaOp::create(b, loc, p, r, f32(coefficient));
  }
  Value exponent = mlir::arith::FPToSIOp::create(b, loc, b.getI32Type(), n);
  Value half = mlir::arith::ShRSIOp::create(b, loc, exponent, i32(1));
  Value rest = mlir::arith::SubIOp::create(b, loc, exponent, half);
  auto power_of_two = [&](Value k) -> Value {
    Value bits = mlir::arith::ShLIOp::create(
        b, loc, mlir::arith::AddIOp::create(b, loc, k, i32(127)), i32(23));
    return mlir::arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
  };
  Value result = mlir::arith::MulFOp::create(
      b, loc, mlir::arith::MulFOp::create(b, loc, p, power_of_two(half)), power_of_two(rest));
  // NaN stays NaN (the clamp above would have made it a number).
  Value unordered = mlir::arith::CmpFOp::create(b, loc, mlir::arith::CmpFPredicate::UNO, x, x);
  return mlir::arith::SelectOp::create(b, loc, unordered, x, result);
}

// The math functions the SPIR-V conversion has no instruction for: erf and
// erfc (a GELU), cbrt and atan2 as upstream's polynomial approximations;
// fpowi, clampf and trunc expanded into the ops they are made of. exp2 of
// f32 (and of narrower floats, through f32) is computed to within about an
// ulp (AccurateExp2) rather than by the driver's Exp2.
mlir::LogicalResult ApproximateMissingMath(mlir::ModuleOp module) {
  auto approximated = [](llvm::StringRef name) {
    name.consume_front("math.");
    return name == "erf" || name == "erfc" || name == "cbrt" || name == "atan2" || name == "exp2";
  };
  mlir::RewritePatternSet patterns(module.getContext());
  // The approximations are of f32 functions: narrower floats go through f32.
  mlir::populateMathF32ExpansionPatterns(patterns, approximated);
  mlir::populatePolynomialApproximateErfPattern(patterns);
  mlir::populatePolynomialApproximateErfcPattern(patterns);
  mlir::populateMathPolynomialApproximationPatterns(patterns, [](llvm::StringRef name) {
    name.consume_front("math.");
    return name == "cbrt" || name == "atan2";
  });
  mlir::math::populateExpansionPatterns(patterns, {"fpowi", "clampf"});
  patterns.add(+[](mlir::math::Exp2Op op, mlir::PatternRewriter& rewriter) -> LogicalResult {
    if (!op.getType().isF32()) return mlir::failure();
    rewriter.replaceOp(op, AccurateExp2(rewriter, op.getLoc(), op.getOperand()));
    return mlir::success();
  });
  // trunc(x): floor of |x| with x's sign (GLSL's Trunc has no upstream
  // conversion).
  patterns.add(+[](mlir::math::TruncOp op, mlir::PatternRewriter& rewriter) -> LogicalResult {
    const Location loc = op.getLoc();
    Value magnitude = mlir::math::AbsFOp::create(rewriter, loc, op.getOperand());
    Value floor = mlir::math::FloorOp::create(rewriter, loc, magnitude);
    rewriter.replaceOpWithNewOp<mlir::math::CopySignOp>(op, floor, op.getOperand());
    return mlir::success();
  });
  return mlir::applyPatternsGreedily(module, std::move(patterns));
}

// Integer overflow flags (nsw/nuw, which index arithmetic carries) would
// become NoSignedWrap/NoUnsignedWrap decorations, which need SPIR-V 1.4 or
// SPV_KHR_no_integer_wrap_decoration; they are only hints, so they go.
void DropOverflowFlags(mlir::ModuleOp module) {
  module.walk([](mlir::arith::ArithIntegerOverflowFlagsInterface op) {
    op->removeAttr(op.getIntegerOverflowAttrName());
  });
}

// The kernels into a gpu.module of gpu.func kernels with their entry point
// ABI (workgroup size), the form upstream's GPU-to-SPIR-V conversion takes;
// helpers stay func.func.
mlir::gpu::GPUModuleOp WrapInGpuModule(mlir::ModuleOp module, spirv::TargetEnvAttr target_env) {
  auto* context = module.getContext();
  mlir::OpBuilder builder(context);
  module->setAttr(mlir::gpu::GPUDialect::getContainerModuleAttrName(), builder.getUnitAttr());
  builder.setInsertionPointToStart(module.getBody());
  auto gpu_module = mlir::gpu::GPUModuleOp::create(builder, module.getLoc(), "kiln_kernels");
  gpu_module->setAttr(spirv::getTargetEnvAttrName(), target_env);
  mlir::Block* body = gpu_module.getBody();
  for (auto function : llvm::make_early_inc_range(module.getOps<mlir::func::FuncOp>())) {
    if (!IsKernel(function)) {
      function->moveBefore(body, body->end());
      continue;
    }
    builder.setInsertionPoint(body, body->end());
    auto kernel = mlir::gpu::GPUFuncOp::create(builder, function.getLoc(), function.getSymName(),
                                               function.getFunctionType());
    kernel->setAttr(mlir::gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
    const std::array<int64_t, 3> size = gpu::KernelWorkgroupSize(function);
    const int32_t size32[3] = {static_cast<int32_t>(size[0]), static_cast<int32_t>(size[1]),
                               static_cast<int32_t>(size[2])};
    kernel->setAttr(spirv::getEntryPointABIAttrName(),
                    spirv::getEntryPointABIAttr(context, size32));
    kernel.getBody().front().erase();
    kernel.getBody().takeBody(function.getBody());
    kernel.walk([&](mlir::func::ReturnOp ret) {
      builder.setInsertionPoint(ret);
      mlir::gpu::ReturnOp::create(builder, ret.getLoc());
      ret.erase();
    });
    function.erase();
  }
  return gpu_module;
}

//===----------------------------------------------------------------------===//
// Conversion patterns of the interface ops
//===----------------------------------------------------------------------===//

// The module-level variable `name` of `type`, created on first use at the
// start of the enclosing spirv.module (where the upstream builtins go too).
spirv::GlobalVariableOp GetOrCreateVariable(mlir::Operation* user, llvm::StringRef name, Type type,
                                            std::optional<int64_t> binding,
                                            mlir::OpBuilder& builder) {
  mlir::Operation* table = user->getParentWithTrait<mlir::OpTrait::SymbolTable>();
  if (auto existing = llvm::dyn_cast_if_present<spirv::GlobalVariableOp>(
          mlir::SymbolTable::lookupSymbolIn(table, name))) {
    return existing;
  }
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&table->getRegion(0).front());
  if (binding) {
    return spirv::GlobalVariableOp::create(builder, user->getLoc(), type, name,
                                           /*descriptorSet=*/0, *binding);
  }
  return spirv::GlobalVariableOp::create(builder, user->getLoc(), mlir::TypeAttr::get(type),
                                         builder.getStringAttr(name));
}

class SubspanLowering : public mlir::OpConversionPattern<HAL::InterfaceBindingSubspanOp> {
 public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(HAL::InterfaceBindingSubspanOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    Type pointer = getTypeConverter()->convertType(op.getType());
    if (!pointer) {
      return rewriter.notifyMatchFailure(op, "the binding's memref type has no SPIR-V form");
    }
    // One variable per binding and element type: the same binding read as
    // two types needs two (aliasing) variables.
    std::string name;
    llvm::raw_string_ostream(name) << "kiln_binding_" << op.getBinding().getZExtValue() << "_"
                                   << llvm::cast<mlir::MemRefType>(op.getType()).getElementType();
    spirv::GlobalVariableOp variable =
        GetOrCreateVariable(op, name, pointer, op.getBinding().getSExtValue(), rewriter);
    rewriter.replaceOpWithNewOp<spirv::AddressOfOp>(op, variable);
    return mlir::success();
  }
};

class ConstantLoadLowering : public mlir::OpConversionPattern<HAL::InterfaceConstantLoadOp> {
 public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(HAL::InterfaceConstantLoadOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    const int64_t count = static_cast<int64_t>(op.getLayout().getConstants());
    const int64_t ordinal = op.getOrdinal().getSExtValue();
    if (ordinal < 0 || ordinal >= count) {
      return op.emitOpError() << "reads constant " << ordinal << " of a layout with " << count;
    }
    auto* context = op.getContext();
    auto i32 = rewriter.getI32Type();
    // The block as the type converter lays out a PushConstant memref, so it
    // gets the same Block/offset decorations as the storage buffers.
    auto block_memref = mlir::MemRefType::get(
        {count}, i32, mlir::MemRefLayoutAttrInterface(),
        spirv::StorageClassAttr::get(context, spirv::StorageClass::PushConstant));
    Type pointer = getTypeConverter()->convertType(block_memref);
    if (!pointer) return rewriter.notifyMatchFailure(op, "no SPIR-V push-constant block type");
    // One block per constant count: an entry point's block must lie within
    // the pipeline layout's push-constant range.
    const std::string name = "kiln_push_constants_" + std::to_string(count);
    spirv::GlobalVariableOp variable =
        GetOrCreateVariable(op, name, pointer, std::nullopt, rewriter);
    const Location loc = op.getLoc();
    Value base = spirv::AddressOfOp::create(rewriter, loc, variable);
    Value zero = spirv::ConstantOp::create(rewriter, loc, i32, rewriter.getI32IntegerAttr(0));
    Value index =
        spirv::ConstantOp::create(rewriter, loc, i32, rewriter.getI32IntegerAttr(ordinal));
    Value element =
        spirv::AccessChainOp::create(rewriter, loc, base, mlir::ValueRange{zero, index});
    Value bits = spirv::LoadOp::create(rewriter, loc, element);
    Type result = getTypeConverter()->convertType(op.getType());
    if (!result) return rewriter.notifyMatchFailure(op, "result type has no SPIR-V form");
    if (result == i32) {
      rewriter.replaceOp(op, bits);
    } else if (result.isF32()) {
      rewriter.replaceOpWithNewOp<spirv::BitcastOp>(op, result, bits);
    } else if (llvm::isa<mlir::IntegerType>(result)) {
      // A 64-bit index: the constant zero-extended.
      rewriter.replaceOpWithNewOp<spirv::UConvertOp>(op, result, bits);
    } else {
      return rewriter.notifyMatchFailure(op, "unsupported constant type");
    }
    return mlir::success();
  }
};

// hal.interface.timestamp as its two words: a load of the placeholder that
// PatchShaderClock turns into OpReadClockKHR after serialization
// (shader_clock.h).
class TimestampLowering : public mlir::OpConversionPattern<HAL::InterfaceTimestampOp> {
 public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(HAL::InterfaceTimestampOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    auto words = llvm::dyn_cast<mlir::VectorType>(op.getType());
    if (!words) {
      return rewriter.notifyMatchFailure(op,
                                         "64-bit clock reads are split before (SplitClockReads)");
    }
    auto pointer = spirv::PointerType::get(words, spirv::StorageClass::Private);
    spirv::GlobalVariableOp variable =
        GetOrCreateVariable(op, kShaderClockPlaceholder, pointer, std::nullopt, rewriter);
    Value address = spirv::AddressOfOp::create(rewriter, op.getLoc(), variable);
    rewriter.replaceOpWithNewOp<spirv::LoadOp>(op, address);
    return mlir::success();
  }
};

template <typename OpT, spirv::BuiltIn kBuiltin>
class WorkgroupBuiltinLowering : public mlir::OpConversionPattern<OpT> {
 public:
  using mlir::OpConversionPattern<OpT>::OpConversionPattern;

  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    Type index = this->getTypeConverter()->convertType(op.getType());
    const uint64_t d = op.getDimension().getZExtValue();
    if (d >= 3) return op.emitOpError() << "has dimension " << d << "; workgroups have 3";
    Value vector = spirv::getBuiltinVariableValue(op, kBuiltin, index, rewriter);
    rewriter.replaceOpWithNewOp<spirv::CompositeExtractOp>(op, vector, static_cast<int32_t>(d));
    return mlir::success();
  }
};

// gpu.barrier, with the storage buffers in its memory semantics (upstream's
// lowering orders workgroup memory only).
class BarrierLowering : public mlir::OpConversionPattern<mlir::gpu::BarrierOp> {
 public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(mlir::gpu::BarrierOp op, OpAdaptor,
                                ConversionPatternRewriter& rewriter) const override {
    auto semantics = spirv::MemorySemantics::AcquireRelease |
                     spirv::MemorySemantics::WorkgroupMemory |
                     spirv::MemorySemantics::UniformMemory;
    rewriter.replaceOpWithNewOp<spirv::ControlBarrierOp>(op, spirv::Scope::Workgroup,
                                                         spirv::Scope::Workgroup, semantics);
    return mlir::success();
  }
};

//===----------------------------------------------------------------------===//
// The pipeline
//===----------------------------------------------------------------------===//

void BuildPreLoweringPipeline(mlir::OpPassManager& pm) {
  // bf16 has no arithmetic in Vulkan's SPIR-V: it is computed in f32 (and
  // kept in memory as 16 bits, LegalizeStorageTypes); math functions on
  // narrow floats too, as GLSL's extended instructions take f32.
  mlir::arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  pm.addPass(mlir::arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(mlir::math::createMathExtendToSupportedTypes());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  // Subviews (the workgroup tile, each thread's point) into the indices of
  // the loads and stores, which then address the subspans and allocs
  // directly.
  pm.addPass(mlir::memref::createFoldMemRefAliasOpsPass());
}

void BuildIndexLoweringPipeline(mlir::OpPassManager& pm) {
  pm.addPass(mlir::affine::createAffineExpandIndexOpsPass());
  pm.addPass(mlir::createLowerAffinePass());
  // With bf16: its conversions to and from f32 as integer operations on the
  // 16 bits the storage legalization left.
  mlir::arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(mlir::arith::createArithExpandOpsPass(expand));
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

LogicalResult ConvertToSPIRV(mlir::gpu::GPUModuleOp gpu_module, spirv::TargetEnvAttr target_env) {
  auto* context = gpu_module.getContext();
  // Memory spaces to storage classes: the default one (the bindings) to
  // StorageBuffer, #gpu.address_space<workgroup> to Workgroup.
  {
    // Upstream's Vulkan map knows the numeric memory spaces only; the GPU
    // dialect's address spaces (what the thread distribution writes) are
    // mapped here.
    auto map = [](mlir::Attribute space) -> std::optional<spirv::StorageClass> {
      if (auto gpu_space = llvm::dyn_cast_if_present<mlir::gpu::AddressSpaceAttr>(space)) {
        switch (gpu_space.getValue()) {
          case mlir::gpu::AddressSpace::Global:
            return spirv::StorageClass::StorageBuffer;
          case mlir::gpu::AddressSpace::Workgroup:
            return spirv::StorageClass::Workgroup;
          case mlir::gpu::AddressSpace::Private:
            return spirv::StorageClass::Private;
        }
      }
      return spirv::mapMemorySpaceToVulkanStorageClass(space);
    };
    spirv::MemorySpaceToStorageClassConverter memory_spaces(map);
    spirv::convertMemRefTypesAndAttrs(gpu_module, memory_spaces);
  }

  std::unique_ptr<mlir::SPIRVConversionTarget> target =
      mlir::SPIRVConversionTarget::get(target_env);
  mlir::SPIRVConversionOptions conversion_options;
  mlir::SPIRVTypeConverter converter(target_env, conversion_options);
  mlir::ScfToSPIRVContext scf_context;

  mlir::RewritePatternSet patterns(context);
  mlir::populateGPUToSPIRVPatterns(converter, patterns);
  mlir::populateSCFToSPIRVPatterns(converter, scf_context, patterns);
  mlir::arith::populateArithToSPIRVPatterns(converter, patterns);
  mlir::populateMathToSPIRVPatterns(converter, patterns);
  mlir::populateMemRefToSPIRVPatterns(converter, patterns);
  mlir::populateFuncToSPIRVPatterns(converter, patterns);
  mlir::ub::populateUBToSPIRVConversionPatterns(converter, patterns);
  // The clock's words (vector.extract of hal.interface.timestamp).
  mlir::populateVectorToSPIRVPatterns(converter, patterns);
  patterns
      .add<SubspanLowering, ConstantLoadLowering, TimestampLowering,
           WorkgroupBuiltinLowering<HAL::InterfaceWorkgroupIDOp, spirv::BuiltIn::WorkgroupId>,
           WorkgroupBuiltinLowering<HAL::InterfaceWorkgroupCountOp, spirv::BuiltIn::NumWorkgroups>>(
          converter, context);
  patterns.add<BarrierLowering>(converter, context, /*benefit=*/2);
  // A full conversion: an op without a pattern fails it with an error at
  // the op that names it.
  return mlir::applyFullConversion(gpu_module.getOperation(), *target, std::move(patterns));
}

// Float multiplies, adds and subtracts are decorated NoContraction: a
// Vulkan driver may otherwise fuse a*b+c into one fma, which rounds once
// where the program rounds twice (x - mean*n then cancels to a tiny residue
// instead of zero). CUDA and CPU kernels keep the program's roundings too.
void ForbidContraction(mlir::ModuleOp module) {
  mlir::UnitAttr unit = mlir::UnitAttr::get(module.getContext());
  const std::string name = llvm::convertToSnakeFromCamelCase(
      spirv::stringifyDecoration(spirv::Decoration::NoContraction));
  module.walk([&](mlir::Operation* op) {
    if (llvm::isa<spirv::FMulOp, spirv::FAddOp, spirv::FSubOp>(op)) op->setAttr(name, unit);
  });
}

LogicalResult CheckOnlySPIRV(mlir::ModuleOp module) {
  auto result = module.walk([&](mlir::Operation* op) {
    if (op == module.getOperation() || llvm::isa<spirv::SPIRVDialect>(op->getDialect())) {
      return mlir::WalkResult::advance();
    }
    op->emitOpError() << "was not lowered to SPIR-V by the Vulkan backend";
    return mlir::WalkResult::interrupt();
  });
  return mlir::failure(result.wasInterrupted());
}

class LowerKernelsToSPIRVPass
    : public mlir::PassWrapper<LowerKernelsToSPIRVPass, mlir::OperationPass<mlir::ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerKernelsToSPIRVPass)

  explicit LowerKernelsToSPIRVPass(const VulkanTargetOptions& options = {}) : options_(options) {}

  llvm::StringRef getArgument() const final { return "kiln-vulkan-lower-kernels-to-spirv"; }
  llvm::StringRef getDescription() const final {
    return "Lowers a module of thread-distributed generated kernels to one spirv.module for "
           "Vulkan (set 0 storage-buffer bindings, push constants, GLCompute entry points)";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const final {
    mlir::OpPassManager pm(mlir::ModuleOp::getOperationName());
    BuildPreLoweringPipeline(pm);
    BuildIndexLoweringPipeline(pm);
    pm.getDependentDialects(registry);
    registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect, mlir::func::FuncDialect,
                    mlir::gpu::GPUDialect, mlir::math::MathDialect, mlir::memref::MemRefDialect,
                    mlir::scf::SCFDialect, spirv::SPIRVDialect, mlir::ub::UBDialect,
                    mlir::vector::VectorDialect>();
  }

  void runOnOperation() final {
    mlir::ModuleOp module = getOperation();
    // First: canonicalization must not see the clock's 64-bit words.
    if (mlir::failed(SplitClockReads(module))) return signalPassFailure();
    if (mlir::failed(CheckInterfaceUse(module))) return signalPassFailure();
    bool has_kernel = false;
    for (auto function : module.getOps<mlir::func::FuncOp>()) has_kernel |= IsKernel(function);
    if (!has_kernel) {
      module.emitOpError("defines no kernel (public function) to lower to SPIR-V");
      return signalPassFailure();
    }
    ReshapesToSubspans(module);
    FoldInterfaceSizes(module);
    if (mlir::failed(ApproximateMissingMath(module))) return signalPassFailure();
    RefineDivisions(module);
    mlir::OpPassManager pre_lowering(mlir::ModuleOp::getOperationName());
    BuildPreLoweringPipeline(pre_lowering);
    if (mlir::failed(runPipeline(pre_lowering, module))) return signalPassFailure();
    if (mlir::failed(FlattenSubspans(module))) return signalPassFailure();
    if (mlir::failed(LegalizeStorageTypes(module)) || mlir::failed(BitcastThroughSelects(module))) {
      return signalPassFailure();
    }
    if (mlir::failed(CheckWorkgroupMemory(module, options_))) return signalPassFailure();
    mlir::OpPassManager index_lowering(mlir::ModuleOp::getOperationName());
    BuildIndexLoweringPipeline(index_lowering);
    if (mlir::failed(runPipeline(index_lowering, module))) return signalPassFailure();

    DropOverflowFlags(module);
    spirv::TargetEnvAttr target_env = VulkanTargetEnv(&getContext(), options_);
    mlir::gpu::GPUModuleOp gpu_module = WrapInGpuModule(module, target_env);
    if (mlir::failed(ConvertToSPIRV(gpu_module, target_env))) return signalPassFailure();
    module->removeAttr(mlir::gpu::GPUDialect::getContainerModuleAttrName());

    mlir::OpPassManager finish(mlir::ModuleOp::getOperationName());
    auto& spirv_pm = finish.nest<spirv::ModuleOp>();
    spirv_pm.addPass(spirv::createSPIRVLowerABIAttributesPass());
    spirv_pm.addPass(mlir::createCanonicalizerPass());
    spirv_pm.addPass(mlir::createCSEPass());
    spirv_pm.addPass(spirv::createSPIRVUpdateVCEPass());
    if (mlir::failed(runPipeline(finish, module))) return signalPassFailure();
    if (mlir::failed(CheckOnlySPIRV(module))) return signalPassFailure();
    ForbidContraction(module);
  }

 private:
  VulkanTargetOptions options_;
};

}  // namespace

std::unique_ptr<mlir::Pass> createLowerKernelsToSPIRVPass(const VulkanTargetOptions& options) {
  return std::make_unique<LowerKernelsToSPIRVPass>(options);
}

void registerLowerKernelsToSPIRVPass() {
  mlir::PassRegistration<LowerKernelsToSPIRVPass>(
      [] { return std::make_unique<LowerKernelsToSPIRVPass>(); });
}

}  // namespace kiln::compiler::vulkan
