#include "compiler/onnx/ops/misc_helpers.h"

#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace kiln::onnx_import::misc {

llvm::SmallVector<mlir::Value> Generic(mlir::OpBuilder& b, mlir::Location loc,
                                       mlir::ValueRange inputs, mlir::ValueRange inits,
                                       llvm::ArrayRef<mlir::AffineMap> maps,
                                       llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                                       const GenericBody& body) {
  auto generic = b.create<mlir::linalg::GenericOp>(
      loc, mlir::ValueRange(inits).getTypes(), inputs, inits, maps, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        nested.create<mlir::linalg::YieldOp>(nested_loc, body(nested, nested_loc, args));
      });
  return llvm::SmallVector<mlir::Value>(generic.getResults());
}

mlir::Value BuildIndexed(
    mlir::OpBuilder& b, mlir::Location loc, llvm::ArrayRef<mlir::OpFoldResult> sizes,
    mlir::Type element_type, mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> maps,
    const std::function<mlir::Value(mlir::OpBuilder&, mlir::Location, mlir::ValueRange)>& body) {
  const int64_t rank = sizes.size();
  mlir::Value init = EmptyTensor(b, loc, sizes, element_type);
  llvm::SmallVector<mlir::AffineMap> all_maps(maps);
  all_maps.push_back(IdentityMap(b.getContext(), rank));
  return Generic(
      b, loc, inputs, init, all_maps, Parallel(rank),
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        return llvm::SmallVector<mlir::Value>{body(nested, nested_loc, args.drop_back())};
      })[0];
}

mlir::Value ExtractScalar(mlir::OpBuilder& b, mlir::Location loc, mlir::Value tensor) {
  auto type = llvm::cast<mlir::RankedTensorType>(tensor.getType());
  llvm::SmallVector<mlir::Value> indices(type.getRank(), IndexConstant(b, loc, 0));
  return b.create<mlir::tensor::ExtractOp>(loc, tensor, indices);
}

bool IsSingleElement(mlir::Value value) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!type) return false;
  return llvm::all_of(type.getShape(), [](int64_t size) { return size == 1; });
}

mlir::Value IntToIndex(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value) {
  return b.create<mlir::arith::IndexCastOp>(loc, b.getIndexType(), value);
}

mlir::Value IndexToInt(mlir::OpBuilder& b, mlir::Location loc, mlir::Value index, mlir::Type type) {
  return b.create<mlir::arith::IndexCastOp>(loc, type, index);
}

mlir::Value IndexToFloat(mlir::OpBuilder& b, mlir::Location loc, mlir::Value index,
                         mlir::Type type) {
  mlir::Value wide = IndexToInt(b, loc, index, b.getI64Type());
  return b.create<mlir::arith::SIToFPOp>(loc, type, wide);
}

mlir::Value IndexConstant(mlir::OpBuilder& b, mlir::Location loc, int64_t value) {
  return b.create<mlir::arith::ConstantIndexOp>(loc, value);
}

mlir::FailureOr<mlir::AffineMap> ParameterMap(NodeImporter& node, mlir::Value param, int64_t rank,
                                              int64_t axis, llvm::StringRef what) {
  mlir::MLIRContext* context = &node.context();
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(param.getType());
  if (!type) return node.Fail(what + " of unknown rank is not supported");
  if (IsSingleElement(param)) {
    llvm::SmallVector<mlir::AffineExpr> zeros(type.getRank(),
                                              mlir::getAffineConstantExpr(0, context));
    return mlir::AffineMap::get(rank, 0, zeros, context);
  }
  if (type.getRank() != 1 || axis < 0 || axis >= rank) {
    return node.Fail(what + " must be a scalar or a 1-D tensor along the axis");
  }
  return mlir::AffineMap::get(rank, 0, {mlir::getAffineDimExpr(axis, context)}, context);
}

mlir::AffineMap IdentityMap(mlir::MLIRContext* context, int64_t rank) {
  return mlir::AffineMap::getMultiDimIdentityMap(rank, context);
}

llvm::SmallVector<mlir::utils::IteratorType> Parallel(int64_t rank) {
  return llvm::SmallVector<mlir::utils::IteratorType>(rank, mlir::utils::IteratorType::parallel);
}

mlir::Value ToF32(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value, OnnxElementType type) {
  return ConvertScalar(b, loc, value, type, onnx::TensorProto::FLOAT);
}

mlir::Value Clamp(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value, double low,
                  double high) {
  mlir::Value lo = ScalarConstant(b, loc, value.getType(), low);
  mlir::Value hi = ScalarConstant(b, loc, value.getType(), high);
  value = b.create<mlir::arith::MaximumFOp>(loc, value, lo);
  return b.create<mlir::arith::MinimumFOp>(loc, value, hi);
}

}  // namespace kiln::onnx_import::misc
