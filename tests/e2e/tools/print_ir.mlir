// --print-ir-after-lowering prints the IR as it enters code generation:
// scf.if, scf.for and scf.while are lowered to blocks and cf branches.
// RUN: %kiln-compile %s -o %t.kmod --print-ir-after-lowering | FileCheck %s
// RUN: %kiln-run-module --module=%t.kmod --function=lowered --input=10 | FileCheck %s --check-prefix=RUN1 --match-full-lines

// CHECK-LABEL: func.func @lowered
// CHECK-NOT: scf.
// CHECK: cf.cond_br
// CHECK-NOT: scf.
// CHECK: return
// CHECK-NOT: scf.

// RUN1: EXEC @lowered
// RUN1-NEXT: result[0]: i32=8
func.func @lowered(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %rem = arith.remsi %i, %c2 : i32
    %even = arith.cmpi eq, %rem, %c0 : i32
    %add = scf.if %even -> (i32) {
      scf.yield %i : i32
    } else {
      %t = arith.muli %i, %c2 : i32
      scf.yield %t : i32
    }
    %next = arith.addi %acc, %add : i32
    scf.yield %next : i32
  }
  %r = scf.while (%x = %sum) : (i32) -> i32 {
    %big = arith.cmpi sgt, %x, %n : i32
    scf.condition(%big) %x : i32
  } do {
  ^bb0(%y: i32):
    %y1 = arith.divsi %y, %c2 : i32
    scf.yield %y1 : i32
  }
  return %r : i32
}
