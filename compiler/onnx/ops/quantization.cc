// Quantization ops: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
// QLinearMatMul, QLinearConv (uint8/int8, per-tensor or per-axis scales).
//
// Quantizing rounds half to even (math.roundeven) and saturates to the
// integer type's range, as ONNX specifies. Integer products accumulate in
// i32 after subtracting the zero points (as ONNX Runtime's reference
// kernels do), and the real multiplier a_scale * b_scale / y_scale is
// applied in f32.
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/misc_helpers.h"
#include "compiler/onnx/ops/misc_registration.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

using misc::Generic;
using misc::IdentityMap;
using misc::Parallel;

bool IsQuantizedType(OnnxElementType type) {
  return type == onnx::TensorProto::UINT8 || type == onnx::TensorProto::INT8;
}

// The range of a quantized type.
std::pair<double, double> QuantizedRange(OnnxElementType type) {
  return type == onnx::TensorProto::UINT8 ? std::pair{0.0, 255.0} : std::pair{-128.0, 127.0};
}

// saturate(roundeven(value) + zero_point) as ONNX type `type`; `value` f32
// (already divided by the scale), `zero_point` an integer scalar of `type`
// or null.
mlir::Value QuantizeScalar(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                           mlir::Value zero_point, OnnxElementType type) {
  mlir::Value rounded = b.create<mlir::math::RoundEvenOp>(loc, value);
  if (zero_point) {
    rounded = b.create<mlir::arith::AddFOp>(loc, rounded, misc::ToF32(b, loc, zero_point, type));
  }
  auto [low, high] = QuantizedRange(type);
  mlir::Value clamped = misc::Clamp(b, loc, rounded, low, high);
  mlir::Type target = b.getI8Type();
  if (IsUnsigned(type)) return b.create<mlir::arith::FPToUIOp>(loc, target, clamped);
  return b.create<mlir::arith::FPToSIOp>(loc, target, clamped);
}

// An integer scalar of ONNX type `type` widened to i32 by its signedness.
mlir::Value ToI32(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value, OnnxElementType type) {
  return ConvertScalar(b, loc, value, type, onnx::TensorProto::INT32);
}

// The axis of a per-axis quantization (opset 13's attribute; before, only
// per-tensor parameters exist and the axis is unused).
mlir::FailureOr<int64_t> QuantizationAxis(NodeImporter& node, int64_t rank, mlir::Value scale) {
  const int64_t axis = node.IntAttribute("axis", 1);
  // Per-tensor parameters ignore the axis (its default may exceed the rank).
  if (rank == 0 || misc::IsSingleElement(scale)) return 0;
  return NormalizeAxis(node, axis, rank);
}

mlir::LogicalResult ConvertQuantizeLinear(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Value x = node.Input(0);
  mlir::Value scale = node.Input(1);
  mlir::Value zero_point = node.Input(2);
  const OnnxElementType x_type = node.InputElementType(0);
  if (!IsFloat(x_type) && x_type != onnx::TensorProto::INT32) {
    return node.Fail("input of type " + OnnxElementTypeName(x_type) + " is not supported");
  }
  const OnnxElementType out_type = zero_point
                                       ? node.InputElementType(2)
                                       : static_cast<OnnxElementType>(onnx::TensorProto::UINT8);
  if (!IsQuantizedType(out_type)) {
    return node.Fail("quantizing to " + OnnxElementTypeName(out_type) +
                     " is not supported (uint8 and int8 are)");
  }
  const OnnxElementType scale_type = node.InputElementType(1);
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::FailureOr<int64_t> axis = QuantizationAxis(node, *rank, scale);
  if (mlir::failed(axis)) return mlir::failure();
  mlir::FailureOr<mlir::AffineMap> scale_map =
      misc::ParameterMap(node, scale, *rank, *axis, "y_scale");
  if (mlir::failed(scale_map)) return mlir::failure();
  llvm::SmallVector<mlir::Value> inputs{x, scale};
  llvm::SmallVector<mlir::AffineMap> maps{IdentityMap(&node.context(), *rank), *scale_map};
  if (zero_point) {
    mlir::FailureOr<mlir::AffineMap> zp_map =
        misc::ParameterMap(node, zero_point, *rank, *axis, "y_zero_point");
    if (mlir::failed(zp_map)) return mlir::failure();
    inputs.push_back(zero_point);
    maps.push_back(*zp_map);
  }
  mlir::Value result = misc::BuildIndexed(
      b, node.loc(), TensorSizes(b, node.loc(), x), b.getI8Type(), inputs, maps,
      [&](mlir::OpBuilder& nb, mlir::Location loc, mlir::ValueRange args) {
        mlir::Value value = misc::ToF32(nb, loc, args[0], x_type);
        mlir::Value s = misc::ToF32(nb, loc, args[1], scale_type);
        value = nb.create<mlir::arith::DivFOp>(loc, value, s);
        return QuantizeScalar(nb, loc, value, zero_point ? args[2] : mlir::Value(), out_type);
      });
  node.SetOutput(0, result, out_type);
  return mlir::success();
}

