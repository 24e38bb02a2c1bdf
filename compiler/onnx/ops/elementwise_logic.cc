// Elementwise predicates and logic: Equal, Less, Greater, LessOrEqual,
// GreaterOrEqual (→ bool; floats compare ordered, so NaN compares false;
// integers by their ONNX signedness), And, Or, Xor, Not (bool), BitShift
// (unsigned integers), Where, IsNaN, IsInf. All fold on constant inputs
// (shape computations compare and select sizes).
#include <cmath>
#include <string>

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/elementwise_common.h"
#include "compiler/onnx/ops/elementwise_folding.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

namespace kiln::onnx_import {
namespace {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Value;
using mlir::ValueRange;
namespace arith = mlir::arith;

constexpr OnnxElementType kBool = onnx::TensorProto::BOOL;

enum class Compare { kEqual, kLess, kGreater, kLessOrEqual, kGreaterOrEqual };

// `x op y` at import time (folding), in the operands' own C++ type.
template <typename T>
bool Compares(Compare op, T x, T y) {
  switch (op) {
    case Compare::kEqual:
      return x == y;
    case Compare::kLess:
      return x < y;
    case Compare::kGreater:
      return x > y;
    case Compare::kLessOrEqual:
      return x <= y;
    case Compare::kGreaterOrEqual:
      return x >= y;
  }
  return false;
}

mlir::LogicalResult ConvertCompare(NodeImporter& node, Compare op) {
  const unsigned allowed = op == Compare::kEqual ? kAllTypes : kNumericTypes;
  if (mlir::failed(CheckInputsPresent(node, 2)) || mlir::failed(CheckInputType(node, 0, allowed)) ||
      mlir::failed(CheckSameInputTypes(node, 0, 1))) {
    return mlir::failure();
  }
  const OnnxElementType type = node.InputElementType(0);
  const bool is_float = IsFloat(type);
  const bool is_unsigned = IsUnsigned(type);
  auto fold = [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
    // C++'s comparisons of doubles are ordered: NaN compares false.
    if (is_float) return IntScalar(Compares(op, v[0].f, v[1].f));
    // Unsigned values are zero-extended, so only uint64 needs unsigned
    // comparison; comparing all unsigned ones so is the same.
    if (is_unsigned)
      return IntScalar(Compares(op, static_cast<uint64_t>(v[0].i), static_cast<uint64_t>(v[1].i)));
    return IntScalar(Compares(op, v[0].i, v[1].i));
  };
  if (BroadcastsAsNumpy(node) && FoldElementwise(node, {0, 1}, kBool, fold)) {
    return mlir::success();
  }
  mlir::FailureOr<llvm::SmallVector<Value>> operands = BinaryOperands(node);
  if (mlir::failed(operands)) return mlir::failure();
  return SetElementwiseOutput(
      node, *operands, kBool, [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
        if (is_float) {
          arith::CmpFPredicate predicate = arith::CmpFPredicate::OEQ;
          switch (op) {
            case Compare::kEqual:
              predicate = arith::CmpFPredicate::OEQ;
              break;
            case Compare::kLess:
              predicate = arith::CmpFPredicate::OLT;
              break;
            case Compare::kGreater:
              predicate = arith::CmpFPredicate::OGT;
              break;
            case Compare::kLessOrEqual:
              predicate = arith::CmpFPredicate::OLE;
              break;
            case Compare::kGreaterOrEqual:
              predicate = arith::CmpFPredicate::OGE;
              break;
          }
          return b.create<arith::CmpFOp>(loc, predicate, v[0], v[1]);
        }
        arith::CmpIPredicate predicate = arith::CmpIPredicate::eq;
        switch (op) {
          case Compare::kEqual:
            predicate = arith::CmpIPredicate::eq;
            break;
          case Compare::kLess:
            predicate = is_unsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
            break;
          case Compare::kGreater:
            predicate = is_unsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
            break;
          case Compare::kLessOrEqual:
            predicate = is_unsigned ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
            break;
          case Compare::kGreaterOrEqual:
            predicate = is_unsigned ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
            break;
        }
        return b.create<arith::CmpIOp>(loc, predicate, v[0], v[1]);
      });
}

enum class Logic { kAnd, kOr, kXor };

mlir::LogicalResult ConvertLogic(NodeImporter& node, Logic op) {
  if (mlir::failed(CheckInputsPresent(node, 2)) ||
      mlir::failed(CheckInputType(node, 0, kBoolType)) ||
      mlir::failed(CheckInputType(node, 1, kBoolType))) {
    return mlir::failure();
  }
  auto fold = [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
    const bool x = v[0].i != 0, y = v[1].i != 0;
    switch (op) {
      case Logic::kAnd:
        return IntScalar(x && y);
      case Logic::kOr:
        return IntScalar(x || y);
      case Logic::kXor:
        return IntScalar(x != y);
    }
    return std::nullopt;
  };
  if (BroadcastsAsNumpy(node) && FoldElementwise(node, {0, 1}, kBool, fold)) {
    return mlir::success();
  }
  mlir::FailureOr<llvm::SmallVector<Value>> operands = BinaryOperands(node);
  if (mlir::failed(operands)) return mlir::failure();
  return SetElementwiseOutput(node, *operands, kBool,
                              [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
                                switch (op) {
                                  case Logic::kAnd:
                                    return b.create<arith::AndIOp>(loc, v[0], v[1]);
                                  case Logic::kOr:
                                    return b.create<arith::OrIOp>(loc, v[0], v[1]);
                                  case Logic::kXor:
                                    return b.create<arith::XOrIOp>(loc, v[0], v[1]);
                                }
                                return Value();
                              });
}

mlir::LogicalResult ConvertNot(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 1)) ||
      mlir::failed(CheckInputType(node, 0, kBoolType))) {
    return mlir::failure();
  }
  if (FoldElementwise(node, {0}, kBool,
                      [](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
                        return IntScalar(v[0].i == 0);
                      })) {
    return mlir::success();
  }
  return SetElementwiseOutput(node, {node.Input(0)}, kBool,
                              [](OpBuilder& b, Location loc, ValueRange v) -> Value {
                                Value all_ones = ConstantLike(b, loc, v[0], 1);
                                return b.create<arith::XOrIOp>(loc, v[0], all_ones);
                              });
}

