// Counting primes below n by trial division: an scf.for over candidates, an
// scf.while that stops at the first divisor (early exit through its
// condition), i1 iter values turned into a count.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=count_primes --input=1000 | FileCheck %s --check-prefix=P1000 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=count_primes --input=100 | FileCheck %s --check-prefix=P100 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=count_primes --input=2 | FileCheck %s --check-prefix=P2 --match-full-lines

// P1000: EXEC @count_primes
// P1000-NEXT: result[0]: i32=168
// P100: EXEC @count_primes
// P100-NEXT: result[0]: i32=25
// P2: EXEC @count_primes
// P2-NEXT: result[0]: i32=0
func.func @count_primes(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %count = scf.for %k = %c2 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %prime = func.call @is_prime(%k) : (i32) -> i1
    %inc = arith.extui %prime : i1 to i32
    %next = arith.addi %acc, %inc : i32
    scf.yield %next : i32
  }
  return %count : i32
}

// k >= 2. Tries d = 2, 3, ... while d * d <= k and no divisor was found.
func.func private @is_prime(%k: i32) -> i1 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %true = arith.constant true
  %r:2 = scf.while (%d = %c2, %prime = %true) : (i32, i1) -> (i32, i1) {
    %sq = arith.muli %d, %d : i32
    %in_range = arith.cmpi sle, %sq, %k : i32
    %go = arith.andi %in_range, %prime : i1
    scf.condition(%go) %d, %prime : i32, i1
  } do {
  ^bb0(%d: i32, %p: i1):
    %rem = arith.remui %k, %d : i32
    %nondiv = arith.cmpi ne, %rem, %c0 : i32
    %d1 = arith.addi %d, %c1 : i32
    scf.yield %d1, %nondiv : i32, i1
  }
  return %r#1 : i1
}
