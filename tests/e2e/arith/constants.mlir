// arith.constant spellings: decimal and hex integers, negative values, the
// extremes of each width, true/false, floats in decimal, exponent and hex
// (bit pattern) notation, -0.0, and index constants.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=ints | FileCheck %s --check-prefix=INTS --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=floats | FileCheck %s --check-prefix=FLOATS --match-full-lines

// INTS: EXEC @ints
// INTS-NEXT: result[0]: i32=2147483647
// INTS-NEXT: result[1]: i32=-2147483648
// INTS-NEXT: result[2]: i32=255
// INTS-NEXT: result[3]: i64=9223372036854775807
// INTS-NEXT: result[4]: i64=-9223372036854775808
// INTS-NEXT: result[5]: i64=81985529216486895
// INTS-NEXT: result[6]: i32=1
// INTS-NEXT: result[7]: i32=0
// INTS-NEXT: result[8]: i32=-128
// INTS-NEXT: result[9]: i32=-32768
// INTS-NEXT: result[10]: i64=1099511627776
// INTS-NEXT: result[11]: i32=-1
func.func @ints() -> (i32, i32, i32, i64, i64, i64, i1, i1, i8, i16, index, i32) {
  %0 = arith.constant 2147483647 : i32
  %1 = arith.constant -2147483648 : i32
  %2 = arith.constant 0xFF : i32
  %3 = arith.constant 9223372036854775807 : i64
  %4 = arith.constant -9223372036854775808 : i64
  %5 = arith.constant 0x0123456789ABCDEF : i64
  %6 = arith.constant true
  %7 = arith.constant false
  %8 = arith.constant -128 : i8
  %9 = arith.constant -32768 : i16
  %10 = arith.constant 1099511627776 : index
  %11 = arith.constant 0xFFFFFFFF : i32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : i32, i32, i32, i64, i64, i64, i1, i1, i8, i16, index, i32
}

// FLOATS: EXEC @floats
// FLOATS-NEXT: result[0]: f32=0.1
// FLOATS-NEXT: result[1]: f64=0.1
// FLOATS-NEXT: result[2]: f32=-0
// FLOATS-NEXT: result[3]: f64=1.5e-10
// FLOATS-NEXT: result[4]: f32=1
// FLOATS-NEXT: result[5]: f64=-2
// FLOATS-NEXT: result[6]: f32=3.4028235e+38
// FLOATS-NEXT: result[7]: f64=2.5e+100
// FLOATS-NEXT: result[8]: f32=1e-45
// FLOATS-NEXT: result[9]: f32=42
func.func @floats() -> (f32, f64, f32, f64, f32, f64, f32, f64, f32, f32) {
  %0 = arith.constant 0.1 : f32
  %1 = arith.constant 1.000000e-01 : f64
  %2 = arith.constant -0.0 : f32
  %3 = arith.constant 1.5e-10 : f64
  %4 = arith.constant 0x3F800000 : f32
  %5 = arith.constant 0xC000000000000000 : f64
  %6 = arith.constant 3.40282347E+38 : f32
  %7 = arith.constant 2.5E100 : f64
  %8 = arith.constant 0x00000001 : f32
  %9 = arith.constant 42.0 : f32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
      : f32, f64, f32, f64, f32, f64, f32, f64, f32, f32
}
