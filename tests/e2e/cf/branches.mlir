// cf.br / cf.cond_br with block arguments: a loop built from blocks, a
// diamond that merges two values through a block argument, cond_br passing
// different arguments to each successor, and the same block reached twice.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=count_down --input=10 | FileCheck %s --check-prefix=CD10 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=count_down --input=0 | FileCheck %s --check-prefix=CD0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=abs_diff --input=3 --input=10 | FileCheck %s --check-prefix=AD7 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=abs_diff --input=10 --input=3 | FileCheck %s --check-prefix=AD7 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=min_max --input=f32=2.5 --input=f32=-1 | FileCheck %s --check-prefix=MM1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=min_max --input=f32=-1 --input=f32=2.5 | FileCheck %s --check-prefix=MM1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=pow_loop --input=i64=3 --input=i32=13 | FileCheck %s --check-prefix=POW --match-full-lines

// Sum n + (n-1) + ... + 1 with a block loop; returns (sum, iterations).
// CD10: EXEC @count_down
// CD10-NEXT: result[0]: i32=55
// CD10-NEXT: result[1]: i32=10
// CD0: EXEC @count_down
// CD0-NEXT: result[0]: i32=0
// CD0-NEXT: result[1]: i32=0
func.func @count_down(%n: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^header(%n, %c0, %c0 : i32, i32, i32)
^header(%i: i32, %sum: i32, %iters: i32):
  %more = arith.cmpi sgt, %i, %c0 : i32
  cf.cond_br %more, ^body, ^exit(%sum, %iters : i32, i32)
^body:
  %sum1 = arith.addi %sum, %i : i32
  %i1 = arith.subi %i, %c1 : i32
  %iters1 = arith.addi %iters, %c1 : i32
  cf.br ^header(%i1, %sum1, %iters1 : i32, i32, i32)
^exit(%s: i32, %k: i32):
  return %s, %k : i32, i32
}

// A diamond: each arm computes the difference its own way, the merge block
// receives it as an argument.
// AD7: EXEC @abs_diff
// AD7-NEXT: result[0]: i32=7
func.func @abs_diff(%a: i32, %b: i32) -> i32 {
  %lt = arith.cmpi slt, %a, %b : i32
  cf.cond_br %lt, ^less, ^not_less
^less:
  %d1 = arith.subi %b, %a : i32
  cf.br ^merge(%d1 : i32)
^not_less:
  %d2 = arith.subi %a, %b : i32
  cf.br ^merge(%d2 : i32)
^merge(%d: i32):
  return %d : i32
}

// cond_br sends the two operands in opposite orders to the same block.
// MM1: EXEC @min_max
// MM1-NEXT: result[0]: f32=-1
// MM1-NEXT: result[1]: f32=2.5
func.func @min_max(%a: f32, %b: f32) -> (f32, f32) {
  %lt = arith.cmpf olt, %a, %b : f32
  cf.cond_br %lt, ^done(%a, %b : f32, f32), ^done(%b, %a : f32, f32)
^done(%lo: f32, %hi: f32):
  return %lo, %hi : f32, f32
}

// Exponentiation by squaring with mixed-type block arguments (i64 base and
// accumulator, i32 exponent): 3^13.
// POW: EXEC @pow_loop
// POW-NEXT: result[0]: i64=1594323
func.func @pow_loop(%base: i64, %exp: i32) -> i64 {
  %one = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^loop(%base, %exp, %one : i64, i32, i64)
^loop(%b: i64, %e: i32, %acc: i64):
  %done = arith.cmpi eq, %e, %c0 : i32
  cf.cond_br %done, ^exit(%acc : i64), ^step
^step:
  %bit = arith.andi %e, %c1 : i32
  %odd = arith.cmpi ne, %bit, %c0 : i32
  %times = arith.muli %acc, %b : i64
  %acc1 = arith.select %odd, %times, %acc : i64
  %b2 = arith.muli %b, %b : i64
  %e2 = arith.shrui %e, %c1 : i32
  cf.br ^loop(%b2, %e2, %acc1 : i64, i32, i64)
^exit(%r: i64):
  return %r : i64
}
