// Normalizations along axes: Softmax, LogSoftmax, Hardmax, LpNormalization.
//
// Before opset 13 Softmax, LogSoftmax and Hardmax see their input as a
// matrix: the dimensions before `axis` (default 1) are the rows, those from
// `axis` on one flattened row. Normalizing a flattened row is normalizing
// along all those dimensions at once, so the IR reduces along [axis, rank)
// without reshaping. From opset 13 they normalize along `axis` (default -1)
// alone.
//
// Softmax and LogSoftmax are three generics, as linalg.softmax decomposes
// (max, sum of exp(x - max), the normalization), written here directly so
// that LogSoftmax (x - max - log(sum)) and f16 (accumulated in f32) share
// them.
#include <string>

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/elementwise_common.h"
#include "compiler/onnx/ops/reduction_ops.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace kiln::onnx_import {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Value;
using mlir::ValueRange;
namespace arith = mlir::arith;

Value BuildSoftmax(OpBuilder& b, Location loc, const AxisReduction& reduction, Value input,
                   bool log) {
  const mlir::Type element_type =
      llvm::cast<mlir::RankedTensorType>(input.getType()).getElementType();
  const mlir::Type accumulator_type = AccumulatorFloatType(element_type);
  const OnnxElementType onnx_type = ElementTypeOf(element_type);
  Value max = BuildReduction(
      b, loc, reduction, input, {}, LowestScalar(b, loc, element_type, onnx_type),
      [&](OpBuilder& nb, Location l, ValueRange x, ValueRange, ValueRange acc) {
        return llvm::SmallVector<Value>{nb.create<arith::MaximumFOp>(l, x[0], acc[0])};
      })[0];
  auto shifted = [&](OpBuilder& nb, Location l, Value x, Value m) -> Value {
    return nb.create<arith::SubFOp>(l, ExtendFloat(nb, l, x, accumulator_type),
                                    ExtendFloat(nb, l, m, accumulator_type));
  };
  Value sum =
      BuildReduction(b, loc, reduction, input, max, ScalarConstant(b, loc, accumulator_type, 0),
                     [&](OpBuilder& nb, Location l, ValueRange x, ValueRange kept, ValueRange acc) {
                       Value e = nb.create<mlir::math::ExpOp>(l, shifted(nb, l, x[0], kept[0]));
                       return llvm::SmallVector<Value>{nb.create<arith::AddFOp>(l, acc[0], e)};
                     })[0];
  return BuildFullMap(
      b, loc, reduction, input, {max, sum}, element_type,
      [&](OpBuilder& nb, Location l, ValueRange x, ValueRange kept) -> Value {
        Value s = shifted(nb, l, x[0], kept[0]);
        Value r;
        if (log) {
          r = nb.create<arith::SubFOp>(l, s, nb.create<mlir::math::LogOp>(l, kept[1]));
        } else {
          r = nb.create<arith::DivFOp>(l, nb.create<mlir::math::ExpOp>(l, s), kept[1]);
        }
        return TruncateFloat(nb, l, r, element_type);
      });
}

