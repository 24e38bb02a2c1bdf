// Elementwise math on floats: Sqrt, Exp, Log, the trigonometric and
// hyperbolic functions, Erf, Ceil, Floor, Round; and the activations:
// Sigmoid, HardSigmoid, HardSwish, Tanh, Softplus, Softsign, Elu, Selu,
// Celu, LeakyRelu, PRelu, ThresholdedRelu, Mish, Relu (integers too) and
// Shrink (any number).
//
// f16 and bf16 compute in f32 and round back (ComputeInF32), as ONNX
// Runtime does on the CPU. Formulas follow ONNX's operator definitions;
// where a literal one overflows needlessly (Softplus's log(exp(x) + 1)) an
// equal, stable one is used.
#include <cmath>
#include <string>

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/elementwise_common.h"
#include "compiler/onnx/ops/elementwise_folding.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace kiln::onnx_import {
namespace {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Value;
using mlir::ValueRange;
namespace arith = mlir::arith;
namespace math = mlir::math;

// The scalar function of a float op, on the (f32 or f64) compute type.
using FloatFunction = std::function<Value(OpBuilder& b, Location loc, Value x)>;

// A unary op on floats: `function` on each element, f16/bf16 through f32.
// `fold`, when given, evaluates it at import time on constant inputs (only
// for exactly rounded functions).
mlir::LogicalResult ConvertFloatUnary(NodeImporter& node, const FloatFunction& function,
                                      double (*fold)(double) = nullptr) {
  if (!node.HasInput(0)) return node.Fail("needs an input");
  if (mlir::failed(CheckInputType(node, 0, kFloatTypes))) return mlir::failure();
  const OnnxElementType type = node.InputElementType(0);
  if (fold && FoldElementwise(node, {0}, type,
                              [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
                                return FloatScalar(fold(v[0].f));
                              })) {
    return mlir::success();
  }
  return SetElementwiseOutput(
      node, {node.Input(0)}, type, [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
        return ComputeInF32(b, loc, v[0], [&](Value x) { return function(b, loc, x); });
      });
}

template <typename Op>
FloatFunction MathOp() {
  return [](OpBuilder& b, Location loc, Value x) -> Value { return b.create<Op>(loc, x); };
}

Value Constant(OpBuilder& b, Location loc, Value like, double value) {
  return ConstantLike(b, loc, like, value);
}
Value Add(OpBuilder& b, Location loc, Value x, Value y) {
  return b.create<arith::AddFOp>(loc, x, y);
}
Value Sub(OpBuilder& b, Location loc, Value x, Value y) {
  return b.create<arith::SubFOp>(loc, x, y);
}
Value Mul(OpBuilder& b, Location loc, Value x, Value y) {
  return b.create<arith::MulFOp>(loc, x, y);
}
Value Div(OpBuilder& b, Location loc, Value x, Value y) {
  return b.create<arith::DivFOp>(loc, x, y);
}
Value Exp(OpBuilder& b, Location loc, Value x) { return b.create<math::ExpOp>(loc, x); }
Value Less(OpBuilder& b, Location loc, Value x, Value y) {
  return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x, y);
}
Value Greater(OpBuilder& b, Location loc, Value x, Value y) {
  return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x, y);
}
Value Select(OpBuilder& b, Location loc, Value c, Value x, Value y) {
  return b.create<arith::SelectOp>(loc, c, x, y);
}
// NaN-propagating min and max.
Value Min(OpBuilder& b, Location loc, Value x, Value y) {
  return b.create<arith::MinimumFOp>(loc, x, y);
}
Value Max(OpBuilder& b, Location loc, Value x, Value y) {
  return b.create<arith::MaximumFOp>(loc, x, y);
}

// log(1 + exp(x)) without overflow: max(x, 0) + log(1 + exp(-|x|)).
Value Softplus(OpBuilder& b, Location loc, Value x) {
  Value zero = Constant(b, loc, x, 0);
  Value negative_abs = b.create<arith::NegFOp>(loc, b.create<math::AbsFOp>(loc, x));
  Value log = b.create<math::Log1pOp>(loc, Exp(b, loc, negative_abs));
  return Add(b, loc, Max(b, loc, x, zero), log);
}

