// Small IR helpers shared by the converters of quantization.cc, signal.cc,
// recurrent.cc, control_flow.cc and misc_ops.cc: linalg.generic over explicit
// indexing maps, scalars read out of tensors, index/float conversions and the
// maps that read a per-tensor or per-axis parameter (a quantization scale).
#pragma once

#include <cstdint>
#include <functional>

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/onnx_types.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

namespace kiln::onnx_import::misc {

// The body of a generic: its block arguments (inputs then outputs) → the
// values it yields.
using GenericBody = std::function<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange args)>;

// A linalg.generic of `inputs` into `inits` with `maps` (inputs' then
// inits') and `iterators`; returns its results.
llvm::SmallVector<mlir::Value> Generic(mlir::OpBuilder& b, mlir::Location loc,
                                       mlir::ValueRange inputs, mlir::ValueRange inits,
                                       llvm::ArrayRef<mlir::AffineMap> maps,
                                       llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                                       const GenericBody& body);

// A generic over `sizes` with no inputs besides `inputs` read through `maps`
// (one per input) that yields one value per element of a new tensor of
// `element_type`; the body may read its indices with linalg.index.
mlir::Value BuildIndexed(
    mlir::OpBuilder& b, mlir::Location loc, llvm::ArrayRef<mlir::OpFoldResult> sizes,
    mlir::Type element_type, mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> maps,
    const std::function<mlir::Value(mlir::OpBuilder&, mlir::Location, mlir::ValueRange)>& body);

// The single element of `tensor` (every size 1, or rank 0): tensor.extract.
mlir::Value ExtractScalar(mlir::OpBuilder& b, mlir::Location loc, mlir::Value tensor);

// Whether `value` holds one element (rank 0 or static sizes of 1).
bool IsSingleElement(mlir::Value value);

// index ↔ integer/float scalars.
mlir::Value IntToIndex(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value);
mlir::Value IndexToInt(mlir::OpBuilder& b, mlir::Location loc, mlir::Value index, mlir::Type type);
mlir::Value IndexToFloat(mlir::OpBuilder& b, mlir::Location loc, mlir::Value index,
                         mlir::Type type);
mlir::Value IndexConstant(mlir::OpBuilder& b, mlir::Location loc, int64_t value);

// A map from a rank-`rank` iteration space reading `param`: a single element
// (rank 0 or sizes of 1) at index 0, a 1-D tensor along dimension `axis`.
// Fails (reported, naming `what`) for other shapes.
mlir::FailureOr<mlir::AffineMap> ParameterMap(NodeImporter& node, mlir::Value param, int64_t rank,
                                              int64_t axis, llvm::StringRef what);

// Identity map of `rank` dims.
mlir::AffineMap IdentityMap(mlir::MLIRContext* context, int64_t rank);

// `rank` parallel iterators.
llvm::SmallVector<mlir::utils::IteratorType> Parallel(int64_t rank);

// Scalar (ONNX type `type`) to f32: signed/unsigned integers, floats.
mlir::Value ToF32(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value, OnnxElementType type);

// The scalar max/min/clamp of floats.
mlir::Value Clamp(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value, double low,
                  double high);

}  // namespace kiln::onnx_import::misc
