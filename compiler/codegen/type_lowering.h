// Type lowering: which VM register bank holds a value of each IR type, and the
// calling-convention strings of function types.
//
//   i1, i8, i16, i32   i32 bank, kept canonical: i8/i16 sign-extended to 32
//                      bits, i1 as 0 or 1 (see instruction_selection.h)
//   i64, index         i64 bank
//   f32, f64           f32, f64 banks
//   !vm.buffer, !hal.device, !hal.allocator, !hal.buffer, !hal.buffer_view,
//   !hal.executable, !hal.command_buffer, !hal.fence
//                      ref bank (objects of the hal module, hal/module)
//
// Everything else (f16, bf16, other integer widths, tensors, function and
// other dialect types) has no VM registers; code generation reports
// "type 'f16' is not supported by the VM (yet)" at the value's location.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/types.h"
#include "vm/opcodes.h"

namespace kiln::compiler::codegen {

// The bank of a supported type; nullopt for unsupported ones.
std::optional<vm::Bank> BankOfType(const Type& type);

// Whether `type` is one of the ref types above (held in the ref bank).
bool IsRefType(const Type& type);

// The error message for a type BankOfType rejects.
std::string UnsupportedTypeMessage(const Type& type);

// Integer width as code generation sees it: 1, 8, 16, 32 or 64 (index is 64);
// 0 for non-integers.
uint32_t IntegerWidth(const Type& type);

// A narrow integer (i1, i8, i16) lives in an i32 register in canonical form.
inline bool IsNarrowInteger(const Type& type) {
  uint32_t width = IntegerWidth(type);
  return width != 0 && width < 32;
}

// The calling-convention string ("ii_F") of a function taking `inputs` and
// returning `results`; nullopt when a type is unsupported.
std::optional<std::string> SignatureOf(const std::vector<Type>& inputs,
                                       const std::vector<Type>& results);

// The bits of an integer constant of `type` in its register's canonical form
// (i1: 0 or 1; i8/i16: sign-extended to 32 bits; i32 as is, zero-extended to
// 64 bits of storage; i64 as is).
uint64_t CanonicalIntegerBits(int64_t value, const Type& type);

}  // namespace kiln::compiler::codegen
