// Calling-convention strings: "iI_f" = (i32, i64) -> f32.
//
// One character per value (i = i32, I = i64, f = f32, F = f64, r = ref), the
// arguments, an underscore, the results. Bytecode functions, imports and
// native functions all describe themselves this way, and linking compares the
// strings exactly (variadic native exports aside, below).
//
// Native exports alone may be variadic: a '*' ending the arguments ("rri*_r")
// stands for any number of further arguments of any types. Such an export
// links to an import whose signature is concrete (bytecode never contains
// '*') when the import's arguments start with the part before '*' and the
// results are equal; the native function checks the tail's types itself.
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
  // Native exports only: the arguments end with '*' (not part of
  // `arguments`, which then holds the fixed prefix).
  bool variadic = false;
};

// Splits and validates a concrete calling-convention string (bytecode
// functions and imports; '*' is rejected).
Status ParseSignature(std::string_view signature, SignatureParts* parts);
// The same for native exports, which may also end their arguments with '*'.
Status ParseNativeSignature(std::string_view signature, SignatureParts* parts);

// Whether an import with the concrete signature `import` may link to an
// export with signature `exported`: equal strings, or `exported` is variadic,
// `import`'s arguments start with its prefix and the results are equal.
bool ImportMatchesExport(std::string_view import, std::string_view exported);

// The value type of one calling-convention character ('r' and anything the
// verifier would reject map to kRef; callers pass validated signatures).
ValueType ValueTypeOfChar(char c);

// "(i32, i64) -> f32" for error messages; a variadic tail prints as "...".
std::string FormatSignature(std::string_view signature);
// "(i32, i64)" for a run of type characters such as "iI".
std::string FormatTypeList(std::string_view types);

}  // namespace kiln::vm
