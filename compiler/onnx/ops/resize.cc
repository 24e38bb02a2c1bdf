// Resize (opsets 10 to 17; Upsample is another family's): nearest, linear
// and cubic interpolation with every coordinate_transformation_mode, from
// scales or sizes, known at import time or not.
//
// One linalg.generic over the output gathers from the input with
// tensor.extract: per resized dimension the output index maps to a
// coordinate in the input (the transformation mode), then to one (nearest),
// two (linear) or four (cubic) taps with weights; the result is the sum
// over every combination of the dimensions' taps of the weights' product
// times the element. Taps outside the input read its edge (ONNX's
// reference); cubic's exclude_outside drops them and renormalizes. The
// arithmetic is in f32 (f64 for double), as ONNX Runtime computes it.
// Dimensions whose size and scale are 1 (or whose size is 1 both sides)
// read the output index as is.
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

// Where a dimension's scale comes from.
struct ScaleSource {
  // Known at import time.
  std::optional<double> constant;
  // Else read from the scales tensor at run time (element `dim`)...
  mlir::Value tensor;
  OnnxElementType tensor_type = 0;
  // ...or output size / input size (from sizes).
  bool from_sizes = false;
};

// An input that is present and not empty (opset 11 passes an empty scales
// tensor beside sizes).
bool HasNonEmptyInput(NodeImporter& node, int64_t index) {
  if (!node.HasInput(index)) return false;
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(node.Input(index).getType());
  return !type || type.getNumElements() != 0 || !type.hasStaticShape();
}

class Interpolation {
 public:
  Interpolation(NodeImporter& node) : node_(node) {}

  mlir::LogicalResult Convert();

 private:
  // One tap of one dimension: an input index and its weight (null for
  // nearest, whose only tap weighs 1).
  struct Tap {
    mlir::Value index;
    mlir::Value weight;
  };
  mlir::Value Float(mlir::OpBuilder& b, mlir::Location loc, double value) {
    return ScalarConstant(b, loc, compute_type_, value);
  }
  mlir::Value IndexToFloat(mlir::OpBuilder& b, mlir::Location loc, mlir::Value index) {
    mlir::Value i64 = b.create<mlir::arith::IndexCastOp>(loc, b.getI64Type(), index);
    return b.create<mlir::arith::SIToFPOp>(loc, compute_type_, i64);
  }
  mlir::Value FloatToIndex(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value) {
    mlir::Value i64 = b.create<mlir::arith::FPToSIOp>(loc, b.getI64Type(), value);
    return b.create<mlir::arith::IndexCastOp>(loc, b.getIndexType(), i64);
  }
  // A scalar of a 1-D tensor of floats, in the compute type.
  mlir::Value ReadScalar(mlir::OpBuilder& b, mlir::Location loc, mlir::Value tensor,
                         OnnxElementType type, int64_t index) {
    mlir::Value position = b.create<mlir::arith::ConstantIndexOp>(loc, index);
    mlir::Value value = b.create<mlir::tensor::ExtractOp>(loc, tensor, position);
    return ConvertScalar(b, loc, value, type, ElementTypeOf(compute_type_));
  }
  mlir::Value Clamp(mlir::OpBuilder& b, mlir::Location loc, mlir::Value index, mlir::Value last) {
    mlir::Value zero = b.create<mlir::arith::ConstantIndexOp>(loc, 0);
    return b.create<mlir::arith::MinSIOp>(loc, b.create<mlir::arith::MaxSIOp>(loc, index, zero),
                                          last);
  }
  // The input coordinate of output index `x` along `dim`; sets `outside`
  // for tf_crop_and_resize coordinates past the input.
  mlir::Value SourceCoordinate(mlir::OpBuilder& b, mlir::Location loc, int64_t dim, mlir::Value x,
                               mlir::Value& outside);
  llvm::SmallVector<Tap> Taps(mlir::OpBuilder& b, mlir::Location loc, int64_t dim,
                              mlir::Value coordinate);