mlir::LogicalResult ConvertDequantizeLinear(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Value x = node.Input(0);
  mlir::Value scale = node.Input(1);
  mlir::Value zero_point = node.Input(2);
  const OnnxElementType x_type = node.InputElementType(0);
  if (!IsQuantizedType(x_type) && x_type != onnx::TensorProto::INT32) {
    return node.Fail("dequantizing " + OnnxElementTypeName(x_type) +
                     " is not supported (uint8, int8 and int32 are)");
  }
  const OnnxElementType scale_type = node.InputElementType(1);
  if (!IsFloat(scale_type)) return node.Fail("x_scale must be a float tensor");
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::FailureOr<int64_t> axis = QuantizationAxis(node, *rank, scale);
  if (mlir::failed(axis)) return mlir::failure();
  mlir::FailureOr<mlir::AffineMap> scale_map =
      misc::ParameterMap(node, scale, *rank, *axis, "x_scale");
  if (mlir::failed(scale_map)) return mlir::failure();
  llvm::SmallVector<mlir::Value> inputs{x, scale};
  llvm::SmallVector<mlir::AffineMap> maps{IdentityMap(&node.context(), *rank), *scale_map};
  if (zero_point) {
    mlir::FailureOr<mlir::AffineMap> zp_map =
        misc::ParameterMap(node, zero_point, *rank, *axis, "x_zero_point");
    if (mlir::failed(zp_map)) return mlir::failure();
    inputs.push_back(zero_point);
    maps.push_back(*zp_map);
  }
  mlir::Type result_type = ConvertElementType(node.context(), scale_type);
  mlir::Value result = misc::BuildIndexed(
      b, node.loc(), TensorSizes(b, node.loc(), x), result_type, inputs, maps,
      [&](mlir::OpBuilder& nb, mlir::Location loc, mlir::ValueRange args) {
        // (x - zero_point) exactly in i32, then scaled.
        mlir::Value value = ToI32(nb, loc, args[0], x_type);
        if (zero_point) {
          value = nb.create<mlir::arith::SubIOp>(loc, value,
                                                 ToI32(nb, loc, args[2], node.InputElementType(2)));
        }
        mlir::Value real = nb.create<mlir::arith::SIToFPOp>(loc, nb.getF32Type(), value);
        mlir::Value s = misc::ToF32(nb, loc, args[1], scale_type);
        real = nb.create<mlir::arith::MulFOp>(loc, real, s);
        return ConvertScalar(nb, loc, real, onnx::TensorProto::FLOAT, scale_type);
      });
  node.SetOutput(0, result, scale_type);
  return mlir::success();
}

