// The remaining ops: Det, ReverseSequence, MaxUnpool, Upsample, GridSample,
// RoiAlign; and the ops kiln refuses with a reason: those whose output size
// depends on the data (NonMaxSuppression, Unique) and the random ones.
//
// Gathers at computed positions (ReverseSequence, GridSample, RoiAlign) read
// their source with tensor.extract inside the linalg.generic of the output.
// MaxUnpool's scatter is written as a gather: each output element reduces
// over its channel's inputs and keeps the last one whose index names it (the
// result of a sequential scatter).
#include <array>
#include <limits>

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/misc_helpers.h"
#include "compiler/onnx/ops/misc_registration.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

using misc::IndexConstant;
using mlir::Value;

// Det: Gaussian elimination with partial pivoting, unrolled over the static
// matrix size inside one generic over the batch (the pivot search as a
// chain of conditional row swaps, each flipping the sign).
mlir::LogicalResult ConvertDet(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  Value x = node.Input(0);
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type)) return node.Fail("input must be a float tensor");
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  if (!x_type || x_type.getRank() < 2) return node.Fail("input must have rank 2 or more");
  const int64_t rank = x_type.getRank();
  const int64_t m = x_type.getDimSize(rank - 1);
  if (mlir::ShapedType::isDynamic(m) || x_type.getDimSize(rank - 2) != m) {
    return node.Fail("the matrices must be square of a static size");
  }
  if (m > 8) return node.Fail("matrices larger than 8x8 are not supported");
  llvm::SmallVector<mlir::OpFoldResult> all = TensorSizes(b, loc, x);
  llvm::SmallVector<mlir::OpFoldResult> sizes(all.begin(), all.end() - 2);
  const int64_t batch_rank = rank - 2;
  Value result = misc::BuildIndexed(
      b, loc, sizes, x_type.getElementType(), {}, {},
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange) {
        llvm::SmallVector<Value> index;
        for (int64_t d = 0; d < batch_rank; ++d) {
          index.push_back(nb.create<mlir::linalg::IndexOp>(l, d));
        }
        mlir::Type f = x_type.getElementType();
        std::vector<std::vector<Value>> a(m, std::vector<Value>(m));
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < m; ++j) {
            llvm::SmallVector<Value> at(index);
            at.push_back(IndexConstant(nb, l, i));
            at.push_back(IndexConstant(nb, l, j));
            a[i][j] = nb.create<mlir::tensor::ExtractOp>(l, x, at);
          }
        }
        Value sign = ScalarConstant(nb, l, f, 1);
        Value det = ScalarConstant(nb, l, f, 1);
        Value zero = ScalarConstant(nb, l, f, 0);
        for (int64_t k = 0; k < m; ++k) {
          for (int64_t r = k + 1; r < m; ++r) {
            Value better = nb.create<mlir::arith::CmpFOp>(
                l, mlir::arith::CmpFPredicate::OGT, nb.create<mlir::math::AbsFOp>(l, a[r][k]),
                nb.create<mlir::math::AbsFOp>(l, a[k][k]));
            for (int64_t j = k; j < m; ++j) {
              Value top = a[k][j], other = a[r][j];
              a[k][j] = nb.create<mlir::arith::SelectOp>(l, better, other, top);
              a[r][j] = nb.create<mlir::arith::SelectOp>(l, better, top, other);
            }
            sign = nb.create<mlir::arith::SelectOp>(l, better,
                                                    nb.create<mlir::arith::NegFOp>(l, sign), sign);
          }
          det = nb.create<mlir::arith::MulFOp>(l, det, a[k][k]);
          Value pivot_zero =
              nb.create<mlir::arith::CmpFOp>(l, mlir::arith::CmpFPredicate::OEQ, a[k][k], zero);
          for (int64_t r = k + 1; r < m; ++r) {
            Value factor = nb.create<mlir::arith::DivFOp>(l, a[r][k], a[k][k]);
            factor = nb.create<mlir::arith::SelectOp>(l, pivot_zero, zero, factor);
            for (int64_t j = k + 1; j < m; ++j) {
              a[r][j] = nb.create<mlir::arith::SubFOp>(
                  l, a[r][j], nb.create<mlir::arith::MulFOp>(l, factor, a[k][j]));
            }
          }
        }
        return nb.create<mlir::arith::MulFOp>(l, sign, det).getResult();
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

