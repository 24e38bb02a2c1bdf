#include "compiler/onnx/tensor_builders.h"

#include "compiler/onnx/node_importer.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"

namespace kiln::onnx_import {

llvm::SmallVector<mlir::OpFoldResult> TensorSizes(mlir::OpBuilder& b, mlir::Location loc,
                                                  mlir::Value value) {
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  llvm::SmallVector<mlir::OpFoldResult> sizes;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (type.isDynamicDim(i)) {
      sizes.push_back(b.create<mlir::tensor::DimOp>(loc, value, i).getResult());
    } else {
      sizes.push_back(b.getIndexAttr(type.getDimSize(i)));
    }
  }
  return sizes;
}

mlir::Value EmptyTensor(mlir::OpBuilder& b, mlir::Location loc,
                        llvm::ArrayRef<mlir::OpFoldResult> sizes, mlir::Type element_type) {
  return b.create<mlir::tensor::EmptyOp>(loc, sizes, element_type);
}

mlir::Value ScalarConstant(mlir::OpBuilder& b, mlir::Location loc, mlir::Type type, double value) {
  if (auto float_type = llvm::dyn_cast<mlir::FloatType>(type)) {
    return b.create<mlir::arith::ConstantOp>(loc, b.getFloatAttr(float_type, value));
  }
  if (type.isIndex()) return b.create<mlir::arith::ConstantIndexOp>(loc, static_cast<int64_t>(value));
  return b.create<mlir::arith::ConstantOp>(loc,
                                           b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

mlir::Value FilledTensor(mlir::OpBuilder& b, mlir::Location loc,
                         llvm::ArrayRef<mlir::OpFoldResult> sizes, mlir::Value value) {
  mlir::Value empty = EmptyTensor(b, loc, sizes, value.getType());
  return b.create<mlir::linalg::FillOp>(loc, value, empty).getResult(0);
}

mlir::FailureOr<int64_t> RankOf(NodeImporter& node, mlir::Value value) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!type) return node.Fail("an operand of unknown rank is not supported");
  return type.getRank();
}

mlir::FailureOr<int64_t> NormalizeAxis(NodeImporter& node, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1)) {
    return node.Fail("axis " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

mlir::FailureOr<llvm::SmallVector<mlir::OpFoldResult>> BroadcastSizes(NodeImporter& node,
                                                                      mlir::ValueRange operands) {
  mlir::OpBuilder& b = node.builder();
  int64_t rank = 0;
  for (mlir::Value operand : operands) {
    mlir::FailureOr<int64_t> operand_rank = RankOf(node, operand);
    if (mlir::failed(operand_rank)) return mlir::failure();
    rank = std::max(rank, *operand_rank);
  }
  llvm::SmallVector<mlir::OpFoldResult> sizes(rank);
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<int64_t> static_size;
    mlir::Value dynamic_source;
    int64_t dynamic_dim = 0;
    for (mlir::Value operand : operands) {
      auto type = llvm::cast<mlir::RankedTensorType>(operand.getType());
      const int64_t dim = d - (rank - type.getRank());
      if (dim < 0) continue;
      if (type.isDynamicDim(dim)) {
        if (!dynamic_source) {
          dynamic_source = operand;
          dynamic_dim = dim;
        }
        continue;
      }
      const int64_t size = type.getDimSize(dim);
      if (size == 1) continue;
      if (static_size && *static_size != size) {
        return node.Fail("operand shapes do not broadcast (size " + std::to_string(*static_size) +
                         " against " + std::to_string(size) + ")");
      }
      static_size = size;
    }
    if (static_size) {
      sizes[d] = b.getIndexAttr(*static_size);
    } else if (dynamic_source) {
      sizes[d] = b.create<mlir::tensor::DimOp>(node.loc(), dynamic_source, dynamic_dim).getResult();
    } else {
      sizes[d] = b.getIndexAttr(1);
    }
  }
  return sizes;
}

mlir::FailureOr<mlir::Value> BuildElementwise(NodeImporter& node, mlir::ValueRange operands,
                                              mlir::Type result_element_type,
                                              const ScalarBody& body) {
  mlir::OpBuilder& b = node.builder();
  mlir::MLIRContext* context = b.getContext();
  mlir::FailureOr<llvm::SmallVector<mlir::OpFoldResult>> sizes = BroadcastSizes(node, operands);
  if (mlir::failed(sizes)) return mlir::failure();
  const int64_t rank = sizes->size();
  llvm::SmallVector<mlir::AffineMap> maps;
  for (mlir::Value operand : operands) {
    auto type = llvm::cast<mlir::RankedTensorType>(operand.getType());
    llvm::SmallVector<mlir::AffineExpr> exprs;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      const int64_t result_dim = dim + (rank - type.getRank());
      // A static 1 where the result is larger (or unknown) is broadcast.
      std::optional<int64_t> result_size = mlir::getConstantIntValue((*sizes)[result_dim]);
      const bool broadcast = type.getDimSize(dim) == 1 && (!result_size || *result_size != 1);
      exprs.push_back(broadcast ? mlir::getAffineConstantExpr(0, context)
                                : mlir::getAffineDimExpr(result_dim, context));
    }
    maps.push_back(mlir::AffineMap::get(rank, 0, exprs, context));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  mlir::Value init = EmptyTensor(b, node.loc(), *sizes, result_element_type);
  llvm::SmallVector<mlir::utils::IteratorType> iterators(rank, mlir::utils::IteratorType::parallel);
  auto generic = b.create<mlir::linalg::GenericOp>(
      node.loc(), init.getType(), operands, mlir::ValueRange{init}, maps, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange args) {
        mlir::Value result = body(nested, loc, args.drop_back());
        nested.create<mlir::linalg::YieldOp>(loc, result);
      });
  return generic.getResult(0);
}

