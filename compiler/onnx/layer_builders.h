// IR building blocks of the linear-algebra and neural-network converters
// (ops/linear.cc, ops/convolution.cc, ops/pooling.cc, ...): index arithmetic
// that folds static sizes, padding, reshapes, broadcasting to a given shape,
// one-result linalg.generics with explicit maps, and the sliding windows of
// convolutions and pooling (kernel, strides, dilations, pads with auto_pad
// resolved, output sizes).
//
// Sizes are OpFoldResults throughout: static sizes stay attributes and fold,
// dynamic ones become arith ops on index values, so a converter written once
// serves both.
#pragma once

#include <cstdint>
#include <functional>

#include "compiler/onnx/onnx_types.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace kiln::onnx_import {

class NodeImporter;

// Index arithmetic on sizes; static operands fold to attributes.
mlir::Value IndexValue(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult size);
mlir::OpFoldResult AddSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                            mlir::OpFoldResult rhs);
mlir::OpFoldResult SubSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                            mlir::OpFoldResult rhs);
mlir::OpFoldResult MulSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                            mlir::OpFoldResult rhs);
// Division of a non-negative size by a positive one, rounding down or up.
mlir::OpFoldResult FloorDivSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                                 mlir::OpFoldResult rhs);
mlir::OpFoldResult CeilDivSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                                mlir::OpFoldResult rhs);
mlir::OpFoldResult MaxSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                            mlir::OpFoldResult rhs);
// The product of `sizes` (1 when empty).
mlir::OpFoldResult ProductOfSizes(mlir::OpBuilder& b, mlir::Location loc,
                                  llvm::ArrayRef<mlir::OpFoldResult> sizes);

// The static shape of `sizes` (kDynamic where not constant).
llvm::SmallVector<int64_t> StaticShapeOf(llvm::ArrayRef<mlir::OpFoldResult> sizes);

// `value` padded by `low` and `high` elements per dimension with scalar
// `padding` (a filled tensor with `value` inserted); `value` itself where
// every pad is a static 0.
mlir::Value PadTensor(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                      llvm::ArrayRef<mlir::OpFoldResult> low,
                      llvm::ArrayRef<mlir::OpFoldResult> high, mlir::Value padding);

// tensor.collapse_shape / tensor.expand_shape of `value` by `reassociation`;
// `sizes` are the expanded result's sizes.
mlir::Value CollapseDims(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                         llvm::ArrayRef<mlir::ReassociationIndices> reassociation);
mlir::Value ExpandDims(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                       llvm::ArrayRef<mlir::ReassociationIndices> reassociation,
                       llvm::ArrayRef<mlir::OpFoldResult> sizes);

// The body of a one-result generic: its operands' scalars (inputs, then the
// accumulator) → the yielded scalar.
using GenericBody =
    std::function<mlir::Value(mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange args)>;

// One linalg.generic over `iterators` loops reading `inputs` through
// `input_maps` and writing `init` through `init_map`.
mlir::Value BuildGeneric(mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange inputs,
                         llvm::ArrayRef<mlir::AffineMap> input_maps, mlir::Value init,
                         mlir::AffineMap init_map,
                         llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                         const GenericBody& body);

// `value` broadcast to `sizes` by ONNX's unidirectional (numpy) rule: its
// dimensions align with the trailing ones of `sizes`, static 1s repeat.
// `body` maps the element (identity when null). Fails (reported) where a
// static size differs from a static target size and is not 1.
mlir::FailureOr<mlir::Value> BroadcastToSizes(NodeImporter& node, mlir::Value value,
                                              llvm::ArrayRef<mlir::OpFoldResult> sizes,
                                              mlir::Type element_type,
                                              const GenericBody& body = nullptr);

// The map reading a rank-`rank` operand broadcast along the trailing dims of
// a `loop_count`-loop iteration (numpy alignment): static 1s where `sizes`
// is not 1 read element 0.
mlir::AffineMap TrailingBroadcastMap(mlir::MLIRContext* context, mlir::RankedTensorType type,
                                     int64_t loop_count, int64_t first_loop,
                                     llvm::ArrayRef<mlir::OpFoldResult> loop_sizes);

// The smallest value of a scalar type (-inf for floats; the smallest
// integer by the ONNX type's signedness), the identity of max.
mlir::Value LowestValue(mlir::OpBuilder& b, mlir::Location loc, mlir::Type type,
                        OnnxElementType onnx_type);

// The sliding window of Conv, ConvTranspose and the pooling ops over the
// spatial dimensions (those after N and C) of an input.
struct SpatialWindow {
  llvm::SmallVector<int64_t> kernel;
  llvm::SmallVector<int64_t> strides;
  llvm::SmallVector<int64_t> dilations;
  // Resolved from `pads` or auto_pad.
  llvm::SmallVector<mlir::OpFoldResult> pads_begin;
  llvm::SmallVector<mlir::OpFoldResult> pads_end;
  // The output's spatial sizes.
  llvm::SmallVector<mlir::OpFoldResult> output_sizes;
  // The padding at the end that the last window needs past pads_end
  // (ceil_mode), 0 otherwise.
  llvm::SmallVector<mlir::OpFoldResult> extra_end;

  int64_t rank() const { return static_cast<int64_t>(kernel.size()); }
  // The extent of the dilated kernel along spatial dim `i`.
  int64_t DilatedKernel(int64_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
};

// Reads strides, dilations, pads and auto_pad (attributes of `node`) for a
// window of `kernel` over `input`'s spatial sizes `input_sizes`, and
// computes the output sizes (rounding up with `ceil_mode`, dropping a last
// window that would start in the end padding, as ONNX Runtime does).
mlir::FailureOr<SpatialWindow> ReadSpatialWindow(NodeImporter& node,
                                                 llvm::ArrayRef<mlir::OpFoldResult> input_sizes,
                                                 llvm::ArrayRef<int64_t> kernel, bool ceil_mode,
                                                 bool has_dilations);

// `input` (N, C, spatial...) padded as `window` says with scalar `padding`,
// including the ceil_mode extra at the end.
mlir::Value PadSpatial(mlir::OpBuilder& b, mlir::Location loc, mlir::Value input,
                       const SpatialWindow& window, mlir::Value padding);

// Input `input_index` of MatMulInteger or ConvInteger ((u)int8) as int32
// minus its zero point (input `zero_point_index`, optional): a scalar, a
// 1-element tensor or, with `per_row_dim` >= 0, a vector along that
// dimension of the input; other shapes broadcast as numpy does.
mlir::FailureOr<mlir::Value> SubtractZeroPoint(NodeImporter& node, int64_t input_index,
                                               int64_t zero_point_index, int64_t per_row_dim);

}  // namespace kiln::onnx_import