mlir::LogicalResult ConvertReverseSequence(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  Value x = node.Input(0), lengths = node.Input(1);
  if (!x || !lengths) return node.Fail("input and sequence_lens are required");
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  if (*rank < 2) return node.Fail("input must have rank 2 or more");
  const int64_t time_axis = node.IntAttribute("time_axis", 0);
  const int64_t batch_axis = node.IntAttribute("batch_axis", 1);
  if (!((time_axis == 0 && batch_axis == 1) || (time_axis == 1 && batch_axis == 0))) {
    return node.Fail("time_axis and batch_axis must be 0 and 1 (in either order)");
  }
  const OnnxElementType lengths_type = node.InputElementType(1);
  mlir::MLIRContext* context = &node.context();
  Value result = misc::BuildIndexed(
      b, loc, TensorSizes(b, loc, x),
      llvm::cast<mlir::RankedTensorType>(x.getType()).getElementType(), {lengths},
      {mlir::AffineMap::get(*rank, 0, {mlir::getAffineDimExpr(batch_axis, context)}, context)},
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
        llvm::SmallVector<Value> index;
        for (int64_t d = 0; d < *rank; ++d) index.push_back(nb.create<mlir::linalg::IndexOp>(l, d));
        Value length = misc::IntToIndex(
            nb, l, ConvertScalar(nb, l, args[0], lengths_type, onnx::TensorProto::INT64));
        Value t = index[time_axis];
        Value inside =
            nb.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::slt, t, length);
        Value reversed = nb.create<mlir::arith::SubIOp>(
            l, nb.create<mlir::arith::SubIOp>(l, length, IndexConstant(nb, l, 1)), t);
        index[time_axis] = nb.create<mlir::arith::SelectOp>(l, inside, reversed, t);
        return nb.create<mlir::tensor::ExtractOp>(l, x, index).getResult();
      });
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

// The value of 1-element integer input `index` as an index scalar.
Value IndexScalar(NodeImporter& node, int64_t index, int64_t position) {
  mlir::OpBuilder& b = node.builder();
  auto type = llvm::cast<mlir::RankedTensorType>(node.Input(index).getType());
  llvm::SmallVector<Value> at;
  for (int64_t i = 0; i < type.getRank(); ++i) at.push_back(IndexConstant(b, node.loc(), position));
  Value value = b.create<mlir::tensor::ExtractOp>(node.loc(), node.Input(index), at);
  value =
      ConvertScalar(b, node.loc(), value, node.InputElementType(index), onnx::TensorProto::INT64);
  return misc::IntToIndex(b, node.loc(), value);
}

