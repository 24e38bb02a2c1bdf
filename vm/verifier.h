// The verifier: everything the interpreter trusts is checked here, once.
//
// VerifyModule runs the FlatBuffer verifier over the raw bytes, then checks the
// module tables (bytecode version, signatures, spans (in range and disjoint:
// the loader rewrites each function's code in place), indices, type names,
// rodata alignment, initializer) and every function's bytecode:
//   - every opcode is valid and every instruction fits inside its function;
//   - every register operand is inside the function's declared count for the
//     bank the opcode says;
//   - branch targets are instruction boundaries inside the function, and every
//     block (code reached by a branch, and the end of the function) is
//     preceded by a terminator, so control never falls into a block or off the
//     end;
//   - calls name existing functions/imports and pass exactly the registers
//     their signatures ask for, in the right banks; returns match the
//     function's own result signature;
//   - rodata, string, type, import and global indices/offsets are in range and
//     global accesses are aligned.
// After VerifyModule succeeds the interpreter decodes operands without checks.
// Errors name the function and the bytecode offset of the offending
// instruction.
#pragma once

#include <cstdint>
#include <span>

#include "base/status.h"
#include "vm/type_registry.h"

namespace kiln::vm {

Status VerifyModule(std::span<const uint8_t> bytes, const TypeRegistry& types);

}  // namespace kiln::vm
