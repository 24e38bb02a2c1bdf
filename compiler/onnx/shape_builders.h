// IR building blocks of the shape and data-movement converters (ops/
// shape_ops.cc, slicing.cc, indexing.cc, generators.cc): index arithmetic
// that folds as it builds, shape tensors whose elements the importer knows
// one by one, reshapes, and folding of data movement on known contents.
//
// Shape tensors. ONNX computes shapes with tensors (Shape → Gather →
// Unsqueeze → Concat → Reshape). Where every element is known the importer
// folds them into constants (ImportedValue::constant). Where some are
// dynamic (a batch size read with tensor.dim), the converters build the
// tensor as
//
//   %e = tensor.from_elements %n, %c768 : tensor<2xindex>
//   %s = arith.index_cast %e : tensor<2xindex> to tensor<2xi64>
//
// and KnownElements reads the index values back from that form, so that a
// Gather, Concat or Slice of it picks values instead of emitting kernels, and
// a Reshape reads its sizes without reading a tensor back from the device.
// The dead remains are removed by kiln-import-onnx's canonicalization.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "compiler/onnx/onnx_types.h"
#include "llvm/ADT/SmallVector.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"

namespace kiln::onnx_import {

class NodeImporter;

// Index arithmetic on OpFoldResults: constants fold at build time (the
// result is then an attribute), anything else builds arith ops on index.
class IndexMath {
 public:
  IndexMath(mlir::OpBuilder& b, mlir::Location loc) : b_(b), loc_(loc) {}

