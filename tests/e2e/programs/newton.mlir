// Newton's method for sqrt(2) in f64, six steps of x = (x + 2 / x) / 2 from
// x = 1: every step rounds as IEEE double arithmetic does, so the printed
// value is exact (it ends one ulp below the correctly rounded sqrt(2)).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=newton --input=f64=2 --input=6 | FileCheck %s --check-prefix=SQRT2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=newton --input=f64=2 --input=0 | FileCheck %s --check-prefix=ZERO --match-full-lines

// SQRT2: EXEC @newton
// SQRT2-NEXT: result[0]: f64=1.414213562373095
// ZERO: EXEC @newton
// ZERO-NEXT: result[0]: f64=1
func.func @newton(%a: f64, %steps: i32) -> f64 {
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %steps step %c1 iter_args(%x = %one) -> (f64) : i32 {
    %q = arith.divf %a, %x : f64
    %s = arith.addf %x, %q : f64
    %x1 = arith.divf %s, %two : f64
    scf.yield %x1 : f64
  }
  return %r : f64
}