mlir::LogicalResult ConvertMaxUnpool(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = &node.context();
  Value x = node.Input(0), indices = node.Input(1);
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  if (!x_type || x_type.getRank() < 3) return node.Fail("X must have rank 3 or more");
  const int64_t rank = x_type.getRank(), spatial = rank - 2;
  std::vector<int64_t> kernel = node.IntsAttribute("kernel_shape");
  if (static_cast<int64_t>(kernel.size()) != spatial) return node.Fail("kernel_shape is required");
  std::vector<int64_t> strides = node.IntsAttribute("strides", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = node.IntsAttribute("pads", std::vector<int64_t>(2 * spatial, 0));
  llvm::SmallVector<mlir::OpFoldResult> x_sizes = TensorSizes(b, loc, x);
  llvm::SmallVector<mlir::OpFoldResult> out_sizes{x_sizes[0], x_sizes[1]};
  // The indices are flat positions in the unpooled tensor of the default
  // shape (as ONNX's reference places them); a larger output_shape pads it
  // at the end.
  llvm::SmallVector<int64_t> default_sizes;
  for (int64_t i = 0; i < spatial; ++i) {
    if (x_type.isDynamicDim(2 + i)) return node.Fail("dynamic spatial sizes are not supported");
    default_sizes.push_back((x_type.getDimSize(2 + i) - 1) * strides[i] - pads[i] -
                            pads[spatial + i] + kernel[i]);
  }
  if (node.HasInput(2)) {
    if (auto shape = node.InputInts(2)) {
      if (static_cast<int64_t>(shape->size()) != rank)
        return node.Fail("output_shape has the wrong length");
      for (int64_t i = 2; i < rank; ++i) out_sizes.push_back(b.getIndexAttr((*shape)[i]));
    } else {
      auto shape_type = llvm::dyn_cast<mlir::RankedTensorType>(node.Input(2).getType());
      if (!shape_type || shape_type.getRank() != 1) return node.Fail("output_shape must be 1-D");
      for (int64_t i = 2; i < rank; ++i) {
        Value at = IndexConstant(b, loc, i);
        Value value = b.create<mlir::tensor::ExtractOp>(loc, node.Input(2), at);
        out_sizes.push_back(misc::IntToIndex(
            b, loc,
            ConvertScalar(b, loc, value, node.InputElementType(2), onnx::TensorProto::INT64)));
      }
    }
  } else {
    for (int64_t size : default_sizes) out_sizes.push_back(b.getIndexAttr(size));
  }
  // Loops: the output's (n, c, spatial...), then the input's spatial
  // positions (reduced). The indices are flat over the whole output.
  const int64_t loops = rank + spatial;
  auto dim = [&](int64_t d) { return mlir::getAffineDimExpr(d, context); };
  llvm::SmallVector<mlir::AffineExpr> in_exprs{dim(0), dim(1)};
  for (int64_t i = 0; i < spatial; ++i) in_exprs.push_back(dim(rank + i));
  mlir::AffineMap in_map = mlir::AffineMap::get(loops, 0, in_exprs, context);
  mlir::AffineMap out_map =
      mlir::AffineMap::get(loops, 0,
                           llvm::to_vector(llvm::map_range(llvm::seq<int64_t>(0, rank),
                                                           [&](int64_t d) { return dim(d); })),
                           context);
  Value zero = ScalarConstant(b, loc, x_type.getElementType(), 0);
  Value init = FilledTensor(b, loc, out_sizes, zero);
  // The default shape's sizes, for flat positions.
  llvm::SmallVector<Value> out_dims{mlir::getValueOrCreateConstantIndexOp(b, loc, out_sizes[0]),
                                    mlir::getValueOrCreateConstantIndexOp(b, loc, out_sizes[1])};
  for (int64_t size : default_sizes) out_dims.push_back(IndexConstant(b, loc, size));
  llvm::SmallVector<mlir::utils::IteratorType> iterators = misc::Parallel(loops);
  for (int64_t d = rank; d < loops; ++d) iterators[d] = mlir::utils::IteratorType::reduction;
  const OnnxElementType index_type = node.InputElementType(1);
  Value result = misc::Generic(
      b, loc, {x, indices}, init, {in_map, in_map, out_map}, iterators,
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
        Value flat = IndexConstant(nb, l, 0);
        Value inside = ScalarConstant(nb, l, nb.getI1Type(), 1);
        for (int64_t d = 0; d < rank; ++d) {
          Value index = nb.create<mlir::linalg::IndexOp>(l, d);
          flat = nb.create<mlir::arith::AddIOp>(
              l, nb.create<mlir::arith::MulIOp>(l, flat, out_dims[d]), index);
          if (d >= 2) {
            inside = nb.create<mlir::arith::AndIOp>(
                l, inside,
                nb.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::ult, index,
                                               out_dims[d]));
          }
        }
        Value target = ConvertScalar(nb, l, args[1], index_type, onnx::TensorProto::INT64);
        Value hit =
            nb.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::eq,
                                           misc::IndexToInt(nb, l, flat, nb.getI64Type()), target);
        hit = nb.create<mlir::arith::AndIOp>(l, hit, inside);
        return llvm::SmallVector<Value>{
            nb.create<mlir::arith::SelectOp>(l, hit, args[0], args[2]).getResult()};
      })[0];
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

// Upsample (opsets 7-9), mode nearest: y[i] = x[floor(i / scale)] per
// dimension, the output floor(size * scale).
mlir::LogicalResult ConvertUpsample(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  Value x = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  const std::string mode = node.StringAttribute("mode", "nearest");
  if (mode != "nearest") return node.Fail("mode '" + mode + "' is not supported (nearest is)");
  llvm::SmallVector<Value> scales;
  if (node.opset() < 9) {
    std::vector<float> attribute = node.FloatsAttribute("scales");
    if (static_cast<int64_t>(attribute.size()) != *rank)
      return node.Fail("scales has the wrong length");
    for (float s : attribute) scales.push_back(ScalarConstant(b, loc, b.getF32Type(), s));
  } else {
    if (!node.HasInput(1) || !IsFloat(node.InputElementType(1)))
      return node.Fail("scales is required");
    auto scale_type = llvm::dyn_cast<mlir::RankedTensorType>(node.Input(1).getType());
    if (!scale_type || scale_type.getRank() != 1 ||
        (!scale_type.isDynamicDim(0) && scale_type.getDimSize(0) != *rank)) {
      return node.Fail("scales must be 1-D with one entry per dimension");
    }
    for (int64_t i = 0; i < *rank; ++i) {
      Value s = b.create<mlir::tensor::ExtractOp>(loc, node.Input(1), IndexConstant(b, loc, i));
      scales.push_back(misc::ToF32(b, loc, s, node.InputElementType(1)));
    }
  }
  llvm::SmallVector<mlir::OpFoldResult> in_sizes = TensorSizes(b, loc, x);
  llvm::SmallVector<mlir::OpFoldResult> out_sizes;
  mlir::RankedTensorType inferred = node.StaticOutputType(0);
  for (int64_t i = 0; i < *rank; ++i) {
    if (inferred) {
      out_sizes.push_back(b.getIndexAttr(inferred.getDimSize(i)));
      continue;
    }
    Value size = misc::IndexToFloat(
        b, loc, mlir::getValueOrCreateConstantIndexOp(b, loc, in_sizes[i]), b.getF32Type());
    Value scaled =
        b.create<mlir::math::FloorOp>(loc, b.create<mlir::arith::MulFOp>(loc, size, scales[i]));
    Value size_index =
        misc::IntToIndex(b, loc, b.create<mlir::arith::FPToSIOp>(loc, b.getI64Type(), scaled));
    out_sizes.push_back(size_index);
  }
  Value result = misc::BuildIndexed(
      b, loc, out_sizes, llvm::cast<mlir::RankedTensorType>(x.getType()).getElementType(), {}, {},
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange) {
        llvm::SmallVector<Value> index;
        for (int64_t d = 0; d < *rank; ++d) {
          Value i =
              misc::IndexToFloat(nb, l, nb.create<mlir::linalg::IndexOp>(l, d), nb.getF32Type());
          Value source =
              nb.create<mlir::math::FloorOp>(l, nb.create<mlir::arith::DivFOp>(l, i, scales[d]));
          Value at =
              misc::IntToIndex(nb, l, nb.create<mlir::arith::FPToSIOp>(l, nb.getI64Type(), source));
          // Never past the input's end.
          Value last = nb.create<mlir::arith::SubIOp>(
              l, mlir::getValueOrCreateConstantIndexOp(nb, l, in_sizes[d]),
              IndexConstant(nb, l, 1));
          index.push_back(nb.create<mlir::arith::MinSIOp>(l, at, last));
        }
        return nb.create<mlir::tensor::ExtractOp>(l, x, index).getResult();
      });
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

