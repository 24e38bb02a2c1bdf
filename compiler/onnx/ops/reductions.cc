// Reductions: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare
// and ArgMax/ArgMin; the reduction IR the softmax, loss and scan families
// share (reduction_ops.h). Registers those families too.
//
// A reduction over no elements (a size-0 axis) gives the identity of its
// combining op, as ONNX's reference does: 0 for sums, 1 for products, -inf
// (the lowest integer) for max, +inf (the highest) for min, -inf for the
// logarithms of sums, NaN for a float mean.
#include <algorithm>
#include <limits>
#include <optional>
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
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"

namespace kiln::onnx_import {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Value;
using mlir::ValueRange;
namespace arith = mlir::arith;

// ---------------------------------------------------------------------------
// The shared reduction IR.

bool AxisReduction::IsReduced(int64_t dim) const { return llvm::is_contained(axes, dim); }

mlir::AffineMap AxisReduction::FullMap(mlir::MLIRContext* context) const {
  return mlir::AffineMap::getMultiDimIdentityMap(rank, context);
}

mlir::AffineMap AxisReduction::KeptMap(mlir::MLIRContext* context) const {
  llvm::SmallVector<mlir::AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d) {
    if (!IsReduced(d)) exprs.push_back(mlir::getAffineDimExpr(d, context));
  }
  return mlir::AffineMap::get(rank, 0, exprs, context);
}

llvm::SmallVector<mlir::OpFoldResult> AxisReduction::KeptSizes(OpBuilder& b, Location loc,
                                                               Value value) const {
  llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(b, loc, value);
  llvm::SmallVector<mlir::OpFoldResult> kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (!IsReduced(d)) kept.push_back(sizes[d]);
  }
  return kept;
}

Value AxisReduction::ReducedCount(OpBuilder& b, Location loc, Value value) const {
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  int64_t static_count = 1;
  Value count;
  for (int64_t d : axes) {
    if (type.isDynamicDim(d)) {
      Value size = b.create<mlir::tensor::DimOp>(loc, value, d);
      count = count ? b.create<arith::MulIOp>(loc, count, size).getResult() : size;
    } else {
      static_count *= type.getDimSize(d);
    }
  }
  Value constant = b.create<arith::ConstantIndexOp>(loc, static_count);
  if (!count) return constant;
  return static_count == 1 ? count : b.create<arith::MulIOp>(loc, count, constant).getResult();
}

llvm::SmallVector<Value> BuildReduction(OpBuilder& b, Location loc, const AxisReduction& reduction,
                                        ValueRange full, ValueRange kept, ValueRange inits,
                                        const ReductionBody& body) {
  mlir::MLIRContext* context = b.getContext();
  llvm::SmallVector<mlir::OpFoldResult> sizes = reduction.KeptSizes(b, loc, full[0]);
  llvm::SmallVector<Value> outputs;
  for (Value init : inits) outputs.push_back(FilledTensor(b, loc, sizes, init));
  llvm::SmallVector<mlir::AffineMap> maps;
  for (size_t i = 0; i < full.size(); ++i) maps.push_back(reduction.FullMap(context));
  for (size_t i = 0; i < kept.size() + outputs.size(); ++i) {
    maps.push_back(reduction.KeptMap(context));
  }
  llvm::SmallVector<mlir::utils::IteratorType> iterators;
  for (int64_t d = 0; d < reduction.rank; ++d) {
    iterators.push_back(reduction.IsReduced(d) ? mlir::utils::IteratorType::reduction
                                               : mlir::utils::IteratorType::parallel);
  }
  llvm::SmallVector<Value> inputs(full.begin(), full.end());
  inputs.append(kept.begin(), kept.end());
  const size_t full_count = full.size(), kept_count = kept.size();
  auto generic = b.create<mlir::linalg::GenericOp>(
      loc, ValueRange(outputs).getTypes(), inputs, outputs, maps, iterators,
      [&](OpBuilder& nested, Location nested_loc, ValueRange args) {
        llvm::SmallVector<Value> results =
            body(nested, nested_loc, args.take_front(full_count),
                 args.slice(full_count, kept_count), args.drop_front(full_count + kept_count));
        nested.create<mlir::linalg::YieldOp>(nested_loc, results);
      });
  return llvm::SmallVector<Value>(generic.getResults());
}