  mlir::OpFoldResult Constant(int64_t value) { return b_.getIndexAttr(value); }
  mlir::Value Value(mlir::OpFoldResult value);
  mlir::OpFoldResult Add(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::OpFoldResult Sub(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::OpFoldResult Mul(mlir::OpFoldResult x, mlir::OpFoldResult y);
  // Signed division rounding toward zero, and toward +infinity.
  mlir::OpFoldResult Div(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::OpFoldResult CeilDiv(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::OpFoldResult Min(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::OpFoldResult Max(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::OpFoldResult Clamp(mlir::OpFoldResult x, mlir::OpFoldResult low, mlir::OpFoldResult high) {
    return Min(Max(x, low), high);
  }
  // i1 results; as OpFoldResults so that known conditions fold selects.
  mlir::OpFoldResult Cmp(mlir::arith::CmpIPredicate predicate, mlir::OpFoldResult x,
                         mlir::OpFoldResult y);
  mlir::OpFoldResult And(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::OpFoldResult Or(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::OpFoldResult Select(mlir::OpFoldResult condition, mlir::OpFoldResult x,
                            mlir::OpFoldResult y);
  // The product of `values` (1 when empty).
  mlir::OpFoldResult Product(llvm::ArrayRef<mlir::OpFoldResult> values);

 private:
  mlir::OpFoldResult Fold(mlir::Value value);
  mlir::OpBuilder& b_;
  mlir::Location loc_;
};

// The elements of input `index` (a 0-D or 1-D integer tensor) as index
// values, when the importer knows them: constant contents, or a shape tensor
// built by SetShapeOutput. Unsigned contents are zero-extended.
std::optional<llvm::SmallVector<mlir::OpFoldResult>> KnownElements(NodeImporter& node,
                                                                   int64_t index);

// The elements of input `index` as index values: the known ones, else read
// with tensor.extract (on the host: one read back per element, which only
// models computing shapes on the device pay). Fails (reported) where the
// input is not a 0-D or 1-D integer tensor of static length.
mlir::FailureOr<llvm::SmallVector<mlir::OpFoldResult>> ElementsOf(NodeImporter& node,
                                                                  int64_t index);

// The single element of scalar (0-D or 1-element) input `index` as a value of
// its own element type, read with tensor.extract (where no constant).
mlir::Value ScalarOf(NodeImporter& node, int64_t index);

// Sets output `index` to the integer tensor of `elements` (0-D when
// `scalar`): a constant when all are known, else a shape tensor (above).
void SetShapeOutput(NodeImporter& node, int64_t index, llvm::ArrayRef<mlir::OpFoldResult> elements,
                    bool scalar, OnnxElementType element_type = onnx::TensorProto::INT64);

// Whether `size` is the size of dimension `dim` of `source` (read from it
// with tensor.dim): dynamic sizes the importer can prove equal.
bool IsDimOf(mlir::OpFoldResult size, mlir::Value source, int64_t dim);

// Whether two sizes are provably equal: the same constant, the same value,
// or tensor.dim of the same tensor and dimension.
bool SameSize(mlir::OpFoldResult a, mlir::OpFoldResult b);

// The quotient of the products of `numerators` and `denominators`, factors
// that provably appear in both cancelled first (the inferred -1 of a Reshape
// of [B, S, 768] into [B, -1, 12, 64] is S itself, not B*S*768 / (B*768)).
mlir::OpFoldResult DivideProducts(IndexMath& math, llvm::ArrayRef<mlir::OpFoldResult> numerators,
                                  llvm::ArrayRef<mlir::OpFoldResult> denominators);

// The sizes of output `index`: those of `computed` where ONNX's shape
// inference knows no static size, its static sizes where it does (they are
// what later nodes and the compiler see, and hold where the model is valid).
llvm::SmallVector<mlir::OpFoldResult> RefineSizes(NodeImporter& node, int64_t index,
                                                  llvm::ArrayRef<mlir::OpFoldResult> computed);

// The static shape of `sizes` (dynamic where not constant).
llvm::SmallVector<int64_t> StaticShape(llvm::ArrayRef<mlir::OpFoldResult> sizes);

// `value` (a ranked tensor) reshaped to `sizes` in row-major order (as
// numpy's reshape): tensor.collapse_shape and tensor.expand_shape where the
// sizes regroup the dimensions, else through a 1-D tensor, else (dynamic
// sizes in no regrouping) a copy of each element.
mlir::Value ReshapeTo(NodeImporter& node, mlir::Value value,
                      llvm::ArrayRef<mlir::OpFoldResult> sizes);

// Sets output `index` to input `input` reshaped to `sizes`: folded where the
// contents or the shape tensor's elements are known.
void SetReshapedOutput(NodeImporter& node, int64_t index, int64_t input,
                       llvm::ArrayRef<mlir::OpFoldResult> sizes);

// The largest result kiln folds at import time (elements): shape
// computations and small tensors; larger results are computed by kernels.
constexpr int64_t kMaxFoldedElements = 1 << 16;

// Folds data movement on known contents: the tensor of `type` whose element
// at each position (row-major) is `source`'s element at the flat index
// `source_index(position)`, or -1 for `fill` (null: none expected). Null when
// `type` is not static or too large to fold.
mlir::DenseElementsAttr FoldMovement(
    mlir::DenseElementsAttr source, mlir::RankedTensorType type,
    const std::function<int64_t(llvm::ArrayRef<int64_t>)>& source_index, mlir::Attribute fill = {});

// Row-major strides of a static shape.
llvm::SmallVector<int64_t> Strides(llvm::ArrayRef<int64_t> shape);

// A tensor read at an index computed in a kernel: `index` (an integer of
// any width and ONNX type `type`) as an index value, negative indices
// wrapped by adding `size` (ONNX's Gather, GatherElements, ...).
mlir::Value WrapIndex(mlir::OpBuilder& b, mlir::Location loc, mlir::Value index,
                      OnnxElementType type, mlir::Value size);

// The loop dims 0..rank-1 of a linalg.generic as linalg.index values.
llvm::SmallVector<mlir::Value> LoopIndices(mlir::OpBuilder& b, mlir::Location loc, int64_t rank);

// A linalg.generic of all-parallel loops over `sizes` whose result element
// (of `element_type`) is `body(loop indices, scalars of inputs)`; `inputs`
// are read through `input_maps` (identity maps where empty).
mlir::Value BuildIndexedGeneric(
    NodeImporter& node, llvm::ArrayRef<mlir::OpFoldResult> sizes, mlir::Type element_type,
    mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> input_maps,
    const std::function<mlir::Value(mlir::OpBuilder&, mlir::Location, mlir::ValueRange indices,
                                    mlir::ValueRange scalars)>& body);

// The registration of the families beside RegisterShapeOps (op_registry.h
// declares that one; it calls these).
class OpRegistry;
void RegisterSlicingOps(OpRegistry& registry);
void RegisterIndexingOps(OpRegistry& registry);
void RegisterGeneratorOps(OpRegistry& registry);

}  // namespace kiln::onnx_import
