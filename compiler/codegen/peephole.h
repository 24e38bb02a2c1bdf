// Peephole optimisation of machine IR, between instruction selection and
// register allocation: the fused and immediate instruction forms the VM has
// for hot code (vm/opcodes.h), in this order:
//
//   1. Compare-and-branch: a cmp.{lt,gt,le,ge}.{i32,i64}.s whose only use is
//      its block's cond_br becomes br.lt.{i32,i64}.s (gt/le swap the
//      operands, ge/le swap the targets).
//   2. Counted-loop back-edges: `n = add i, C` followed (n unread in between)
//      by `br.lt n, bound` becomes `for.step n(i), C, bound` when C fits the
//      32-bit immediate; the register allocator then gives n the register of
//      i, as for.step increments in place.
//   3. Immediates: add/sub of a constant that fits 32 bits → add.imm.i32/i64;
//      br.lt.i32.s against a constant → br.lt.imm.i32.s.
//   4. Constants nothing reads any more are not materialised.
//
// Every rewrite keeps SSA form, so liveness and allocation see the final
// instruction stream.
#pragma once

#include "compiler/codegen/machine_ir.h"

namespace kiln::compiler::codegen {

void OptimizeMachineFunction(MFunction& mf);

}  // namespace kiln::compiler::codegen