// alpha * x + beta clamped to [0, 1].
Value HardSigmoid(OpBuilder& b, Location loc, Value x, double alpha, double beta) {
  Value linear = Add(b, loc, Mul(b, loc, Constant(b, loc, x, alpha), x), Constant(b, loc, x, beta));
  return Max(b, loc, Constant(b, loc, x, 0), Min(b, loc, Constant(b, loc, x, 1), linear));
}

double RoundHalfToEven(double x) { return std::nearbyint(x); }

mlir::LogicalResult ConvertRelu(NodeImporter& node) {
  if (!node.HasInput(0)) return node.Fail("needs an input");
  if (mlir::failed(CheckInputType(node, 0, kFloatTypes | kSignedTypes))) return mlir::failure();
  const OnnxElementType type = node.InputElementType(0);
  if (FoldElementwise(node, {0}, type,
                      [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
                        if (IsFloat(type)) {
                          return std::isnan(v[0].f) ? v[0] : FloatScalar(std::max(v[0].f, 0.0));
                        }
                        return IntScalar(std::max<int64_t>(v[0].i, 0));
                      })) {
    return mlir::success();
  }
  return SetElementwiseOutput(node, {node.Input(0)}, type,
                              [&](OpBuilder& b, Location loc, ValueRange x) -> Value {
                                Value zero = ConstantLike(b, loc, x[0], 0);
                                if (IsFloat(type)) return Max(b, loc, x[0], zero);
                                return b.create<arith::MaxSIOp>(loc, x[0], zero);
                              });
}

// PRelu: slope broadcast to X's shape (unidirectionally: X's shape is the
// result's).
mlir::LogicalResult ConvertPRelu(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 2)) ||
      mlir::failed(CheckInputType(node, 0, kFloatTypes | kSignedTypes)) ||
      mlir::failed(CheckSameInputTypes(node, 0, 1))) {
    return mlir::failure();
  }
  Value x = node.Input(0);
  Value slope = node.Input(1);
  mlir::FailureOr<int64_t> x_rank = RankOf(node, x);
  mlir::FailureOr<int64_t> slope_rank = RankOf(node, slope);
  if (mlir::failed(x_rank) || mlir::failed(slope_rank)) return mlir::failure();
  auto x_type = llvm::cast<mlir::RankedTensorType>(x.getType());
  auto slope_type = llvm::cast<mlir::RankedTensorType>(slope.getType());
  bool unidirectional = *slope_rank <= *x_rank;
  for (int64_t d = 0; unidirectional && d < *slope_rank; ++d) {
    const int64_t x_dim = d + *x_rank - *slope_rank;
    const int64_t size = slope_type.getDimSize(d);
    unidirectional = slope_type.isDynamicDim(d) || size == 1 ||
                     (x_type.isDynamicDim(x_dim) || x_type.getDimSize(x_dim) == size);
    // A slope size greater than 1 against a static X size of 1 would grow X.
  }
  if (!unidirectional) {
    return node.Fail("slope of shape " + std::to_string(*slope_rank) +
                     "-D does not broadcast to X's shape (unidirectional broadcasting)");
  }
  const OnnxElementType type = node.InputElementType(0);
  return SetElementwiseOutput(
      node, {x, slope}, type, [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
        Value zero = ConstantLike(b, loc, v[0], 0);
        if (IsFloat(type))
          return Select(b, loc, Less(b, loc, v[0], zero), Mul(b, loc, v[0], v[1]), v[0]);
        Value negative = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, v[0], zero);
        return Select(b, loc, negative, b.create<arith::MulIOp>(loc, v[0], v[1]), v[0]);
      });
}

