// Elementwise arithmetic (ONNX multidirectional broadcasting): Add, Sub,
// Mul, Div, Pow, Mod, the variadic Sum, Mean, Min, Max, the unary Abs, Neg,
// Sign, Reciprocal, and Clip and Dropout. The other elementwise families
// live in elementwise_math.cc, elementwise_logic.cc and elementwise_cast.cc
// (see elementwise_common.h); this file registers them all.
//
// Integers are signless in MLIR: division, remainder, min/max and sign read
// the ONNX element type for signedness. Small constant integer (and exactly
// rounded float) inputs fold at import time (elementwise_folding.h).
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/elementwise_common.h"
#include "compiler/onnx/ops/elementwise_folding.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace kiln::onnx_import {
namespace {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Value;
using mlir::ValueRange;
namespace arith = mlir::arith;

// ---------------------------------------------------------------------------
// Scalar building blocks.

Value CmpI(OpBuilder& b, Location loc, arith::CmpIPredicate predicate, Value x, Value y) {
  return b.create<arith::CmpIOp>(loc, predicate, x, y);
}

Value Select(OpBuilder& b, Location loc, Value condition, Value x, Value y) {
  return b.create<arith::SelectOp>(loc, condition, x, y);
}

// Integer quotient (truncated toward zero, as C) or remainder (the sign of
// the dividend) that never traps: x86's idiv traps on a zero divisor and on
// INT_MIN / -1, results ONNX leaves undefined. A zero divisor divides by 1;
// -1 is negation (wrapping), its remainder 0.
Value IntegerDivide(OpBuilder& b, Location loc, Value x, Value y, bool is_unsigned,
                    bool remainder) {
  Value zero = ConstantLike(b, loc, y, 0);
  Value one = ConstantLike(b, loc, y, 1);
  Value y_is_zero = CmpI(b, loc, arith::CmpIPredicate::eq, y, zero);
  if (is_unsigned) {
    Value safe = Select(b, loc, y_is_zero, one, y);
    if (remainder) return b.create<arith::RemUIOp>(loc, x, safe);
    return b.create<arith::DivUIOp>(loc, x, safe);
  }
  Value minus_one = ConstantLike(b, loc, y, -1);
  Value y_is_minus_one = CmpI(b, loc, arith::CmpIPredicate::eq, y, minus_one);
  Value unsafe = b.create<arith::OrIOp>(loc, y_is_zero, y_is_minus_one);
  Value safe = Select(b, loc, unsafe, one, y);
  if (remainder) {
    Value r = b.create<arith::RemSIOp>(loc, x, safe);
    return Select(b, loc, y_is_minus_one, zero, r);
  }
  Value q = b.create<arith::DivSIOp>(loc, x, safe);
  Value negated = b.create<arith::SubIOp>(loc, zero, x);
  return Select(b, loc, y_is_minus_one, negated, q);
}

// x^y for integers by squaring over the exponent's bits (the CPU backend
// has no math.ipowi). A negative exponent gives what C's truncation of
// pow() gives (ONNX Runtime's integer Pow): 1 for x = 1, ±1 for x = -1,
// else 0.
Value IntegerPower(OpBuilder& b, Location loc, Value x, Value y, OnnxElementType x_type,
                   OnnxElementType y_type) {
  const unsigned y_width = y.getType().getIntOrFloatBitWidth();
  Value one = ConstantLike(b, loc, x, 1);
  Value result = one;
  Value base = x;
  const unsigned bits = IsUnsigned(y_type) ? y_width : y_width - 1;
  for (unsigned i = 0; i < bits; ++i) {
    Value shifted =
        i == 0 ? y : b.create<arith::ShRUIOp>(loc, y, ConstantLike(b, loc, y, i)).getResult();
    Value bit = b.create<arith::AndIOp>(loc, shifted, ConstantLike(b, loc, y, 1));
    Value set = CmpI(b, loc, arith::CmpIPredicate::ne, bit, ConstantLike(b, loc, y, 0));
    result = Select(b, loc, set, b.create<arith::MulIOp>(loc, result, base), result);
    if (i + 1 < bits) base = b.create<arith::MulIOp>(loc, base, base);
  }
  if (IsUnsigned(y_type)) return result;
  Value zero = ConstantLike(b, loc, x, 0);
  Value negative = CmpI(b, loc, arith::CmpIPredicate::slt, y, ConstantLike(b, loc, y, 0));
  Value odd =
      CmpI(b, loc, arith::CmpIPredicate::ne,
           b.create<arith::AndIOp>(loc, y, ConstantLike(b, loc, y, 1)), ConstantLike(b, loc, y, 0));
  Value x_is_one = CmpI(b, loc, arith::CmpIPredicate::eq, x, one);
  Value small = Select(b, loc, x_is_one, one, zero);
  if (IsSignedInteger(x_type)) {
    Value minus_one = ConstantLike(b, loc, x, -1);
    Value x_is_minus_one = CmpI(b, loc, arith::CmpIPredicate::eq, x, minus_one);
    small = Select(b, loc, x_is_minus_one, Select(b, loc, odd, minus_one, one), small);
  }
  return Select(b, loc, negative, small, result);
}

std::optional<int64_t> FoldIntegerPower(int64_t x, int64_t y, OnnxElementType x_type,
                                        OnnxElementType y_type) {
  if (!IsUnsigned(y_type) && y < 0) {
    if (x == 1) return 1;
    if (IsSignedInteger(x_type) && x == -1) return (y & 1) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1;
  uint64_t base = static_cast<uint64_t>(x);
  for (uint64_t e = static_cast<uint64_t>(y); e != 0; e >>= 1) {
    if (e & 1) result *= base;
    base *= base;
  }
  return WrapToType(static_cast<int64_t>(result), x_type);
}

// Folds integer division (or remainder: C's, or with the divisor's sign
// when `floor_mod`) as the kernels compute it; nullopt for a zero divisor.
std::optional<int64_t> FoldIntegerDivide(int64_t x, int64_t y, OnnxElementType type, bool remainder,
                                         bool floor_mod) {
  if (y == 0) return std::nullopt;
  if (IsUnsigned(type)) {
    const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    return static_cast<int64_t>(remainder ? ux % uy : ux / uy);
  }
  if (y == -1)
    return remainder ? 0 : WrapToType(static_cast<int64_t>(0 - static_cast<uint64_t>(x)), type);
  if (!remainder) return x / y;
  int64_t r = x % y;
  if (floor_mod && r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}

// ---------------------------------------------------------------------------
// Binary arithmetic.

enum class Arithmetic { kAdd, kSub, kMul, kDiv };

mlir::LogicalResult ConvertArithmetic(NodeImporter& node, Arithmetic op) {
  if (mlir::failed(CheckInputsPresent(node, 2)) ||
      mlir::failed(CheckInputType(node, 0, kNumericTypes)) ||
      mlir::failed(CheckSameInputTypes(node, 0, 1))) {
    return mlir::failure();
  }
  const OnnxElementType type = node.InputElementType(0);
  const bool is_float = IsFloat(type);
  const bool is_unsigned = IsUnsigned(type);
  if (BroadcastsAsNumpy(node) &&
      FoldElementwise(
          node, {0, 1}, type, [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
            if (is_float) {
              const double x = v[0].f, y = v[1].f;
              switch (op) {
                case Arithmetic::kAdd:
                  return FloatScalar(x + y);
                case Arithmetic::kSub:
                  return FloatScalar(x - y);
                case Arithmetic::kMul:
                  return FloatScalar(x * y);
                case Arithmetic::kDiv:
                  return FloatScalar(x / y);
              }
            }
            const uint64_t x = v[0].i, y = v[1].i;
            switch (op) {
              case Arithmetic::kAdd:
                return IntScalar(static_cast<int64_t>(x + y));
              case Arithmetic::kSub:
                return IntScalar(static_cast<int64_t>(x - y));
              case Arithmetic::kMul:
                return IntScalar(static_cast<int64_t>(x * y));
              case Arithmetic::kDiv: {
                std::optional<int64_t> q = FoldIntegerDivide(v[0].i, v[1].i, type, false, false);
                if (!q) return std::nullopt;
                return IntScalar(*q);
              }
            }
            return std::nullopt;
          })) {
    return mlir::success();
  }
  mlir::FailureOr<llvm::SmallVector<Value>> operands = BinaryOperands(node);
  if (mlir::failed(operands)) return mlir::failure();
  return SetElementwiseOutput(
      node, *operands, type, [&](OpBuilder& b, Location loc, ValueRange x) -> Value {
        switch (op) {
          case Arithmetic::kAdd:
            if (is_float) return b.create<arith::AddFOp>(loc, x[0], x[1]);
            return b.create<arith::AddIOp>(loc, x[0], x[1]);
          case Arithmetic::kSub:
            if (is_float) return b.create<arith::SubFOp>(loc, x[0], x[1]);
            return b.create<arith::SubIOp>(loc, x[0], x[1]);
          case Arithmetic::kMul:
            if (is_float) return b.create<arith::MulFOp>(loc, x[0], x[1]);
            return b.create<arith::MulIOp>(loc, x[0], x[1]);
          case Arithmetic::kDiv:
            if (is_float) return b.create<arith::DivFOp>(loc, x[0], x[1]);
            return IntegerDivide(b, loc, x[0], x[1], is_unsigned, /*remainder=*/false);
        }
        return Value();
      });
}

// Pow(X: T, Y: T1) → T: float^float and float^int through powf (the
// exponent converted to the base's type, f16/bf16 computed in f32);
// int^float as numpy's power in double truncated to T (ONNX's reference);
// int^int exactly (IntegerPower).
mlir::LogicalResult ConvertPow(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 2)) ||
      mlir::failed(CheckInputType(node, 0, kNumericTypes)) ||
      mlir::failed(CheckInputType(node, 1, kNumericTypes))) {
    return mlir::failure();
  }
  const OnnxElementType x_type = node.InputElementType(0);
  const OnnxElementType y_type = node.InputElementType(1);
  if (!IsFloat(x_type) && !IsFloat(y_type) && BroadcastsAsNumpy(node) &&
      FoldElementwise(node, {0, 1}, x_type,
                      [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
                        return IntScalar(*FoldIntegerPower(v[0].i, v[1].i, x_type, y_type));
                      })) {
    return mlir::success();
  }
  mlir::FailureOr<llvm::SmallVector<Value>> operands = BinaryOperands(node);
  if (mlir::failed(operands)) return mlir::failure();
  return SetElementwiseOutput(
      node, *operands, x_type, [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
        Value x = v[0], y = v[1];
        if (!IsFloat(x_type) && !IsFloat(y_type)) {
          return IntegerPower(b, loc, x, y, x_type, y_type);
        }
        if (!IsFloat(x_type)) {
          Value x_wide = ConvertScalar(b, loc, x, x_type, onnx::TensorProto::DOUBLE);
          Value y_wide = ConvertScalar(b, loc, y, y_type, onnx::TensorProto::DOUBLE);
          Value power = b.create<mlir::math::PowFOp>(loc, x_wide, y_wide);
          return ConvertScalar(b, loc, power, onnx::TensorProto::DOUBLE, x_type);
        }
        const OnnxElementType compute_type =
            x.getType().isF16() || x.getType().isBF16() ? onnx::TensorProto::FLOAT : x_type;
        Value x_compute = ConvertScalar(b, loc, x, x_type, compute_type);
        Value y_compute = ConvertScalar(b, loc, y, y_type, compute_type);
        Value power = b.create<mlir::math::PowFOp>(loc, x_compute, y_compute);
        return ConvertScalar(b, loc, power, compute_type, x_type);
      });
}

