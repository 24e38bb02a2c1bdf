// scf.while: Collatz step counts (the before region decides, the after region
// updates two values), gcd (two loop-carried values, the result forwarded by
// scf.condition), a loop whose condition is false on entry (zero iterations),
// and a before region that does work and forwards values of other types.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=collatz --input=27 | FileCheck %s --check-prefix=C27 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=collatz --input=97 | FileCheck %s --check-prefix=C97 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=collatz --input=1 | FileCheck %s --check-prefix=C1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=gcd --input=i64=1071 --input=i64=462 | FileCheck %s --check-prefix=GCD21 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=gcd --input=i64=17 --input=i64=5 | FileCheck %s --check-prefix=GCD1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=gcd --input=i64=5 --input=i64=0 | FileCheck %s --check-prefix=GCD5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=isqrt --input=i64=1000000 | FileCheck %s --check-prefix=SQRT1000 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=isqrt --input=i64=99 | FileCheck %s --check-prefix=SQRT9 --match-full-lines

// C27: EXEC @collatz
// C27-NEXT: result[0]: i32=111
// C97: EXEC @collatz
// C97-NEXT: result[0]: i32=118
// C1: EXEC @collatz
// C1-NEXT: result[0]: i32=0
func.func @collatz(%n0: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %r:2 = scf.while (%n = %n0, %steps = %c0) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi ne, %n, %c1 : i32
    scf.condition(%more) %n, %steps : i32, i32
  } do {
  ^bb0(%m: i32, %s: i32):
    %rem = arith.remui %m, %c2 : i32
    %even = arith.cmpi eq, %rem, %c0 : i32
    %next = scf.if %even -> (i32) {
      %half = arith.divui %m, %c2 : i32
      scf.yield %half : i32
    } else {
      %t = arith.muli %m, %c3 : i32
      %t1 = arith.addi %t, %c1 : i32
      scf.yield %t1 : i32
    }
    %s1 = arith.addi %s, %c1 : i32
    scf.yield %next, %s1 : i32, i32
  }
  return %r#1 : i32
}

// GCD21: EXEC @gcd
// GCD21-NEXT: result[0]: i64=21
// GCD1: EXEC @gcd
// GCD1-NEXT: result[0]: i64=1
// GCD5: EXEC @gcd
// GCD5-NEXT: result[0]: i64=5
func.func @gcd(%a: i64, %b: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %r:2 = scf.while (%x = %a, %y = %b) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi ne, %y, %c0 : i64
    scf.condition(%more) %x, %y : i64, i64
  } do {
  ^bb0(%x: i64, %y: i64):
    %rem = arith.remsi %x, %y : i64
    scf.yield %y, %rem : i64, i64
  }
  return %r#0 : i64
}

// Integer square root: the before region computes i*i and forwards i and
// i as an f64 (a different type and count than the loop-carried values); the
// loop exits with the first i whose square exceeds n.
// SQRT1000: EXEC @isqrt
// SQRT1000-NEXT: result[0]: i64=1000
// SQRT1000-NEXT: result[1]: f64=1001
// SQRT9: EXEC @isqrt
// SQRT9-NEXT: result[0]: i64=9
// SQRT9-NEXT: result[1]: f64=10
func.func @isqrt(%n: i64) -> (i64, f64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r:2 = scf.while (%i = %c0) : (i64) -> (i64, f64) {
    %sq = arith.muli %i, %i : i64
    %le = arith.cmpi sle, %sq, %n : i64
    %fi = arith.sitofp %i : i64 to f64
    scf.condition(%le) %i, %fi : i64, f64
  } do {
  ^bb0(%j: i64, %fj: f64):
    %j1 = arith.addi %j, %c1 : i64
    scf.yield %j1 : i64
  }
  %root = arith.subi %r#0, %c1 : i64
  return %root, %r#1 : i64, f64
}
