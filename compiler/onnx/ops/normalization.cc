// Normalizations: BatchNormalization (inference), InstanceNormalization,
// LayerNormalization, MeanVarianceNormalization, LRN.
//
// The statistics are linalg.generic reductions over the normalized
// dimensions: the mean, then the mean of the squared deviations from it
// (two passes: steadier than E[x^2] - E[x]^2); the normalization is one
// elementwise generic that reads the statistics broadcast along the
// reduced dimensions, the form kiln's dispatch grouping keeps in one
// kernel per row (softmax, layernorm).
#include "compiler/onnx/layer_builders.h"
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/ops/layer_ops.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

using mlir::utils::IteratorType;

// The mean and biased variance of `x` over the dimensions `reduced` marks,
// as tensors over the kept dimensions (in order).
struct Moments {
  mlir::Value mean;
  mlir::Value variance;
  // Reads a kept-dimension tensor from the loops of `x`.
  mlir::AffineMap kept_map;
  llvm::SmallVector<mlir::OpFoldResult> kept_sizes;
};

Moments ComputeMoments(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x,
                       llvm::ArrayRef<bool> reduced) {
  mlir::MLIRContext* context = b.getContext();
  auto type = llvm::cast<mlir::RankedTensorType>(x.getType());
  const int64_t rank = type.getRank();
  mlir::Type element_type = type.getElementType();
  llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(b, loc, x);
  Moments moments;
  llvm::SmallVector<mlir::AffineExpr> kept;
  llvm::SmallVector<mlir::OpFoldResult> reduced_sizes;
  llvm::SmallVector<IteratorType> iterators;
  for (int64_t i = 0; i < rank; ++i) {
    if (reduced[i]) {
      reduced_sizes.push_back(sizes[i]);
      iterators.push_back(IteratorType::reduction);
    } else {
      kept.push_back(mlir::getAffineDimExpr(i, context));
      moments.kept_sizes.push_back(sizes[i]);
      iterators.push_back(IteratorType::parallel);
    }
  }
  moments.kept_map = mlir::AffineMap::get(rank, 0, kept, context);
  mlir::AffineMap identity = b.getMultiDimIdentityMap(rank);
  mlir::Value zero = ScalarConstant(b, loc, element_type, 0);
  mlir::Value count = b.create<mlir::arith::SIToFPOp>(
      loc, element_type,
      b.create<mlir::arith::IndexCastOp>(loc, b.getI64Type(),
                                         IndexValue(b, loc, ProductOfSizes(b, loc, reduced_sizes))));
  const int64_t kept_rank = static_cast<int64_t>(kept.size());
  llvm::SmallVector<IteratorType> parallel(kept_rank, IteratorType::parallel);
  mlir::AffineMap kept_identity = b.getMultiDimIdentityMap(kept_rank);
  auto divide = [&](mlir::Value sums) {
    return BuildGeneric(b, loc, sums, kept_identity,
                        EmptyTensor(b, loc, moments.kept_sizes, element_type), kept_identity,
                        parallel,
                        [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
                          return nested.create<mlir::arith::DivFOp>(nested_loc, args[0], count);
                        });
  };
  mlir::Value sums = BuildGeneric(
      b, loc, x, identity, FilledTensor(b, loc, moments.kept_sizes, zero), moments.kept_map,
      iterators, [](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        return nested.create<mlir::arith::AddFOp>(nested_loc, args[0], args[1]);
      });
  moments.mean = divide(sums);
  mlir::Value squares = BuildGeneric(
      b, loc, {x, moments.mean}, {identity, moments.kept_map},
      FilledTensor(b, loc, moments.kept_sizes, zero), moments.kept_map, iterators,
      [](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        mlir::Value deviation = nested.create<mlir::arith::SubFOp>(nested_loc, args[0], args[1]);
        mlir::Value square = nested.create<mlir::arith::MulFOp>(nested_loc, deviation, deviation);
        return nested.create<mlir::arith::AddFOp>(nested_loc, square, args[2]);
      });
  moments.variance = divide(squares);
  return moments;
}

mlir::Value Constant(mlir::OpBuilder& b, mlir::Location loc, mlir::Value like, double value) {
  return ScalarConstant(b, loc, like.getType(), value);
}