mlir::Value ConvertScalar(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                          OnnxElementType from, OnnxElementType to) {
  mlir::Type source = value.getType();
  mlir::Type target = ConvertElementType(*b.getContext(), to);
  if (from == to || (source == target && IsUnsigned(from) == IsUnsigned(to) &&
                     IsFloat(from) == IsFloat(to))) {
    return value;
  }
  if (to == onnx::TensorProto::BOOL) {
    mlir::Value zero = ScalarConstant(b, loc, source, 0);
    if (IsFloat(from)) {
      return b.create<mlir::arith::CmpFOp>(loc, mlir::arith::CmpFPredicate::UNE, value, zero);
    }
    return b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::ne, value, zero);
  }
  if (IsFloat(from) && IsFloat(to)) {
    const unsigned source_width = source.getIntOrFloatBitWidth();
    const unsigned target_width = target.getIntOrFloatBitWidth();
    if (source_width < target_width) return b.create<mlir::arith::ExtFOp>(loc, target, value);
    if (source_width > target_width) return b.create<mlir::arith::TruncFOp>(loc, target, value);
    // f16 <-> bf16: through f32.
    mlir::Value wide = b.create<mlir::arith::ExtFOp>(loc, b.getF32Type(), value);
    return b.create<mlir::arith::TruncFOp>(loc, target, wide);
  }
  if (IsFloat(from)) {
    if (IsUnsigned(to)) return b.create<mlir::arith::FPToUIOp>(loc, target, value);
    return b.create<mlir::arith::FPToSIOp>(loc, target, value);
  }
  if (IsFloat(to)) {
    if (IsUnsigned(from)) return b.create<mlir::arith::UIToFPOp>(loc, target, value);
    return b.create<mlir::arith::SIToFPOp>(loc, target, value);
  }
  const unsigned source_width = source.getIntOrFloatBitWidth();
  const unsigned target_width = target.getIntOrFloatBitWidth();
  if (source_width < target_width) {
    if (IsUnsigned(from)) return b.create<mlir::arith::ExtUIOp>(loc, target, value);
    return b.create<mlir::arith::ExtSIOp>(loc, target, value);
  }
  if (source_width > target_width) return b.create<mlir::arith::TruncIOp>(loc, target, value);
  return value;
}

mlir::Value ConvertTensor(NodeImporter& node, mlir::Value value, OnnxElementType from,
                          OnnxElementType to) {
  mlir::Type target = ConvertElementType(node.context(), to);
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  if (type.getElementType() == target) return value;
  return *BuildElementwise(node, value, target,
                           [&](mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange scalars) {
                             return ConvertScalar(b, loc, scalars[0], from, to);
                           });
}

}  // namespace kiln::onnx_import