// Mod: fmod=0 (integers only) takes the divisor's sign (Python's %);
// fmod=1 the dividend's (C's fmod, also for floats).
mlir::LogicalResult ConvertMod(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 2)) ||
      mlir::failed(CheckInputType(node, 0, kNumericTypes)) ||
      mlir::failed(CheckSameInputTypes(node, 0, 1))) {
    return mlir::failure();
  }
  const OnnxElementType type = node.InputElementType(0);
  const int64_t fmod = node.IntAttribute("fmod", 0);
  if (fmod != 0 && fmod != 1) return node.Fail("fmod must be 0 or 1, not " + std::to_string(fmod));
  if (IsFloat(type) && fmod == 0) {
    return node.Fail("Mod of floats needs fmod=1 (fmod=0 is defined for integers only)");
  }
  const bool is_unsigned = IsUnsigned(type);
  if (FoldElementwise(
          node, {0, 1}, type, [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
            if (IsFloat(type)) return FloatScalar(std::fmod(v[0].f, v[1].f));
            std::optional<int64_t> r = FoldIntegerDivide(v[0].i, v[1].i, type, true, fmod == 0);
            if (!r) return std::nullopt;
            return IntScalar(*r);
          })) {
    return mlir::success();
  }
  return SetElementwiseOutput(
      node, {node.Input(0), node.Input(1)}, type,
      [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
        Value x = v[0], y = v[1];
        if (IsFloat(type)) {
          // fmod is exact: f16/bf16 through f32 give the same result.
          if (x.getType().isF16() || x.getType().isBF16()) {
            Value x32 = b.create<arith::ExtFOp>(loc, b.getF32Type(), x);
            Value y32 = b.create<arith::ExtFOp>(loc, b.getF32Type(), y);
            Value r = b.create<arith::RemFOp>(loc, x32, y32);
            return b.create<arith::TruncFOp>(loc, x.getType(), r);
          }
          return b.create<arith::RemFOp>(loc, x, y);
        }
        Value r = IntegerDivide(b, loc, x, y, is_unsigned, /*remainder=*/true);
        if (is_unsigned || fmod == 1) return r;
        // A nonzero remainder whose sign differs from the divisor's moves
        // by one divisor.
        Value zero = ConstantLike(b, loc, r, 0);
        Value nonzero = CmpI(b, loc, arith::CmpIPredicate::ne, r, zero);
        Value signs = b.create<arith::XOrIOp>(loc, r, y);
        Value differ = CmpI(b, loc, arith::CmpIPredicate::slt, signs, zero);
        Value adjust = b.create<arith::AndIOp>(loc, nonzero, differ);
        return Select(b, loc, adjust, b.create<arith::AddIOp>(loc, r, y), r);
      });
}

