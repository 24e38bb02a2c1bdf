// Scans and selections along an axis: CumSum and TopK.
//
// linalg has no scan or sort, and kiln's kernels are linalg.generics, so
// both are written as reductions over a second copy of the axis (an extra
// loop k after the tensor's own): quadratic in the axis' length, which
// suits the lengths they see in models (a sequence, a vocabulary's top k of
// a few thousand) and keeps each one a single parallel kernel.
//
//   CumSum  y[.., i, ..] = sum over k of x[.., k, ..] where k <= i (k < i
//           exclusive; k >= i, k > i reversed)
//   TopK    rank[j] = the number of elements that come before x[j] in the
//           order (greater first for largest, ties to the lower index), then
//           out[r] = the x[j] (and j) whose rank is r, for r < K
#include <string>

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/elementwise_common.h"
#include "compiler/onnx/ops/reduction_ops.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"

namespace kiln::onnx_import {
namespace {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Value;
using mlir::ValueRange;
namespace arith = mlir::arith;

// The map of a rank-`rank` operand read at loop `rank` (the extra loop)
// along `axis` and at its own loops elsewhere.
mlir::AffineMap AlongExtraLoop(mlir::MLIRContext* context, int64_t rank, int64_t axis) {
  llvm::SmallVector<mlir::AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d) {
    exprs.push_back(mlir::getAffineDimExpr(d == axis ? rank : d, context));
  }
  return mlir::AffineMap::get(rank + 1, 0, exprs, context);
}

mlir::AffineMap OwnLoops(mlir::MLIRContext* context, int64_t rank) {
  llvm::SmallVector<mlir::AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d) exprs.push_back(mlir::getAffineDimExpr(d, context));
  return mlir::AffineMap::get(rank + 1, 0, exprs, context);
}

llvm::SmallVector<mlir::utils::IteratorType> ExtraLoopIterators(int64_t rank) {
  llvm::SmallVector<mlir::utils::IteratorType> iterators(rank, mlir::utils::IteratorType::parallel);
  iterators.push_back(mlir::utils::IteratorType::reduction);
  return iterators;
}

// An axis given as a 0-D (or one-element) tensor input, known at import
// time.
mlir::FailureOr<int64_t> AxisInput(NodeImporter& node, int64_t index, int64_t rank) {
  std::optional<std::vector<int64_t>> axis = node.InputInts(index);
  if (!axis) {
    return node.Fail(
        "an axis computed at run time is not supported (kiln needs it at import "
        "time: an initializer or a constant)");
  }
  if (axis->size() != 1) return node.Fail("the axis input must hold one value");
  return NormalizeAxis(node, (*axis)[0], rank);
}