Value BuildFullMap(OpBuilder& b, Location loc, const AxisReduction& reduction, ValueRange full,
                   ValueRange kept, mlir::Type result_type, const FullMapBody& body) {
  mlir::MLIRContext* context = b.getContext();
  Value init = EmptyTensor(b, loc, TensorSizes(b, loc, full[0]), result_type);
  llvm::SmallVector<mlir::AffineMap> maps;
  for (size_t i = 0; i < full.size(); ++i) maps.push_back(reduction.FullMap(context));
  for (size_t i = 0; i < kept.size(); ++i) maps.push_back(reduction.KeptMap(context));
  maps.push_back(reduction.FullMap(context));
  llvm::SmallVector<mlir::utils::IteratorType> iterators(reduction.rank,
                                                         mlir::utils::IteratorType::parallel);
  llvm::SmallVector<Value> inputs(full.begin(), full.end());
  inputs.append(kept.begin(), kept.end());
  const size_t full_count = full.size(), kept_count = kept.size();
  auto generic = b.create<mlir::linalg::GenericOp>(
      loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder& nested, Location nested_loc, ValueRange args) {
        Value result = body(nested, nested_loc, args.take_front(full_count),
                            args.slice(full_count, kept_count));
        nested.create<mlir::linalg::YieldOp>(nested_loc, result);
      });
  return generic.getResult(0);
}

Value KeepReducedDims(OpBuilder& b, Location loc, const AxisReduction& reduction, Value value) {
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  llvm::SmallVector<mlir::OpFoldResult> kept_sizes = TensorSizes(b, loc, value);
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<mlir::OpFoldResult> sizes;
  llvm::SmallVector<mlir::ReassociationIndices> groups;
  // Each kept dimension starts a group; reduced ones join the group before
  // them (those before the first kept one join the first group).
  int64_t kept = 0, leading = 0;
  for (int64_t d = 0; d < reduction.rank; ++d) {
    if (reduction.IsReduced(d)) {
      shape.push_back(1);
      sizes.push_back(b.getIndexAttr(1));
      if (groups.empty()) {
        ++leading;
      } else {
        groups.back().push_back(d);
      }
      continue;
    }
    shape.push_back(type.getDimSize(kept));
    sizes.push_back(kept_sizes[kept]);
    ++kept;
    mlir::ReassociationIndices group;
    if (groups.empty()) {
      for (int64_t l = 0; l < leading; ++l) group.push_back(l);
    }
    group.push_back(d);
    groups.push_back(group);
  }
  auto result_type = mlir::RankedTensorType::get(shape, type.getElementType());
  if (groups.empty()) {
    return b.create<mlir::tensor::ExpandShapeOp>(loc, result_type, value, groups);
  }
  return b.create<mlir::tensor::ExpandShapeOp>(loc, result_type, value, groups, sizes);
}

mlir::Type AccumulatorFloatType(mlir::Type type) {
  if (type.isF16() || type.isBF16()) return mlir::Float32Type::get(type.getContext());
  return type;
}

Value MaxScalar(OpBuilder& b, Location loc, Value x, Value y, OnnxElementType type) {
  if (IsFloat(type)) return b.create<arith::MaximumFOp>(loc, x, y);
  if (IsUnsigned(type)) return b.create<arith::MaxUIOp>(loc, x, y);
  return b.create<arith::MaxSIOp>(loc, x, y);
}

Value MinScalar(OpBuilder& b, Location loc, Value x, Value y, OnnxElementType type) {
  if (IsFloat(type)) return b.create<arith::MinimumFOp>(loc, x, y);
  if (IsUnsigned(type)) return b.create<arith::MinUIOp>(loc, x, y);
  return b.create<arith::MinSIOp>(loc, x, y);
}