  NodeImporter& node_;
  mlir::Type compute_type_;
  std::string mode_;
  std::string transformation_;
  std::string nearest_mode_;
  double cubic_a_ = -0.75;
  bool exclude_outside_ = false;
  double extrapolation_value_ = 0.0;
  mlir::Value x_;
  int64_t rank_ = 0;
  llvm::SmallVector<mlir::OpFoldResult> in_sizes_, out_sizes_;
  llvm::SmallVector<ScaleSource> scales_;
  llvm::SmallVector<bool> identity_;
  // tf_crop_and_resize's region: constant, or read at run time.
  std::vector<double> roi_constant_;
  mlir::Value roi_;
  OnnxElementType roi_type_ = 0;
};

mlir::Value Interpolation::SourceCoordinate(mlir::OpBuilder& b, mlir::Location loc, int64_t dim,
                                            mlir::Value x, mlir::Value& outside) {
  const ScaleSource& source = scales_[dim];
  mlir::Value in = IndexToFloat(b, loc, IndexValue(b, loc, in_sizes_[dim]));
  // The resized length: the output size from sizes, else in * scale
  // unrounded (ONNX's reference: align_corners divides by it minus 1).
  mlir::Value out = IndexToFloat(b, loc, IndexValue(b, loc, out_sizes_[dim]));
  mlir::Value scale;
  if (source.constant) {
    scale = Float(b, loc, *source.constant);
  } else if (source.tensor) {
    scale = ReadScalar(b, loc, source.tensor, source.tensor_type, dim);
  } else {
    scale = b.create<mlir::arith::DivFOp>(loc, out, in);
  }
  if (!source.from_sizes) out = b.create<mlir::arith::MulFOp>(loc, in, scale);
  mlir::Value one = Float(b, loc, 1), half = Float(b, loc, 0.5), zero = Float(b, loc, 0);
  auto add = [&](mlir::Value p, mlir::Value q) { return b.create<mlir::arith::AddFOp>(loc, p, q).getResult(); };
  auto sub = [&](mlir::Value p, mlir::Value q) { return b.create<mlir::arith::SubFOp>(loc, p, q).getResult(); };
  auto mul = [&](mlir::Value p, mlir::Value q) { return b.create<mlir::arith::MulFOp>(loc, p, q).getResult(); };
  auto div = [&](mlir::Value p, mlir::Value q) { return b.create<mlir::arith::DivFOp>(loc, p, q).getResult(); };
  auto out_is_one = [&]() {
    return b.create<mlir::arith::CmpFOp>(loc, mlir::arith::CmpFPredicate::OLE, out, one).getResult();
  };
  auto select = [&](mlir::Value c, mlir::Value p, mlir::Value q) {
    return b.create<mlir::arith::SelectOp>(loc, c, p, q).getResult();
  };
  if (transformation_ == "half_pixel") return sub(div(add(x, half), scale), half);
  if (transformation_ == "pytorch_half_pixel") {
    return select(out_is_one(), zero, sub(div(add(x, half), scale), half));
  }
  if (transformation_ == "align_corners") {
    mlir::Value ratio = div(sub(in, one), sub(out, one));
    return select(out_is_one(), zero, mul(x, ratio));
  }
  if (transformation_ == "asymmetric") return div(x, scale);
  if (transformation_ == "tf_half_pixel_for_nn") return div(add(x, half), scale);
  // tf_crop_and_resize: the region [start, end] (fractions of in - 1).
  mlir::Value start, end;
  if (roi_) {
    start = ReadScalar(b, loc, roi_, roi_type_, dim);
    end = ReadScalar(b, loc, roi_, roi_type_, rank_ + dim);
  } else {
    start = Float(b, loc, roi_constant_[dim]);
    end = Float(b, loc, roi_constant_[rank_ + dim]);
  }
  mlir::Value last = sub(in, one);
  mlir::Value spread = div(mul(sub(end, start), last), sub(out, one));
  mlir::Value coordinate =
      select(out_is_one(), mul(mul(half, add(start, end)), last), add(mul(start, last), mul(x, spread)));
  mlir::Value below =
      b.create<mlir::arith::CmpFOp>(loc, mlir::arith::CmpFPredicate::OLT, coordinate, zero);
  mlir::Value above =
      b.create<mlir::arith::CmpFOp>(loc, mlir::arith::CmpFPredicate::OGT, coordinate, last);
  mlir::Value past = b.create<mlir::arith::OrIOp>(loc, below, above);
  outside = outside ? b.create<mlir::arith::OrIOp>(loc, outside, past).getResult() : past;
  return coordinate;
}