// CumSum along an axis known only at run time (ONNX's node tests pass it
// as a graph input): y[o] = the sum of x[i] where i and o agree off the
// axis and compare along it (BuildSelectedSum).
mlir::LogicalResult ConvertRunTimeAxisCumSum(NodeImporter& node, int64_t rank,
                                             arith::CmpIPredicate predicate) {
  Value x = node.Input(0);
  Value axis_tensor = node.Input(1);
  auto axis_type = llvm::dyn_cast<mlir::RankedTensorType>(axis_tensor.getType());
  if (!axis_type || axis_type.getNumElements() != 1 || !axis_type.hasStaticShape()) {
    return node.Fail("the axis input must hold one value");
  }
  const OnnxElementType type = node.InputElementType(0);
  if (type == onnx::TensorProto::FLOAT16 || type == onnx::TensorProto::BFLOAT16) {
    return node.Fail("a run-time axis of a float16/bfloat16 CumSum is not supported");
  }
  OpBuilder& b = node.builder();
  const Location loc = node.loc();
  // The axis, normalized (a negative one counts from the end), as an index.
  llvm::SmallVector<Value> zeros(axis_type.getRank(), b.create<arith::ConstantIndexOp>(loc, 0));
  Value raw = b.create<mlir::tensor::ExtractOp>(loc, axis_tensor, zeros);
  Value axis = b.create<arith::IndexCastOp>(loc, b.getIndexType(), raw);
  Value rank_value = b.create<arith::ConstantIndexOp>(loc, rank);
  Value negative = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, axis,
                                           b.create<arith::ConstantIndexOp>(loc, 0));
  axis = b.create<arith::SelectOp>(loc, negative, b.create<arith::AddIOp>(loc, axis, rank_value),
                                   axis);
  llvm::SmallVector<Value> is_axis;
  for (int64_t d = 0; d < rank; ++d) {
    is_axis.push_back(b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, axis,
                                              b.create<arith::ConstantIndexOp>(loc, d)));
  }
  Value sums = BuildSelectedSum(
      b, loc, x, TensorSizes(b, loc, x), IsFloat(type),
      [&](OpBuilder& nb, Location l, ValueRange o, ValueRange i) -> Value {
        Value all;
        for (int64_t d = 0; d < rank; ++d) {
          Value along = nb.create<arith::CmpIOp>(l, predicate, i[d], o[d]);
          Value same = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, i[d], o[d]);
          Value ok = nb.create<arith::SelectOp>(l, is_axis[d], along, same);
          all = all ? nb.create<arith::AndIOp>(l, all, ok).getResult() : ok;
        }
        return all;
      });
  node.SetOutput(0, sums, type);
  return mlir::success();
}

mlir::LogicalResult ConvertCumSum(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 2)) ||
      mlir::failed(CheckInputType(node, 0, kNumericTypes))) {
    return mlir::failure();
  }
  Value x = node.Input(0);
  const OnnxElementType type = node.InputElementType(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  if (*rank == 0) return node.Fail("needs an input of rank 1 or more");
  const bool exclusive = node.IntAttribute("exclusive", 0) != 0;
  const bool reverse = node.IntAttribute("reverse", 0) != 0;
  using P = arith::CmpIPredicate;
  const P predicate = reverse ? (exclusive ? P::ugt : P::uge) : (exclusive ? P::ult : P::ule);
  if (!node.InputConstant(1)) return ConvertRunTimeAxisCumSum(node, *rank, predicate);
  mlir::FailureOr<int64_t> axis = AxisInput(node, 1, *rank);
  if (mlir::failed(axis)) return mlir::failure();

  OpBuilder& b = node.builder();
  mlir::MLIRContext* context = b.getContext();
  const Location loc = node.loc();
  const mlir::Type element_type = llvm::cast<mlir::RankedTensorType>(x.getType()).getElementType();
  const bool is_float = IsFloat(type);
  const mlir::Type accumulator_type = is_float ? AccumulatorFloatType(element_type) : element_type;
  Value init =
      FilledTensor(b, loc, TensorSizes(b, loc, x), ScalarConstant(b, loc, accumulator_type, 0));
  Value sums = b.create<mlir::linalg::GenericOp>(
                    loc, init.getType(), ValueRange{x}, ValueRange{init},
                    llvm::ArrayRef<mlir::AffineMap>{AlongExtraLoop(context, *rank, *axis),
                                                    OwnLoops(context, *rank)},
                    ExtraLoopIterators(*rank),
                    [&](OpBuilder& nb, Location l, ValueRange args) {
                      Value i = nb.create<mlir::linalg::IndexOp>(l, *axis);
                      Value k = nb.create<mlir::linalg::IndexOp>(l, *rank);
                      Value included = nb.create<arith::CmpIOp>(l, predicate, k, i);
                      Value element = args[0];
                      if (element.getType() != accumulator_type) {
                        element = nb.create<arith::ExtFOp>(l, accumulator_type, element);
                      }
                      Value zero = ScalarConstant(nb, l, accumulator_type, 0);
                      Value term = nb.create<arith::SelectOp>(l, included, element, zero);
                      Value sum = is_float ? nb.create<arith::AddFOp>(l, args[1], term).getResult()
                                           : nb.create<arith::AddIOp>(l, args[1], term).getResult();
                      nb.create<mlir::linalg::YieldOp>(l, sum);
                    })
                   .getResult(0);
  if (accumulator_type != element_type) {
    sums = ConvertTensor(node, sums, ElementTypeOf(accumulator_type), type);
  }
  node.SetOutput(0, sums, type);
  return mlir::success();
}