Value BuildSelectedSum(OpBuilder& b, Location loc, Value input,
                       llvm::ArrayRef<mlir::OpFoldResult> out_sizes, bool is_float,
                       const PairSelector& selected) {
  mlir::MLIRContext* context = b.getContext();
  auto type = llvm::cast<mlir::RankedTensorType>(input.getType());
  const int64_t out_rank = out_sizes.size(), in_rank = type.getRank();
  const int64_t loops = out_rank + in_rank;
  Value init = FilledTensor(b, loc, out_sizes, ScalarConstant(b, loc, type.getElementType(), 0));
  llvm::SmallVector<mlir::AffineExpr> in_exprs, out_exprs;
  for (int64_t d = 0; d < out_rank; ++d) out_exprs.push_back(mlir::getAffineDimExpr(d, context));
  for (int64_t d = 0; d < in_rank; ++d) {
    in_exprs.push_back(mlir::getAffineDimExpr(out_rank + d, context));
  }
  llvm::SmallVector<mlir::utils::IteratorType> iterators(out_rank,
                                                         mlir::utils::IteratorType::parallel);
  iterators.append(in_rank, mlir::utils::IteratorType::reduction);
  auto generic = b.create<mlir::linalg::GenericOp>(
      loc, init.getType(), ValueRange{input}, ValueRange{init},
      llvm::ArrayRef<mlir::AffineMap>{mlir::AffineMap::get(loops, 0, in_exprs, context),
                                      mlir::AffineMap::get(loops, 0, out_exprs, context)},
      iterators, [&](OpBuilder& nb, Location l, ValueRange args) {
        llvm::SmallVector<Value> indices;
        for (int64_t d = 0; d < loops; ++d) {
          indices.push_back(nb.create<mlir::linalg::IndexOp>(l, d));
        }
        Value use = selected(nb, l, ValueRange(indices).take_front(out_rank),
                             ValueRange(indices).drop_front(out_rank));
        Value zero = ScalarConstant(nb, l, args[0].getType(), 0);
        Value term = nb.create<arith::SelectOp>(l, use, args[0], zero);
        Value sum = is_float ? nb.create<arith::AddFOp>(l, args[1], term).getResult()
                             : nb.create<arith::AddIOp>(l, args[1], term).getResult();
        nb.create<mlir::linalg::YieldOp>(l, sum);
      });
  return generic.getResult(0);
}

namespace {

Value ExtremeScalar(OpBuilder& b, Location loc, mlir::Type type, OnnxElementType onnx_type,
                    bool highest) {
  if (auto float_type = llvm::dyn_cast<mlir::FloatType>(type)) {
    return b.create<arith::ConstantOp>(
        loc, b.getFloatAttr(float_type, highest ? std::numeric_limits<double>::infinity()
                                                : -std::numeric_limits<double>::infinity()));
  }
  const unsigned width = type.getIntOrFloatBitWidth();
  llvm::APInt value = IsUnsigned(onnx_type)
                          ? (highest ? llvm::APInt::getMaxValue(width) : llvm::APInt(width, 0))
                          : (highest ? llvm::APInt::getSignedMaxValue(width)
                                     : llvm::APInt::getSignedMinValue(width));
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, value));
}

}  // namespace

Value LowestScalar(OpBuilder& b, Location loc, mlir::Type type, OnnxElementType onnx_type) {
  return ExtremeScalar(b, loc, type, onnx_type, /*highest=*/false);
}

Value HighestScalar(OpBuilder& b, Location loc, mlir::Type type, OnnxElementType onnx_type) {
  return ExtremeScalar(b, loc, type, onnx_type, /*highest=*/true);
}

