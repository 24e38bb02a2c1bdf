// What the reduction op files share (ops/reductions.cc, softmax.cc,
// losses.cc, scans.cc): their registration and the IR of a reduction along
// some axes of a tensor.
//
//   reductions.cc  ReduceSum ReduceMean ReduceMax ReduceMin ReduceProd
//                  ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp
//                  ReduceSumSquare ArgMax ArgMin; registers the rest
//   softmax.cc     Softmax LogSoftmax Hardmax LpNormalization
//   losses.cc      NegativeLogLikelihoodLoss SoftmaxCrossEntropyLoss
//   scans.cc       CumSum TopK
//
// A reduction is one linalg.generic whose loops are the input's dimensions
// in order, the reduced ones "reduction" and the others ("kept") "parallel";
// its result has the kept sizes only, and ONNX's keepdims puts 1s back with
// a tensor.expand_shape. Values of the kept shape (a row's maximum, its
// sum) are read back along the full shape by a generic whose map for them
// projects the reduced loops away, so no broadcast tensor is materialized.
#pragma once

#include <cstdint>
#include <functional>

#include "compiler/onnx/onnx_types.h"
#include "llvm/ADT/SmallVector.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace kiln::onnx_import {

class NodeImporter;
class OpRegistry;

void RegisterSoftmaxOps(OpRegistry& registry);
void RegisterLossOps(OpRegistry& registry);
void RegisterScanOps(OpRegistry& registry);

// The loops of a reduction of a rank-`rank` tensor along `axes` (normalized,
// sorted, unique).
struct AxisReduction {
  int64_t rank = 0;
  llvm::SmallVector<int64_t> axes;

  bool IsReduced(int64_t dim) const;
  // The map of a full-shape operand (identity) and of a kept-shape one.
  mlir::AffineMap FullMap(mlir::MLIRContext* context) const;
  mlir::AffineMap KeptMap(mlir::MLIRContext* context) const;
  // The kept sizes of full-shape `value`.
  llvm::SmallVector<mlir::OpFoldResult> KeptSizes(mlir::OpBuilder& b, mlir::Location loc,
                                                  mlir::Value value) const;
  // The number of elements each result point reduces, as an index value.
  mlir::Value ReducedCount(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value) const;
};

// The payload of a reduction: the elements of the full-shape inputs and of
// the kept-shape inputs at one point, the accumulators; returns the new
// accumulators. Inside it, linalg.index gives the input's indices.
using ReductionBody = std::function<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange full, mlir::ValueRange kept,
    mlir::ValueRange accumulators)>;

// One linalg.generic reducing `full` (tensors of one shape) along the
// loops of `reduction`, reading `kept` along the kept loops, with one result
// of the kept sizes per initial scalar in `inits`.
llvm::SmallVector<mlir::Value> BuildReduction(mlir::OpBuilder& b, mlir::Location loc,
                                              const AxisReduction& reduction, mlir::ValueRange full,
                                              mlir::ValueRange kept, mlir::ValueRange inits,
                                              const ReductionBody& body);

// The body of an elementwise map over the full shape: the elements of the
// full-shape and of the kept-shape operands at one point → the result.
using FullMapBody = std::function<mlir::Value(mlir::OpBuilder& b, mlir::Location loc,
                                              mlir::ValueRange full, mlir::ValueRange kept)>;

// One parallel linalg.generic over the shape of `full[0]` reading `kept`
// (reduction results) broadcast along the reduced loops, with a result of
// `result_type` elements.
mlir::Value BuildFullMap(mlir::OpBuilder& b, mlir::Location loc, const AxisReduction& reduction,
                         mlir::ValueRange full, mlir::ValueRange kept, mlir::Type result_type,
                         const FullMapBody& body);

// A kept-shape `value` with a 1 put back at each reduced axis (keepdims).
mlir::Value KeepReducedDims(mlir::OpBuilder& b, mlir::Location loc, const AxisReduction& reduction,
                            mlir::Value value);

// The float type reductions of `type` accumulate in: f32 for f16 and bf16
// (as ONNX Runtime does; their sums lose too much otherwise), else `type`.
mlir::Type AccumulatorFloatType(mlir::Type type);
// A float widened to (or narrowed back from) the accumulator's type; `x`
// itself when the types agree.
mlir::Value ExtendFloat(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Type type);
mlir::Value TruncateFloat(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Type type);

// Scalar helpers with ONNX's signedness.
mlir::Value MaxScalar(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Value y,
                      OnnxElementType type);
mlir::Value MinScalar(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Value y,
                      OnnxElementType type);
// The lowest (or highest) value of `type`: -inf (+inf) for floats, the
// smallest (largest) integer of its signedness.
mlir::Value LowestScalar(mlir::OpBuilder& b, mlir::Location loc, mlir::Type type,
                         OnnxElementType onnx_type);
mlir::Value HighestScalar(mlir::OpBuilder& b, mlir::Location loc, mlir::Type type,
                          OnnxElementType onnx_type);

// A reduction whose reduced elements are chosen at run time (an axis that
// is a run-time value): one generic over the output's loops and then all of
// `input`'s loops (reductions), adding input[i] into output[o] where
// `selected(o, i)` (the loop indices) holds. Quadratic in the element
// count: only for the forms whose axes are not known at import time.
using PairSelector = std::function<mlir::Value(
    mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange out_index, mlir::ValueRange in_index)>;
mlir::Value BuildSelectedSum(mlir::OpBuilder& b, mlir::Location loc, mlir::Value input,
                             llvm::ArrayRef<mlir::OpFoldResult> out_sizes, bool is_float,
                             const PairSelector& selected);

// Softmax, log-softmax of `input` (a float tensor) along `reduction`'s loops,
// stable (the maximum subtracted first); the results of Softmax/LogSoftmax
// and of SoftmaxCrossEntropyLoss's log_prob.
mlir::Value BuildSoftmax(mlir::OpBuilder& b, mlir::Location loc, const AxisReduction& reduction,
                         mlir::Value input, bool log);

}  // namespace kiln::onnx_import