// ---------------------------------------------------------------------------
// Variadic: Sum, Mean, Min, Max (numpy broadcasting among all inputs).

enum class Variadic { kSum, kMean, kMin, kMax };

Value MinMax(OpBuilder& b, Location loc, Value x, Value y, OnnxElementType type, bool is_max) {
  // NaN propagates (numpy's minimum/maximum, ONNX's reference).
  if (IsFloat(type)) {
    if (is_max) return b.create<arith::MaximumFOp>(loc, x, y);
    return b.create<arith::MinimumFOp>(loc, x, y);
  }
  if (IsUnsigned(type)) {
    if (is_max) return b.create<arith::MaxUIOp>(loc, x, y);
    return b.create<arith::MinUIOp>(loc, x, y);
  }
  if (is_max) return b.create<arith::MaxSIOp>(loc, x, y);
  return b.create<arith::MinSIOp>(loc, x, y);
}

std::optional<FoldScalar> FoldMinMax(FoldScalar x, FoldScalar y, OnnxElementType type,
                                     bool is_max) {
  if (IsFloat(type)) {
    if (std::isnan(x.f) || std::isnan(y.f)) return FloatScalar(std::nan(""));
    return FloatScalar(is_max ? std::max(x.f, y.f) : std::min(x.f, y.f));
  }
  if (IsUnsigned(type)) {
    const uint64_t a = x.i, c = y.i;
    return IntScalar(static_cast<int64_t>(is_max ? std::max(a, c) : std::min(a, c)));
  }
  return IntScalar(is_max ? std::max(x.i, y.i) : std::min(x.i, y.i));
}

