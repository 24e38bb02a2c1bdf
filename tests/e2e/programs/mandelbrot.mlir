// The Mandelbrot escape count of one point in f32 (at most 100 iterations):
// every multiply and add rounds to f32 separately (no fused multiply-add), so
// the counts are exact.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=escape --input=f32=0.26 --input=f32=0 | FileCheck %s --check-prefix=A --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=escape --input=f32=-0.75 --input=f32=0.1 | FileCheck %s --check-prefix=B --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=escape --input=f32=-1.26 --input=f32=0.38 | FileCheck %s --check-prefix=C --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=escape --input=f32=-0.1 --input=f32=0.9 | FileCheck %s --check-prefix=D --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=escape --input=f32=0.28 --input=f32=0.53 | FileCheck %s --check-prefix=INSIDE --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=escape --input=f32=1 --input=f32=1 | FileCheck %s --check-prefix=FAST --match-full-lines

// A: result[0]: i32=30
// B: result[0]: i32=33
// C: result[0]: i32=26
// D: result[0]: i32=24
// INSIDE: result[0]: i32=100
// FAST: result[0]: i32=2
func.func @escape(%cr: f32, %ci: f32) -> i32 {
  %zero = arith.constant 0.0 : f32
  %four = arith.constant 4.0 : f32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c100 = arith.constant 100 : i32
  %r:3 = scf.while (%zr = %zero, %zi = %zero, %n = %c0) : (f32, f32, i32) -> (f32, f32, i32) {
    %zr2 = arith.mulf %zr, %zr : f32
    %zi2 = arith.mulf %zi, %zi : f32
    %mag = arith.addf %zr2, %zi2 : f32
    %inside = arith.cmpf ole, %mag, %four : f32
    %budget = arith.cmpi slt, %n, %c100 : i32
    %go = arith.andi %inside, %budget : i1
    scf.condition(%go) %zr, %zi, %n : f32, f32, i32
  } do {
  ^bb0(%zr: f32, %zi: f32, %n: i32):
    %zr2 = arith.mulf %zr, %zr : f32
    %zi2 = arith.mulf %zi, %zi : f32
    %t = arith.subf %zr2, %zi2 : f32
    %nzr = arith.addf %t, %cr : f32
    %zri = arith.mulf %zr, %zi : f32
    %twice = arith.addf %zri, %zri : f32
    %nzi = arith.addf %twice, %ci : f32
    %n1 = arith.addi %n, %c1 : i32
    scf.yield %nzr, %nzi, %n1 : f32, f32, i32
  }
  return %r#2 : i32
}