// Whether `a` comes before `b` in TopK's order of values: greater first
// (less first when !largest); NaN counts as greater than every number and
// equal to NaN, so the order is total and the ranks distinct.
Value Precedes(OpBuilder& b, Location loc, Value a, Value b_value, OnnxElementType type,
               bool largest) {
  Value x = largest ? a : b_value;
  Value y = largest ? b_value : a;
  if (IsFloat(type)) {
    Value x_nan = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, x, x);
    Value y_nan = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, y, y);
    Value greater = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x, y);
    Value y_number = b.create<arith::XOrIOp>(loc, y_nan, ScalarConstant(b, loc, b.getI1Type(), 1));
    // (For !largest NaN is the greatest, so it comes last.)
    return b.create<arith::OrIOp>(loc, greater, b.create<arith::AndIOp>(loc, x_nan, y_number));
  }
  return b.create<arith::CmpIOp>(
      loc, IsUnsigned(type) ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt, x, y);
}

Value SameValue(OpBuilder& b, Location loc, Value x, Value y, OnnxElementType type) {
  if (IsFloat(type)) {
    Value equal = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, x, y);
    Value x_nan = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, x, x);
    Value y_nan = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, y, y);
    return b.create<arith::OrIOp>(loc, equal, b.create<arith::AndIOp>(loc, x_nan, y_nan));
  }
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x, y);
}

