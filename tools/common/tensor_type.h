// TensorType: the tensor type a function argument or result declares, read
// from an export's reflection, and the check that a concrete tensor fits it.
//
// kiln-compile describes each argument and result of an export with its MLIR
// type (ExportReflection::argument_descriptions, e.g. "tensor<?x4xf32>").
// The tools read those descriptions to know which arguments are tensors, to
// check --input values against them before anything runs, and to type an
// untyped input (`--input="1 2 3 4"` for a tensor<4xf32>). A description may
// carry a name around the type ("x: tensor<4xf32>", "tensor<4xf32> input");
// the first "tensor<...>" in it is the type. Dimensions are sizes or `?`
// (dynamic); element types are the names hal::ParseElementType reads plus
// MLIR's `index`, which kiln lowers to i64. An encoding after the element
// type (`tensor<4xf32, #enc>`) is ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "hal/element_type.h"

namespace kiln::tools {

struct TensorType {
  static constexpr int64_t kDynamic = -1;

  std::vector<int64_t> dims;  // kDynamic for `?`.
  hal::ElementType element_type = hal::ElementType::kNone;

  bool is_static() const;
  // "tensor<?x4xf32>".
  std::string ToString() const;
  // "4xf32" (the literal prefix of a static type), "f32" for a 0-d tensor.
  std::string ShapeAndType() const;
};

// The tensor type in `description`, nullopt when it names no tensor
// (`i32`, `!vm.list`, an empty string), an error when its "tensor<...>" is
// malformed or its element type unknown.
Result<std::optional<TensorType>> ParseTensorTypeDescription(std::string_view description);

// Why a tensor of `shape` and `element_type` does not fit `type`, or nullopt
// when it does: "element type i32 differs from f32", "rank 1 differs from 2",
// "dimension 1 is 3, not 4".
std::optional<std::string> DescribeTensorTypeMismatch(const TensorType& type,
                                                      std::span<const int64_t> shape,
                                                      hal::ElementType element_type);

}  // namespace kiln::tools