// BitShift on unsigned integers; a shift by the width or more gives 0 (as
// numpy's shifts do; LLVM's shifts would be poison there).
mlir::LogicalResult ConvertBitShift(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 2)) ||
      mlir::failed(CheckInputType(node, 0, kUnsignedTypes)) ||
      mlir::failed(CheckSameInputTypes(node, 0, 1))) {
    return mlir::failure();
  }
  const std::string direction = node.StringAttribute("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    return node.Fail("direction must be LEFT or RIGHT, not '" + direction + "'");
  }
  const bool left = direction == "LEFT";
  const OnnxElementType type = node.InputElementType(0);
  const int64_t width = ElementByteSize(type) * 8;
  if (FoldElementwise(node, {0, 1}, type,
                      [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
                        const uint64_t x = v[0].i, amount = v[1].i;
                        if (amount >= static_cast<uint64_t>(width)) return IntScalar(0);
                        return IntScalar(static_cast<int64_t>(left ? x << amount : x >> amount));
                      })) {
    return mlir::success();
  }
  return SetElementwiseOutput(
      node, {node.Input(0), node.Input(1)}, type,
      [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
        Value shifted = left ? b.create<arith::ShLIOp>(loc, v[0], v[1]).getResult()
                             : b.create<arith::ShRUIOp>(loc, v[0], v[1]).getResult();
        Value too_far = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge, v[1],
                                                ConstantLike(b, loc, v[1], width));
        return b.create<arith::SelectOp>(loc, too_far, ConstantLike(b, loc, v[0], 0), shifted);
      });
}