namespace {

// ---------------------------------------------------------------------------
// Reduce*.

enum class Reduce { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// The axes a Reduce* node reduces along (normalized, sorted, unique), empty
// when it names none. From opset 13 (ReduceSum) and 18 (the others) they are
// the optional second input, which kiln needs to know at import time.
mlir::FailureOr<llvm::SmallVector<int64_t>> ReduceAxes(NodeImporter& node, int64_t rank) {
  std::vector<int64_t> axes;
  auto axes_type = node.HasInput(1)
                       ? llvm::dyn_cast<mlir::RankedTensorType>(node.Input(1).getType())
                       : mlir::RankedTensorType();
  if (axes_type && axes_type.hasStaticShape() && axes_type.getNumElements() == 0) {
    // An empty axes tensor (even one given at run time) names no axis.
  } else if (node.HasInput(1)) {
    std::optional<std::vector<int64_t>> values = node.InputInts(1);
    if (!values) {
      return node.Fail(
          "axes computed at run time are not supported (kiln needs them at import "
          "time: an initializer or a constant)");
    }
    axes = *values;
  } else {
    axes = node.IntsAttribute("axes");
  }
  llvm::SmallVector<int64_t> normalized;
  for (int64_t axis : axes) {
    mlir::FailureOr<int64_t> a = NormalizeAxis(node, axis, rank);
    if (mlir::failed(a)) return mlir::failure();
    normalized.push_back(*a);
  }
  llvm::sort(normalized);
  normalized.erase(std::unique(normalized.begin(), normalized.end()), normalized.end());
  return normalized;
}

// Converts integer accumulator `x` (of ONNX type `type`) to f64, applies
// `compute` and converts back: ReduceL2 and ReduceLogSum of integers, which
// ONNX Runtime computes in floating point and truncates.
Value ThroughF64(OpBuilder& b, Location loc, Value x, OnnxElementType type,
                 const std::function<Value(Value)>& compute) {
  Value wide = ConvertScalar(b, loc, x, type, onnx::TensorProto::DOUBLE);
  return ConvertScalar(b, loc, compute(wide), onnx::TensorProto::DOUBLE, type);
}

// ReduceSum with axes given at run time (ONNX's node tests pass them as a
// graph input); their count is static. Which dimensions are reduced is a
// run-time flag per dimension; the result's sizes and which input
// dimension each result dimension is follow from the flags
// (BuildSelectedSum).
mlir::LogicalResult ConvertRunTimeAxesSum(NodeImporter& node, int64_t rank) {
  Value input = node.Input(0);
  const OnnxElementType type = node.InputElementType(0);
  auto axes_type = llvm::dyn_cast<mlir::RankedTensorType>(node.Input(1).getType());
  if (!axes_type || axes_type.getRank() != 1 || axes_type.isDynamicDim(0)) {
    return node.Fail("axes given at run time need a static count");
  }
  if (type == onnx::TensorProto::FLOAT16 || type == onnx::TensorProto::BFLOAT16) {
    return node.Fail("run-time axes of a float16/bfloat16 reduction are not supported");
  }
  const int64_t count = axes_type.getDimSize(0);
  const bool keepdims = node.IntAttribute("keepdims", 1) != 0;
  if (count > rank) return node.Fail("more axes than the input's rank");
  OpBuilder& b = node.builder();
  const Location loc = node.loc();
  auto index = [&](int64_t v) -> Value { return b.create<arith::ConstantIndexOp>(loc, v); };
  Value rank_value = index(rank);
  llvm::SmallVector<Value> axes;
  for (int64_t j = 0; j < count; ++j) {
    Value raw = b.create<mlir::tensor::ExtractOp>(loc, node.Input(1), ValueRange{index(j)});
    Value axis = b.create<arith::IndexCastOp>(loc, b.getIndexType(), raw);
    Value negative = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, axis, index(0));
    axes.push_back(b.create<arith::SelectOp>(loc, negative,
                                             b.create<arith::AddIOp>(loc, axis, rank_value), axis));
  }
  // reduced[d], and kept_position[d]: d's dimension in the result without
  // keepdims (the number of kept dimensions before it).
  llvm::SmallVector<Value> reduced, kept_position;
  Value kept_before = index(0);
  for (int64_t d = 0; d < rank; ++d) {
    Value is_reduced = b.create<arith::ConstantIntOp>(loc, 0, 1);
    for (Value axis : axes) {
      is_reduced = b.create<arith::OrIOp>(
          loc, is_reduced, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, axis, index(d)));
    }
    reduced.push_back(is_reduced);
    kept_position.push_back(kept_before);
    kept_before = b.create<arith::AddIOp>(
        loc, kept_before, b.create<arith::SelectOp>(loc, is_reduced, index(0), index(1)));
  }
  llvm::SmallVector<mlir::OpFoldResult> in_sizes = TensorSizes(b, loc, input);
  llvm::SmallVector<mlir::OpFoldResult> out_sizes;
  const int64_t out_rank = keepdims ? rank : rank - count;
  for (int64_t j = 0; j < out_rank; ++j) {
    if (keepdims) {
      out_sizes.push_back(
          b.create<arith::SelectOp>(loc, reduced[j], index(1),
                                    mlir::getValueOrCreateConstantIndexOp(b, loc, in_sizes[j]))
              .getResult());
      continue;
    }
    Value size = index(1);
    for (int64_t d = 0; d < rank; ++d) {
      Value here = b.create<arith::AndIOp>(
          loc, b.create<arith::XOrIOp>(loc, reduced[d], b.create<arith::ConstantIntOp>(loc, 1, 1)),
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, kept_position[d], index(j)));
      size = b.create<arith::SelectOp>(
          loc, here, mlir::getValueOrCreateConstantIndexOp(b, loc, in_sizes[d]), size);
    }
    out_sizes.push_back(size);
  }
  Value result = BuildSelectedSum(
      b, loc, input, out_sizes, IsFloat(type),
      [&](OpBuilder& nb, Location l, ValueRange o, ValueRange i) -> Value {
        Value all;
        for (int64_t d = 0; d < rank; ++d) {
          Value o_d;
          if (keepdims) {
            o_d = o[d];
          } else {
            // The result index at d's kept position.
            o_d = nb.create<arith::ConstantIndexOp>(l, 0);
            for (int64_t j = 0; j < out_rank; ++j) {
              Value at = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, kept_position[d],
                                                  nb.create<arith::ConstantIndexOp>(l, j));
              o_d = nb.create<arith::SelectOp>(l, at, o[j], o_d);
            }
          }
          Value same = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, i[d], o_d);
          Value ok = nb.create<arith::OrIOp>(l, reduced[d], same);
          all = all ? nb.create<arith::AndIOp>(l, all, ok).getResult() : ok;
        }
        return all ? all : nb.create<arith::ConstantIntOp>(l, 1, 1).getResult();
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

