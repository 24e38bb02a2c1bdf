// Bit manipulation: population count of an i64 (shrui, andi in a loop that
// runs until the value is zero) and the bit reversal of an i32 (32 steps of
// shli/ori/shrui).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=popcount --input=i64=-1 | FileCheck %s --check-prefix=POP_ALL --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=popcount --input=i64=4886718345 | FileCheck %s --check-prefix=POP15 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=popcount --input=i64=0 | FileCheck %s --check-prefix=POP0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=reverse --input=1 | FileCheck %s --check-prefix=REV1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=reverse --input=305419896 | FileCheck %s --check-prefix=REVX --match-full-lines

// POP_ALL: EXEC @popcount
// POP_ALL-NEXT: result[0]: i64=64
// POP15: EXEC @popcount
// POP15-NEXT: result[0]: i64=15
// POP0: EXEC @popcount
// POP0-NEXT: result[0]: i64=0
func.func @popcount(%x: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r:2 = scf.while (%v = %x, %n = %c0) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi ne, %v, %c0 : i64
    scf.condition(%more) %v, %n : i64, i64
  } do {
  ^bb0(%v: i64, %n: i64):
    %bit = arith.andi %v, %c1 : i64
    %n1 = arith.addi %n, %bit : i64
    %v1 = arith.shrui %v, %c1 : i64
    scf.yield %v1, %n1 : i64, i64
  }
  return %r#1 : i64
}

// REV1: EXEC @reverse
// REV1-NEXT: result[0]: i32=-2147483648
// REVX: EXEC @reverse
// REVX-NEXT: result[0]: i32=510274632
func.func @reverse(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %r:2 = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %c0, %v = %x) -> (i32, i32) : i32 {
    %shifted = arith.shli %acc, %c1 : i32
    %bit = arith.andi %v, %c1 : i32
    %acc1 = arith.ori %shifted, %bit : i32
    %v1 = arith.shrui %v, %c1 : i32
    scf.yield %acc1, %v1 : i32, i32
  }
  return %r#0 : i32
}