mlir::LogicalResult ConvertVariadic(NodeImporter& node, Variadic op) {
  const bool float_only = op == Variadic::kSum || op == Variadic::kMean;
  if (mlir::failed(CheckInputsPresent(node, 1)) ||
      mlir::failed(CheckInputType(node, 0, float_only ? kFloatTypes : kNumericTypes)) ||
      mlir::failed(CheckSameInputTypes(node, 0, node.input_count() - 1))) {
    return mlir::failure();
  }
  const OnnxElementType type = node.InputElementType(0);
  const int64_t count = node.input_count();
  const bool is_max = op == Variadic::kMax;
  if (FoldElementwise(node, PresentInputs(node), type,
                      [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
                        FoldScalar acc = v[0];
                        for (int64_t i = 1; i < count; ++i) {
                          if (op == Variadic::kMin || op == Variadic::kMax) {
                            acc = *FoldMinMax(acc, v[i], type, is_max);
                          } else {
                            acc = FloatScalar(RoundToType(acc.f + v[i].f, type));
                          }
                        }
                        if (op == Variadic::kMean) {
                          acc = FloatScalar(acc.f / static_cast<double>(count));
                        }
                        return acc;
                      })) {
    return mlir::success();
  }
  if (count == 1) {
    // One input: itself (Mean divides by 1).
    node.SetOutput(0, node.Input(0), type);
    return mlir::success();
  }
  llvm::SmallVector<Value> operands;
  for (int64_t i = 0; i < count; ++i) operands.push_back(node.Input(i));
  return SetElementwiseOutput(
      node, operands, type, [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
        Value acc = v[0];
        for (int64_t i = 1; i < count; ++i) {
          if (op == Variadic::kMin || op == Variadic::kMax) {
            acc = MinMax(b, loc, acc, v[i], type, is_max);
          } else {
            acc = b.create<arith::AddFOp>(loc, acc, v[i]);
          }
        }
        if (op == Variadic::kMean && count > 1) {
          acc = b.create<arith::DivFOp>(loc, acc, ConstantLike(b, loc, acc, count));
        }
        return acc;
      });
}