mlir::LogicalResult ConvertReduce(NodeImporter& node, Reduce kind) {
  if (mlir::failed(CheckInputsPresent(node, 1)) ||
      mlir::failed(CheckInputType(node, 0, kNumericTypes))) {
    return mlir::failure();
  }
  Value input = node.Input(0);
  const OnnxElementType type = node.InputElementType(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, input);
  if (mlir::failed(rank)) return mlir::failure();
  if (kind == Reduce::kSum && node.HasInput(1) && !node.InputConstant(1)) {
    auto axes_type = llvm::dyn_cast<mlir::RankedTensorType>(node.Input(1).getType());
    if (!axes_type || !axes_type.hasStaticShape() || axes_type.getNumElements() != 0) {
      return ConvertRunTimeAxesSum(node, *rank);
    }
  }
  mlir::FailureOr<llvm::SmallVector<int64_t>> axes = ReduceAxes(node, *rank);
  if (mlir::failed(axes)) return mlir::failure();
  if (axes->empty() && node.IntAttribute("noop_with_empty_axes", 0) != 0) {
    // No axes with noop_with_empty_axes: the input unchanged.
    if (const ImportedValue* info = node.InputInfo(0); info->constant) {
      node.SetConstantOutput(0, info->constant, type);
    } else {
      node.SetOutput(0, input, type);
    }
    return mlir::success();
  }
  AxisReduction reduction;
  reduction.rank = *rank;
  if (axes->empty()) {
    for (int64_t d = 0; d < *rank; ++d) reduction.axes.push_back(d);
  } else {
    reduction.axes = *axes;
  }

  OpBuilder& b = node.builder();
  const Location loc = node.loc();
  const mlir::Type element_type =
      llvm::cast<mlir::RankedTensorType>(input.getType()).getElementType();
  const bool is_float = IsFloat(type);
  const bool is_unsigned = IsUnsigned(type);
  const bool keeps_type = kind == Reduce::kMax || kind == Reduce::kMin;
  const mlir::Type accumulator_type =
      is_float && !keeps_type ? AccumulatorFloatType(element_type) : element_type;
  auto add = [&](OpBuilder& nb, Location l, Value x, Value y) -> Value {
    if (is_float) return nb.create<arith::AddFOp>(l, x, y);
    return nb.create<arith::AddIOp>(l, x, y);
  };
  auto mul = [&](OpBuilder& nb, Location l, Value x, Value y) -> Value {
    if (is_float) return nb.create<arith::MulFOp>(l, x, y);
    return nb.create<arith::MulIOp>(l, x, y);
  };

  Value result;
  if (kind == Reduce::kLogSumExp) {
    // log(sum(exp(x - m))) + m with m the maximum, in floating point (f64
    // for integers); m = 0 where it is infinite (a row of -inf would give
    // -inf - -inf = NaN; +inf gives +inf either way).
    const mlir::Type float_type = is_float ? accumulator_type : b.getF64Type();
    Value max =
        BuildReduction(b, loc, reduction, input, {}, LowestScalar(b, loc, element_type, type),
                       [&](OpBuilder& nb, Location l, ValueRange x, ValueRange, ValueRange acc) {
                         return llvm::SmallVector<Value>{MaxScalar(nb, l, x[0], acc[0], type)};
                       })[0];
    auto to_float = [&](OpBuilder& nb, Location l, Value x) -> Value {
      if (is_float) return ExtendFloat(nb, l, x, float_type);
      return ConvertScalar(nb, l, x, type, onnx::TensorProto::DOUBLE);
    };
    auto shift_of = [&](OpBuilder& nb, Location l, Value m) -> Value {
      Value wide = to_float(nb, l, m);
      if (!is_float) return wide;
      // |m| == inf (math.isinf has no CPU lowering for f64).
      Value infinite = nb.create<arith::CmpFOp>(
          l, arith::CmpFPredicate::OEQ, nb.create<mlir::math::AbsFOp>(l, wide),
          ScalarConstant(nb, l, float_type, std::numeric_limits<double>::infinity()));
      return nb.create<arith::SelectOp>(l, infinite, ScalarConstant(nb, l, float_type, 0), wide);
    };
    Value sum = BuildReduction(
        b, loc, reduction, input, max, ScalarConstant(b, loc, float_type, 0),
        [&](OpBuilder& nb, Location l, ValueRange x, ValueRange kept, ValueRange acc) {
          Value shifted =
              nb.create<arith::SubFOp>(l, to_float(nb, l, x[0]), shift_of(nb, l, kept[0]));
          Value e = nb.create<mlir::math::ExpOp>(l, shifted);
          return llvm::SmallVector<Value>{nb.create<arith::AddFOp>(l, acc[0], e)};
        })[0];
    mlir::FailureOr<Value> combined = BuildElementwise(
        node, {sum, max}, element_type, [&](OpBuilder& nb, Location l, ValueRange v) -> Value {
          Value r = nb.create<arith::AddFOp>(l, nb.create<mlir::math::LogOp>(l, v[0]),
                                             shift_of(nb, l, v[1]));
          if (is_float) return TruncateFloat(nb, l, r, element_type);
          return ConvertScalar(nb, l, r, onnx::TensorProto::DOUBLE, type);
        });
    if (mlir::failed(combined)) return mlir::failure();
    result = *combined;
  } else {
    double init_value = 0;
    if (kind == Reduce::kProd) init_value = 1;
    Value init;
    if (kind == Reduce::kMax) {
      init = LowestScalar(b, loc, element_type, type);
    } else if (kind == Reduce::kMin) {
      init = HighestScalar(b, loc, element_type, type);
    } else {
      init = ScalarConstant(b, loc, accumulator_type, init_value);
    }
    Value accumulated = BuildReduction(
        b, loc, reduction, input, {}, init,
        [&](OpBuilder& nb, Location l, ValueRange elements, ValueRange, ValueRange acc) {
          Value x = is_float ? ExtendFloat(nb, l, elements[0], accumulator_type) : elements[0];
          Value r;
          switch (kind) {
            case Reduce::kSum:
            case Reduce::kMean:
            case Reduce::kLogSum:
              r = add(nb, l, acc[0], x);
              break;
            case Reduce::kProd:
              r = mul(nb, l, acc[0], x);
              break;
            case Reduce::kMax:
              r = MaxScalar(nb, l, x, acc[0], type);
              break;
            case Reduce::kMin:
              r = MinScalar(nb, l, x, acc[0], type);
              break;
            case Reduce::kL1: {
              Value magnitude = x;
              if (is_float) {
                magnitude = nb.create<mlir::math::AbsFOp>(l, x);
              } else if (!is_unsigned) {
                magnitude = nb.create<mlir::math::AbsIOp>(l, x);
              }
              r = add(nb, l, acc[0], magnitude);
              break;
            }
            case Reduce::kL2:
            case Reduce::kSumSquare:
              r = add(nb, l, acc[0], mul(nb, l, x, x));
              break;
            case Reduce::kLogSumExp:
              break;
          }
          return llvm::SmallVector<Value>{r};
        })[0];
    Value count;
    if (kind == Reduce::kMean) {
      count = reduction.ReducedCount(b, loc, input);
      if (is_float) {
        Value count_i64 = b.create<arith::IndexCastOp>(loc, b.getI64Type(), count);
        count = b.create<arith::SIToFPOp>(loc, accumulator_type, count_i64);
      } else {
        // An empty integer mean divides by 1 (0, not a trap).
        Value one = b.create<arith::ConstantIndexOp>(loc, 1);
        count = b.create<arith::MaxUIOp>(loc, count, one);
        count = b.create<arith::IndexCastOp>(loc, element_type, count);
      }
    }
    const bool needs_finish = accumulator_type != element_type || kind == Reduce::kMean ||
                              kind == Reduce::kL2 || kind == Reduce::kLogSum;
    if (needs_finish) {
      mlir::FailureOr<Value> finished = BuildElementwise(
          node, accumulated, element_type, [&](OpBuilder& nb, Location l, ValueRange v) -> Value {
            Value x = v[0];
            switch (kind) {
              case Reduce::kMean:
                if (is_float) {
                  x = nb.create<arith::DivFOp>(l, x, count);
                } else if (is_unsigned) {
                  x = nb.create<arith::DivUIOp>(l, x, count);
                } else {
                  x = nb.create<arith::DivSIOp>(l, x, count);
                }
                break;
              case Reduce::kL2:
                if (is_float) {
                  x = nb.create<mlir::math::SqrtOp>(l, x);
                } else {
                  x = ThroughF64(nb, l, x, type,
                                 [&](Value w) { return nb.create<mlir::math::SqrtOp>(l, w); });
                }
                break;
              case Reduce::kLogSum:
                if (is_float) {
                  x = nb.create<mlir::math::LogOp>(l, x);
                } else {
                  x = ThroughF64(nb, l, x, type,
                                 [&](Value w) { return nb.create<mlir::math::LogOp>(l, w); });
                }
                break;
              default:
                break;
            }
            return is_float ? TruncateFloat(nb, l, x, element_type) : x;
          });
      if (mlir::failed(finished)) return mlir::failure();
      accumulated = *finished;
    }
    result = accumulated;
  }
  if (node.IntAttribute("keepdims", 1) != 0) result = KeepReducedDims(b, loc, reduction, result);
  node.SetOutput(0, result, type);
  return mlir::success();
}

