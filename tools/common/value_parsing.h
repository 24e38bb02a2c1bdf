// Value literals of the command-line tools: parsing --input and
// --expected_output values, formatting results, comparing them, all in
// iree-run-module's notation.
//
// A literal is `[TYPE=]VALUE`. The text before the first '=' names the type
// and decides how VALUE is read; without it the value takes the type the
// function's signature asks for. Types today are scalar element types:
//   i32=5  i64=-3  f32=1.5  f64=2.25    the four VM scalar types
//   i1=1   i8=-5   i16=300              narrow integers, held in i32 values
//   index=7                             an i64
// (Tensor values such as `8xf32=2` are read by function_io.h for the ref
// arguments that take them.)
//
// Integers are decimal with an optional sign and must fit their width: an
// N-bit literal may use the signed or the unsigned range of N bits (i8 takes
// -128..255; i32=4294967295 is i32=-1), and narrow values are stored
// sign-extended into their i32 (i8=255 is the i32 -1); i1 takes 0 or 1.
// Floats are decimal or inf/nan; a literal outside the range of its type is
// an error, not a silent infinity.
//
// Results print as `i32=832040`, `i64=-3`, `f32=1.5`, `f64=0.1` (floats as
// the shortest text that reads back exactly), a ref as its type name
// (`vm.list`) or `null`.
//
// Comparison (--expected_output): integers exactly; f32 within
// |actual - expected| <= 1e-5 * max(1, |expected|), f64 within 1e-12 of the
// same scale; infinities only equal themselves and NaN matches NaN. Refs
// match only the same object.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "vm/variant.h"

namespace kiln::tools {

// A scalar element type a literal may name before its '='.
enum class ElementType : uint8_t { kI1, kI8, kI16, kI32, kI64, kIndex, kF32, kF64 };

std::string_view ElementTypeName(ElementType type);  // "i1", ..., "index", "f64"
// The element type named `name`, or NotFound for anything else.
Result<ElementType> ParseElementType(std::string_view name);
// The VM value type an element type is held in (i1/i8/i16 in i32, index in i64).
vm::ValueType StorageType(ElementType type);

// Parses one literal for a value of VM type `expected` (from a signature).
// Errors name the literal and, for a typed literal of the wrong type, both
// types; they do not say which input it was (function_io.h's ParseFunctionValues does).
Result<vm::Variant> ParseValue(std::string_view text, vm::ValueType expected);

// iree-run-module's notation of a result: "i32=5", "f32=1.5", "vm.list".
std::string FormatValue(const vm::Variant& value);

// Whether `actual` matches `expected` under the tolerances above.
bool ValuesMatch(const vm::Variant& expected, const vm::Variant& actual);

// What a list of literals is for; it decides the wording of errors.
enum class ValueRole { kInput, kExpectedOutput };

}  // namespace kiln::tools
