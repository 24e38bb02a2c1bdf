// Recursive fibonacci with scf.if: fib(30) = 832040 (1.6 million calls).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=fib --input=i32=30 | FileCheck %s --check-prefix=FIB30 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fib --input=i32=0 | FileCheck %s --check-prefix=FIB0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fib --input=i32=1 | FileCheck %s --check-prefix=FIB1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fib_i64 --input=i64=25 | FileCheck %s --check-prefix=FIB25 --match-full-lines

// FIB30: EXEC @fib
// FIB30-NEXT: result[0]: i32=832040
// FIB0: EXEC @fib
// FIB0-NEXT: result[0]: i32=0
// FIB1: EXEC @fib
// FIB1-NEXT: result[0]: i32=1
func.func @fib(%n: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %lt = arith.cmpi slt, %n, %c2 : i32
  %r = scf.if %lt -> (i32) {
    scf.yield %n : i32
  } else {
    %c1 = arith.constant 1 : i32
    %n1 = arith.subi %n, %c1 : i32
    %f1 = func.call @fib(%n1) : (i32) -> i32
    %n2 = arith.subi %n, %c2 : i32
    %f2 = func.call @fib(%n2) : (i32) -> i32
    %s = arith.addi %f1, %f2 : i32
    scf.yield %s : i32
  }
  return %r : i32
}

// The same with cf branches, i64 and the short `call` spelling.
// FIB25: EXEC @fib_i64
// FIB25-NEXT: result[0]: i64=75025
func.func @fib_i64(%n: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %lt = arith.cmpi slt, %n, %c2 : i64
  cf.cond_br %lt, ^leaf, ^inner
^leaf:
  return %n : i64
^inner:
  %n1 = arith.subi %n, %c1 : i64
  %n2 = arith.subi %n, %c2 : i64
  %f1 = call @fib_i64(%n1) : (i64) -> i64
  %f2 = call @fib_i64(%n2) : (i64) -> i64
  %s = arith.addi %f1, %f2 : i64
  return %s : i64
}