// A reduction of `x` (f32, any rank) to a 0-d tensor with `combine`, from
// `initial`.
mlir::Value ReduceAll(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, double initial,
                      bool is_max) {
  const int64_t rank = llvm::cast<mlir::RankedTensorType>(x.getType()).getRank();
  mlir::Value init = FilledTensor(b, loc, {}, ScalarConstant(b, loc, b.getF32Type(), initial));
  llvm::SmallVector<mlir::AffineMap> maps{IdentityMap(b.getContext(), rank),
                                          mlir::AffineMap::get(rank, 0, {}, b.getContext())};
  llvm::SmallVector<mlir::utils::IteratorType> iterators(rank,
                                                         mlir::utils::IteratorType::reduction);
  return Generic(b, loc, x, init, maps, iterators,
                 [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
                   mlir::Value r =
                       is_max ? nb.create<mlir::arith::MaximumFOp>(l, args[0], args[1]).getResult()
                              : nb.create<mlir::arith::MinimumFOp>(l, args[0], args[1]).getResult();
                   return llvm::SmallVector<mlir::Value>{r};
                 })[0];
}

mlir::LogicalResult ConvertDynamicQuantizeLinear(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::Value x = node.Input(0);
  if (node.InputElementType(0) != onnx::TensorProto::FLOAT) {
    return node.Fail("input must be float");
  }
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  // The range always includes 0 (ONNX: the zero point must be exact).
  mlir::Value x_max = ReduceAll(b, loc, x, 0.0, /*is_max=*/true);
  mlir::Value x_min = ReduceAll(b, loc, x, 0.0, /*is_max=*/false);
  mlir::MLIRContext* context = &node.context();
  mlir::AffineMap scalar_map = mlir::AffineMap::get(0, 0, {}, context);
  mlir::Value scale_init = EmptyTensor(b, loc, {}, b.getF32Type());
  mlir::Value zp_init = EmptyTensor(b, loc, {}, b.getI8Type());
  llvm::SmallVector<mlir::Value> params = Generic(
      b, loc, {x_max, x_min}, {scale_init, zp_init},
      {scalar_map, scalar_map, scalar_map, scalar_map}, {},
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
        mlir::Value range = nb.create<mlir::arith::SubFOp>(l, args[0], args[1]);
        mlir::Value scale =
            nb.create<mlir::arith::DivFOp>(l, range, ScalarConstant(nb, l, nb.getF32Type(), 255.0));
        mlir::Value zero = ScalarConstant(nb, l, nb.getF32Type(), 0.0);
        mlir::Value neg_min = nb.create<mlir::arith::SubFOp>(l, zero, args[1]);
        mlir::Value zp = QuantizeScalar(nb, l, nb.create<mlir::arith::DivFOp>(l, neg_min, scale),
                                        mlir::Value(), onnx::TensorProto::UINT8);
        return llvm::SmallVector<mlir::Value>{scale, zp};
      });
  mlir::AffineMap to_scalar = mlir::AffineMap::get(*rank, 0, {}, context);
  mlir::Value y =
      misc::BuildIndexed(b, loc, TensorSizes(b, loc, x), b.getI8Type(), {x, params[0], params[1]},
                         {IdentityMap(context, *rank), to_scalar, to_scalar},
                         [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
                           mlir::Value value = nb.create<mlir::arith::DivFOp>(l, args[0], args[1]);
                           return QuantizeScalar(nb, l, value, args[2], onnx::TensorProto::UINT8);
                         });
  node.SetOutput(0, y, onnx::TensorProto::UINT8);
  node.SetOutput(1, params[0], onnx::TensorProto::FLOAT);
  node.SetOutput(2, params[1], onnx::TensorProto::UINT8);
  return mlir::success();
}