// ---------------------------------------------------------------------------
// Unary: Abs, Neg, Sign, Reciprocal.

enum class Unary { kAbs, kNeg, kSign, kReciprocal };

mlir::LogicalResult ConvertUnary(NodeImporter& node, Unary op) {
  unsigned allowed = kNumericTypes;
  if (op == Unary::kNeg) allowed = kFloatTypes | kSignedTypes;
  if (op == Unary::kReciprocal) allowed = kFloatTypes;
  if (mlir::failed(CheckInputsPresent(node, 1)) || mlir::failed(CheckInputType(node, 0, allowed))) {
    return mlir::failure();
  }
  const OnnxElementType type = node.InputElementType(0);
  const bool is_float = IsFloat(type);
  const bool is_unsigned = IsUnsigned(type);
  if (FoldElementwise(
          node, {0}, type, [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
            const FoldScalar x = v[0];
            switch (op) {
              case Unary::kAbs:
                if (is_float) return FloatScalar(std::fabs(x.f));
                if (is_unsigned) return x;
                return IntScalar(x.i < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x.i))
                                         : x.i);
              case Unary::kNeg:
                if (is_float) return FloatScalar(-x.f);
                return IntScalar(static_cast<int64_t>(0 - static_cast<uint64_t>(x.i)));
              case Unary::kSign:
                if (is_float) {
                  if (std::isnan(x.f)) return x;
                  return FloatScalar(x.f > 0 ? 1.0 : x.f < 0 ? -1.0 : 0.0);
                }
                if (is_unsigned) return IntScalar(x.i != 0 ? 1 : 0);
                return IntScalar(x.i > 0 ? 1 : x.i < 0 ? -1 : 0);
              case Unary::kReciprocal:
                return FloatScalar(1.0 / x.f);
            }
            return std::nullopt;
          })) {
    return mlir::success();
  }
  if (op == Unary::kAbs && is_unsigned) {
    node.SetOutput(0, node.Input(0), type);
    return mlir::success();
  }
  return SetElementwiseOutput(
      node, {node.Input(0)}, type, [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
        Value x = v[0];
        Value zero = ConstantLike(b, loc, x, 0);
        switch (op) {
          case Unary::kAbs:
            if (is_float) return b.create<mlir::math::AbsFOp>(loc, x);
            return b.create<mlir::math::AbsIOp>(loc, x);
          case Unary::kNeg:
            if (is_float) return b.create<arith::NegFOp>(loc, x);
            return b.create<arith::SubIOp>(loc, zero, x);
          case Unary::kSign: {
            Value one = ConstantLike(b, loc, x, 1);
            if (is_float) {
              // 0, -0 and NaN are their own sign (numpy's sign).
              Value minus_one = ConstantLike(b, loc, x, -1);
              Value positive = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x, zero);
              Value negative = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x, zero);
              return Select(b, loc, positive, one, Select(b, loc, negative, minus_one, x));
            }
            if (is_unsigned) {
              return Select(b, loc, CmpI(b, loc, arith::CmpIPredicate::ne, x, zero), one, zero);
            }
            Value minus_one = ConstantLike(b, loc, x, -1);
            Value positive = CmpI(b, loc, arith::CmpIPredicate::sgt, x, zero);
            Value negative = CmpI(b, loc, arith::CmpIPredicate::slt, x, zero);
            return Select(b, loc, positive, one, Select(b, loc, negative, minus_one, zero));
          }
          case Unary::kReciprocal:
            return b.create<arith::DivFOp>(loc, ConstantLike(b, loc, x, 1), x);
        }
        return Value();
      });
}