// Shrink: x < -lambd → x + bias, x > lambd → x - bias, else 0; computed in
// floating point (f32 for floats, f64 for integers) and converted back, as
// ONNX Runtime does.
mlir::LogicalResult ConvertShrink(NodeImporter& node) {
  if (!node.HasInput(0)) return node.Fail("needs an input");
  if (mlir::failed(CheckInputType(node, 0, kNumericTypes))) return mlir::failure();
  const OnnxElementType type = node.InputElementType(0);
  const double lambd = node.FloatAttribute("lambd", 0.5f);
  const double bias = node.FloatAttribute("bias", 0.0f);
  auto shrink = [=](OpBuilder& b, Location loc, Value x) -> Value {
    Value zero = Constant(b, loc, x, 0);
    Value low = Less(b, loc, x, Constant(b, loc, x, -lambd));
    Value high = Greater(b, loc, x, Constant(b, loc, x, lambd));
    Value raised = Add(b, loc, x, Constant(b, loc, x, bias));
    Value lowered = Sub(b, loc, x, Constant(b, loc, x, bias));
    return Select(b, loc, low, raised, Select(b, loc, high, lowered, zero));
  };
  return SetElementwiseOutput(
      node, {node.Input(0)}, type, [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
        if (IsFloat(type))
          return ComputeInF32(b, loc, v[0], [&](Value x) { return shrink(b, loc, x); });
        Value wide = ConvertScalar(b, loc, v[0], type, onnx::TensorProto::DOUBLE);
        return ConvertScalar(b, loc, shrink(b, loc, wide), onnx::TensorProto::DOUBLE, type);
      });
}

void RegisterFloatUnary(OpRegistry& registry, llvm::StringRef name, FloatFunction function,
                        int64_t min_opset = 1, double (*fold)(double) = nullptr) {
  registry.Register(
      name,
      [function, fold](NodeImporter& node) { return ConvertFloatUnary(node, function, fold); },
      min_opset);
}

// An activation whose function reads the node's attributes.
void RegisterActivation(OpRegistry& registry, llvm::StringRef name,
                        std::function<FloatFunction(NodeImporter& node)> make_function,
                        int64_t min_opset = 1) {
  registry.Register(
      name,
      [make_function](NodeImporter& node) { return ConvertFloatUnary(node, make_function(node)); },
      min_opset);
}

}  // namespace

