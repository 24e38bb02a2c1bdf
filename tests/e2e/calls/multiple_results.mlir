// Functions with several results of different types: returned to the caller
// of the module (result[0], result[1], ...), and returned from an internal
// call whose results are used through %r#i and a %a, %b list.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=divmod --input=i64=-17 --input=i64=5 | FileCheck %s --check-prefix=DIVMOD --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=stats --input=f32=2 --input=f32=8 | FileCheck %s --check-prefix=STATS --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=use_both --input=i64=100 --input=i64=7 | FileCheck %s --check-prefix=BOTH --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=swap3 --input=i32=1 --input=f64=2.5 --input=index=3 | FileCheck %s --check-prefix=SWAP3 --match-full-lines

// DIVMOD: EXEC @divmod
// DIVMOD-NEXT: result[0]: i64=-3
// DIVMOD-NEXT: result[1]: i64=-2
// DIVMOD-NEXT: result[2]: i32=1
func.func @divmod(%a: i64, %b: i64) -> (i64, i64, i1) {
  %q = arith.divsi %a, %b : i64
  %r = arith.remsi %a, %b : i64
  %c0 = arith.constant 0 : i64
  %neg = arith.cmpi slt, %r, %c0 : i64
  return %q, %r, %neg : i64, i64, i1
}

// STATS: EXEC @stats
// STATS-NEXT: result[0]: f32=5
// STATS-NEXT: result[1]: f64=4
// STATS-NEXT: result[2]: i32=8
// STATS-NEXT: result[3]: i64=16
func.func @stats(%a: f32, %b: f32) -> (f32, f64, i32, i64) {
  %sum = arith.addf %a, %b : f32
  %two = arith.constant 2.0 : f32
  %mean = arith.divf %sum, %two : f32
  %prod = arith.mulf %a, %b : f32
  %sq = math.sqrt %prod : f32
  %geo = arith.extf %sq : f32 to f64
  %mx = arith.maximumf %a, %b : f32
  %imax = arith.fptosi %mx : f32 to i32
  %p = arith.fptosi %prod : f32 to i64
  return %mean, %geo, %imax, %p : f32, f64, i32, i64
}

// BOTH: EXEC @use_both
// BOTH-NEXT: result[0]: i64=114
// BOTH-NEXT: result[1]: i32=0
func.func @use_both(%a: i64, %b: i64) -> (i64, i1) {
  %r:3 = func.call @divmod(%a, %b) : (i64, i64) -> (i64, i64, i1)
  %q7 = arith.muli %r#0, %b : i64
  %back = arith.addi %q7, %r#1 : i64
  // back == a; return a + q and the sign flag.
  %s = arith.addi %back, %r#0 : i64
  return %s, %r#2 : i64, i1
}

// Results in a different order than the arguments, across register banks.
// SWAP3: EXEC @swap3
// SWAP3-NEXT: result[0]: i64=3
// SWAP3-NEXT: result[1]: f64=2.5
// SWAP3-NEXT: result[2]: i32=1
func.func @swap3(%a: i32, %b: f64, %c: index) -> (index, f64, i32) {
  %x, %y, %z = func.call @rev(%a, %b, %c) : (i32, f64, index) -> (index, f64, i32)
  return %x, %y, %z : index, f64, i32
}

func.func private @rev(%a: i32, %b: f64, %c: index) -> (index, f64, i32) {
  return %c, %b, %a : index, f64, i32
}