// 1 / sqrt(variance + epsilon).
mlir::Value InverseDeviation(mlir::OpBuilder& b, mlir::Location loc, mlir::Value variance,
                             double epsilon) {
  mlir::Value sum = b.create<mlir::arith::AddFOp>(loc, variance, Constant(b, loc, variance, epsilon));
  return b.create<mlir::math::RsqrtOp>(loc, sum);
}

// A float input of the op, or failure (reported).
mlir::LogicalResult CheckFloat(NodeImporter& node, int64_t index) {
  const OnnxElementType type = node.InputElementType(index);
  if (!IsFloat(type)) {
    return node.Fail("input " + std::to_string(index) + " of type " + OnnxElementTypeName(type) +
                     " is not supported");
  }
  return mlir::success();
}

// Input `index` as a vector of the input's channel count.
mlir::FailureOr<mlir::Value> ChannelVector(NodeImporter& node, int64_t index, int64_t channels,
                                           mlir::Type element_type) {
  mlir::Value value = node.Input(index);
  if (!value) return node.Fail("input " + std::to_string(index) + " is needed");
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!type || type.getRank() != 1) {
    return node.Fail("input " + std::to_string(index) + " must be a vector (one value per channel)");
  }
  if (!type.isDynamicDim(0) && !mlir::ShapedType::isDynamic(channels) &&
      type.getDimSize(0) != channels) {
    return node.Fail("input " + std::to_string(index) + " has " +
                     std::to_string(type.getDimSize(0)) + " values for " +
                     std::to_string(channels) + " channels");
  }
  if (type.getElementType() != element_type) {
    return ConvertTensor(node, value, node.InputElementType(index), ElementTypeOf(element_type));
  }
  return value;
}