llvm::SmallVector<Interpolation::Tap> Interpolation::Taps(mlir::OpBuilder& b, mlir::Location loc,
                                                          int64_t dim, mlir::Value coordinate) {
  mlir::Value last = b.create<mlir::arith::SubIOp>(loc, IndexValue(b, loc, in_sizes_[dim]),
                                                   b.create<mlir::arith::ConstantIndexOp>(loc, 1));
  mlir::Value floor = b.create<mlir::math::FloorOp>(loc, coordinate);
  if (mode_ == "nearest") {
    mlir::Value rounded;
    if (nearest_mode_ == "floor") {
      rounded = floor;
    } else if (nearest_mode_ == "ceil") {
      rounded = b.create<mlir::math::CeilOp>(loc, coordinate);
    } else if (nearest_mode_ == "round_prefer_ceil") {
      rounded = b.create<mlir::math::FloorOp>(
          loc, b.create<mlir::arith::AddFOp>(loc, coordinate, Float(b, loc, 0.5)));
    } else if (nearest_mode_ == "round_prefer_floor") {
      // Halves go down: -floor(-x + 0.5).
      mlir::Value negated = b.create<mlir::arith::NegFOp>(loc, coordinate);
      mlir::Value down = b.create<mlir::math::FloorOp>(
          loc, b.create<mlir::arith::AddFOp>(loc, negated, Float(b, loc, 0.5)));
      rounded = b.create<mlir::arith::NegFOp>(loc, down);
    } else {
      // Resize-10 (ONNX Runtime's "simple"): up when downsampling, else
      // truncated.
      const ScaleSource& source = scales_[dim];
      const bool down = source.constant && *source.constant < 1.0;
      rounded = down ? b.create<mlir::math::CeilOp>(loc, coordinate).getResult()
                     : b.create<mlir::math::TruncOp>(loc, coordinate).getResult();
    }
    return {{Clamp(b, loc, FloatToIndex(b, loc, rounded), last), nullptr}};
  }
  mlir::Value ratio = b.create<mlir::arith::SubFOp>(loc, coordinate, floor);
  mlir::Value base = FloatToIndex(b, loc, floor);
  auto offset_index = [&](int64_t offset) {
    return b.create<mlir::arith::AddIOp>(loc, base,
                                         b.create<mlir::arith::ConstantIndexOp>(loc, offset))
        .getResult();
  };
  auto sub = [&](mlir::Value p, mlir::Value q) { return b.create<mlir::arith::SubFOp>(loc, p, q).getResult(); };
  auto mul = [&](mlir::Value p, mlir::Value q) { return b.create<mlir::arith::MulFOp>(loc, p, q).getResult(); };
  auto add = [&](mlir::Value p, mlir::Value q) { return b.create<mlir::arith::AddFOp>(loc, p, q).getResult(); };
  mlir::Value one = Float(b, loc, 1);
  if (mode_ == "linear") {
    return {{Clamp(b, loc, base, last), sub(one, ratio)},
            {Clamp(b, loc, offset_index(1), last), ratio}};
  }
  // Cubic convolution with coefficient A at distances 1 + r, r, 1 - r,
  // 2 - r from the taps floor - 1 ... floor + 2.
  const double a = cubic_a_;
  auto near = [&](mlir::Value t) {  // |t| <= 1: ((A + 2) t - (A + 3)) t^2 + 1
    mlir::Value inner = sub(mul(Float(b, loc, a + 2), t), Float(b, loc, a + 3));
    return add(mul(mul(inner, t), t), one);
  };
  auto far = [&](mlir::Value t) {  // 1 < |t| < 2: ((A t - 5A) t + 8A) t - 4A
    mlir::Value inner = sub(mul(Float(b, loc, a), t), Float(b, loc, 5 * a));
    return sub(mul(add(mul(inner, t), Float(b, loc, 8 * a)), t), Float(b, loc, 4 * a));
  };
  llvm::SmallVector<mlir::Value> weights = {far(add(ratio, one)), near(ratio), near(sub(one, ratio)),
                                            far(sub(Float(b, loc, 2), ratio))};
  llvm::SmallVector<Tap> taps;
  llvm::SmallVector<mlir::Value> indices;
  for (int64_t t = 0; t < 4; ++t) indices.push_back(offset_index(t - 1));
  if (exclude_outside_) {
    mlir::Value zero_index = b.create<mlir::arith::ConstantIndexOp>(loc, 0);
    mlir::Value total = Float(b, loc, 0);
    for (int64_t t = 0; t < 4; ++t) {
      mlir::Value inside = b.create<mlir::arith::AndIOp>(
          loc,
          b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::sge, indices[t], zero_index),
          b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::sle, indices[t], last));
      weights[t] = b.create<mlir::arith::SelectOp>(loc, inside, weights[t], Float(b, loc, 0));
      total = add(total, weights[t]);
    }
    for (int64_t t = 0; t < 4; ++t) {
      weights[t] = b.create<mlir::arith::DivFOp>(loc, weights[t], total);
    }
  }
  for (int64_t t = 0; t < 4; ++t) taps.push_back({Clamp(b, loc, indices[t], last), weights[t]});
  return taps;
}

