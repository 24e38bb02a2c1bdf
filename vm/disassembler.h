// Disassembler: renders bytecode instructions as text, for kiln-dump-module,
// instruction tracing (kiln-run-module --trace_execution) and error reports.
//
// It reads the ORIGINAL bytecode of a module (schema::Module::bytecode(), with
// bank-relative register operands), not the loader's slot-rewritten copy;
// instruction offsets are the same in both, so an offset the interpreter
// reports disassembles here.
//
// Notation, one token per operand:
//   registers       bank letter + bank-relative index, the letters of
//                   calling-convention strings: i3 (i32), I3 (i64), f3 (f32),
//                   F3 (f64), r3 (ref)
//   immediates      decimal integers; floats as the shortest text that reads
//                   back to the same value (1.5, 1e-07, inf, nan)
//   branch target   @offset, from the start of the function: @24
//   function        @name of the callee:            call @fib(i3) -> (i4)
//   import          @qualified name:                call.import @logger.log(i1) -> (i2)
//   string          quoted, C-escaped:               fail "bad \"input\"\n"
//   rodata          rodata:name (rodata:#N when the segment has no name)
//   ref type        !name:                           ref.is_type i0, r1, !vm.list
//   globals         global[byte offset] for i32/i64/f32/f64, global.ref[slot]
//   switch table    [@t0, @t1, ...]
//   return values   the registers, comma-separated:  return i0, F1
//   trace operands  the registers after the message: trace "x", i0, F2
// e.g. "add.i32 i2, i0, i1", "const.i64 I3, 7", "br.lt.i32.s i0, i1, @9, @11".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "vm/opcodes.h"

namespace kiln::schema {
struct Module;
}  // namespace kiln::schema

namespace kiln::vm {

// One decoded instruction: the structured form (for JSON output) and its text.
struct DisassembledInstruction {
  struct Operand {
    OperandKind kind;
    std::string text;  // As in the notation above; may be empty (no return values).
  };

  uint32_t offset = 0;  // From the start of the function's bytecode.
  uint32_t length = 0;  // Encoded bytes, opcode included.
  Opcode opcode = Opcode::kCount;
  std::string_view mnemonic;
  std::vector<Operand> operands;

  // "add.i32 i2, i0, i1"; call argument and result lists attach to the callee
  // as "@fib(i3) -> (i4)".
  std::string ToString() const;
};

// Decodes the instruction at `offset` of function `function` of `module`.
// Meant for verified modules, but every read is bounds-checked: an offset
// outside the function or an instruction running past its end, an invalid
// opcode or an out-of-range index gives an error, never a crash.
Result<DisassembledInstruction> DisassembleInstruction(const schema::Module& module,
                                                       uint32_t function, uint32_t offset);

// Decodes every instruction of function `function`, in order.
Result<std::vector<DisassembledInstruction>> DisassembleFunction(const schema::Module& module,
                                                                 uint32_t function);

// "\"text\"" with quotes, backslashes and non-printable bytes escaped
// (\n, \t, \r, \xNN).
std::string QuoteString(std::string_view text);

// Shortest decimal text that reads back as exactly `value`.
std::string FormatFloat(float value);
std::string FormatDouble(double value);

}  // namespace kiln::vm
