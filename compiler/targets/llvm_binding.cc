#include "compiler/targets/llvm_binding.h"

#include <optional>

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace kiln::compiler {

namespace LLVM = mlir::LLVM;
using mlir::Value;

mlir::LogicalResult CheckBindingSubspanType(HAL::InterfaceBindingSubspanOp op,
                                            llvm::StringRef backend,
                                            llvm::StringRef binding_memory) {
  auto type = llvm::dyn_cast<mlir::MemRefType>(op.getType());
  if (!type) {
    return op.emitOpError() << "result " << op.getType() << " is not a ranked memref; the "
                            << backend << " backend cannot build it";
  }
  if (type.getMemorySpace()) {
    return op.emitOpError() << "result " << type << " has a memory space; " << backend
                            << " bindings are " << binding_memory;
  }
  if (type.getLayout().isIdentity()) return mlir::success();
  int64_t offset = 0;
  llvm::SmallVector<int64_t> strides;
  if (mlir::failed(type.getStridesAndOffset(strides, offset))) {
    return op.emitOpError() << "result " << type << " has a layout that is not strided";
  }
  if (llvm::any_of(strides, mlir::ShapedType::isDynamic)) {
    return op.emitOpError() << "result " << type
                            << " has dynamic strides, which a binding cannot supply";
  }
  if (offset != 0 && !mlir::ShapedType::isDynamic(offset)) {
    return op.emitOpError() << "result " << type << " has the static offset " << offset
                            << "; express it as the op's byte offset instead";
  }
  return mlir::success();
}

Value BuildBindingDescriptor(mlir::OpBuilder& builder, mlir::Location loc,
                             const mlir::LLVMTypeConverter& converter, mlir::MemRefType type,
                             Value base, Value byte_offset, mlir::ValueRange dynamic_dims) {
  auto ptr = LLVM::LLVMPointerType::get(builder.getContext());
  if (byte_offset) {
    base = LLVM::GEPOp::create(builder, loc, ptr, builder.getI8Type(), base,
                               llvm::ArrayRef<LLVM::GEPArg>{byte_offset});
  }
  mlir::Type index_type = converter.getIndexType();
  auto index_constant = [&](int64_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, index_type, builder.getIndexAttr(value));
  };
  auto descriptor = mlir::MemRefDescriptor::poison(builder, loc, converter.convertType(type));
  descriptor.setAllocatedPtr(builder, loc, base);
  descriptor.setAlignedPtr(builder, loc, base);
  descriptor.setConstantOffset(builder, loc, 0);

  const int64_t rank = type.getRank();
  llvm::SmallVector<Value> sizes;
  auto dynamic_dim = dynamic_dims.begin();
  for (int64_t i = 0; i < rank; ++i) {
    Value size = type.isDynamicDim(i) ? *dynamic_dim++ : index_constant(type.getDimSize(i));
    descriptor.setSize(builder, loc, i, size);
    sizes.push_back(size);
  }
  if (!type.getLayout().isIdentity()) {
    auto [strides, offset] = type.getStridesAndOffset();
    for (int64_t i = 0; i < rank; ++i) descriptor.setConstantStride(builder, loc, i, strides[i]);
    return descriptor;
  }
  // Row-major and contiguous: each stride is the product of the sizes to its
  // right, a constant while those sizes are static.
  std::optional<int64_t> static_stride = 1;
  Value stride;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (static_stride) {
      descriptor.setConstantStride(builder, loc, i, *static_stride);
    } else {
      descriptor.setStride(builder, loc, i, stride);
    }
    if (i == 0) break;
    if (static_stride && !type.isDynamicDim(i)) {
      static_stride = *static_stride * type.getDimSize(i);
      continue;
    }
    Value previous = static_stride ? index_constant(*static_stride) : stride;
    stride = LLVM::MulOp::create(builder, loc, previous, sizes[i]);
    static_stride.reset();
  }
  return descriptor;
}

}  // namespace kiln::compiler