// Requantizes an i32 accumulator tensor `acc` (rank `rank`):
// saturate(roundeven(acc * a_scale * b_scale / y_scale) + y_zero_point), the
// scales read through their maps.
mlir::Value Requantize(NodeImporter& node, mlir::Value acc, mlir::ValueRange scales,
                       llvm::ArrayRef<mlir::AffineMap> scale_maps, mlir::Value y_zero_point,
                       mlir::AffineMap zp_map, OnnxElementType out_type) {
  mlir::OpBuilder& b = node.builder();
  const int64_t rank = llvm::cast<mlir::RankedTensorType>(acc.getType()).getRank();
  llvm::SmallVector<mlir::Value> inputs{acc};
  llvm::SmallVector<mlir::AffineMap> maps{IdentityMap(&node.context(), rank)};
  inputs.append(scales.begin(), scales.end());
  maps.append(scale_maps.begin(), scale_maps.end());
  if (y_zero_point) {
    inputs.push_back(y_zero_point);
    maps.push_back(zp_map);
  }
  return misc::BuildIndexed(
      b, node.loc(), TensorSizes(b, node.loc(), acc), b.getI8Type(), inputs, maps,
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
        // scales: a_scale, b_scale, y_scale.
        mlir::Value multiplier = nb.create<mlir::arith::MulFOp>(l, args[1], args[2]);
        multiplier = nb.create<mlir::arith::DivFOp>(l, multiplier, args[3]);
        mlir::Value real = nb.create<mlir::arith::SIToFPOp>(l, nb.getF32Type(), args[0]);
        real = nb.create<mlir::arith::MulFOp>(l, real, multiplier);
        return QuantizeScalar(nb, l, real, y_zero_point ? args[4] : mlir::Value(), out_type);
      });
}

// Checks the scale (f32) and zero point (uint8/int8 like the data) inputs
// `scale_index`, `scale_index + 1` of a QLinear op.
mlir::LogicalResult CheckQuantParameters(NodeImporter& node, int64_t scale_index,
                                         int64_t data_index) {
  if (node.InputElementType(scale_index) != onnx::TensorProto::FLOAT) {
    return node.Fail("input " + std::to_string(scale_index) + " (a scale) must be float");
  }
  if (node.HasInput(scale_index + 1) &&
      node.InputElementType(scale_index + 1) != node.InputElementType(data_index)) {
    return node.Fail("input " + std::to_string(scale_index + 1) +
                     " (a zero point) must have the type of its data");
  }
  return mlir::success();
}

