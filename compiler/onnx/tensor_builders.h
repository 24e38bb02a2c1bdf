// IR building blocks the op converters share: sizes, empty tensors,
// constants, ONNX's multidirectional (numpy) broadcasting, elementwise
// linalg.generics over broadcast operands, and scalar casts with ONNX's
// signedness.
//
// Dynamic sizes are read with tensor.dim where needed; broadcasting follows
// what torch-mlir's ONNX import assumes for dynamic sizes: a dynamic size
// meets another size as an equal one (a size that is 1 only at run time is
// not broadcast).
#pragma once

#include <functional>

#include "compiler/onnx/onnx_types.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"

namespace kiln::onnx_import {

class NodeImporter;

// The sizes of ranked tensor `value`: static sizes as attributes, dynamic
// ones as tensor.dim.
llvm::SmallVector<mlir::OpFoldResult> TensorSizes(mlir::OpBuilder& b, mlir::Location loc,
                                                  mlir::Value value);

// tensor.empty of `sizes` and `element_type`.
mlir::Value EmptyTensor(mlir::OpBuilder& b, mlir::Location loc,
                        llvm::ArrayRef<mlir::OpFoldResult> sizes, mlir::Type element_type);

// A scalar arith.constant of `type` (float or integer) holding `value`.
mlir::Value ScalarConstant(mlir::OpBuilder& b, mlir::Location loc, mlir::Type type, double value);

// A tensor of `sizes` filled with scalar `value` (linalg.fill).
mlir::Value FilledTensor(mlir::OpBuilder& b, mlir::Location loc,
                         llvm::ArrayRef<mlir::OpFoldResult> sizes, mlir::Value value);

// The broadcast result sizes of `operands` (ranked tensors), or failure
// (reported on `node`) when two static sizes differ and neither is 1.
mlir::FailureOr<llvm::SmallVector<mlir::OpFoldResult>> BroadcastSizes(NodeImporter& node,
                                                                      mlir::ValueRange operands);

// The body of an elementwise op: the operands' scalars → the result scalar.
using ScalarBody = std::function<mlir::Value(mlir::OpBuilder& b, mlir::Location loc,
                                             mlir::ValueRange scalars)>;

// One linalg.generic computing `body` over `operands` broadcast against
// each other (ONNX multidirectional broadcasting), with a result of
// `result_element_type`. Fails (reported) where the shapes do not broadcast.
mlir::FailureOr<mlir::Value> BuildElementwise(NodeImporter& node, mlir::ValueRange operands,
                                              mlir::Type result_element_type,
                                              const ScalarBody& body);

// Converts scalar `value` of ONNX type `from` to ONNX type `to` as ONNX's
// Cast does: float → integer truncates toward zero, integer widening sign-
// or zero-extends by the source's signedness, to bool compares with zero.
mlir::Value ConvertScalar(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                          OnnxElementType from, OnnxElementType to);

// Converts tensor `value` elementwise (ConvertScalar); `value` when the types
// agree.
mlir::Value ConvertTensor(NodeImporter& node, mlir::Value value, OnnxElementType from,
                          OnnxElementType to);

// Normalizes a possibly negative axis of a rank-`rank` tensor; failure
// (reported) when out of range.
mlir::FailureOr<int64_t> NormalizeAxis(NodeImporter& node, int64_t axis, int64_t rank);

// The rank of ranked tensor `value`, or failure (reported) when unranked.
mlir::FailureOr<int64_t> RankOf(NodeImporter& node, mlir::Value value);

}  // namespace kiln::onnx_import
