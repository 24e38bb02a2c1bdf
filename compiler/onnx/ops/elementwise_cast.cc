// Cast (to: the `to` attribute; a type name before opset 6) and CastLike
// (to: the second input's element type), between the element types kiln
// has: bool, signed and unsigned integers, f16, bf16, f32, f64.
//
// As ONNX's Cast: float → integer truncates toward zero (undefined out of
// range, as in ONNX before opset 19's saturate), → bool is `!= 0` (NaN is
// true), bool → number is 0 or 1, integers widen by their signedness and
// narrow by dropping high bits; float → float rounds to nearest even.
// Strings and the 8-bit float formats have no kiln type: an error.
#include <cmath>
#include <string>

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/elementwise_common.h"
#include "compiler/onnx/ops/elementwise_folding.h"
#include "compiler/onnx/tensor_builders.h"

namespace kiln::onnx_import {
namespace {

// The element of `to` that `x` (of `from`) casts to at import time; nullopt
// where the kernel's result is undefined (a float out of the integer's
// range, NaN) or an int → float rounding would differ from the kernel's
// single rounding (beyond 2^53).
std::optional<FoldScalar> FoldCast(FoldScalar x, OnnxElementType from, OnnxElementType to) {
  if (to == onnx::TensorProto::BOOL) {
    return IntScalar(IsFloat(from) ? (x.f != 0 || std::isnan(x.f)) : x.i != 0);
  }
  if (IsFloat(from) && IsFloat(to)) return x;
  if (IsFloat(from)) {
    if (std::isnan(x.f)) return std::nullopt;
    const double truncated = std::trunc(x.f);
    const int64_t width = ElementByteSize(to) * 8;
    const double high = IsUnsigned(to) ? std::ldexp(1.0, width) : std::ldexp(1.0, width - 1);
    const double low = IsUnsigned(to) ? 0.0 : -high;
    if (!(truncated >= low && truncated < high)) return std::nullopt;
    if (IsUnsigned(to)) return IntScalar(static_cast<int64_t>(static_cast<uint64_t>(truncated)));
    return IntScalar(static_cast<int64_t>(truncated));
  }
  if (IsFloat(to)) {
    const double limit = std::ldexp(1.0, 53);
    if (IsUnsigned(from)) {
      const uint64_t value = x.i;
      if (value > static_cast<uint64_t>(limit)) return std::nullopt;
      return FloatScalar(static_cast<double>(value));
    }
    if (std::fabs(static_cast<double>(x.i)) > limit) return std::nullopt;
    return FloatScalar(static_cast<double>(x.i));
  }
  // Integer → integer: the folder wraps to the target's width; a widening
  // from unsigned has its value zero-extended already.
  return x;
}

// Casts input 0 to `to`.
mlir::LogicalResult ConvertCastTo(NodeImporter& node, OnnxElementType to) {
  if (!node.HasInput(0)) return node.Fail("needs an input");
  const OnnxElementType from = node.InputElementType(0);
  if (!ConvertElementType(node.context(), from)) {
    return node.Fail("casting from " + OnnxElementTypeName(from) +
                     " is not supported (kiln has tensors of numbers and bools)");
  }
  if (!ConvertElementType(node.context(), to)) {
    return node.Fail("casting to " + OnnxElementTypeName(to) +
                     " is not supported (kiln has tensors of numbers and bools)");
  }
  if (from == to) {
    if (mlir::DenseElementsAttr constant = node.InputConstant(0)) {
      node.SetConstantOutput(0, constant, to);
    } else {
      node.SetOutput(0, node.Input(0), to);
    }
    return mlir::success();
  }
  if (FoldElementwise(node, {0}, to,
                      [&](llvm::ArrayRef<FoldScalar> v) { return FoldCast(v[0], from, to); })) {
    return mlir::success();
  }
  if (mlir::failed(RankOf(node, node.Input(0)))) return mlir::failure();
  if (mlir::Value scalarized = ScalarizeShapeElementwise(
          node, node.Input(0), to,
          [&](mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange v) -> mlir::Value {
            return ConvertScalar(b, loc, v[0], from, to);
          })) {
    node.SetOutput(0, scalarized, to);
    return mlir::success();
  }
  node.SetOutput(0, ConvertTensor(node, node.Input(0), from, to), to);
  return mlir::success();
}

mlir::LogicalResult ConvertCast(NodeImporter& node) {
  const onnx::AttributeProto* to = node.Attribute("to");
  if (!to) return node.Fail("needs the 'to' attribute");
  if (to->type() == onnx::AttributeProto::STRING) {
    // Opset 1 names the type ("FLOAT", "INT64", ...).
    onnx::TensorProto_DataType type;
    if (!onnx::TensorProto_DataType_Parse(to->s(), &type)) {
      return node.Fail("'to' names no ONNX element type: '" + to->s() + "'");
    }
    return ConvertCastTo(node, type);
  }
  return ConvertCastTo(node, static_cast<OnnxElementType>(to->i()));
}

mlir::LogicalResult ConvertCastLike(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 2))) return mlir::failure();
  return ConvertCastTo(node, node.InputElementType(1));
}

}  // namespace

void RegisterCastOps(OpRegistry& registry) {
  registry.Register("Cast", ConvertCast);
  registry.Register("CastLike", ConvertCastLike, 15);
}

}  // namespace kiln::onnx_import