mlir::LogicalResult ConvertQLinearMatMul(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = &node.context();
  mlir::Value a = node.Input(0), a_scale = node.Input(1), a_zp = node.Input(2);
  mlir::Value bm = node.Input(3), b_scale = node.Input(4), b_zp = node.Input(5);
  mlir::Value y_scale = node.Input(6), y_zp = node.Input(7);
  for (int64_t i = 0; i < 8; ++i) {
    if (!node.HasInput(i)) return node.Fail("input " + std::to_string(i) + " is required");
  }
  const OnnxElementType a_type = node.InputElementType(0), b_type = node.InputElementType(3);
  const OnnxElementType y_type = node.InputElementType(7);
  if (!IsQuantizedType(a_type) || !IsQuantizedType(b_type) || !IsQuantizedType(y_type)) {
    return node.Fail("a, b and y must be uint8 or int8");
  }
  for (int64_t i : {1, 4, 6}) {
    if (mlir::failed(CheckQuantParameters(node, i, i == 1 ? 0 : i == 4 ? 3 : 7))) {
      return mlir::failure();
    }
  }
  auto a_type_t = llvm::dyn_cast<mlir::RankedTensorType>(a.getType());
  auto b_type_t = llvm::dyn_cast<mlir::RankedTensorType>(bm.getType());
  if (!a_type_t || !b_type_t || a_type_t.getRank() < 2 || b_type_t.getRank() < 2) {
    return node.Fail("operands of rank below 2 (or unknown) are not supported");
  }
  const int64_t a_rank = a_type_t.getRank(), b_rank = b_type_t.getRank();
  const int64_t batch = std::max(a_rank, b_rank) - 2;
  // Loops: batch..., m, n, k.
  const int64_t loops = batch + 3;
  const int64_t m_dim = batch, n_dim = batch + 1, k_dim = batch + 2;
  llvm::SmallVector<mlir::OpFoldResult> sizes;
  for (int64_t d = 0; d < batch; ++d) {
    const int64_t ad = d - (batch - (a_rank - 2)), bd = d - (batch - (b_rank - 2));
    std::optional<int64_t> size;
    mlir::OpFoldResult dynamic;
    for (auto [type, value, dim] : {std::tuple{a_type_t, a, ad}, std::tuple{b_type_t, bm, bd}}) {
      if (dim < 0) continue;
      if (type.isDynamicDim(dim)) {
        if (!dynamic) dynamic = b.create<mlir::tensor::DimOp>(loc, value, dim).getResult();
      } else if (type.getDimSize(dim) != 1) {
        if (size && *size != type.getDimSize(dim)) {
          return node.Fail("batch dimensions do not broadcast");
        }
        size = type.getDimSize(dim);
      }
    }
    if (size) {
      sizes.push_back(b.getIndexAttr(*size));
    } else if (dynamic) {
      sizes.push_back(dynamic);
    } else {
      sizes.push_back(b.getIndexAttr(1));
    }
  }
  auto operand_map = [&](mlir::RankedTensorType type, int64_t row, int64_t col) {
    llvm::SmallVector<mlir::AffineExpr> exprs;
    const int64_t rank = type.getRank();
    for (int64_t i = 0; i < rank - 2; ++i) {
      const int64_t d = i + (batch - (rank - 2));
      std::optional<int64_t> out = mlir::getConstantIntValue(sizes[d]);
      const bool broadcast = type.getDimSize(i) == 1 && (!out || *out != 1);
      exprs.push_back(broadcast ? mlir::getAffineConstantExpr(0, context)
                                : mlir::getAffineDimExpr(d, context));
    }
    exprs.push_back(mlir::getAffineDimExpr(row, context));
    exprs.push_back(mlir::getAffineDimExpr(col, context));
    return mlir::AffineMap::get(loops, 0, exprs, context);
  };
  // Per-row a parameters (a 1-D tensor of M) read along m; per-column b
  // parameters along n.
  mlir::FailureOr<mlir::AffineMap> a_zp_map =
      misc::ParameterMap(node, a_zp, loops, m_dim, "a_zero_point");
  mlir::FailureOr<mlir::AffineMap> b_zp_map =
      misc::ParameterMap(node, b_zp, loops, n_dim, "b_zero_point");
  if (mlir::failed(a_zp_map) || mlir::failed(b_zp_map)) return mlir::failure();
  sizes.push_back(TensorSizes(b, loc, a)[a_rank - 2]);
  sizes.push_back(TensorSizes(b, loc, bm)[b_rank - 1]);
  mlir::Value zero = ScalarConstant(b, loc, b.getI32Type(), 0);
  mlir::Value acc_init = FilledTensor(b, loc, sizes, zero);
  llvm::SmallVector<mlir::AffineExpr> out_exprs;
  for (int64_t d = 0; d < batch + 2; ++d) out_exprs.push_back(mlir::getAffineDimExpr(d, context));
  llvm::SmallVector<mlir::utils::IteratorType> iterators = Parallel(loops);
  iterators[k_dim] = mlir::utils::IteratorType::reduction;
  mlir::Value acc =
      Generic(b, loc, {a, bm, a_zp, b_zp}, acc_init,
              {operand_map(a_type_t, m_dim, k_dim), operand_map(b_type_t, k_dim, n_dim), *a_zp_map,
               *b_zp_map, mlir::AffineMap::get(loops, 0, out_exprs, context)},
              iterators, [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
                mlir::Value av = nb.create<mlir::arith::SubIOp>(l, ToI32(nb, l, args[0], a_type),
                                                                ToI32(nb, l, args[2], a_type));
                mlir::Value bv = nb.create<mlir::arith::SubIOp>(l, ToI32(nb, l, args[1], b_type),
                                                                ToI32(nb, l, args[3], b_type));
                mlir::Value product = nb.create<mlir::arith::MulIOp>(l, av, bv);
                return llvm::SmallVector<mlir::Value>{
                    nb.create<mlir::arith::AddIOp>(l, args[4], product).getResult()};
              })[0];
  const int64_t out_rank = batch + 2;
  mlir::FailureOr<mlir::AffineMap> a_scale_map =
      misc::ParameterMap(node, a_scale, out_rank, m_dim, "a_scale");
  mlir::FailureOr<mlir::AffineMap> b_scale_map =
      misc::ParameterMap(node, b_scale, out_rank, n_dim, "b_scale");
  mlir::FailureOr<mlir::AffineMap> y_scale_map =
      misc::ParameterMap(node, y_scale, out_rank, -1, "y_scale");
  mlir::FailureOr<mlir::AffineMap> y_zp_map =
      misc::ParameterMap(node, y_zp, out_rank, -1, "y_zero_point");
  if (mlir::failed(a_scale_map) || mlir::failed(b_scale_map) || mlir::failed(y_scale_map) ||
      mlir::failed(y_zp_map)) {
    return mlir::failure();
  }
  mlir::Value y = Requantize(node, acc, {a_scale, b_scale, y_scale},
                             {*a_scale_map, *b_scale_map, *y_scale_map}, y_zp, *y_zp_map, y_type);
  node.SetOutput(0, y, y_type);
  return mlir::success();
}