mlir::LogicalResult ConvertTopK(NodeImporter& node) {
  if (!node.HasInput(0)) return node.Fail("needs an input");
  if (mlir::failed(CheckInputType(node, 0, kNumericTypes))) return mlir::failure();
  Value x = node.Input(0);
  const OnnxElementType type = node.InputElementType(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  if (*rank == 0) return node.Fail("needs an input of rank 1 or more");
  mlir::FailureOr<int64_t> axis = NormalizeAxis(node, node.IntAttribute("axis", -1), *rank);
  if (mlir::failed(axis)) return mlir::failure();
  const bool largest = node.IntAttribute("largest", 1) != 0;
  // sorted = 0 leaves the order to the implementation: sorted is one.

  OpBuilder& b = node.builder();
  mlir::MLIRContext* context = b.getContext();
  const Location loc = node.loc();
  auto x_type = llvm::cast<mlir::RankedTensorType>(x.getType());
  const mlir::Type element_type = x_type.getElementType();

  // K: the attribute before opset 10, then a one-element int64 input.
  mlir::OpFoldResult k;
  if (node.opset() < 10) {
    if (!node.HasAttribute("k")) return node.Fail("needs the attribute k");
    k = b.getIndexAttr(node.IntAttribute("k", 0));
  } else {
    if (!node.HasInput(1)) return node.Fail("needs the input K");
    if (std::optional<std::vector<int64_t>> values = node.InputInts(1)) {
      if (values->size() != 1) return node.Fail("K must hold one value");
      k = b.getIndexAttr((*values)[0]);
    } else {
      auto k_type = llvm::dyn_cast<mlir::RankedTensorType>(node.Input(1).getType());
      if (!k_type || k_type.getRank() > 1 || (k_type.getRank() == 1 && k_type.getDimSize(0) != 1)) {
        return node.Fail("K must be a tensor of one element");
      }
      llvm::SmallVector<Value> indices(k_type.getRank(), b.create<arith::ConstantIndexOp>(loc, 0));
      Value value = b.create<mlir::tensor::ExtractOp>(loc, node.Input(1), indices);
      k = b.create<arith::IndexCastOp>(loc, b.getIndexType(), value).getResult();
    }
  }
  if (std::optional<int64_t> static_k = mlir::getConstantIntValue(k)) {
    if (*static_k < 0) return node.Fail("K = " + std::to_string(*static_k) + " is negative");
    if (!x_type.isDynamicDim(*axis) && *static_k > x_type.getDimSize(*axis)) {
      return node.Fail("K = " + std::to_string(*static_k) + " is more than the axis' size " +
                       std::to_string(x_type.getDimSize(*axis)));
    }
  }

  // rank[.., j, ..]: how many elements along the axis come before x[j].
  Value rank_init =
      FilledTensor(b, loc, TensorSizes(b, loc, x), ScalarConstant(b, loc, b.getI64Type(), 0));
  Value ranks =
      b.create<mlir::linalg::GenericOp>(
           loc, rank_init.getType(), ValueRange{x, x}, ValueRange{rank_init},
           llvm::ArrayRef<mlir::AffineMap>{OwnLoops(context, *rank),
                                           AlongExtraLoop(context, *rank, *axis),
                                           OwnLoops(context, *rank)},
           ExtraLoopIterators(*rank),
           [&](OpBuilder& nb, Location l, ValueRange args) {
             Value j = nb.create<mlir::linalg::IndexOp>(l, *axis);
             Value m = nb.create<mlir::linalg::IndexOp>(l, *rank);
             Value earlier = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::ult, m, j);
             Value tie =
                 nb.create<arith::AndIOp>(l, SameValue(nb, l, args[1], args[0], type), earlier);
             Value before =
                 nb.create<arith::OrIOp>(l, Precedes(nb, l, args[1], args[0], type, largest), tie);
             Value one = nb.create<arith::ExtUIOp>(l, nb.getI64Type(), before);
             nb.create<mlir::linalg::YieldOp>(
                 l, ValueRange{nb.create<arith::AddIOp>(l, args[2], one)});
           })
          .getResult(0);

  // out[.., r, ..] = the x[.., j, ..] of rank r (exactly one: the ranks are
  // distinct), and j.
  llvm::SmallVector<mlir::OpFoldResult> out_sizes = TensorSizes(b, loc, x);
  out_sizes[*axis] = k;
  Value values_init = FilledTensor(b, loc, out_sizes, ScalarConstant(b, loc, element_type, 0));
  Value indices_init = FilledTensor(b, loc, out_sizes, ScalarConstant(b, loc, b.getI64Type(), 0));
  auto selection = b.create<mlir::linalg::GenericOp>(
      loc, mlir::TypeRange{values_init.getType(), indices_init.getType()}, ValueRange{x, ranks},
      ValueRange{values_init, indices_init},
      llvm::ArrayRef<mlir::AffineMap>{AlongExtraLoop(context, *rank, *axis),
                                      AlongExtraLoop(context, *rank, *axis),
                                      OwnLoops(context, *rank), OwnLoops(context, *rank)},
      ExtraLoopIterators(*rank), [&](OpBuilder& nb, Location l, ValueRange args) {
        Value r = nb.create<arith::IndexCastOp>(l, nb.getI64Type(),
                                                nb.create<mlir::linalg::IndexOp>(l, *axis));
        Value j = nb.create<arith::IndexCastOp>(l, nb.getI64Type(),
                                                nb.create<mlir::linalg::IndexOp>(l, *rank));
        Value hit = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, args[1], r);
        nb.create<mlir::linalg::YieldOp>(
            l, ValueRange{nb.create<arith::SelectOp>(l, hit, args[0], args[2]),
                          nb.create<arith::SelectOp>(l, hit, j, args[3])});
      });
  node.SetOutput(0, selection.getResult(0), type);
  node.SetOutput(1, selection.getResult(1), onnx::TensorProto::INT64);
  return mlir::success();
}

}  // namespace

void RegisterScanOps(OpRegistry& registry) {
  registry.Register("CumSum", ConvertCumSum);
  registry.Register("TopK", ConvertTopK);
}

}  // namespace kiln::onnx_import