// ---------------------------------------------------------------------------
// ArgMax, ArgMin.

mlir::LogicalResult ConvertArgReduce(NodeImporter& node, bool is_max) {
  if (mlir::failed(CheckInputsPresent(node, 1)) ||
      mlir::failed(CheckInputType(node, 0, kNumericTypes))) {
    return mlir::failure();
  }
  Value input = node.Input(0);
  const OnnxElementType type = node.InputElementType(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, input);
  if (mlir::failed(rank)) return mlir::failure();
  if (*rank == 0) return node.Fail("needs an input of rank 1 or more");
  mlir::FailureOr<int64_t> axis = NormalizeAxis(node, node.IntAttribute("axis", 0), *rank);
  if (mlir::failed(axis)) return mlir::failure();
  const bool last = node.IntAttribute("select_last_index", 0) != 0;
  AxisReduction reduction;
  reduction.rank = *rank;
  reduction.axes = {*axis};

  OpBuilder& b = node.builder();
  const Location loc = node.loc();
  const mlir::Type element_type =
      llvm::cast<mlir::RankedTensorType>(input.getType()).getElementType();
  // The value starts below (above) every element and the comparison is
  // strict, so the first of the greatest (least) wins; select_last_index
  // makes it non-strict, so the last one does. NaN never wins.
  Value init_value =
      is_max ? LowestScalar(b, loc, element_type, type) : HighestScalar(b, loc, element_type, type);
  Value init_index = ScalarConstant(b, loc, b.getI64Type(), 0);
  llvm::SmallVector<Value> results = BuildReduction(
      b, loc, reduction, input, {}, {init_value, init_index},
      [&](OpBuilder& nb, Location l, ValueRange x, ValueRange, ValueRange acc) {
        Value win;
        if (IsFloat(type)) {
          using P = arith::CmpFPredicate;
          P predicate = is_max ? (last ? P::OGE : P::OGT) : (last ? P::OLE : P::OLT);
          win = nb.create<arith::CmpFOp>(l, predicate, x[0], acc[0]);
        } else {
          using P = arith::CmpIPredicate;
          const bool u = IsUnsigned(type);
          P predicate = is_max ? (last ? (u ? P::uge : P::sge) : (u ? P::ugt : P::sgt))
                               : (last ? (u ? P::ule : P::sle) : (u ? P::ult : P::slt));
          win = nb.create<arith::CmpIOp>(l, predicate, x[0], acc[0]);
        }
        Value position = nb.create<mlir::linalg::IndexOp>(l, *axis);
        Value index = nb.create<arith::IndexCastOp>(l, nb.getI64Type(), position);
        return llvm::SmallVector<Value>{nb.create<arith::SelectOp>(l, win, x[0], acc[0]),
                                        nb.create<arith::SelectOp>(l, win, index, acc[1])};
      });
  Value result = results[1];
  if (node.IntAttribute("keepdims", 1) != 0) result = KeepReducedDims(b, loc, reduction, result);
  node.SetOutput(0, result, onnx::TensorProto::INT64);
  return mlir::success();
}

}  // namespace