// ---------------------------------------------------------------------------
// Clip.

// A bound of Clip: absent, a constant, or a rank-0 tensor operand.
struct ClipBound {
  bool present = false;
  std::optional<FoldScalar> constant;
  Value operand;  // Rank 0.
};

// Reads Clip's bound input `index` (opset 11 on): a scalar, also accepted
// as a one-element 1-D tensor (which some exporters write).
mlir::FailureOr<ClipBound> ReadClipBound(NodeImporter& node, int64_t index, OnnxElementType type) {
  ClipBound bound;
  if (!node.HasInput(index)) return bound;
  bound.present = true;
  if (node.InputElementType(index) != type) {
    return node.Fail("bound input " + std::to_string(index) + " is " +
                     OnnxElementTypeName(node.InputElementType(index)) + ", not " +
                     OnnxElementTypeName(type) + " as the input");
  }
  if (mlir::DenseElementsAttr constant = node.InputConstant(index)) {
    if (constant.getNumElements() != 1) {
      return node.Fail("bound input " + std::to_string(index) + " must be a scalar");
    }
    if (IsFloat(type)) {
      llvm::APFloat value = *constant.getValues<llvm::APFloat>().begin();
      bool loses_info = false;
      value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &loses_info);
      bound.constant = FloatScalar(value.convertToDouble());
    } else {
      llvm::APInt value = *constant.getValues<llvm::APInt>().begin();
      bound.constant = IntScalar(IsUnsigned(type) ? static_cast<int64_t>(value.getZExtValue())
                                                  : value.getSExtValue());
    }
    return bound;
  }
  Value operand = node.Input(index);
  auto operand_type = llvm::dyn_cast<mlir::RankedTensorType>(operand.getType());
  if (!operand_type || operand_type.getRank() > 1 ||
      (operand_type.getRank() == 1 && operand_type.getDimSize(0) != 1)) {
    return node.Fail("bound input " + std::to_string(index) +
                     " must be a scalar (rank 0 or one element)");
  }
  if (operand_type.getRank() == 1) {
    operand = node.builder().create<mlir::tensor::CollapseShapeOp>(
        node.loc(), mlir::RankedTensorType::get({}, operand_type.getElementType()), operand,
        llvm::ArrayRef<mlir::ReassociationIndices>{});
  }
  bound.operand = operand;
  return bound;
}

