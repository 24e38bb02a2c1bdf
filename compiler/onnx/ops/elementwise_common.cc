#include "compiler/onnx/ops/elementwise_common.h"

#include <string>

#include "compiler/onnx/node_importer.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace kiln::onnx_import {

mlir::LogicalResult CheckInputType(NodeImporter& node, int64_t index, unsigned allowed) {
  const OnnxElementType type = node.InputElementType(index);
  const bool ok =
      (IsFloat(type) && (allowed & kFloatTypes)) ||
      (IsSignedInteger(type) && (allowed & kSignedTypes)) ||
      (type == onnx::TensorProto::BOOL && (allowed & kBoolType)) ||
      (IsUnsigned(type) && type != onnx::TensorProto::BOOL && (allowed & kUnsignedTypes));
  if (ok) return mlir::success();
  return node.Fail("input " + std::to_string(index) + " of element type " +
                   OnnxElementTypeName(type) + " is not supported by this operator");
}

mlir::LogicalResult CheckSameInputTypes(NodeImporter& node, int64_t first, int64_t last) {
  for (int64_t i = first + 1; i <= last; ++i) {
    if (node.InputElementType(i) != node.InputElementType(first)) {
      return node.Fail("input " + std::to_string(i) + " is " +
                       OnnxElementTypeName(node.InputElementType(i)) + " but input " +
                       std::to_string(first) + " is " +
                       OnnxElementTypeName(node.InputElementType(first)) +
                       " (the operator needs one element type)");
    }
  }
  return mlir::success();
}

mlir::LogicalResult CheckInputsPresent(NodeImporter& node, int64_t count) {
  if (node.input_count() < count) {
    return node.Fail("needs " + std::to_string(count) + " input(s), has " +
                     std::to_string(node.input_count()));
  }
  for (int64_t i = 0; i < node.input_count(); ++i) {
    if (!node.HasInput(i)) return node.Fail("input " + std::to_string(i) + " is missing");
  }
  return mlir::success();
}

bool BroadcastsAsNumpy(const NodeImporter& node) {
  return node.opset() >= 7 || node.IntAttribute("broadcast", 0) == 0 || !node.HasAttribute("axis");
}

