// arith.select on every value type, with the condition from a comparison at
// run time and from a constant (folded away).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=select_all --input=i32=1 --input=i32=2 | FileCheck %s --check-prefix=LT --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=select_all --input=i32=5 --input=i32=2 | FileCheck %s --check-prefix=GE --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=select_const | FileCheck %s --check-prefix=CONST --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=clamp --input=-5 | FileCheck %s --check-prefix=CLAMP_LO --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=clamp --input=50 | FileCheck %s --check-prefix=CLAMP_MID --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=clamp --input=500 | FileCheck %s --check-prefix=CLAMP_HI --match-full-lines

// LT: EXEC @select_all
// LT-NEXT: result[0]: i32=1
// LT-NEXT: result[1]: i64=10
// LT-NEXT: result[2]: f32=1.5
// LT-NEXT: result[3]: f64=0.25
// LT-NEXT: result[4]: i32=1
// LT-NEXT: result[5]: i32=-100
// LT-NEXT: result[6]: i64=-1

// GE: EXEC @select_all
// GE-NEXT: result[0]: i32=2
// GE-NEXT: result[1]: i64=20
// GE-NEXT: result[2]: f32=-2.5
// GE-NEXT: result[3]: f64=-0.75
// GE-NEXT: result[4]: i32=0
// GE-NEXT: result[5]: i32=100
// GE-NEXT: result[6]: i64=7
func.func @select_all(%a: i32, %b: i32) -> (i32, i64, f32, f64, i1, i8, index) {
  %lt = arith.cmpi slt, %a, %b : i32
  %min = arith.select %lt, %a, %b : i32
  %c10 = arith.constant 10 : i64
  %c20 = arith.constant 20 : i64
  %l = arith.select %lt, %c10, %c20 : i64
  %f1 = arith.constant 1.5 : f32
  %f2 = arith.constant -2.5 : f32
  %f = arith.select %lt, %f1, %f2 : f32
  %d1 = arith.constant 0.25 : f64
  %d2 = arith.constant -0.75 : f64
  %d = arith.select %lt, %d1, %d2 : f64
  %true = arith.constant true
  %false = arith.constant false
  %bool = arith.select %lt, %true, %false : i1
  %n100 = arith.constant -100 : i8
  %p100 = arith.constant 100 : i8
  %byte = arith.select %lt, %n100, %p100 : i8
  %im1 = arith.constant -1 : index
  %i7 = arith.constant 7 : index
  %idx = arith.select %lt, %im1, %i7 : index
  return %min, %l, %f, %d, %bool, %byte, %idx : i32, i64, f32, f64, i1, i8, index
}

// CONST: EXEC @select_const
// CONST-NEXT: result[0]: i32=11
// CONST-NEXT: result[1]: i32=22
func.func @select_const() -> (i32, i32) {
  %true = arith.constant true
  %false = arith.constant false
  %c11 = arith.constant 11 : i32
  %c22 = arith.constant 22 : i32
  %0 = arith.select %true, %c11, %c22 : i32
  %1 = arith.select %false, %c11, %c22 : i32
  return %0, %1 : i32, i32
}

// Two selects in a row: clamp to [0, 100].
// CLAMP_LO: result[0]: i32=0
// CLAMP_MID: result[0]: i32=50
// CLAMP_HI: result[0]: i32=100
func.func @clamp(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c100 = arith.constant 100 : i32
  %neg = arith.cmpi slt, %x, %c0 : i32
  %lo = arith.select %neg, %c0, %x : i32
  %big = arith.cmpi sgt, %lo, %c100 : i32
  %r = arith.select %big, %c100, %lo : i32
  return %r : i32
}