mlir::LogicalResult ConvertBatchNormalization(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = b.getContext();
  if (mlir::failed(CheckFloat(node, 0))) return mlir::failure();
  if (node.IntAttribute("training_mode", 0) != 0) {
    return node.Fail("training_mode = 1 is not supported (kiln imports inference graphs)");
  }
  if (node.opset() < 9 && node.IntAttribute("spatial", 1) != 1) {
    return node.Fail("spatial = 0 (per-element statistics) is not supported");
  }
  for (int64_t i = 1; i < node.output_count(); ++i) {
    if (node.HasOutput(i)) {
      return node.Fail("the running statistics outputs (training) are not supported");
    }
  }
  const OnnxElementType type = node.InputElementType(0);
  mlir::Value x = node.Input(0);
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  if (!x_type || x_type.getRank() < 2) return node.Fail("the input must be [N, C, ...]");
  const int64_t rank = x_type.getRank();
  mlir::Type element_type = x_type.getElementType();
  llvm::SmallVector<mlir::Value> operands = {x};
  for (int64_t i = 1; i <= 4; ++i) {
    // Opset 15 lets scale/bias and mean/var have other float types.
    mlir::FailureOr<mlir::Value> vector =
        ChannelVector(node, i, x_type.getDimSize(1), element_type);
    if (mlir::failed(vector)) return mlir::failure();
    operands.push_back(*vector);
  }
  const double epsilon = node.FloatAttribute("epsilon", 1e-5f);
  mlir::AffineMap channel = mlir::AffineMap::get(rank, 0, mlir::getAffineDimExpr(1, context));
  mlir::AffineMap identity = b.getMultiDimIdentityMap(rank);
  llvm::SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  mlir::Value result = BuildGeneric(
      b, loc, operands, {identity, channel, channel, channel, channel},
      EmptyTensor(b, loc, TensorSizes(b, loc, x), element_type), identity, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        // (x - mean) / sqrt(var + epsilon) * scale + bias
        mlir::Value centered = nested.create<mlir::arith::SubFOp>(nested_loc, args[0], args[3]);
        mlir::Value normalized = nested.create<mlir::arith::MulFOp>(
            nested_loc, centered, InverseDeviation(nested, nested_loc, args[4], epsilon));
        mlir::Value scaled = nested.create<mlir::arith::MulFOp>(nested_loc, normalized, args[1]);
        return nested.create<mlir::arith::AddFOp>(nested_loc, scaled, args[2]);
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

mlir::LogicalResult ConvertInstanceNormalization(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = b.getContext();
  if (mlir::failed(CheckFloat(node, 0))) return mlir::failure();
  const OnnxElementType type = node.InputElementType(0);
  mlir::Value x = node.Input(0);
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  if (!x_type || x_type.getRank() < 3) return node.Fail("the input must be [N, C, spatial...]");
  const int64_t rank = x_type.getRank();
  mlir::Type element_type = x_type.getElementType();
  mlir::FailureOr<mlir::Value> scale = ChannelVector(node, 1, x_type.getDimSize(1), element_type);
  mlir::FailureOr<mlir::Value> bias = ChannelVector(node, 2, x_type.getDimSize(1), element_type);
  if (mlir::failed(scale) || mlir::failed(bias)) return mlir::failure();
  const double epsilon = node.FloatAttribute("epsilon", 1e-5f);
  llvm::SmallVector<bool> reduced(rank, true);
  reduced[0] = reduced[1] = false;
  Moments moments = ComputeMoments(b, loc, x, reduced);
  mlir::AffineMap channel = mlir::AffineMap::get(rank, 0, mlir::getAffineDimExpr(1, context));
  mlir::AffineMap identity = b.getMultiDimIdentityMap(rank);
  llvm::SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  mlir::Value result = BuildGeneric(
      b, loc, {x, moments.mean, moments.variance, *scale, *bias},
      {identity, moments.kept_map, moments.kept_map, channel, channel},
      EmptyTensor(b, loc, TensorSizes(b, loc, x), element_type), identity, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        mlir::Value centered = nested.create<mlir::arith::SubFOp>(nested_loc, args[0], args[1]);
        mlir::Value normalized = nested.create<mlir::arith::MulFOp>(
            nested_loc, centered, InverseDeviation(nested, nested_loc, args[2], epsilon));
        mlir::Value scaled = nested.create<mlir::arith::MulFOp>(nested_loc, normalized, args[3]);
        return nested.create<mlir::arith::AddFOp>(nested_loc, scaled, args[4]);
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

mlir::LogicalResult ConvertLayerNormalization(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  if (mlir::failed(CheckFloat(node, 0))) return mlir::failure();
  const OnnxElementType type = node.InputElementType(0);
  mlir::Value x = node.Input(0);
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  if (!x_type || x_type.getRank() < 1) return node.Fail("the input must have a rank");
  const int64_t rank = x_type.getRank();
  mlir::FailureOr<int64_t> axis = NormalizeAxis(node, node.IntAttribute("axis", -1), rank);
  if (mlir::failed(axis)) return mlir::failure();
  // The statistics are computed in stash_type (float by default), the
  // scale and bias applied in the input's type (ONNX's function body).
  const OnnxElementType stash = node.IntAttribute("stash_type", onnx::TensorProto::FLOAT);
  if (stash != onnx::TensorProto::FLOAT && stash != type) {
    return node.Fail("stash_type " + OnnxElementTypeName(stash) + " is not supported");
  }
  mlir::Type element_type = x_type.getElementType();
  mlir::Type stash_type = ConvertElementType(node.context(), stash);
  mlir::Value stashed = ConvertTensor(node, x, type, stash);
  const double epsilon = node.FloatAttribute("epsilon", 1e-5f);
  llvm::SmallVector<bool> reduced(rank, false);
  for (int64_t i = *axis; i < rank; ++i) reduced[i] = true;
  Moments moments = ComputeMoments(b, loc, stashed, reduced);
  const int64_t kept_rank = *axis;
  llvm::SmallVector<IteratorType> kept_parallel(kept_rank, IteratorType::parallel);
  mlir::AffineMap kept_identity = b.getMultiDimIdentityMap(kept_rank);
  mlir::Value inverse = BuildGeneric(
      b, loc, moments.variance, kept_identity,
      EmptyTensor(b, loc, moments.kept_sizes, stash_type), kept_identity, kept_parallel,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        return InverseDeviation(nested, nested_loc, args[0], epsilon);
      });

  // Scale and bias broadcast to the normalized shape (unidirectionally).
  llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(b, loc, x);
  mlir::MLIRContext* context = b.getContext();
  mlir::AffineMap identity = b.getMultiDimIdentityMap(rank);
  llvm::SmallVector<mlir::Value> operands = {stashed, moments.mean, inverse};
  llvm::SmallVector<mlir::AffineMap> maps = {identity, moments.kept_map, moments.kept_map};
  for (int64_t index : {1, 2}) {
    if (!node.HasInput(index)) {
      if (index == 1) return node.Fail("Scale is needed");
      continue;
    }
    if (node.InputElementType(index) != type) {
      return node.Fail("input " + std::to_string(index) + " has another type than X");
    }
    auto operand_type = llvm::dyn_cast<mlir::RankedTensorType>(node.Input(index).getType());
    if (!operand_type || operand_type.getRank() > rank) {
      return node.Fail("input " + std::to_string(index) + " does not broadcast to X");
    }
    for (int64_t d = 0; d < operand_type.getRank(); ++d) {
      const int64_t size = operand_type.getDimSize(d);
      const int64_t target = x_type.getDimSize(rank - operand_type.getRank() + d);
      if (!mlir::ShapedType::isDynamic(size) && !mlir::ShapedType::isDynamic(target) &&
          size != 1 && size != target) {
        return node.Fail("input " + std::to_string(index) + " does not broadcast to X");
      }
    }
    operands.push_back(node.Input(index));
    maps.push_back(TrailingBroadcastMap(context, operand_type, rank, 0, sizes));
  }
  const bool has_bias = operands.size() == 5;
  llvm::SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  mlir::Value result = BuildGeneric(
      b, loc, operands, maps, EmptyTensor(b, loc, sizes, element_type), identity, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        mlir::Value centered = nested.create<mlir::arith::SubFOp>(nested_loc, args[0], args[1]);
        mlir::Value normalized = nested.create<mlir::arith::MulFOp>(nested_loc, centered, args[2]);
        normalized = ConvertScalar(nested, nested_loc, normalized, stash, type);
        mlir::Value y = nested.create<mlir::arith::MulFOp>(nested_loc, normalized, args[3]);
        if (has_bias) y = nested.create<mlir::arith::AddFOp>(nested_loc, y, args[4]);
        return y;
      });
  node.SetOutput(0, result, type);
  if (node.HasOutput(1) || node.HasOutput(2)) {
    // Mean and InvStdDev: [d0, ..., d(axis-1), 1, ..., 1].
    llvm::SmallVector<mlir::OpFoldResult> stat_sizes(moments.kept_sizes);
    llvm::SmallVector<mlir::ReassociationIndices> reassociation;
    for (int64_t i = 0; i < kept_rank; ++i) reassociation.push_back({i});
    for (int64_t i = kept_rank; i < rank; ++i) {
      stat_sizes.push_back(b.getIndexAttr(1));
      if (reassociation.empty()) {
        // A rank-0 statistic expands with no groups.
        continue;
      }
      reassociation.back().push_back(i);
    }
    if (kept_rank == 0) reassociation.clear();
    node.SetOutput(1, ExpandDims(b, loc, moments.mean, reassociation, stat_sizes), stash);
    node.SetOutput(2, ExpandDims(b, loc, inverse, reassociation, stat_sizes), stash);
  }
  return mlir::success();
}

mlir::LogicalResult ConvertMeanVarianceNormalization(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  if (mlir::failed(CheckFloat(node, 0))) return mlir::failure();
  const OnnxElementType type = node.InputElementType(0);
  mlir::Value x = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  std::vector<int64_t> axes = node.IntsAttribute("axes", {0, 2, 3});
  llvm::SmallVector<bool> reduced(*rank, false);
  for (int64_t axis : axes) {
    mlir::FailureOr<int64_t> normalized = NormalizeAxis(node, axis, *rank);
    if (mlir::failed(normalized)) return mlir::failure();
    reduced[*normalized] = true;
  }
  Moments moments = ComputeMoments(b, loc, x, reduced);
  mlir::Type element_type = llvm::cast<mlir::RankedTensorType>(x.getType()).getElementType();
  mlir::AffineMap identity = b.getMultiDimIdentityMap(*rank);
  llvm::SmallVector<IteratorType> iterators(*rank, IteratorType::parallel);
  // ONNX's function body: (x - mean) / (sqrt(variance) + 1e-9).
  mlir::Value result = BuildGeneric(
      b, loc, {x, moments.mean, moments.variance}, {identity, moments.kept_map, moments.kept_map},
      EmptyTensor(b, loc, TensorSizes(b, loc, x), element_type), identity, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        mlir::Value centered = nested.create<mlir::arith::SubFOp>(nested_loc, args[0], args[1]);
        mlir::Value deviation = nested.create<mlir::math::SqrtOp>(nested_loc, args[2]);
        mlir::Value divisor = nested.create<mlir::arith::AddFOp>(
            nested_loc, deviation, Constant(nested, nested_loc, deviation, 1e-9));
        return nested.create<mlir::arith::DivFOp>(nested_loc, centered, divisor);
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

mlir::LogicalResult ConvertLRN(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = b.getContext();
  if (mlir::failed(CheckFloat(node, 0))) return mlir::failure();
  const OnnxElementType type = node.InputElementType(0);
  mlir::Value x = node.Input(0);
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  if (!x_type || x_type.getRank() < 3) return node.Fail("the input must be [N, C, spatial...]");
  if (!node.HasAttribute("size")) return node.Fail("size is required");
  const int64_t size = node.IntAttribute("size", 1);
  if (size < 1) return node.Fail("size must be positive");
  const double alpha = node.FloatAttribute("alpha", 1e-4f);
  const double beta = node.FloatAttribute("beta", 0.75f);
  const double bias = node.FloatAttribute("bias", 1.0f);
  const int64_t rank = x_type.getRank();
  mlir::Type element_type = x_type.getElementType();
  // square_sum[n, c, ...] sums x^2 over channels c - floor((size - 1) / 2)
  // to c + ceil((size - 1) / 2), zeros past the ends.
  llvm::SmallVector<mlir::OpFoldResult> low(rank, b.getIndexAttr(0)), high(rank, b.getIndexAttr(0));
  low[1] = b.getIndexAttr((size - 1) / 2);
  high[1] = b.getIndexAttr(size - 1 - (size - 1) / 2);
  mlir::Value zero = ScalarConstant(b, loc, element_type, 0);
  mlir::Value padded = PadTensor(b, loc, x, low, high, zero);
  llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(b, loc, x);
  // Loops: the output's, then the channel window.
  const int64_t loops = rank + 1;
  llvm::SmallVector<mlir::AffineExpr> x_exprs;
  for (int64_t i = 0; i < rank; ++i) x_exprs.push_back(mlir::getAffineDimExpr(i, context));
  x_exprs[1] = x_exprs[1] + mlir::getAffineDimExpr(rank, context);
  mlir::AffineMap out_map = mlir::AffineMap::getMultiDimIdentityMap(loops, context).dropResult(rank);
  llvm::SmallVector<IteratorType> iterators(loops, IteratorType::parallel);
  iterators[rank] = IteratorType::reduction;
  mlir::Value window = EmptyTensor(b, loc, {b.getIndexAttr(size)}, element_type);
  mlir::Value square_sums = BuildGeneric(
      b, loc, {padded, window},
      {mlir::AffineMap::get(loops, 0, x_exprs, context),
       mlir::AffineMap::get(loops, 0, mlir::getAffineDimExpr(rank, context))},
      FilledTensor(b, loc, sizes, zero), out_map, iterators,
      [](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        mlir::Value square = nested.create<mlir::arith::MulFOp>(nested_loc, args[0], args[0]);
        return nested.create<mlir::arith::AddFOp>(nested_loc, square, args[2]);
      });
  mlir::AffineMap identity = b.getMultiDimIdentityMap(rank);
  llvm::SmallVector<IteratorType> parallel(rank, IteratorType::parallel);
  mlir::Value result = BuildGeneric(
      b, loc, {x, square_sums}, {identity, identity}, EmptyTensor(b, loc, sizes, element_type),
      identity, parallel,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        // x / (bias + alpha / size * square_sum) ^ beta
        mlir::Value scaled = nested.create<mlir::arith::MulFOp>(
            nested_loc, args[1], Constant(nested, nested_loc, args[1], alpha / size));
        mlir::Value base = nested.create<mlir::arith::AddFOp>(
            nested_loc, scaled, Constant(nested, nested_loc, args[1], bias));
        mlir::Value power = nested.create<mlir::math::PowFOp>(
            nested_loc, base, Constant(nested, nested_loc, args[1], beta));
        return nested.create<mlir::arith::DivFOp>(nested_loc, args[0], power);
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

}  // namespace

void RegisterNormalizationOps(OpRegistry& registry) {
  // BatchNormalization-7 dropped is_test (and its training form); the
  // training form of opset 14 is refused by its attribute.
  registry.Register("BatchNormalization", ConvertBatchNormalization, 7);
  registry.Register("InstanceNormalization", ConvertInstanceNormalization, 6);
  registry.Register("LayerNormalization", ConvertLayerNormalization, 17);
  registry.Register("MeanVarianceNormalization", ConvertMeanVarianceNormalization, 9);
  registry.Register("LRN", ConvertLRN, 1);
}

}  // namespace kiln::onnx_import