void RegisterReductionOps(OpRegistry& registry) {
  const std::pair<const char*, Reduce> reductions[] = {
      {"ReduceSum", Reduce::kSum},
      {"ReduceMean", Reduce::kMean},
      {"ReduceMax", Reduce::kMax},
      {"ReduceMin", Reduce::kMin},
      {"ReduceProd", Reduce::kProd},
      {"ReduceL1", Reduce::kL1},
      {"ReduceL2", Reduce::kL2},
      {"ReduceLogSum", Reduce::kLogSum},
      {"ReduceLogSumExp", Reduce::kLogSumExp},
      {"ReduceSumSquare", Reduce::kSumSquare},
  };
  for (const auto& [name, kind] : reductions) {
    const Reduce k = kind;
    registry.Register(name, [k](NodeImporter& node) { return ConvertReduce(node, k); });
  }
  registry.Register("ArgMax", [](NodeImporter& node) { return ConvertArgReduce(node, true); });
  registry.Register("ArgMin", [](NodeImporter& node) { return ConvertArgReduce(node, false); });
  RegisterSoftmaxOps(registry);
  RegisterLossOps(registry);
  RegisterScanOps(registry);
}

mlir::Value ExtendFloat(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Type type) {
  if (x.getType() == type) return x;
  return b.create<mlir::arith::ExtFOp>(loc, type, x);
}

mlir::Value TruncateFloat(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Type type) {
  if (x.getType() == type) return x;
  return b.create<mlir::arith::TruncFOp>(loc, type, x);
}

}  // namespace kiln::onnx_import
