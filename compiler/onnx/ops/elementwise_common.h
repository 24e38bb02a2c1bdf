// What the elementwise op files share (ops/elementwise*.cc): their
// registration, the operands of ops that broadcast (with the `broadcast` and
// `axis` attributes of the binary ops before opset 7), element type checks,
// computing in f32 for f16/bf16, and setting a converted output.
//
//   elementwise.cc           Add Sub Mul Div Pow Mod Sum Mean Min Max Abs Neg
//                            Sign Reciprocal Clip Dropout; registers the rest
//   elementwise_math.cc      Sqrt Exp Log trigonometry Erf rounding and the
//                            activations (Sigmoid ... Mish, Relu, PRelu)
//   elementwise_logic.cc     comparisons, And Or Xor Not, BitShift, Where,
//                            IsNaN IsInf
//   elementwise_cast.cc      Cast CastLike
//   elementwise_folding.h    import-time evaluation of these ops on constants
#pragma once

#include <cstdint>
#include <functional>

#include "compiler/onnx/onnx_types.h"
#include "compiler/onnx/tensor_builders.h"
#include "llvm/ADT/SmallVector.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace kiln::onnx_import {

class NodeImporter;
class OpRegistry;

void RegisterElementwiseMathOps(OpRegistry& registry);
void RegisterElementwiseLogicOps(OpRegistry& registry);
void RegisterCastOps(OpRegistry& registry);

// The classes of element types an op accepts (a bit set).
enum TypeClass : unsigned {
  kFloatTypes = 1,
  kSignedTypes = 2,
  kUnsignedTypes = 4,
  kBoolType = 8,
  kIntegerTypes = kSignedTypes | kUnsignedTypes,
  kNumericTypes = kFloatTypes | kIntegerTypes,
  kAllTypes = kNumericTypes | kBoolType,
};

// Fails (reported, naming input `index` and its type) unless the input's
// element type is in `allowed`.
mlir::LogicalResult CheckInputType(NodeImporter& node, int64_t index, unsigned allowed);

// Fails (reported) unless inputs `first`..`last` have the same element type.
mlir::LogicalResult CheckSameInputTypes(NodeImporter& node, int64_t first, int64_t last);

// Fails (reported) unless the node has at least `count` inputs, all present.
mlir::LogicalResult CheckInputsPresent(NodeImporter& node, int64_t count);

// The two operands of a binary op that broadcasts. Before opset 7 these ops
// (Add, Sub, Mul, Div, Pow, And, Or, Xor, Equal, Less, Greater) broadcast
// only with broadcast=1: B matches A's sizes from `axis` on (a suffix of A
// when `axis` is absent, which is numpy's rule); there B gets trailing 1s so
// that numpy broadcasting lines it up at `axis`. From opset 7 on: numpy.
mlir::FailureOr<llvm::SmallVector<mlir::Value>> BinaryOperands(NodeImporter& node);

// Whether the node's constant operands line up as numpy broadcasting does
// (false only for a binary op before opset 7 with an `axis`), so that
// import-time folding may broadcast them as numpy does.
bool BroadcastsAsNumpy(const NodeImporter& node);

// `compute` on `value`; for f16 and bf16 values on their f32 extension,
// truncated back (what ONNX Runtime does for the transcendental functions,
// and what the CPU's libm offers).
mlir::Value ComputeInF32(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                         const std::function<mlir::Value(mlir::Value)>& compute);

// Builds the elementwise generic of `body` over `operands` (tensor_builders.h)
// and sets it as output 0 of ONNX element type `result_type`.
mlir::LogicalResult SetElementwiseOutput(NodeImporter& node, mlir::ValueRange operands,
                                         OnnxElementType result_type, const ScalarBody& body);

// Shape tensors stay scalars (shape_builders.h): an elementwise op on small
// (at most 16 elements, rank 0 or 1) integer or bool tensors whose elements
// are known one by one (constants, shape_builders' from_elements of index
// values cast to integers, from_elements of bools), at least one of them
// dynamic (a batch size), computes each element with scalar ops and gives
// the same from_elements form, so that Reshape, Expand, Slice ... read the
// sizes without a kernel and a read-back. Null where it does not apply.
// SetElementwiseOutput tries it first.
mlir::Value ScalarizeShapeElementwise(NodeImporter& node, mlir::ValueRange operands,
                                      OnnxElementType result_type, const ScalarBody& body);

// A scalar of the element type of `like` (float or integer) holding `value`.
mlir::Value ConstantLike(mlir::OpBuilder& b, mlir::Location loc, mlir::Value like, double value);

}  // namespace kiln::onnx_import
