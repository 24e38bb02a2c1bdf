// What the optimizing passes may change must not change results: algebraic
// identities (x + 0, x * 1, x - 0, x & -1), a select and branches on constant
// conditions, unreachable blocks, unused pure ops, unused private functions
// (removed from the module), and an unused division (removed too: in MLIR's
// arith dialect dividing by zero is undefined behaviour, so an unused
// arith.divsi has no effect to keep and canonicalization deletes it; only a
// division that is executed traps at run time, see runtime/traps.mlir).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=identities --input=13 | FileCheck %s --check-prefix=ID --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=constant_branches --input=5 | FileCheck %s --check-prefix=CB --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unused_division --input=0 | FileCheck %s --check-prefix=NOTRAP --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=unused_division --input=2 | FileCheck %s --check-prefix=NOTRAP --match-full-lines
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP

// ID: EXEC @identities
// ID-NEXT: result[0]: i32=13
// ID-NEXT: result[1]: i32=13
// ID-NEXT: result[2]: i32=13
// ID-NEXT: result[3]: i32=13
// ID-NEXT: result[4]: i32=0
// ID-NEXT: result[5]: i32=13
func.func @identities(%x: i32) -> (i32, i32, i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m1 = arith.constant -1 : i32
  %a = arith.addi %x, %c0 : i32
  %b = arith.muli %c1, %x : i32
  %c = arith.subi %x, %c0 : i32
  %d = arith.andi %x, %m1 : i32
  %e = arith.muli %x, %c0 : i32
  %f = arith.ori %c0, %x : i32
  // Unused pure ops.
  %unused1 = arith.muli %x, %x : i32
  %unused2 = arith.addi %unused1, %c1 : i32
  return %a, %b, %c, %d, %e, %f : i32, i32, i32, i32, i32, i32
}

// CB: EXEC @constant_branches
// CB-NEXT: result[0]: i32=50
func.func @constant_branches(%x: i32) -> i32 {
  %true = arith.constant true
  %c10 = arith.constant 10 : i32
  cf.cond_br %true, ^taken(%x : i32), ^never
^never:
  %bad = arith.subi %c10, %x : i32
  cf.br ^unreachable(%bad : i32)
^unreachable(%u: i32):
  return %u : i32
^taken(%t: i32):
  %r = arith.muli %t, %c10 : i32
  cf.br ^merge(%r : i32)
^merge(%m: i32):
  return %m : i32
}

// NOTRAP: EXEC @unused_division
// NOTRAP-NEXT: result[0]: i32=7
func.func @unused_division(%d: i32) -> i32 {
  %c7 = arith.constant 7 : i32
  %q = arith.divsi %c7, %d : i32
  return %c7 : i32
}

// DUMP-NOT: 'unused_helper'
func.func private @unused_helper(%x: i32) -> i32 {
  return %x : i32
}