mlir::FailureOr<llvm::SmallVector<mlir::Value>> BinaryOperands(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 2))) return mlir::failure();
  mlir::Value a = node.Input(0);
  mlir::Value b = node.Input(1);
  mlir::FailureOr<int64_t> rank_a = RankOf(node, a);
  mlir::FailureOr<int64_t> rank_b = RankOf(node, b);
  if (mlir::failed(rank_a) || mlir::failed(rank_b)) return mlir::failure();
  if (node.opset() >= 7) return llvm::SmallVector<mlir::Value>{a, b};

  auto type_a = llvm::cast<mlir::RankedTensorType>(a.getType());
  auto type_b = llvm::cast<mlir::RankedTensorType>(b.getType());
  if (node.IntAttribute("broadcast", 0) == 0) {
    // Without broadcast=1 the operands have one shape.
    bool same = *rank_a == *rank_b;
    for (int64_t d = 0; same && d < *rank_a; ++d) {
      same = type_a.isDynamicDim(d) || type_b.isDynamicDim(d) ||
             type_a.getDimSize(d) == type_b.getDimSize(d);
    }
    if (!same) {
      return node.Fail("operands of different shapes need broadcast=1 before opset 7");
    }
    return llvm::SmallVector<mlir::Value>{a, b};
  }
  if (*rank_b > *rank_a) {
    return node.Fail("with broadcast=1, B may not have a higher rank than A");
  }
  int64_t axis = *rank_a - *rank_b;
  if (node.HasAttribute("axis")) {
    mlir::FailureOr<int64_t> normalized =
        NormalizeAxis(node, node.IntAttribute("axis", 0), *rank_a);
    if (mlir::failed(normalized)) return mlir::failure();
    axis = *normalized;
  }
  const int64_t trailing = *rank_a - axis - *rank_b;
  if (trailing < 0) {
    return node.Fail("with broadcast=1 and axis " + std::to_string(axis) + ", B of rank " +
                     std::to_string(*rank_b) + " does not fit in A of rank " +
                     std::to_string(*rank_a));
  }
  // B's sizes match A's at [axis, axis + rank(B)) (1 broadcast, which this
  // form did not define but numpy does).
  for (int64_t d = 0; d < *rank_b; ++d) {
    const int64_t size_a = type_a.getDimSize(axis + d);
    const int64_t size_b = type_b.getDimSize(d);
    if (!type_a.isDynamicDim(axis + d) && !type_b.isDynamicDim(d) && size_b != 1 &&
        size_a != size_b) {
      return node.Fail("with broadcast=1, B's size " + std::to_string(size_b) + " at " +
                       std::to_string(d) + " does not match A's " + std::to_string(size_a) +
                       " at " + std::to_string(axis + d));
    }
  }
  if (trailing == 0) return llvm::SmallVector<mlir::Value>{a, b};
  // B gets `trailing` sizes of 1 after its last, so that numpy's suffix
  // alignment puts it at `axis`.
  llvm::SmallVector<int64_t> shape(type_b.getShape());
  shape.append(trailing, 1);
  llvm::SmallVector<mlir::ReassociationIndices> groups;
  for (int64_t d = 0; d < *rank_b; ++d) groups.push_back({d});
  if (!groups.empty()) {
    for (int64_t d = *rank_b; d < *rank_b + trailing; ++d) groups.back().push_back(d);
  }
  mlir::OpBuilder& builder = node.builder();
  auto expanded_type = mlir::RankedTensorType::get(shape, type_b.getElementType());
  mlir::Value expanded;
  if (groups.empty()) {
    // A scalar B: rank 0 → all 1s.
    expanded = builder.create<mlir::tensor::ExpandShapeOp>(node.loc(), expanded_type, b, groups);
  } else {
    llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(builder, node.loc(), b);
    sizes.append(trailing, builder.getIndexAttr(1));
    expanded =
        builder.create<mlir::tensor::ExpandShapeOp>(node.loc(), expanded_type, b, groups, sizes);
  }
  return llvm::SmallVector<mlir::Value>{a, expanded};
}

mlir::Value ComputeInF32(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                         const std::function<mlir::Value(mlir::Value)>& compute) {
  mlir::Type type = value.getType();
  if (!type.isF16() && !type.isBF16()) return compute(value);
  mlir::Value wide = b.create<mlir::arith::ExtFOp>(loc, b.getF32Type(), value);
  return b.create<mlir::arith::TruncFOp>(loc, type, compute(wide));
}

namespace {

// The elements of `operand` as scalars when it is a shape tensor whose
// elements the importer knows one by one: a constant, shape_builders.h's
// from_elements of index values cast to integers, or a from_elements of
// bools (what ScalarizeShapeElementwise makes of a predicate).
std::optional<llvm::SmallVector<mlir::Value>> KnownScalars(mlir::OpBuilder& b, mlir::Location loc,
                                                           mlir::Value operand, bool* dynamic) {
  auto type = llvm::cast<mlir::RankedTensorType>(operand.getType());
  mlir::Type element_type = type.getElementType();
  llvm::SmallVector<mlir::Value> scalars;
  mlir::DenseElementsAttr constant;
  if (auto op = operand.getDefiningOp<mlir::arith::ConstantOp>()) {
    constant = llvm::dyn_cast<mlir::DenseElementsAttr>(op.getValue());
  }
  if (constant) {
    for (const llvm::APInt& value : constant.getValues<llvm::APInt>()) {
      scalars.push_back(
          b.create<mlir::arith::ConstantOp>(loc, b.getIntegerAttr(element_type, value)));
    }
    return scalars;
  }
  if (auto from = operand.getDefiningOp<mlir::tensor::FromElementsOp>()) {
    if (!element_type.isInteger(1)) return std::nullopt;
    *dynamic = true;
    return llvm::SmallVector<mlir::Value>(from.getElements());
  }
  auto cast = operand.getDefiningOp<mlir::arith::IndexCastOp>();
  if (!cast) return std::nullopt;
  auto from = cast.getIn().getDefiningOp<mlir::tensor::FromElementsOp>();
  if (!from) return std::nullopt;
  *dynamic = true;
  for (mlir::Value element : from.getElements()) {
    scalars.push_back(b.create<mlir::arith::IndexCastOp>(loc, element_type, element));
  }
  return scalars;
}

}  // namespace