mlir::LogicalResult ConvertClip(NodeImporter& node) {
  if (!node.HasInput(0)) return node.Fail("needs an input");
  if (mlir::failed(CheckInputType(node, 0, node.opset() < 12 ? kFloatTypes : kNumericTypes))) {
    return mlir::failure();
  }
  const OnnxElementType type = node.InputElementType(0);
  ClipBound lower, upper;
  if (node.opset() < 11) {
    // Attributes, defaulting to float's range (what ONNX Runtime clamps to).
    lower.present = upper.present = true;
    lower.constant = FloatScalar(node.FloatAttribute("min", -FLT_MAX));
    upper.constant = FloatScalar(node.FloatAttribute("max", FLT_MAX));
  } else {
    mlir::FailureOr<ClipBound> min = ReadClipBound(node, 1, type);
    if (mlir::failed(min)) return mlir::failure();
    mlir::FailureOr<ClipBound> max = ReadClipBound(node, 2, type);
    if (mlir::failed(max)) return mlir::failure();
    lower = *min;
    upper = *max;
    // Absent bounds are the type's lowest and highest (ONNX's defaults):
    // a float infinity clamps to the largest finite value.
    if (IsFloat(type)) {
      const double largest = llvm::APFloat::getLargest(llvm::cast<mlir::FloatType>(
                                                           ConvertElementType(node.context(), type))
                                                           .getFloatSemantics())
                                 .convertToDouble();
      if (!lower.present) {
        lower.present = true;
        lower.constant = FloatScalar(-largest);
      }
      if (!upper.present) {
        upper.present = true;
        upper.constant = FloatScalar(largest);
      }
    }
  }
  llvm::SmallVector<int64_t> fold_inputs = {0};
  if (lower.operand) fold_inputs.push_back(1);
  if (upper.operand) fold_inputs.push_back(2);
  auto clip_fold = [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
    FoldScalar x = v[0];
    size_t next = 1;
    if (lower.present) {
      FoldScalar bound = lower.constant ? *lower.constant : v[next++];
      x = *FoldMinMax(x, bound, type, /*is_max=*/true);
    }
    if (upper.present) {
      FoldScalar bound = upper.constant ? *upper.constant : v[next++];
      x = *FoldMinMax(x, bound, type, /*is_max=*/false);
    }
    return x;
  };
  if (FoldElementwise(node, fold_inputs, type, clip_fold)) return mlir::success();

  llvm::SmallVector<Value> operands = {node.Input(0)};
  if (lower.operand) operands.push_back(lower.operand);
  if (upper.operand) operands.push_back(upper.operand);
  return SetElementwiseOutput(
      node, operands, type, [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
        Value x = v[0];
        size_t next = 1;
        auto bound_value = [&](const ClipBound& bound) -> Value {
          if (!bound.constant) return v[next++];
          return ConstantLike(
              b, loc, x,
              IsFloat(type) ? bound.constant->f : static_cast<double>(bound.constant->i));
        };
        // max(x, min) then min(·, max): min > max gives max (numpy's clip).
        if (lower.present) x = MinMax(b, loc, x, bound_value(lower), type, /*is_max=*/true);
        if (upper.present) x = MinMax(b, loc, x, bound_value(upper), type, /*is_max=*/false);
        return x;
      });
}

