// Register allocation as IR annotations: the allocation pass
// (--kiln-vm-allocate-registers) writes them, emission reads them.
//
//   vm.func @f(...) attributes {vm.register_counts = array<i32: I32, I64, F32, F64, REF>}
//   %x = vm.add.i32 %a, %b {vm.regs = array<i32: 3>} : i32
//   vm.for.step.i32 %i, 1, %n, ^bb1(...), ^bb2 {vm.regs = array<i32: 0>}
//   ^bb1(%i: i32, %acc: i64):        // first op of the block:
//     %t = vm.mul.i64 ... {vm.block_regs = array<i32: 0, 1>, vm.regs = ...}
//
// `vm.regs` lists the registers an op writes, in its bank: its results, or
// for.step's incremented induction variable (the value its body edge
// produces). `vm.block_regs`, on a block's first op, lists the registers of
// the block's arguments; -1 marks an argument nothing reads (no register, its
// copies disappear). `vm.register_counts` is the frame size per bank.
#pragma once

#include "compiler/vm/machine_function.h"
#include "compiler/vm/register_allocation.h"
#include "mlir/Support/LogicalResult.h"

namespace kiln::compiler::VM {
class FuncOp;
}  // namespace kiln::compiler::VM

namespace kiln::compiler::vm_backend {

inline constexpr char kRegsAttr[] = "vm.regs";
inline constexpr char kBlockRegsAttr[] = "vm.block_regs";
inline constexpr char kRegisterCountsAttr[] = "vm.register_counts";

// Writes `allocation` onto the ops of `mf`'s function.
void AnnotateRegisters(const MFunction& mf, const Allocation& allocation, VM::FuncOp func);

// Removes the annotations from `func`.
void ClearRegisterAnnotations(VM::FuncOp func);

// Whether `func` carries an allocation (vm.register_counts).
bool HasRegisterAnnotations(VM::FuncOp func);

// Reads the allocation back; reports (emitError at the op) and fails when an
// annotation is missing, malformed or out of range.
mlir::FailureOr<Allocation> ReadRegisterAnnotations(const MFunction& mf, VM::FuncOp func);

}  // namespace kiln::compiler::vm_backend