mlir::LogicalResult ConvertWhere(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 3)) ||
      mlir::failed(CheckInputType(node, 0, kBoolType)) ||
      mlir::failed(CheckSameInputTypes(node, 1, 2))) {
    return mlir::failure();
  }
  const OnnxElementType type = node.InputElementType(1);
  if (FoldElementwise(node, {0, 1, 2}, type,
                      [](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
                        return v[0].i != 0 ? v[1] : v[2];
                      })) {
    return mlir::success();
  }
  return SetElementwiseOutput(node, {node.Input(0), node.Input(1), node.Input(2)}, type,
                              [](OpBuilder& b, Location loc, ValueRange v) -> Value {
                                return b.create<arith::SelectOp>(loc, v[0], v[1], v[2]);
                              });
}

mlir::LogicalResult ConvertIsNaN(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 1)) ||
      mlir::failed(CheckInputType(node, 0, kFloatTypes))) {
    return mlir::failure();
  }
  if (FoldElementwise(node, {0}, kBool,
                      [](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
                        return IntScalar(std::isnan(v[0].f));
                      })) {
    return mlir::success();
  }
  return SetElementwiseOutput(
      node, {node.Input(0)}, kBool, [](OpBuilder& b, Location loc, ValueRange v) -> Value {
        return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, v[0], v[0]);
      });
}

mlir::LogicalResult ConvertIsInf(NodeImporter& node) {
  if (mlir::failed(CheckInputsPresent(node, 1)) ||
      mlir::failed(CheckInputType(node, 0, kFloatTypes))) {
    return mlir::failure();
  }
  const bool positive = node.IntAttribute("detect_positive", 1) != 0;
  const bool negative = node.IntAttribute("detect_negative", 1) != 0;
  if (FoldElementwise(
          node, {0}, kBool, [&](llvm::ArrayRef<FoldScalar> v) -> std::optional<FoldScalar> {
            const double x = v[0].f;
            return IntScalar((positive && x == INFINITY) || (negative && x == -INFINITY));
          })) {
    return mlir::success();
  }
  return SetElementwiseOutput(
      node, {node.Input(0)}, kBool, [&](OpBuilder& b, Location loc, ValueRange v) -> Value {
        Value result = ScalarConstant(b, loc, b.getI1Type(), 0);
        if (positive) {
          Value inf = ConstantLike(b, loc, v[0], INFINITY);
          result = b.create<arith::OrIOp>(
              loc, result, b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, v[0], inf));
        }
        if (negative) {
          Value minus_inf = ConstantLike(b, loc, v[0], -INFINITY);
          result = b.create<arith::OrIOp>(
              loc, result,
              b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, v[0], minus_inf));
        }
        return result;
      });
}

}  // namespace

void RegisterElementwiseLogicOps(OpRegistry& registry) {
  registry.Register("Equal", [](NodeImporter& n) { return ConvertCompare(n, Compare::kEqual); });
  registry.Register("Less", [](NodeImporter& n) { return ConvertCompare(n, Compare::kLess); });
  registry.Register("Greater",
                    [](NodeImporter& n) { return ConvertCompare(n, Compare::kGreater); });
  registry.Register(
      "LessOrEqual", [](NodeImporter& n) { return ConvertCompare(n, Compare::kLessOrEqual); }, 12);
  registry.Register(
      "GreaterOrEqual", [](NodeImporter& n) { return ConvertCompare(n, Compare::kGreaterOrEqual); },
      12);
  registry.Register("And", [](NodeImporter& n) { return ConvertLogic(n, Logic::kAnd); });
  registry.Register("Or", [](NodeImporter& n) { return ConvertLogic(n, Logic::kOr); });
  registry.Register("Xor", [](NodeImporter& n) { return ConvertLogic(n, Logic::kXor); });
  registry.Register("Not", ConvertNot);
  registry.Register("BitShift", ConvertBitShift, 11);
  registry.Register("Where", ConvertWhere, 9);
  registry.Register("IsNaN", ConvertIsNaN, 9);
  registry.Register("IsInf", ConvertIsInf, 10);
}

}  // namespace kiln::onnx_import
