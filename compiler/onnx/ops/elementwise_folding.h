// Import-time evaluation of elementwise ops whose inputs are all known.
//
// Shape computations (Shape → Gather → Mul → Concat → Reshape, Resize's
// sizes from Shape → Cast → Mul → Floor → Cast) must be constants by the
// time Reshape, Expand or Resize read them (NodeImporter::InputInts), so the
// elementwise ops evaluate small constant inputs themselves and set a
// constant output, as torch-mlir's ONNX import leaves to its folders.
//
// Integers and bools fold exactly as the kernels compute them (wrapping at
// the element's width); floats only by the operations IEEE rounds exactly
// (+ - * / sqrt, comparisons, min/max, rounding, casts): evaluated in double
// and rounded once to the element type, which gives the correctly rounded
// f32/f16/bf16 result. Transcendental functions are left to the kernels, so
// a model gives the same numbers whether an input is constant or not.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "compiler/onnx/onnx_types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace kiln::onnx_import {

class NodeImporter;

// Folding stops above this many result elements (IR is emitted instead).
inline constexpr int64_t kMaxFoldElements = 4096;

// One element while folding: integers and bools as int64 (unsigned values
// zero-extended: uint64 as its bit pattern), floats as double.
union FoldScalar {
  int64_t i;
  double f;
};

inline FoldScalar IntScalar(int64_t value) {
  FoldScalar s;
  s.i = value;
  return s;
}
inline FoldScalar FloatScalar(double value) {
  FoldScalar s;
  s.f = value;
  return s;
}

// The result element of the inputs' elements; nullopt where the result is
// undefined (integer division by zero, a float out of an integer's range):
// then nothing is folded and the kernel computes it.
using ScalarFold = std::function<std::optional<FoldScalar>(llvm::ArrayRef<FoldScalar>)>;

// Folds output 0 when the node's inputs `inputs` are all known at import
// time, of element types folding reads (integers, bool, f16, bf16, f32,
// f64), broadcast (numpy) to at most kMaxFoldElements, and `fold` defines
// every element: sets output 0 to the constant of `result_type` and returns
// true. Otherwise sets nothing and returns false.
bool FoldElementwise(NodeImporter& node, llvm::ArrayRef<int64_t> inputs,
                     OnnxElementType result_type, const ScalarFold& fold);

// Every input index of the node that is present, in order (for variadic ops
// and optional inputs).
llvm::SmallVector<int64_t> PresentInputs(const NodeImporter& node);

// The wrapping of `value` to the width and signedness of integer `type`
// (what the kernel's arithmetic leaves in the element), as folding reads it.
int64_t WrapToType(int64_t value, OnnxElementType type);

// `value` rounded to float type `type` (to nearest, ties to even), as a
// kernel's arithmetic in that type leaves it; for the steps of a fold that
// are not its last (Sum's additions one by one).
double RoundToType(double value, OnnxElementType type);

}  // namespace kiln::onnx_import
