// Ops that compute tensors from positions: Range, Trilu, EyeLike, OneHot.
// Each is one linalg.generic reading linalg.index; Range folds where its
// scalars are known.
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/shape_builders.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

using mlir::OpFoldResult;
using Pred = mlir::arith::CmpIPredicate;

// The scalar of input `index` inside a kernel: a constant where known, else
// read there with tensor.extract (kernels take only index, f32 and narrow
// integers from the host, so i64/f64 scalars are read where they are used).
mlir::Value ScalarInKernel(NodeImporter& node, mlir::OpBuilder& b, mlir::Location loc,
                           int64_t index, int64_t element = 0) {
  if (mlir::DenseElementsAttr constant = node.InputConstant(index)) {
    auto values = constant.getValues<mlir::Attribute>();
    return b.create<mlir::arith::ConstantOp>(
        loc, llvm::cast<mlir::TypedAttr>(values[constant.isSplat() ? 0 : element]));
  }
  mlir::Value value = node.Input(index);
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  llvm::SmallVector<mlir::Value> at;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    at.push_back(
        b.create<mlir::arith::ConstantIndexOp>(loc, d == type.getRank() - 1 ? element : 0));
  }
  return b.create<mlir::tensor::ExtractOp>(loc, value, at);
}

mlir::LogicalResult ConvertRange(NodeImporter& node) {
  const OnnxElementType type = node.InputElementType(0);
  mlir::Type element_type = ConvertElementType(node.context(), type);
  if (!IsFloat(type) && !IsSignedInteger(type)) {
    return node.Fail("Range of " + OnnxElementTypeName(type) + " is not supported");
  }
  mlir::OpBuilder& b = node.builder();
  mlir::DenseElementsAttr start = node.InputConstant(0), limit = node.InputConstant(1),
                          delta = node.InputConstant(2);
  if (start && limit && delta) {
    // ONNX: max(ceil((limit - start) / delta), 0) elements start + i * delta.
    if (IsFloat(type)) {
      const double s = (*start.getValues<llvm::APFloat>().begin()).convertToDouble();
      const double l = (*limit.getValues<llvm::APFloat>().begin()).convertToDouble();
      const double d = (*delta.getValues<llvm::APFloat>().begin()).convertToDouble();
      if (d == 0) return node.Fail("delta is 0");
      const int64_t count = std::max<int64_t>(static_cast<int64_t>(std::ceil((l - s) / d)), 0);
      if (count <= kMaxFoldedElements) {
        llvm::SmallVector<mlir::Attribute> values;
        for (int64_t i = 0; i < count; ++i)
          values.push_back(b.getFloatAttr(element_type, s + i * d));
        node.SetConstantOutput(0,
                               mlir::DenseElementsAttr::get(
                                   mlir::RankedTensorType::get({count}, element_type), values),
                               type);
        return mlir::success();
      }
    } else {
      const int64_t s = (*start.getValues<llvm::APInt>().begin()).getSExtValue();
      const int64_t l = (*limit.getValues<llvm::APInt>().begin()).getSExtValue();
      const int64_t d = (*delta.getValues<llvm::APInt>().begin()).getSExtValue();
      if (d == 0) return node.Fail("delta is 0");
      IndexMath math(b, node.loc());
      const int64_t count = std::max<int64_t>(
          *mlir::getConstantIntValue(math.CeilDiv(math.Constant(l - s), math.Constant(d))), 0);
      if (count <= kMaxFoldedElements) {
        llvm::SmallVector<mlir::Attribute> values;
        for (int64_t i = 0; i < count; ++i)
          values.push_back(b.getIntegerAttr(element_type, s + i * d));
        node.SetConstantOutput(0,
                               mlir::DenseElementsAttr::get(
                                   mlir::RankedTensorType::get({count}, element_type), values),
                               type);
        return mlir::success();
      }
    }
  }
  // The element count, computed on the host where shape inference does not
  // know it.
  llvm::SmallVector<OpFoldResult> sizes = RefineSizes(node, 0, {OpFoldResult()});
  if (!sizes[0]) {
    mlir::Location loc = node.loc();
    mlir::Value s = ScalarOf(node, 0), l = ScalarOf(node, 1), d = ScalarOf(node, 2);
    mlir::Value count;
    if (IsFloat(type)) {
      mlir::Value span = b.create<mlir::arith::SubFOp>(loc, l, s);
      mlir::Value steps =
          b.create<mlir::math::CeilOp>(loc, b.create<mlir::arith::DivFOp>(loc, span, d));
      count = b.create<mlir::arith::FPToSIOp>(loc, b.getI64Type(), steps);
    } else {
      mlir::Value span = b.create<mlir::arith::SubIOp>(loc, l, s);
      count = b.create<mlir::arith::CeilDivSIOp>(loc, span, d);
    }
    mlir::Value as_index = b.create<mlir::arith::IndexCastOp>(loc, b.getIndexType(), count);
    IndexMath math(b, loc);
    sizes[0] = math.Max(as_index, math.Constant(0));
  }
  // start and delta are the kernel's operands (read whole, a scalar each):
  // a tensor.extract in the kernel would be merged with the host's by CSE.
  llvm::SmallVector<mlir::Value> operands;
  llvm::SmallVector<mlir::AffineMap> maps;
  for (int64_t input : {0, 2}) {
    if (node.InputConstant(input)) continue;
    mlir::Value value = node.Input(input);
    const int64_t rank = llvm::cast<mlir::RankedTensorType>(value.getType()).getRank();
    llvm::SmallVector<mlir::AffineExpr> zeros(rank, b.getAffineConstantExpr(0));
    operands.push_back(value);
    maps.push_back(mlir::AffineMap::get(1, 0, zeros, b.getContext()));
  }
  mlir::Value result = BuildIndexedGeneric(
      node, sizes, element_type, operands, maps,
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange loop,
          mlir::ValueRange scalars) -> mlir::Value {
        size_t next = 0;
        auto scalar = [&](int64_t input) {
          return node.InputConstant(input) ? ScalarInKernel(node, nested, loc, input)
                                           : scalars[next++];
        };
        mlir::Value s = scalar(0);
        mlir::Value d = scalar(2);
        if (IsFloat(type)) {
          mlir::Value i =
              nested.create<mlir::arith::IndexCastOp>(loc, nested.getI64Type(), loop[0]);
          mlir::Value f = nested.create<mlir::arith::SIToFPOp>(loc, element_type, i);
          mlir::Value step = nested.create<mlir::arith::MulFOp>(loc, f, d);
          return nested.create<mlir::arith::AddFOp>(loc, s, step);
        }
        mlir::Value i = nested.create<mlir::arith::IndexCastOp>(loc, element_type, loop[0]);
        mlir::Value step = nested.create<mlir::arith::MulIOp>(loc, i, d);
        return nested.create<mlir::arith::AddIOp>(loc, s, step);
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

mlir::LogicalResult ConvertTrilu(NodeImporter& node) {
  mlir::Value x = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  if (*rank < 2) return node.Fail("the input must have rank 2 or more");
  const bool upper = node.IntAttribute("upper", 1) != 0;
  const bool has_k = node.HasInput(1);
  auto type = llvm::cast<mlir::RankedTensorType>(x.getType());
  mlir::Type element_type = type.getElementType();
  mlir::OpBuilder& b = node.builder();
  llvm::SmallVector<OpFoldResult> sizes = RefineSizes(node, 0, TensorSizes(b, node.loc(), x));
  const int64_t row = *rank - 2, column = *rank - 1;
  mlir::Value result = BuildIndexedGeneric(
      node, sizes, element_type, {x}, {},
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange loop,
          mlir::ValueRange scalars) -> mlir::Value {
        // Kept: column - row >= k (upper) or <= k (lower), in i64.
        mlir::Value i =
            nested.create<mlir::arith::IndexCastOp>(loc, nested.getI64Type(), loop[row]);
        mlir::Value j =
            nested.create<mlir::arith::IndexCastOp>(loc, nested.getI64Type(), loop[column]);
        mlir::Value diagonal = nested.create<mlir::arith::SubIOp>(loc, j, i);
        mlir::Value k = has_k ? ScalarInKernel(node, nested, loc, 1)
                              : nested.create<mlir::arith::ConstantIntOp>(loc, 0, 64).getResult();
        mlir::Value kept =
            nested.create<mlir::arith::CmpIOp>(loc, upper ? Pred::sge : Pred::sle, diagonal, k);
        mlir::Value zero = ScalarConstant(nested, loc, element_type, 0);
        return nested.create<mlir::arith::SelectOp>(loc, kept, scalars[0], zero);
      });
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

mlir::LogicalResult ConvertEyeLike(NodeImporter& node) {
  mlir::Value x = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  if (*rank != 2) return node.Fail("the input must have rank 2");
  const OnnxElementType type = node.IntAttribute("dtype", node.InputElementType(0));
  mlir::Type element_type = ConvertElementType(node.context(), type);
  if (!element_type) return node.Fail("dtype " + OnnxElementTypeName(type) + " is not supported");
  const int64_t k = node.IntAttribute("k", 0);
  mlir::OpBuilder& b = node.builder();
  llvm::SmallVector<OpFoldResult> sizes = RefineSizes(node, 0, TensorSizes(b, node.loc(), x));
  mlir::Value result = BuildIndexedGeneric(
      node, sizes, element_type, {}, {},
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange loop,
          mlir::ValueRange) -> mlir::Value {
        mlir::Value shifted = nested.create<mlir::arith::AddIOp>(
            loc, loop[0], nested.create<mlir::arith::ConstantIndexOp>(loc, k));
        mlir::Value on = nested.create<mlir::arith::CmpIOp>(loc, Pred::eq, loop[1], shifted);
        if (element_type.isInteger(1)) return on;
        return nested.create<mlir::arith::SelectOp>(loc, on,
                                                    ScalarConstant(nested, loc, element_type, 1),
                                                    ScalarConstant(nested, loc, element_type, 0));
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

mlir::LogicalResult ConvertOneHot(NodeImporter& node) {
  mlir::Value indices = node.Input(0);
  mlir::FailureOr<int64_t> q = RankOf(node, indices);
  if (mlir::failed(q)) return mlir::failure();
  const int64_t output_rank = *q + 1;
  int64_t axis = node.IntAttribute("axis", -1);
  if (axis < -output_rank || axis >= output_rank) {
    return node.Fail("axis " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(output_rank));
  }
  if (axis < 0) axis += output_rank;
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  const OnnxElementType depth_type = node.InputElementType(1);
  const OnnxElementType indices_type = node.InputElementType(0);
  const OnnxElementType values_type = node.InputElementType(2);
  // The depth as an index (floats truncated toward zero, as ONNX Runtime).
  OpFoldResult depth;
  if (mlir::DenseElementsAttr constant = node.InputConstant(1)) {
    mlir::Attribute value = *constant.getValues<mlir::Attribute>().begin();
    if (auto f = llvm::dyn_cast<mlir::FloatAttr>(value)) {
      depth = b.getIndexAttr(static_cast<int64_t>(f.getValueAsDouble()));
    } else {
      depth = b.getIndexAttr(llvm::cast<mlir::IntegerAttr>(value).getValue().getSExtValue());
    }
  } else {
    mlir::Value scalar = ScalarOf(node, 1);
    if (IsFloat(depth_type)) {
      scalar = b.create<mlir::arith::FPToSIOp>(loc, b.getI64Type(), scalar);
    }
    depth = b.create<mlir::arith::IndexCastOp>(loc, b.getIndexType(), scalar).getResult();
  }
  llvm::SmallVector<OpFoldResult> index_sizes = TensorSizes(b, loc, indices);
  llvm::SmallVector<OpFoldResult> sizes(index_sizes.begin(), index_sizes.begin() + axis);
  sizes.push_back(depth);
  sizes.append(index_sizes.begin() + axis, index_sizes.end());
  sizes = RefineSizes(node, 0, sizes);
  IndexMath math(b, loc);
  mlir::Value depth_value = math.Value(depth);
  llvm::SmallVector<mlir::AffineExpr> exprs;
  for (int64_t d = 0; d < output_rank; ++d) {
    if (d != axis) exprs.push_back(b.getAffineDimExpr(d));
  }
  mlir::AffineMap map = mlir::AffineMap::get(output_rank, 0, exprs, b.getContext());
  mlir::Type element_type = ConvertElementType(node.context(), values_type);
  mlir::Value result = BuildIndexedGeneric(
      node, sizes, element_type, {indices}, {map},
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange loop,
          mlir::ValueRange scalars) -> mlir::Value {
        mlir::Value index = scalars[0];
        if (IsFloat(indices_type)) {
          index = nested.create<mlir::arith::FPToSIOp>(loc, nested.getI64Type(), index);
        }
        // Negative indices count from depth; others out of range match nothing.
        mlir::Value position =
            WrapIndex(nested, loc, index,
                      IsFloat(indices_type) ? onnx::TensorProto::INT64 : indices_type, depth_value);
        mlir::Value on = nested.create<mlir::arith::CmpIOp>(loc, Pred::eq, position, loop[axis]);
        mlir::Value off_value = ScalarInKernel(node, nested, loc, 2, 0);
        mlir::Value on_value = ScalarInKernel(node, nested, loc, 2, 1);
        return nested.create<mlir::arith::SelectOp>(loc, on, on_value, off_value);
      });
  node.SetOutput(0, result, values_type);
  return mlir::success();
}

}  // namespace

void RegisterGeneratorOps(OpRegistry& registry) {
  registry.Register("Range", ConvertRange, 11);
  registry.Register("Trilu", ConvertTrilu, 14);
  registry.Register("EyeLike", ConvertEyeLike, 9);
  registry.Register("OneHot", ConvertOneHot, 9);
}

}  // namespace kiln::onnx_import