mlir::Value ScalarizeShapeElementwise(NodeImporter& node, mlir::ValueRange operands,
                                      OnnxElementType result_type, const ScalarBody& body) {
  constexpr int64_t kMaxScalarized = 16;
  if (!(IsSignedInteger(result_type) || IsUnsigned(result_type)) || operands.empty()) return {};
  int64_t rank = 0, count = 1;
  for (mlir::Value operand : operands) {
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape() || type.getRank() > 1 ||
        !type.getElementType().isSignlessInteger()) {
      return {};
    }
    rank = std::max<int64_t>(rank, type.getRank());
    const int64_t size = type.getNumElements();
    if (size != 1) {
      if (count != 1 && count != size) return {};
      count = size;
    }
  }
  if (count > kMaxScalarized) return {};
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  // Nothing is built unless every operand's elements are known and one is
  // dynamic (constants fold: elementwise_folding.h).
  bool any_dynamic = false;
  for (mlir::Value operand : operands) {
    if (operand.getDefiningOp<mlir::arith::ConstantOp>()) continue;
    any_dynamic = true;
    if (auto from = operand.getDefiningOp<mlir::tensor::FromElementsOp>()) {
      if (llvm::cast<mlir::RankedTensorType>(operand.getType()).getElementType().isInteger(1)) {
        continue;
      }
      return {};
    }
    auto cast = operand.getDefiningOp<mlir::arith::IndexCastOp>();
    if (!cast || !cast.getIn().getDefiningOp<mlir::tensor::FromElementsOp>()) return {};
  }
  if (!any_dynamic) return {};
  bool dynamic = false;
  llvm::SmallVector<llvm::SmallVector<mlir::Value>> elements;
  for (mlir::Value operand : operands) elements.push_back(*KnownScalars(b, loc, operand, &dynamic));
  llvm::SmallVector<mlir::Value> results;
  for (int64_t n = 0; n < count; ++n) {
    llvm::SmallVector<mlir::Value> scalars;
    for (const auto& operand_elements : elements) {
      scalars.push_back(operand_elements.size() == 1 ? operand_elements[0] : operand_elements[n]);
    }
    results.push_back(body(b, loc, scalars));
  }
  llvm::SmallVector<int64_t> shape;
  if (rank == 1) shape.push_back(count);
  if (result_type == onnx::TensorProto::BOOL) {
    return b.create<mlir::tensor::FromElementsOp>(
        loc, mlir::RankedTensorType::get(shape, b.getI1Type()), results);
  }
  llvm::SmallVector<mlir::Value> indices;
  for (mlir::Value result : results) {
    if (IsUnsigned(result_type)) {
      indices.push_back(b.create<mlir::arith::IndexCastUIOp>(loc, b.getIndexType(), result));
    } else {
      indices.push_back(b.create<mlir::arith::IndexCastOp>(loc, b.getIndexType(), result));
    }
  }
  mlir::Value from = b.create<mlir::tensor::FromElementsOp>(
      loc, mlir::RankedTensorType::get(shape, b.getIndexType()), indices);
  return b.create<mlir::arith::IndexCastOp>(
      loc, mlir::RankedTensorType::get(shape, ConvertElementType(node.context(), result_type)),
      from);
}

mlir::LogicalResult SetElementwiseOutput(NodeImporter& node, mlir::ValueRange operands,
                                         OnnxElementType result_type, const ScalarBody& body) {
  if (mlir::Value scalarized = ScalarizeShapeElementwise(node, operands, result_type, body)) {
    node.SetOutput(0, scalarized, result_type);
    return mlir::success();
  }
  mlir::FailureOr<mlir::Value> result =
      BuildElementwise(node, operands, ConvertElementType(node.context(), result_type), body);
  if (mlir::failed(result)) return mlir::failure();
  node.SetOutput(0, *result, result_type);
  return mlir::success();
}

mlir::Value ConstantLike(mlir::OpBuilder& b, mlir::Location loc, mlir::Value like, double value) {
  return ScalarConstant(b, loc, like.getType(), value);
}

}  // namespace kiln::onnx_import
