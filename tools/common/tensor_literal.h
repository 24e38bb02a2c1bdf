// Tensor literals: iree-run-module's text notation of a tensor, parsed for
// --input/--expected_output and printed for results.
//
// A literal is `SHAPExTYPE=VALUES` or, for a 0-d tensor, `TYPE=VALUE`:
//   8xf32=2                     splat: one value fills the whole shape
//   2x3xi32=1 2 3 4 5 6         values separated by spaces and/or commas
//   2x2xf32=[[1 2][3 4]]        brackets group rows; also [[1, 2], [3, 4]]
//   2x2xf32=[1 2][3 4]          the printed form (outermost brackets left out)
//   f32=1.5   i8=-1             0-d tensors
//   0x4xf32=                    an empty tensor
//   4xf32=                      no values at all: zeros, as iree-run-module does
// Brackets only group; when present they must balance and agree with the
// shape at every level (either one group around everything or one group per
// row of the outermost dimension). Element types are hal::ParseElementType's
// names (i1 i8 i16 i32 i64, si*/ui*, f16 bf16 f32 f64). Integers are decimal
// with an optional sign and must fit the type: signless iN takes the signed
// or the unsigned range of N bits (i8 takes -128..255), siN only the signed
// and uiN only the unsigned range, i1 takes 0 or 1. Floats are decimal, hex
// (`0x1.8p1`), `nan`, `inf` or `-inf`; f16/bf16 values are read as the
// nearest double and then rounded to nearest even (this is exact unless a
// decimal lies within 2^-53 of a halfway point); a finite value beyond the
// type's range is an error, not an infinity.
//
// Printing follows iree's buffer view formatting (iree_hal_format_element):
// integers in decimal, floats with printf's "%G" (6 significant digits:
// `1.5`, `96`, `0.1`, `1E+10`, `NAN`, `INF`), nested dimensions in brackets
// without the outermost pair (`2x2xi32=[1 2][3 4]`), at most
// `max_element_count` elements overall with `...` where a row was cut (like
// --print_max_element_count, default 1024). FloatNotation::kShortest prints
// floats as the shortest text that reads back exactly instead (the notation
// of kiln's scalar results), so that parse(format(x)) == x for every value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "tools/common/host_tensor.h"

namespace kiln::tools {

// Whether `text` is written as a shaped tensor literal (`2x3xf32=...`,
// `0x4xi8=`): the text before its first '=' starts with a digit and holds an
// 'x' (so `index=5` is not one). function_io.h asks this to tell a tensor
// given for a scalar argument; `f32=1.5` is a scalar literal there for a
// scalar argument and a 0-d tensor for a tensor argument (ParseTensorLiteral
// reads it as one).
bool IsTensorLiteral(std::string_view text);

// Parses one literal. Errors name the literal and the problem:
// "'2x3xi32=1 2 3 4 5' : 2x3xi32 needs 6 values, got 5".
Result<HostTensor> ParseTensorLiteral(std::string_view text);

enum class FloatNotation {
  kIree,      // printf "%G", as iree-run-module prints.
  kShortest,  // Shortest round-trip text (std::to_chars), as kiln prints scalars.
};

struct TensorFormatOptions {
  int64_t max_element_count = 1024;
  FloatNotation float_notation = FloatNotation::kIree;
};

// `8xf32=96 96 96 96 96 96 96 96`, `2x2xi32=[1 2][3 4]`, `f32=1.5`.
std::string FormatTensor(const HostTensor& tensor, const TensorFormatOptions& options = {});

// The element at row-major `index`, as FormatTensor prints it.
std::string FormatElement(const HostTensor& tensor, int64_t index,
                          FloatNotation notation = FloatNotation::kIree);

}  // namespace kiln::tools
