// NaN operands of arith.cmpf made three ways: 0.0 / 0.0 at run time (the
// divisor is an input, so nothing folds), a hex float constant (0x7FC00000 is
// the f32 quiet NaN, 0x7FF8000000000000 the f64 one; the bits survive a
// bitcast), and 0.0 / 0.0 on constants (folded at compile time).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=nan_runtime --input=f32=0 | FileCheck %s --check-prefix=RT --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=nan_constant_f32 | FileCheck %s --check-prefix=C32 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=nan_constant_f64 | FileCheck %s --check-prefix=C64 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=nan_folded | FileCheck %s --check-prefix=FOLD --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=nan_select --input=f64=0 | FileCheck %s --check-prefix=SEL --match-full-lines

// RT: EXEC @nan_runtime
// RT-NEXT: result[0]: i32=1
// RT-NEXT: result[1]: i32=0
// RT-NEXT: result[2]: i32=0
// RT-NEXT: result[3]: i32=1
// RT-NEXT: result[4]: i32=1
// RT-NEXT: result[5]: i32=0
func.func @nan_runtime(%zero: f32) -> (i1, i1, i1, i1, i1, i1) {
  %nan = arith.divf %zero, %zero : f32
  %uno = arith.cmpf uno, %nan, %nan : f32
  %ord = arith.cmpf ord, %nan, %zero : f32
  %oeq = arith.cmpf oeq, %nan, %nan : f32
  %une = arith.cmpf une, %nan, %nan : f32
  %ule = arith.cmpf ule, %zero, %nan : f32
  %one = arith.cmpf one, %zero, %nan : f32
  return %uno, %ord, %oeq, %une, %ule, %one : i1, i1, i1, i1, i1, i1
}

// C32: EXEC @nan_constant_f32
// C32-NEXT: result[0]: i32=1
// C32-NEXT: result[1]: i32=0
// C32-NEXT: result[2]: i32=1
// C32-NEXT: result[3]: i32=0
// C32-NEXT: result[4]: i32=2143289344
func.func @nan_constant_f32() -> (i1, i1, i1, i1, i32) {
  %nan = arith.constant 0x7FC00000 : f32
  %one = arith.constant 1.0 : f32
  %uno = arith.cmpf uno, %nan, %one : f32
  %olt = arith.cmpf olt, %nan, %one : f32
  %ult = arith.cmpf ult, %nan, %one : f32
  %oge = arith.cmpf oge, %one, %nan : f32
  %bits = arith.bitcast %nan : f32 to i32
  return %uno, %olt, %ult, %oge, %bits : i1, i1, i1, i1, i32
}

// C64: EXEC @nan_constant_f64
// C64-NEXT: result[0]: i32=1
// C64-NEXT: result[1]: i32=0
// C64-NEXT: result[2]: i32=1
// C64-NEXT: result[3]: i64=9221120237041090560
func.func @nan_constant_f64() -> (i1, i1, i1, i64) {
  %nan = arith.constant 0x7FF8000000000000 : f64
  %two = arith.constant 2.0 : f64
  %uno = arith.cmpf uno, %two, %nan : f64
  %ogt = arith.cmpf ogt, %nan, %two : f64
  %uge = arith.cmpf uge, %nan, %two : f64
  %bits = arith.bitcast %nan : f64 to i64
  return %uno, %ogt, %uge, %bits : i1, i1, i1, i64
}

// FOLD: EXEC @nan_folded
// FOLD-NEXT: result[0]: i32=1
// FOLD-NEXT: result[1]: i32=0
// FOLD-NEXT: result[2]: i32=1
func.func @nan_folded() -> (i1, i1, i1) {
  %zero = arith.constant 0.0 : f32
  %nan = arith.divf %zero, %zero : f32
  %uno = arith.cmpf uno, %nan, %nan : f32
  %oeq = arith.cmpf oeq, %nan, %nan : f32
  %max_nan = arith.maximumf %nan, %zero : f32
  %still_nan = arith.cmpf une, %max_nan, %max_nan : f32
  return %uno, %oeq, %still_nan : i1, i1, i1
}

// A NaN-driven select: une x, x is true only for NaN.
// SEL: EXEC @nan_select
// SEL-NEXT: result[0]: f64=-1
// SEL-NEXT: result[1]: f64=42
func.func @nan_select(%zero: f64) -> (f64, f64) {
  %nan = arith.divf %zero, %zero : f64
  %is_nan = arith.cmpf une, %nan, %nan : f64
  %is_nan_zero = arith.cmpf une, %zero, %zero : f64
  %m1 = arith.constant -1.0 : f64
  %c42 = arith.constant 42.0 : f64
  %a = arith.select %is_nan, %m1, %c42 : f64
  %b = arith.select %is_nan_zero, %m1, %c42 : f64
  return %a, %b : f64, f64
}
