// The interpreter: runs verified bytecode of one BytecodeModule.
//
// A register machine in the style of Lua's lvm.c: one loop dispatching on a
// computed-goto table, frames bump-allocated from the Stack's arena (each frame
// a small header followed by the function's i64, f64, ref, i32 and f32 register
// banks), calls between functions of the module handled inside the loop without
// recursion in C++. Operands are decoded without bounds checks because the
// verifier proved them in range; what remains checked is what depends on
// values: division by zero, stack depth, null or mistyped refs, list and
// buffer indices, and failures of imported functions.
//
// Any of those stops the invocation with a Status naming the function and the
// bytecode offset (and source location when the module has one), followed by
// one "called from" line per enclosing frame.
//
// A call to an import passes its values as Variants laid out in the stack's
// arena right above the caller's frame (no allocation): ref arguments are lent
// (the registers keep their references, so no count changes) and ref results
// are moved into their registers. A linked import is entered through its
// module's trusted entry when it has one (module.h, TrustedEntry), which
// skips the checks linking and verification already made.
//
// When the stack's options carry an instruction_trace callback, Execute runs
// a second instantiation of the loop that reports every instruction (function
// ordinal and bytecode offset) before executing it; without one it runs the
// untraced loop, so tracing costs nothing when it is off.
#pragma once

#include <cstdint>
#include <span>

#include "base/status.h"
#include "vm/bytecode_module.h"
#include "vm/stack.h"
#include "vm/variant.h"

namespace kiln::vm {

// Bytes reserved at the start of every frame for the interpreter's bookkeeping.
// kFrameHeaderBytes (bytes reserved at the start of every frame) is declared in
// bytecode_module.h, which lays frames out.

// Runs function `function` of `module` with `args` (which must match its
// signature's argument types) and writes its results.
Status Execute(const BytecodeModule& module, BytecodeModuleState& state, uint32_t function,
               std::span<const Variant> args, std::span<Variant> results, Stack& stack);

}  // namespace kiln::vm