// ---------------------------------------------------------------------------
// Dropout: kiln imports inference graphs, where Dropout is the identity and
// its mask all true (all ones of the input's type before opset 10). Forms
// that would drop at random (training) are errors unless the ratio is 0.
mlir::LogicalResult ConvertDropout(NodeImporter& node) {
  if (!node.HasInput(0)) return node.Fail("needs an input");
  const OnnxElementType type = node.InputElementType(0);
  if (node.opset() < 7) {
    if (node.IntAttribute("is_test", 0) == 0) {
      return node.Fail(
          "Dropout before opset 7 without is_test=1 drops at random (training); kiln imports "
          "inference graphs");
    }
  } else if (node.opset() >= 12 && node.HasInput(2)) {
    std::optional<std::vector<int64_t>> training = node.InputInts(2);
    if (!training || training->size() != 1) {
      return node.Fail("training_mode must be a scalar known at import time");
    }
    if ((*training)[0] != 0) {
      double ratio = 0.5;
      if (node.HasInput(1)) {
        mlir::DenseElementsAttr ratio_constant = node.InputConstant(1);
        if (!ratio_constant || ratio_constant.getNumElements() != 1 ||
            !llvm::isa<mlir::FloatType>(ratio_constant.getElementType())) {
          return node.Fail("training_mode=true needs a ratio known at import time");
        }
        ratio = (*ratio_constant.getValues<llvm::APFloat>().begin()).convertToDouble();
      }
      if (ratio != 0) {
        return node.Fail("training_mode=true with ratio " + std::to_string(ratio) +
                         " drops at random; kiln imports inference graphs");
      }
    }
  }
  if (mlir::DenseElementsAttr constant = node.InputConstant(0)) {
    node.SetConstantOutput(0, constant, type);
  } else {
    node.SetOutput(0, node.Input(0), type);
  }
  if (node.HasOutput(1)) {
    OnnxElementType mask_type = node.InferredOutputElementType(1);
    if (mask_type == onnx::TensorProto::UNDEFINED) {
      mask_type = node.opset() < 10 ? type : onnx::TensorProto::BOOL;
    }
    mlir::Type mask_element = ConvertElementType(node.context(), mask_type);
    if (!mask_element) {
      return node.Fail("mask of element type " + OnnxElementTypeName(mask_type) +
                       " is not supported");
    }
    OpBuilder& b = node.builder();
    mlir::FailureOr<int64_t> rank = RankOf(node, node.Input(0));
    if (mlir::failed(rank)) return mlir::failure();
    Value one = ScalarConstant(b, node.loc(), mask_element, 1);
    Value mask = FilledTensor(b, node.loc(), TensorSizes(b, node.loc(), node.Input(0)), one);
    node.SetOutput(1, mask, mask_type);
  }
  return mlir::success();
}

}  // namespace

void RegisterElementwiseOps(OpRegistry& registry) {
  registry.Register("Add", [](NodeImporter& n) { return ConvertArithmetic(n, Arithmetic::kAdd); });
  registry.Register("Sub", [](NodeImporter& n) { return ConvertArithmetic(n, Arithmetic::kSub); });
  registry.Register("Mul", [](NodeImporter& n) { return ConvertArithmetic(n, Arithmetic::kMul); });
  registry.Register("Div", [](NodeImporter& n) { return ConvertArithmetic(n, Arithmetic::kDiv); });
  registry.Register("Pow", ConvertPow);
  registry.Register("Mod", ConvertMod, 10);
  registry.Register("Sum", [](NodeImporter& n) { return ConvertVariadic(n, Variadic::kSum); });
  registry.Register("Mean", [](NodeImporter& n) { return ConvertVariadic(n, Variadic::kMean); });
  registry.Register("Min", [](NodeImporter& n) { return ConvertVariadic(n, Variadic::kMin); });
  registry.Register("Max", [](NodeImporter& n) { return ConvertVariadic(n, Variadic::kMax); });
  registry.Register("Abs", [](NodeImporter& n) { return ConvertUnary(n, Unary::kAbs); });
  registry.Register("Neg", [](NodeImporter& n) { return ConvertUnary(n, Unary::kNeg); });
  registry.Register(
      "Sign", [](NodeImporter& n) { return ConvertUnary(n, Unary::kSign); }, 9);
  registry.Register("Reciprocal",
                    [](NodeImporter& n) { return ConvertUnary(n, Unary::kReciprocal); });
  registry.Register("Clip", ConvertClip);
  registry.Register("Dropout", ConvertDropout);
  RegisterElementwiseMathOps(registry);
  RegisterElementwiseLogicOps(registry);
  RegisterCastOps(registry);
}

}  // namespace kiln::onnx_import