// X[n, c, y, x] at integer (i64) coordinates, 0 outside the image.
Value ReadPixel(mlir::OpBuilder& b, mlir::Location l, Value x, Value n, Value c, Value iy, Value ix,
                Value height, Value width) {
  mlir::Type i64 = b.getI64Type();
  Value zero_i = ScalarConstant(b, l, i64, 0);
  using P = mlir::arith::CmpIPredicate;
  Value inside = b.create<mlir::arith::AndIOp>(
      l,
      b.create<mlir::arith::AndIOp>(l, b.create<mlir::arith::CmpIOp>(l, P::sge, iy, zero_i),
                                    b.create<mlir::arith::CmpIOp>(l, P::slt, iy, height)),
      b.create<mlir::arith::AndIOp>(l, b.create<mlir::arith::CmpIOp>(l, P::sge, ix, zero_i),
                                    b.create<mlir::arith::CmpIOp>(l, P::slt, ix, width)));
  auto clamp = [&](Value v, Value size) {
    Value top = b.create<mlir::arith::SubIOp>(l, size, ScalarConstant(b, l, i64, 1));
    return misc::IntToIndex(
        b, l, b.create<mlir::arith::MinSIOp>(l, b.create<mlir::arith::MaxSIOp>(l, v, zero_i), top));
  };
  Value value = b.create<mlir::tensor::ExtractOp>(
      l, x, mlir::ValueRange{n, c, clamp(iy, height), clamp(ix, width)});
  Value zero = ScalarConstant(b, l, value.getType(), 0);
  return b.create<mlir::arith::SelectOp>(l, inside, value, zero);
}

// torch's reflect_coordinates: `v` reflected into [low/2, high/2] (f32).
Value Reflect(mlir::OpBuilder& b, mlir::Location l, Value v, double twice_low, double twice_high) {
  mlir::Type f = v.getType();
  if (twice_low == twice_high) return ScalarConstant(b, l, f, 0);
  const double low = twice_low / 2, span = (twice_high - twice_low) / 2;
  Value distance = b.create<mlir::math::AbsFOp>(
      l, b.create<mlir::arith::SubFOp>(l, v, ScalarConstant(b, l, f, low)));
  Value extra = b.create<mlir::arith::RemFOp>(l, distance, ScalarConstant(b, l, f, span));
  Value flips = b.create<mlir::math::FloorOp>(
      l, b.create<mlir::arith::DivFOp>(l, distance, ScalarConstant(b, l, f, span)));
  Value half = b.create<mlir::arith::MulFOp>(l, flips, ScalarConstant(b, l, f, 0.5));
  Value even = b.create<mlir::arith::CmpFOp>(l, mlir::arith::CmpFPredicate::OEQ,
                                             b.create<mlir::math::FloorOp>(l, half), half);
  Value forward = b.create<mlir::arith::AddFOp>(l, extra, ScalarConstant(b, l, f, low));
  Value backward = b.create<mlir::arith::AddFOp>(
      l, b.create<mlir::arith::SubFOp>(l, ScalarConstant(b, l, f, span), extra),
      ScalarConstant(b, l, f, low));
  return b.create<mlir::arith::SelectOp>(l, even, forward, backward);
}