mlir::LogicalResult ConvertQLinearConv(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = &node.context();
  mlir::Value x = node.Input(0), x_scale = node.Input(1), x_zp = node.Input(2);
  mlir::Value w = node.Input(3), w_scale = node.Input(4), w_zp = node.Input(5);
  mlir::Value y_scale = node.Input(6), y_zp = node.Input(7), bias = node.Input(8);
  for (int64_t i = 0; i < 8; ++i) {
    if (!node.HasInput(i)) return node.Fail("input " + std::to_string(i) + " is required");
  }
  const OnnxElementType x_type = node.InputElementType(0), w_type = node.InputElementType(3);
  const OnnxElementType y_type = node.InputElementType(7);
  if (!IsQuantizedType(x_type) || !IsQuantizedType(w_type) || !IsQuantizedType(y_type)) {
    return node.Fail("x, w and y must be uint8 or int8");
  }
  for (int64_t i : {1, 4, 6}) {
    if (mlir::failed(CheckQuantParameters(node, i, i == 1 ? 0 : i == 4 ? 3 : 7))) {
      return mlir::failure();
    }
  }
  if (bias && node.InputElementType(8) != onnx::TensorProto::INT32) {
    return node.Fail("B must be int32");
  }
  auto x_t = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  auto w_t = llvm::dyn_cast<mlir::RankedTensorType>(w.getType());
  if (!x_t || !w_t || x_t.getRank() < 3 || w_t.getRank() != x_t.getRank() ||
      !w_t.hasStaticShape()) {
    return node.Fail("x and w must have the same rank (3 or more) and w a static shape");
  }
  const int64_t spatial = x_t.getRank() - 2;
  for (int64_t i = 1; i < x_t.getRank(); ++i) {
    if (x_t.isDynamicDim(i)) {
      return node.Fail("dynamic channel or spatial sizes of x are not supported");
    }
  }
  const int64_t group = node.IntAttribute("group", 1);
  const int64_t channels = x_t.getDimSize(1), out_channels = w_t.getDimSize(0);
  const int64_t group_channels = w_t.getDimSize(1);
  if (group < 1 || channels != group * group_channels || out_channels % group != 0) {
    return node.Fail("channels do not match w's shape and group " + std::to_string(group));
  }
  std::vector<int64_t> kernel(w_t.getShape().begin() + 2, w_t.getShape().end());
  std::vector<int64_t> kernel_attr = node.IntsAttribute("kernel_shape", kernel);
  if (kernel_attr != kernel) return node.Fail("kernel_shape does not match w");
  std::vector<int64_t> strides = node.IntsAttribute("strides", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> dilations =
      node.IntsAttribute("dilations", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = node.IntsAttribute("pads", std::vector<int64_t>(2 * spatial, 0));
  if (static_cast<int64_t>(strides.size()) != spatial ||
      static_cast<int64_t>(dilations.size()) != spatial ||
      static_cast<int64_t>(pads.size()) != 2 * spatial) {
    return node.Fail("strides, dilations and pads must have one entry per spatial dimension");
  }
  const std::string auto_pad = node.StringAttribute("auto_pad", "NOTSET");
  std::vector<int64_t> out_sizes(spatial);
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t in = x_t.getDimSize(2 + i);
    const int64_t effective = dilations[i] * (kernel[i] - 1) + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t out = (in + strides[i] - 1) / strides[i];
      const int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + effective - in);
      const int64_t small = total / 2;
      pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[spatial + i] = total - pads[i];
    } else if (auto_pad == "VALID") {
      pads[i] = pads[spatial + i] = 0;
    } else if (auto_pad != "NOTSET") {
      return node.Fail("auto_pad '" + auto_pad + "' is not supported");
    }
    out_sizes[i] = (in + pads[i] + pads[spatial + i] - effective) / strides[i] + 1;
    if (out_sizes[i] < 1) return node.Fail("the output would be empty");
  }
  // x - x_zero_point in i32; padding with 0 is then padding x with its zero
  // point, as ONNX specifies.
  mlir::FailureOr<mlir::AffineMap> x_zp_map =
      misc::ParameterMap(node, x_zp, x_t.getRank(), -1, "x_zero_point");
  if (mlir::failed(x_zp_map)) return mlir::failure();
  mlir::Value shifted = misc::BuildIndexed(
      b, loc, TensorSizes(b, loc, x), b.getI32Type(), {x, x_zp},
      {IdentityMap(context, x_t.getRank()), *x_zp_map},
      [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) -> mlir::Value {
        return nb.create<mlir::arith::SubIOp>(l, ToI32(nb, l, args[0], x_type),
                                              ToI32(nb, l, args[1], x_type));
      });
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
    llvm::SmallVector<mlir::OpFoldResult> low(2, b.getIndexAttr(0)), high(2, b.getIndexAttr(0));
    for (int64_t i = 0; i < spatial; ++i) {
      low.push_back(b.getIndexAttr(pads[i]));
      high.push_back(b.getIndexAttr(pads[spatial + i]));
    }
    llvm::SmallVector<int64_t> padded_shape(x_t.getShape());
    for (int64_t i = 0; i < spatial; ++i) padded_shape[2 + i] += pads[i] + pads[spatial + i];
    auto padded_type = mlir::RankedTensorType::get(padded_shape, b.getI32Type());
    shifted = b.create<mlir::tensor::PadOp>(loc, padded_type, shifted, low, high,
                                            ScalarConstant(b, loc, b.getI32Type(), 0));
  }
  // Loops: n, m, output spatial..., c (within the group), kernel spatial...
  const int64_t loops = 2 + spatial + 1 + spatial;
  auto dim = [&](int64_t d) { return mlir::getAffineDimExpr(d, context); };
  const int64_t c_dim = 2 + spatial;
  const int64_t out_per_group = out_channels / group;
  llvm::SmallVector<mlir::AffineExpr> x_exprs{
      dim(0), dim(1).floorDiv(out_per_group) * group_channels + dim(c_dim)};
  llvm::SmallVector<mlir::AffineExpr> w_exprs{dim(1), dim(c_dim)};
  llvm::SmallVector<mlir::AffineExpr> out_exprs{dim(0), dim(1)};
  for (int64_t i = 0; i < spatial; ++i) {
    x_exprs.push_back(dim(2 + i) * strides[i] + dim(c_dim + 1 + i) * dilations[i]);
    w_exprs.push_back(dim(c_dim + 1 + i));
    out_exprs.push_back(dim(2 + i));
  }
  mlir::FailureOr<mlir::AffineMap> w_zp_map =
      misc::ParameterMap(node, w_zp, loops, 1, "w_zero_point");
  if (mlir::failed(w_zp_map)) return mlir::failure();
  llvm::SmallVector<mlir::OpFoldResult> sizes{TensorSizes(b, loc, x)[0],
                                              b.getIndexAttr(out_channels)};
  for (int64_t size : out_sizes) sizes.push_back(b.getIndexAttr(size));
  mlir::Value zero = ScalarConstant(b, loc, b.getI32Type(), 0);
  mlir::Value acc_init = FilledTensor(b, loc, sizes, zero);
  if (bias) {
    // The accumulator starts at the bias.
    acc_init = misc::Generic(b, loc, bias, acc_init,
                             {mlir::AffineMap::get(2 + spatial, 0, {dim(1)}, context),
                              IdentityMap(context, 2 + spatial)},
                             Parallel(2 + spatial),
                             [](mlir::OpBuilder&, mlir::Location, mlir::ValueRange args) {
                               return llvm::SmallVector<mlir::Value>{args[0]};
                             })[0];
  }
  llvm::SmallVector<mlir::utils::IteratorType> iterators = Parallel(loops);
  for (int64_t d = c_dim; d < loops; ++d) iterators[d] = mlir::utils::IteratorType::reduction;
  mlir::Value acc =
      Generic(b, loc, {shifted, w, w_zp}, acc_init,
              {mlir::AffineMap::get(loops, 0, x_exprs, context),
               mlir::AffineMap::get(loops, 0, w_exprs, context), *w_zp_map,
               mlir::AffineMap::get(loops, 0, out_exprs, context)},
              iterators, [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
                mlir::Value wv = nb.create<mlir::arith::SubIOp>(l, ToI32(nb, l, args[1], w_type),
                                                                ToI32(nb, l, args[2], w_type));
                mlir::Value product = nb.create<mlir::arith::MulIOp>(l, args[0], wv);
                return llvm::SmallVector<mlir::Value>{
                    nb.create<mlir::arith::AddIOp>(l, args[3], product).getResult()};
              })[0];
  const int64_t out_rank = 2 + spatial;
  mlir::FailureOr<mlir::AffineMap> x_scale_map =
      misc::ParameterMap(node, x_scale, out_rank, -1, "x_scale");
  mlir::FailureOr<mlir::AffineMap> w_scale_map =
      misc::ParameterMap(node, w_scale, out_rank, 1, "w_scale");
  mlir::FailureOr<mlir::AffineMap> y_scale_map =
      misc::ParameterMap(node, y_scale, out_rank, -1, "y_scale");
  mlir::FailureOr<mlir::AffineMap> y_zp_map =
      misc::ParameterMap(node, y_zp, out_rank, -1, "y_zero_point");
  if (mlir::failed(x_scale_map) || mlir::failed(w_scale_map) || mlir::failed(y_scale_map) ||
      mlir::failed(y_zp_map)) {
    return mlir::failure();
  }
  mlir::Value y = Requantize(node, acc, {x_scale, w_scale, y_scale},
                             {*x_scale_map, *w_scale_map, *y_scale_map}, y_zp, *y_zp_map, y_type);
  node.SetOutput(0, y, y_type);
  return mlir::success();
}

}  // namespace

void RegisterQuantizationOps(OpRegistry& registry) {
  registry.Register("QuantizeLinear", ConvertQuantizeLinear, 10);
  registry.Register("DequantizeLinear", ConvertDequantizeLinear, 10);
  registry.Register("DynamicQuantizeLinear", ConvertDynamicQuantizeLinear, 11);
  registry.Register("QLinearMatMul", ConvertQLinearMatMul, 10);
  registry.Register("QLinearConv", ConvertQLinearConv, 10);
}

}  // namespace kiln::onnx_import