void RegisterElementwiseMathOps(OpRegistry& registry) {
  RegisterFloatUnary(registry, "Sqrt", MathOp<math::SqrtOp>(), 1,
                     [](double x) { return std::sqrt(x); });
  RegisterFloatUnary(registry, "Exp", MathOp<math::ExpOp>());
  RegisterFloatUnary(registry, "Log", MathOp<math::LogOp>());
  RegisterFloatUnary(registry, "Sin", MathOp<math::SinOp>(), 7);
  RegisterFloatUnary(registry, "Cos", MathOp<math::CosOp>(), 7);
  RegisterFloatUnary(registry, "Tan", MathOp<math::TanOp>(), 7);
  RegisterFloatUnary(registry, "Asin", MathOp<math::AsinOp>(), 7);
  RegisterFloatUnary(registry, "Acos", MathOp<math::AcosOp>(), 7);
  RegisterFloatUnary(registry, "Atan", MathOp<math::AtanOp>(), 7);
  RegisterFloatUnary(registry, "Sinh", MathOp<math::SinhOp>(), 9);
  RegisterFloatUnary(registry, "Cosh", MathOp<math::CoshOp>(), 9);
  RegisterFloatUnary(registry, "Asinh", MathOp<math::AsinhOp>(), 9);
  RegisterFloatUnary(registry, "Acosh", MathOp<math::AcoshOp>(), 9);
  RegisterFloatUnary(registry, "Atanh", MathOp<math::AtanhOp>(), 9);
  RegisterFloatUnary(registry, "Erf", MathOp<math::ErfOp>(), 9);
  RegisterFloatUnary(registry, "Tanh", MathOp<math::TanhOp>());
  RegisterFloatUnary(registry, "Ceil", MathOp<math::CeilOp>(), 1,
                     [](double x) { return std::ceil(x); });
  RegisterFloatUnary(registry, "Floor", MathOp<math::FloorOp>(), 1,
                     [](double x) { return std::floor(x); });
  // Half to even (numpy's round).
  RegisterFloatUnary(registry, "Round", MathOp<math::RoundEvenOp>(), 11, RoundHalfToEven);
  RegisterFloatUnary(registry, "Sigmoid", [](OpBuilder& b, Location loc, Value x) -> Value {
    Value one = Constant(b, loc, x, 1);
    return Div(b, loc, one, Add(b, loc, one, Exp(b, loc, b.create<arith::NegFOp>(loc, x))));
  });
  RegisterFloatUnary(registry, "Softplus", Softplus);
  RegisterFloatUnary(registry, "Softsign", [](OpBuilder& b, Location loc, Value x) -> Value {
    Value one = Constant(b, loc, x, 1);
    return Div(b, loc, x, Add(b, loc, one, b.create<math::AbsFOp>(loc, x)));
  });
  RegisterFloatUnary(
      registry, "HardSwish",
      [](OpBuilder& b, Location loc, Value x) -> Value {
        return Mul(b, loc, x, HardSigmoid(b, loc, x, 1.0 / 6.0, 0.5));
      },
      14);
  RegisterFloatUnary(
      registry, "Mish",
      [](OpBuilder& b, Location loc, Value x) -> Value {
        return Mul(b, loc, x, b.create<math::TanhOp>(loc, Softplus(b, loc, x)));
      },
      18);
  RegisterActivation(registry, "HardSigmoid", [](NodeImporter& node) -> FloatFunction {
    const double alpha = node.FloatAttribute("alpha", 0.2f);
    const double beta = node.FloatAttribute("beta", 0.5f);
    return [=](OpBuilder& b, Location loc, Value x) { return HardSigmoid(b, loc, x, alpha, beta); };
  });
  RegisterActivation(registry, "Elu", [](NodeImporter& node) -> FloatFunction {
    const double alpha = node.FloatAttribute("alpha", 1.0f);
    return [=](OpBuilder& b, Location loc, Value x) -> Value {
      Value zero = Constant(b, loc, x, 0);
      Value negative = Mul(b, loc, Constant(b, loc, x, alpha),
                           Sub(b, loc, Exp(b, loc, x), Constant(b, loc, x, 1)));
      return Select(b, loc, Less(b, loc, x, zero), negative, x);
    };
  });
  RegisterActivation(registry, "Selu", [](NodeImporter& node) -> FloatFunction {
    const double alpha = node.FloatAttribute("alpha", 1.67326319217681884765625f);
    const double gamma = node.FloatAttribute("gamma", 1.05070102214813232421875f);
    return [=](OpBuilder& b, Location loc, Value x) -> Value {
      Value zero = Constant(b, loc, x, 0);
      Value alpha_value = Constant(b, loc, x, alpha);
      Value negative = Sub(b, loc, Mul(b, loc, alpha_value, Exp(b, loc, x)), alpha_value);
      Value selected = Select(b, loc, Greater(b, loc, x, zero), x, negative);
      return Mul(b, loc, Constant(b, loc, x, gamma), selected);
    };
  });
  RegisterActivation(
      registry, "Celu",
      [](NodeImporter& node) -> FloatFunction {
        const double alpha = node.FloatAttribute("alpha", 1.0f);
        return [=](OpBuilder& b, Location loc, Value x) -> Value {
          Value zero = Constant(b, loc, x, 0);
          Value alpha_value = Constant(b, loc, x, alpha);
          Value scaled = Exp(b, loc, Div(b, loc, x, alpha_value));
          Value negative = Mul(b, loc, alpha_value, Sub(b, loc, scaled, Constant(b, loc, x, 1)));
          return Add(b, loc, Max(b, loc, zero, x), Min(b, loc, zero, negative));
        };
      },
      12);
  RegisterActivation(registry, "LeakyRelu", [](NodeImporter& node) -> FloatFunction {
    const double alpha = node.FloatAttribute("alpha", 0.01f);
    return [=](OpBuilder& b, Location loc, Value x) -> Value {
      Value zero = Constant(b, loc, x, 0);
      return Select(b, loc, Less(b, loc, x, zero), Mul(b, loc, Constant(b, loc, x, alpha), x), x);
    };
  });
  RegisterActivation(
      registry, "ThresholdedRelu",
      [](NodeImporter& node) -> FloatFunction {
        const double alpha = node.FloatAttribute("alpha", 1.0f);
        return [=](OpBuilder& b, Location loc, Value x) -> Value {
          Value zero = Constant(b, loc, x, 0);
          return Select(b, loc, Greater(b, loc, x, Constant(b, loc, x, alpha)), x, zero);
        };
      },
      10);
  registry.Register("Relu", ConvertRelu);
  registry.Register("PRelu", ConvertPRelu, 7);
  registry.Register("Shrink", ConvertShrink, 9);
}

}  // namespace kiln::onnx_import