mlir::LogicalResult ConvertGridSample(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = &node.context();
  Value x = node.Input(0), grid = node.Input(1);
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  auto grid_type = llvm::dyn_cast<mlir::RankedTensorType>(grid.getType());
  if (!x_type || x_type.getRank() != 4 || !grid_type || grid_type.getRank() != 4) {
    return node.Fail("only 4-D inputs (2-D images) are supported");
  }
  if (x_type.isDynamicDim(2) || x_type.isDynamicDim(3)) {
    return node.Fail("the image size must be static");
  }
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type) || !IsFloat(node.InputElementType(1)))
    return node.Fail("X and grid must be float");
  const std::string mode = node.StringAttribute("mode", "bilinear");
  const std::string padding = node.StringAttribute("padding_mode", "zeros");
  const bool align = node.IntAttribute("align_corners", 0) != 0;
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic") {
    return node.Fail("mode '" + mode + "' is not supported");
  }
  if (padding != "zeros" && padding != "border" && padding != "reflection") {
    return node.Fail("padding_mode '" + padding + "' is not supported");
  }
  const int64_t height = x_type.getDimSize(2), width = x_type.getDimSize(3);
  llvm::SmallVector<mlir::OpFoldResult> x_sizes = TensorSizes(b, loc, x);
  llvm::SmallVector<mlir::OpFoldResult> grid_sizes = TensorSizes(b, loc, grid);
  llvm::SmallVector<mlir::OpFoldResult> out_sizes{x_sizes[0], x_sizes[1], grid_sizes[1],
                                                  grid_sizes[2]};
  auto dim = [&](int64_t d) { return mlir::getAffineDimExpr(d, context); };
  auto grid_map = [&](int64_t component) {
    return mlir::AffineMap::get(
        4, 0, {dim(0), dim(2), dim(3), mlir::getAffineConstantExpr(component, context)}, context);
  };
  const OnnxElementType grid_onnx = node.InputElementType(1);
  Value result = misc::BuildIndexed(
      b, loc, out_sizes, x_type.getElementType(), {grid, grid}, {grid_map(0), grid_map(1)},
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
        mlir::Type f32 = nb.getF32Type(), i64 = nb.getI64Type();
        auto c = [&](double v) { return ScalarConstant(nb, l, f32, v); };
        Value n = nb.create<mlir::linalg::IndexOp>(l, 0);
        Value ch = nb.create<mlir::linalg::IndexOp>(l, 1);
        Value h_size = ScalarConstant(nb, l, i64, height),
              w_size = ScalarConstant(nb, l, i64, width);
        // Unnormalized source coordinates.
        auto unnormalize = [&](Value g, int64_t size) -> Value {
          Value v = misc::ToF32(nb, l, g, grid_onnx);
          Value plus = nb.create<mlir::arith::AddFOp>(l, v, c(1));
          if (align) return nb.create<mlir::arith::MulFOp>(l, plus, c((size - 1) / 2.0));
          return nb.create<mlir::arith::DivFOp>(
              l,
              nb.create<mlir::arith::SubFOp>(l, nb.create<mlir::arith::MulFOp>(l, plus, c(size)),
                                             c(1)),
              c(2));
        };
        // Border and reflection padding move a coordinate into the image.
        auto pad_coordinate = [&](Value v, int64_t size) -> Value {
          if (padding == "zeros") return v;
          if (padding == "reflection") {
            v = align ? Reflect(nb, l, v, 0, 2.0 * (size - 1))
                      : Reflect(nb, l, v, -1, 2.0 * size - 1);
          }
          return nb.create<mlir::arith::MinimumFOp>(
              l, nb.create<mlir::arith::MaximumFOp>(l, v, c(0)), c(size - 1));
        };
        Value gx = unnormalize(args[0], width), gy = unnormalize(args[1], height);
        auto to_int = [&](Value v) {
          return nb.create<mlir::arith::FPToSIOp>(l, i64, v).getResult();
        };
        auto read = [&](Value iy, Value ix) {
          Value v = ReadPixel(nb, l, x, n, ch, iy, ix, h_size, w_size);
          return ConvertScalar(nb, l, v, type, onnx::TensorProto::FLOAT);
        };
        Value out;
        if (mode == "nearest") {
          Value px = pad_coordinate(gx, width), py = pad_coordinate(gy, height);
          out = read(to_int(nb.create<mlir::math::RoundEvenOp>(l, py)),
                     to_int(nb.create<mlir::math::RoundEvenOp>(l, px)));
        } else if (mode == "bilinear") {
          Value px = pad_coordinate(gx, width), py = pad_coordinate(gy, height);
          Value x0 = nb.create<mlir::math::FloorOp>(l, px),
                y0 = nb.create<mlir::math::FloorOp>(l, py);
          Value tx = nb.create<mlir::arith::SubFOp>(l, px, x0),
                ty = nb.create<mlir::arith::SubFOp>(l, py, y0);
          Value sx = nb.create<mlir::arith::SubFOp>(l, c(1), tx),
                sy = nb.create<mlir::arith::SubFOp>(l, c(1), ty);
          Value ix0 = to_int(x0), iy0 = to_int(y0);
          Value one = ScalarConstant(nb, l, i64, 1);
          Value ix1 = nb.create<mlir::arith::AddIOp>(l, ix0, one),
                iy1 = nb.create<mlir::arith::AddIOp>(l, iy0, one);
          auto term = [&](Value wy, Value wx, Value iy, Value ix) {
            return nb.create<mlir::arith::MulFOp>(l, nb.create<mlir::arith::MulFOp>(l, wy, wx),
                                                  read(iy, ix));
          };
          out = nb.create<mlir::arith::AddFOp>(
              l, nb.create<mlir::arith::AddFOp>(l, term(sy, sx, iy0, ix0), term(sy, tx, iy0, ix1)),
              nb.create<mlir::arith::AddFOp>(l, term(ty, sx, iy1, ix0), term(ty, tx, iy1, ix1)));
        } else {
          // Bicubic (A = -0.75) over 4x4 taps; each tap's coordinate padded.
          Value x0 = nb.create<mlir::math::FloorOp>(l, gx),
                y0 = nb.create<mlir::math::FloorOp>(l, gy);
          Value tx = nb.create<mlir::arith::SubFOp>(l, gx, x0),
                ty = nb.create<mlir::arith::SubFOp>(l, gy, y0);
          const double A = -0.75;
          auto cc1 = [&](Value t) {  // ((A + 2) t - (A + 3)) t t + 1
            Value v = nb.create<mlir::arith::SubFOp>(
                l, nb.create<mlir::arith::MulFOp>(l, c(A + 2), t), c(A + 3));
            return nb.create<mlir::arith::AddFOp>(
                l, nb.create<mlir::arith::MulFOp>(l, nb.create<mlir::arith::MulFOp>(l, v, t), t),
                c(1));
          };
          auto cc2 = [&](Value t) {  // ((A t - 5A) t + 8A) t - 4A
            Value v = nb.create<mlir::arith::SubFOp>(l, nb.create<mlir::arith::MulFOp>(l, c(A), t),
                                                     c(5 * A));
            v = nb.create<mlir::arith::AddFOp>(l, nb.create<mlir::arith::MulFOp>(l, v, t),
                                               c(8 * A));
            return nb.create<mlir::arith::SubFOp>(l, nb.create<mlir::arith::MulFOp>(l, v, t),
                                                  c(4 * A));
          };
          auto coefficients = [&](Value t) {
            return std::array<Value, 4>{cc2(nb.create<mlir::arith::AddFOp>(l, t, c(1))), cc1(t),
                                        cc1(nb.create<mlir::arith::SubFOp>(l, c(1), t)),
                                        cc2(nb.create<mlir::arith::SubFOp>(l, c(2), t))};
          };
          std::array<Value, 4> wx = coefficients(tx), wy = coefficients(ty);
          out = c(0);
          for (int64_t j = 0; j < 4; ++j) {
            Value row = c(0);
            Value yy = pad_coordinate(nb.create<mlir::arith::AddFOp>(l, y0, c(j - 1)), height);
            for (int64_t i = 0; i < 4; ++i) {
              Value xx = pad_coordinate(nb.create<mlir::arith::AddFOp>(l, x0, c(i - 1)), width);
              row = nb.create<mlir::arith::AddFOp>(
                  l, row, nb.create<mlir::arith::MulFOp>(l, wx[i], read(to_int(yy), to_int(xx))));
            }
            out = nb.create<mlir::arith::AddFOp>(l, out,
                                                 nb.create<mlir::arith::MulFOp>(l, wy[j], row));
          }
        }
        return ConvertScalar(nb, l, out, onnx::TensorProto::FLOAT, type);
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

// RoiAlign as ONNX Runtime computes it: a sampling_ratio x sampling_ratio
// grid of bilinear samples per output bin (samples outside [-1, size] count
// as 0), averaged (mode avg) or the maximum of the weighted corner values
// (mode max).
mlir::LogicalResult ConvertRoiAlign(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = &node.context();
  Value x = node.Input(0), rois = node.Input(1), batch_indices = node.Input(2);
  if (!x || !rois || !batch_indices) return node.Fail("X, rois and batch_indices are required");
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  if (!x_type || x_type.getRank() != 4 || x_type.isDynamicDim(2) || x_type.isDynamicDim(3)) {
    return node.Fail("X must be 4-D with a static image size");
  }
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type)) return node.Fail("X must be float");
  const std::string mode = node.StringAttribute("mode", "avg");
  if (mode != "avg" && mode != "max") return node.Fail("mode '" + mode + "' is not supported");
  const std::string transform =
      node.opset() >= 16 ? node.StringAttribute("coordinate_transformation_mode", "half_pixel")
                         : "output_half_pixel";
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return node.Fail("coordinate_transformation_mode '" + transform + "' is not supported");
  }
  const bool half_pixel = transform == "half_pixel";
  const int64_t out_h = node.IntAttribute("output_height", 1);
  const int64_t out_w = node.IntAttribute("output_width", 1);
  const int64_t ratio = node.IntAttribute("sampling_ratio", 0);
  if (ratio <= 0) {
    return node.Fail(
        "an adaptive sampling_ratio (0: a grid size that depends on each roi) is "
        "not supported");
  }
  const float spatial_scale = node.FloatAttribute("spatial_scale", 1.0f);
  const int64_t height = x_type.getDimSize(2), width = x_type.getDimSize(3);
  llvm::SmallVector<mlir::OpFoldResult> sizes{TensorSizes(b, loc, rois)[0],
                                              TensorSizes(b, loc, x)[1], b.getIndexAttr(out_h),
                                              b.getIndexAttr(out_w)};
  auto dim = [&](int64_t d) { return mlir::getAffineDimExpr(d, context); };
  auto roi_map = [&](int64_t k) {
    return mlir::AffineMap::get(4, 0, {dim(0), mlir::getAffineConstantExpr(k, context)}, context);
  };
  const OnnxElementType rois_type = node.InputElementType(1);
  const OnnxElementType index_type = node.InputElementType(2);
  Value result = misc::BuildIndexed(
      b, loc, sizes, x_type.getElementType(), {rois, rois, rois, rois, batch_indices},
      {roi_map(0), roi_map(1), roi_map(2), roi_map(3),
       mlir::AffineMap::get(4, 0, {dim(0)}, context)},
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
        mlir::Type f32 = nb.getF32Type(), i64 = nb.getI64Type();
        auto c = [&](double v) { return ScalarConstant(nb, l, f32, v); };
        auto add = [&](Value a, Value v) {
          return nb.create<mlir::arith::AddFOp>(l, a, v).getResult();
        };
        auto sub = [&](Value a, Value v) {
          return nb.create<mlir::arith::SubFOp>(l, a, v).getResult();
        };
        auto mul = [&](Value a, Value v) {
          return nb.create<mlir::arith::MulFOp>(l, a, v).getResult();
        };
        Value n = misc::IntToIndex(
            nb, l, ConvertScalar(nb, l, args[4], index_type, onnx::TensorProto::INT64));
        Value ch = nb.create<mlir::linalg::IndexOp>(l, 1);
        Value ph = misc::IndexToFloat(nb, l, nb.create<mlir::linalg::IndexOp>(l, 2), f32);
        Value pw = misc::IndexToFloat(nb, l, nb.create<mlir::linalg::IndexOp>(l, 3), f32);
        const double offset = half_pixel ? 0.5 : 0.0;
        auto coordinate = [&](Value v) {
          return sub(mul(misc::ToF32(nb, l, v, rois_type), c(spatial_scale)), c(offset));
        };
        Value x1 = coordinate(args[0]), y1 = coordinate(args[1]);
        Value x2 = coordinate(args[2]), y2 = coordinate(args[3]);
        Value roi_w = sub(x2, x1), roi_h = sub(y2, y1);
        if (!half_pixel) {
          roi_w = nb.create<mlir::arith::MaximumFOp>(l, roi_w, c(1));
          roi_h = nb.create<mlir::arith::MaximumFOp>(l, roi_h, c(1));
        }
        Value bin_h = nb.create<mlir::arith::DivFOp>(l, roi_h, c(out_h));
        Value bin_w = nb.create<mlir::arith::DivFOp>(l, roi_w, c(out_w));
        Value h_size = ScalarConstant(nb, l, i64, height),
              w_size = ScalarConstant(nb, l, i64, width);
        Value acc = mode == "avg" ? c(0) : c(-std::numeric_limits<float>::infinity());
        using P = mlir::arith::CmpFPredicate;
        for (int64_t iy = 0; iy < ratio; ++iy) {
          Value y = add(add(y1, mul(ph, bin_h)), mul(c((iy + 0.5) / ratio), bin_h));
          for (int64_t ix = 0; ix < ratio; ++ix) {
            Value xx = add(add(x1, mul(pw, bin_w)), mul(c((ix + 0.5) / ratio), bin_w));
            Value outside = nb.create<mlir::arith::OrIOp>(
                l,
                nb.create<mlir::arith::OrIOp>(
                    l, nb.create<mlir::arith::CmpFOp>(l, P::OLT, y, c(-1)),
                    nb.create<mlir::arith::CmpFOp>(l, P::OGT, y, c(height))),
                nb.create<mlir::arith::OrIOp>(
                    l, nb.create<mlir::arith::CmpFOp>(l, P::OLT, xx, c(-1)),
                    nb.create<mlir::arith::CmpFOp>(l, P::OGT, xx, c(width))));
            // Clamp into the image; at the last row/column both corners are
            // the same pixel.
            auto corners = [&](Value v, int64_t size) {
              v = nb.create<mlir::arith::MaximumFOp>(l, v, c(0));
              Value low = nb.create<mlir::math::FloorOp>(l, v);
              Value at_end = nb.create<mlir::arith::CmpFOp>(l, P::OGE, low, c(size - 1));
              low = nb.create<mlir::arith::SelectOp>(l, at_end, c(size - 1), low);
              v = nb.create<mlir::arith::SelectOp>(l, at_end, low, v);
              Value high = nb.create<mlir::arith::SelectOp>(l, at_end, low, add(low, c(1)));
              Value frac = sub(v, low);
              return std::array<Value, 3>{low, high, frac};
            };
            auto [y_low, y_high, ly] = corners(y, height);
            auto [x_low, x_high, lx] = corners(xx, width);
            Value hy = sub(c(1), ly), hx = sub(c(1), lx);
            auto pixel = [&](Value yv, Value xv) {
              Value v = ReadPixel(nb, l, x, n, ch, nb.create<mlir::arith::FPToSIOp>(l, i64, yv),
                                  nb.create<mlir::arith::FPToSIOp>(l, i64, xv), h_size, w_size);
              return ConvertScalar(nb, l, v, type, onnx::TensorProto::FLOAT);
            };
            std::array<Value, 4> terms{
                mul(mul(hy, hx), pixel(y_low, x_low)), mul(mul(hy, lx), pixel(y_low, x_high)),
                mul(mul(ly, hx), pixel(y_high, x_low)), mul(mul(ly, lx), pixel(y_high, x_high))};
            Value sample;
            if (mode == "avg") {
              sample = add(add(terms[0], terms[1]), add(terms[2], terms[3]));
              sample = nb.create<mlir::arith::SelectOp>(l, outside, c(0), sample);
              acc = add(acc, sample);
            } else {
              sample = nb.create<mlir::arith::MaximumFOp>(
                  l, nb.create<mlir::arith::MaximumFOp>(l, terms[0], terms[1]),
                  nb.create<mlir::arith::MaximumFOp>(l, terms[2], terms[3]));
              sample = nb.create<mlir::arith::SelectOp>(l, outside, c(0), sample);
              acc = nb.create<mlir::arith::MaximumFOp>(l, acc, sample);
            }
          }
        }
        if (mode == "avg") acc = nb.create<mlir::arith::DivFOp>(l, acc, c(ratio * ratio));
        return ConvertScalar(nb, l, acc, onnx::TensorProto::FLOAT, type);
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

mlir::LogicalResult RefuseDataDependent(NodeImporter& node) {
  return node.Fail(
      "the output's size depends on the input data, which kiln's static or "
      "shape-derived dynamic sizes cannot express");
}

mlir::LogicalResult RefuseRandom(NodeImporter& node) {
  return node.Fail("random ops are not supported (their results are not reproducible)");
}

}  // namespace

void RegisterMiscOps(OpRegistry& registry) {
  registry.Register("Det", ConvertDet, 11);
  registry.Register("ReverseSequence", ConvertReverseSequence, 10);
  registry.Register("MaxUnpool", ConvertMaxUnpool, 9);
  registry.Register("Upsample", ConvertUpsample, 7);
  registry.Register("GridSample", ConvertGridSample, 16);
  registry.Register("RoiAlign", ConvertRoiAlign, 10);
  registry.Register("NonMaxSuppression", RefuseDataDependent);
  registry.Register("Unique", RefuseDataDependent);
  for (const char* op : {"Bernoulli", "RandomUniform", "RandomUniformLike", "RandomNormal",
                         "RandomNormalLike", "Multinomial"}) {
    registry.Register(op, RefuseRandom);
  }
}

}  // namespace kiln::onnx_import