mlir::LogicalResult Interpolation::Convert() {
  NodeImporter& node = node_;
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  const OnnxElementType type = node.InputElementType(0);
  x_ = node.Input(0);
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x_.getType());
  if (!x_type) return node.Fail("an input of unknown rank is not supported");
  rank_ = x_type.getRank();
  mlir::Type element_type = x_type.getElementType();
  mode_ = node.StringAttribute("mode", "nearest");
  if (mode_ != "nearest" && mode_ != "linear" && mode_ != "cubic") {
    return node.Fail("unknown mode '" + mode_ + "'");
  }
  if (mode_ == "cubic" && node.opset() < 11) return node.Fail("cubic needs opset 11");
  if (mode_ != "nearest" && !IsFloat(type)) {
    return node.Fail(mode_ + " interpolation of " + OnnxElementTypeName(type) +
                     " is not supported");
  }
  compute_type_ = element_type.isF64() ? element_type : b.getF32Type();
  const bool opset10 = node.opset() < 11;
  transformation_ =
      opset10 ? "asymmetric" : node.StringAttribute("coordinate_transformation_mode", "half_pixel");
  nearest_mode_ = opset10 ? "simple" : node.StringAttribute("nearest_mode", "round_prefer_floor");
  cubic_a_ = node.FloatAttribute("cubic_coeff_a", -0.75f);
  exclude_outside_ = node.IntAttribute("exclude_outside", 0) != 0;
  extrapolation_value_ = node.FloatAttribute("extrapolation_value", 0.0f);
  static const char* kTransformations[] = {"half_pixel",    "pytorch_half_pixel",
                                           "align_corners", "asymmetric",
                                           "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (!llvm::is_contained(kTransformations, transformation_)) {
    return node.Fail("unknown coordinate_transformation_mode '" + transformation_ + "'");
  }
  static const char* kNearestModes[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
                                        "simple"};
  if (!llvm::is_contained(kNearestModes, nearest_mode_)) {
    return node.Fail("unknown nearest_mode '" + nearest_mode_ + "'");
  }
  if (node.HasAttribute("antialias") || node.HasAttribute("axes") ||
      node.HasAttribute("keep_aspect_ratio_policy")) {
    return node.Fail("antialias, axes and keep_aspect_ratio_policy (opset 18) are not supported");
  }
  const int64_t scales_index = opset10 ? 1 : 2;
  const int64_t sizes_index = 3;
  in_sizes_ = TensorSizes(b, loc, x_);
  auto inferred = llvm::dyn_cast_or_null<mlir::RankedTensorType>(node.InferredOutputType(0));
  scales_.assign(rank_, ScaleSource());
  out_sizes_.assign(rank_, mlir::OpFoldResult());
  if (!opset10 && HasNonEmptyInput(node, sizes_index)) {
    if (HasNonEmptyInput(node, scales_index)) return node.Fail("give scales or sizes, not both");
    std::optional<std::vector<int64_t>> sizes = node.InputInts(sizes_index);
    for (int64_t d = 0; d < rank_; ++d) {
      if (sizes) {
        if (static_cast<int64_t>(sizes->size()) != rank_) {
          return node.Fail("sizes has " + std::to_string(sizes->size()) + " values for rank " +
                           std::to_string(rank_));
        }
        out_sizes_[d] = b.getIndexAttr((*sizes)[d]);
      } else if (inferred && inferred.getRank() == rank_ && !inferred.isDynamicDim(d)) {
        out_sizes_[d] = b.getIndexAttr(inferred.getDimSize(d));
      } else {
        return node.Fail("sizes must be known at import time (or the output shape inferred)");
      }
      scales_[d].from_sizes = true;
      std::optional<int64_t> in = mlir::getConstantIntValue(in_sizes_[d]);
      if (in && *in == *mlir::getConstantIntValue(out_sizes_[d])) {
        scales_[d].from_sizes = false;
        scales_[d].constant = 1.0;
      }
    }
  } else {
    if (!HasNonEmptyInput(node, scales_index)) return node.Fail("needs scales or sizes");
    mlir::Value scales = node.Input(scales_index);
    const OnnxElementType scales_type = node.InputElementType(scales_index);
    mlir::DenseElementsAttr constant = node.InputConstant(scales_index);
    std::vector<double> values;
    if (constant) {
      for (const llvm::APFloat& value : constant.getValues<llvm::APFloat>()) {
        values.push_back(value.convertToDouble());
      }
      if (static_cast<int64_t>(values.size()) != rank_) {
        return node.Fail("scales has " + std::to_string(values.size()) + " values for rank " +
                         std::to_string(rank_));
      }
    }
    for (int64_t d = 0; d < rank_; ++d) {
      if (constant) {
        if (values[d] <= 0) return node.Fail("scales must be positive");
        scales_[d].constant = values[d];
      } else {
        scales_[d].tensor = scales;
        scales_[d].tensor_type = scales_type;
      }
      if (inferred && inferred.getRank() == rank_ && !inferred.isDynamicDim(d)) {
        out_sizes_[d] = b.getIndexAttr(inferred.getDimSize(d));
      } else if (constant) {
        // floor(in * scale), in f32 as ONNX computes it.
        std::optional<int64_t> in = mlir::getConstantIntValue(in_sizes_[d]);
        if (in) {
          out_sizes_[d] = b.getIndexAttr(static_cast<int64_t>(
              std::floor(static_cast<float>(*in) * static_cast<float>(values[d]))));
        } else {
          mlir::Value in_value = b.create<mlir::arith::SIToFPOp>(
              loc, b.getF32Type(),
              b.create<mlir::arith::IndexCastOp>(loc, b.getI64Type(),
                                                 IndexValue(b, loc, in_sizes_[d])));
          mlir::Value scaled = b.create<mlir::arith::MulFOp>(
              loc, in_value, ScalarConstant(b, loc, b.getF32Type(), values[d]));
          mlir::Value floor = b.create<mlir::math::FloorOp>(loc, scaled);
          out_sizes_[d] = b.create<mlir::arith::IndexCastOp>(
                               loc, b.getIndexType(),
                               b.create<mlir::arith::FPToSIOp>(loc, b.getI64Type(), floor))
                              .getResult();
        }
      } else {
        return node.Fail("scales must be known at import time (or the output shape inferred)");
      }
    }
  }
  if (transformation_ == "tf_crop_and_resize") {
    if (!HasNonEmptyInput(node, 1)) return node.Fail("tf_crop_and_resize needs roi");
    mlir::DenseElementsAttr roi = node.InputConstant(1);
    if (roi) {
      for (const llvm::APFloat& value : roi.getValues<llvm::APFloat>()) {
        roi_constant_.push_back(value.convertToDouble());
      }
      if (static_cast<int64_t>(roi_constant_.size()) != 2 * rank_) {
        return node.Fail("roi has " + std::to_string(roi_constant_.size()) + " values for rank " +
                         std::to_string(rank_));
      }
    } else {
      roi_ = node.Input(1);
      roi_type_ = node.InputElementType(1);
      if (!IsFloat(roi_type_)) return node.Fail("roi must be floating-point");
    }
  }
  identity_.assign(rank_, false);
  for (int64_t d = 0; d < rank_; ++d) {
    std::optional<int64_t> in = mlir::getConstantIntValue(in_sizes_[d]);
    std::optional<int64_t> out = mlir::getConstantIntValue(out_sizes_[d]);
    const bool unit = in && out && *in == 1 && *out == 1;
    const bool same = in && out && *in == *out && scales_[d].constant && *scales_[d].constant == 1.0;
    identity_[d] = transformation_ != "tf_crop_and_resize" &&
                   transformation_ != "tf_half_pixel_for_nn" && (unit || same);
    if (transformation_ == "tf_crop_and_resize" && unit) identity_[d] = false;
  }

  mlir::Value init = EmptyTensor(b, loc, out_sizes_, element_type);
  llvm::SmallVector<IteratorType> iterators(rank_, IteratorType::parallel);
  mlir::Value result = BuildGeneric(
      b, loc, {}, {}, init, b.getMultiDimIdentityMap(rank_), iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange) -> mlir::Value {
        llvm::SmallVector<llvm::SmallVector<Tap>> taps;
        mlir::Value outside;
        for (int64_t d = 0; d < rank_; ++d) {
          mlir::Value index = nested.create<mlir::linalg::IndexOp>(nested_loc, d);
          if (identity_[d]) {
            taps.push_back({{index, nullptr}});
            continue;
          }
          mlir::Value coordinate =
              SourceCoordinate(nested, nested_loc, d, IndexToFloat(nested, nested_loc, index), outside);
          taps.push_back(Taps(nested, nested_loc, d, coordinate));
        }
        // The sum over every combination of the dimensions' taps.
        mlir::Value sum;
        llvm::SmallVector<size_t> choice(rank_, 0);
        while (true) {
          llvm::SmallVector<mlir::Value> indices;
          mlir::Value weight;
          for (int64_t d = 0; d < rank_; ++d) {
            const Tap& tap = taps[d][choice[d]];
            indices.push_back(tap.index);
            if (tap.weight) {
              weight = weight ? nested.create<mlir::arith::MulFOp>(nested_loc, weight, tap.weight)
                                    .getResult()
                              : tap.weight;
            }
          }
          mlir::Value element = nested.create<mlir::tensor::ExtractOp>(nested_loc, x_, indices);
          if (mode_ == "nearest") {
            sum = element;
            break;
          }
          element = ConvertScalar(nested, nested_loc, element, type, ElementTypeOf(compute_type_));
          mlir::Value term =
              weight ? nested.create<mlir::arith::MulFOp>(nested_loc, element, weight).getResult()
                     : element;
          sum = sum ? nested.create<mlir::arith::AddFOp>(nested_loc, sum, term).getResult() : term;
          int64_t d = rank_ - 1;
          while (d >= 0 && ++choice[d] == taps[d].size()) choice[d--] = 0;
          if (d < 0) break;
        }
        if (mode_ != "nearest") {
          sum = ConvertScalar(nested, nested_loc, sum, ElementTypeOf(compute_type_), type);
        }
        if (outside) {
          mlir::Value fill = ScalarConstant(nested, nested_loc, element_type, extrapolation_value_);
          sum = nested.create<mlir::arith::SelectOp>(nested_loc, outside, fill, sum);
        }
        return sum;
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

mlir::LogicalResult ConvertResize(NodeImporter& node) { return Interpolation(node).Convert(); }

}  // namespace

void RegisterResizeOps(OpRegistry& registry) { registry.Register("Resize", ConvertResize, 10); }

}  // namespace kiln::onnx_import
