// Calling-convention strings: "iI_f" = (i32, i64) -> f32.
//
// One character per value (i = i32, I = i64, f = f32, F = f64, r = ref), the
// arguments, an underscore, the results. Bytecode functions, imports and
// native functions all describe themselves this way, and linking compares the
// strings exactly.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "vm/opcodes.h"
#include "vm/variant.h"

namespace kiln::vm {

struct SignatureParts {
  std::string_view arguments;  // e.g. "iI"
  std::string_view results;    // e.g. "f"
};

// Splits and validates a calling-convention string.
Status ParseSignature(std::string_view signature, SignatureParts* parts);

// The value type of one calling-convention character ('r' and anything the
// verifier would reject map to kRef; callers pass validated signatures).
ValueType ValueTypeOfChar(char c);

// "(i32, i64) -> f32" for error messages.
std::string FormatSignature(std::string_view signature);
// "(i32, i64)" for a run of type characters such as "iI".
std::string FormatTypeList(std::string_view types);

}  // namespace kiln::vm