namespace {

// The axes Softmax, LogSoftmax and Hardmax normalize along (see above).
mlir::FailureOr<AxisReduction> SoftmaxAxes(NodeImporter& node, Value input) {
  mlir::FailureOr<int64_t> rank = RankOf(node, input);
  if (mlir::failed(rank)) return mlir::failure();
  if (*rank == 0) return node.Fail("needs an input of rank 1 or more");
  const bool coerced = node.opset() < 13;
  const int64_t attribute = node.IntAttribute("axis", coerced ? 1 : -1);
  AxisReduction reduction;
  reduction.rank = *rank;
  if (!coerced) {
    mlir::FailureOr<int64_t> axis = NormalizeAxis(node, attribute, *rank);
    if (mlir::failed(axis)) return mlir::failure();
    reduction.axes = {*axis};
    return reduction;
  }
  // The 2-D view's row starts at `axis`, which may be `rank` (rows of one).
  if (attribute < -*rank || attribute > *rank) {
    return node.Fail("axis " + std::to_string(attribute) + " is out of range for rank " +
                     std::to_string(*rank));
  }
  const int64_t axis = attribute < 0 ? attribute + *rank : attribute;
  for (int64_t d = axis; d < *rank; ++d) reduction.axes.push_back(d);
  return reduction;
}

mlir::LogicalResult ConvertSoftmax(NodeImporter& node, bool log) {
  if (mlir::failed(CheckInputsPresent(node, 1)) ||
      mlir::failed(CheckInputType(node, 0, kFloatTypes))) {
    return mlir::failure();
  }
  Value input = node.Input(0);
  mlir::FailureOr<AxisReduction> reduction = SoftmaxAxes(node, input);
  if (mlir::failed(reduction)) return mlir::failure();
  if (reduction->axes.empty()) {
    // A row of one element (axis = rank before opset 13): 1, or 0 for log.
    mlir::FailureOr<Value> result = BuildElementwise(
        node, input, llvm::cast<mlir::RankedTensorType>(input.getType()).getElementType(),
        [&](OpBuilder& b, Location l, ValueRange x) -> Value {
          // x - x keeps NaN and makes inf NaN, as exp(x - max) does.
          Value zero = b.create<arith::SubFOp>(l, x[0], x[0]);
          return log ? zero : b.create<mlir::math::ExpOp>(l, zero).getResult();
        });
    if (mlir::failed(result)) return mlir::failure();
    node.SetOutput(0, *result, node.InputElementType(0));
    return mlir::success();
  }
  node.SetOutput(0, BuildSoftmax(node.builder(), node.loc(), *reduction, input, log),
                 node.InputElementType(0));
  return mlir::success();
}

// Hardmax: 1 at the first greatest element of each row, 0 elsewhere. Rows
// of several dimensions (before opset 13) are searched in their row-major
// order.
mlir::LogicalResult ConvertHardmax(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 1)) ||
      mlir::failed(CheckInputType(node, 0, kFloatTypes))) {
    return mlir::failure();
  }
  Value input = node.Input(0);
  const OnnxElementType type = node.InputElementType(0);
  mlir::FailureOr<AxisReduction> reduction = SoftmaxAxes(node, input);
  if (mlir::failed(reduction)) return mlir::failure();
  OpBuilder& b = node.builder();
  const Location loc = node.loc();
  const mlir::Type element_type =
      llvm::cast<mlir::RankedTensorType>(input.getType()).getElementType();
  // The sizes of the row's dimensions, for its row-major position.
  llvm::SmallVector<mlir::OpFoldResult> all_sizes = TensorSizes(b, loc, input);
  llvm::SmallVector<Value> sizes;
  for (int64_t d : reduction->axes) {
    sizes.push_back(mlir::getValueOrCreateConstantIndexOp(b, loc, all_sizes[d]));
  }
  auto row_position = [&](OpBuilder& nb, Location l) -> Value {
    Value position;
    for (size_t i = 0; i < reduction->axes.size(); ++i) {
      Value index = nb.create<mlir::linalg::IndexOp>(l, reduction->axes[i]);
      position = position ? nb.create<arith::AddIOp>(
                                  l, nb.create<arith::MulIOp>(l, position, sizes[i]), index)
                                .getResult()
                          : index;
    }
    if (!position) position = nb.create<arith::ConstantIndexOp>(l, 0);
    return nb.create<arith::IndexCastOp>(l, nb.getI64Type(), position);
  };
  Value winner = BuildReduction(
      b, loc, *reduction, input, {},
      {LowestScalar(b, loc, element_type, type), ScalarConstant(b, loc, b.getI64Type(), 0)},
      [&](OpBuilder& nb, Location l, ValueRange x, ValueRange, ValueRange acc) {
        Value win = nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, x[0], acc[0]);
        return llvm::SmallVector<Value>{
            nb.create<arith::SelectOp>(l, win, x[0], acc[0]),
            nb.create<arith::SelectOp>(l, win, row_position(nb, l), acc[1])};
      })[1];
  Value result = BuildFullMap(
      b, loc, *reduction, input, winner, element_type,
      [&](OpBuilder& nb, Location l, ValueRange, ValueRange kept) -> Value {
        Value is_winner =
            nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, row_position(nb, l), kept[0]);
        return nb.create<arith::SelectOp>(l, is_winner, ScalarConstant(nb, l, element_type, 1),
                                          ScalarConstant(nb, l, element_type, 0));
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

// LpNormalization: x / ||x||_p along `axis` (default -1), p = 1 or 2. A zero
// norm gives 0 (ONNX Runtime's choice; the 0/0 of the plain formula is NaN).
mlir::LogicalResult ConvertLpNormalization(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 1)) ||
      mlir::failed(CheckInputType(node, 0, kFloatTypes))) {
    return mlir::failure();
  }
  const int64_t p = node.IntAttribute("p", 2);
  if (p != 1 && p != 2) return node.Fail("p = " + std::to_string(p) + " (ONNX allows 1 and 2)");
  Value input = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, input);
  if (mlir::failed(rank)) return mlir::failure();
  if (*rank == 0) return node.Fail("needs an input of rank 1 or more");
  mlir::FailureOr<int64_t> axis = NormalizeAxis(node, node.IntAttribute("axis", -1), *rank);
  if (mlir::failed(axis)) return mlir::failure();
  AxisReduction reduction;
  reduction.rank = *rank;
  reduction.axes = {*axis};
  OpBuilder& b = node.builder();
  const Location loc = node.loc();
  const mlir::Type element_type =
      llvm::cast<mlir::RankedTensorType>(input.getType()).getElementType();
  const mlir::Type accumulator_type = AccumulatorFloatType(element_type);
  Value sum =
      BuildReduction(b, loc, reduction, input, {}, ScalarConstant(b, loc, accumulator_type, 0),
                     [&](OpBuilder& nb, Location l, ValueRange x, ValueRange, ValueRange acc) {
                       Value v = ExtendFloat(nb, l, x[0], accumulator_type);
                       Value term = p == 1 ? nb.create<mlir::math::AbsFOp>(l, v).getResult()
                                           : nb.create<arith::MulFOp>(l, v, v).getResult();
                       return llvm::SmallVector<Value>{nb.create<arith::AddFOp>(l, acc[0], term)};
                     })[0];
  Value result = BuildFullMap(
      b, loc, reduction, input, sum, element_type,
      [&](OpBuilder& nb, Location l, ValueRange x, ValueRange kept) -> Value {
        Value norm = p == 1 ? kept[0] : nb.create<mlir::math::SqrtOp>(l, kept[0]).getResult();
        Value zero = ScalarConstant(nb, l, accumulator_type, 0);
        Value is_zero = nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OEQ, norm, zero);
        Value quotient =
            nb.create<arith::DivFOp>(l, ExtendFloat(nb, l, x[0], accumulator_type), norm);
        return TruncateFloat(nb, l, nb.create<arith::SelectOp>(l, is_zero, zero, quotient),
                             element_type);
      });
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

}  // namespace

void RegisterSoftmaxOps(OpRegistry& registry) {
  registry.Register("Softmax", [](NodeImporter& node) { return ConvertSoftmax(node, false); });
  registry.Register("LogSoftmax", [](NodeImporter& node) { return ConvertSoftmax(node, true); });
  registry.Register("Hardmax", ConvertHardmax);
  registry.Register("LpNormalization", ConvertLpNormalization);
}

}  // namespace kiln::onnx_import
