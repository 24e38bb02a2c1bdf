// Casts between integers and floats: sitofp/uitofp (an i32 -1 is 4294967295
// unsigned, which rounds to 4294967296 in f32), fptosi/fptoui (truncate
// toward zero), extf/truncf (rounding to the nearest f32), bitcast (bits kept).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=int_to_float --input=i32=-1 --input=i64=-1 --input=i8=-1 | FileCheck %s --check-prefix=I2F1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=int_to_float --input=i32=16777217 --input=i64=1099511627776 --input=i8=100 | FileCheck %s --check-prefix=I2F2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fptosi --input=f32=-2.7 --input=f64=-1e10 --input=f32=-100.5 | FileCheck %s --check-prefix=FTS1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fptosi --input=f32=2.99 --input=f64=123456789012.9 --input=f32=127.9 | FileCheck %s --check-prefix=FTS2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fptoui --input=f32=3e9 --input=f64=1e19 --input=f32=255.5 | FileCheck %s --check-prefix=FTU --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=float_widths --input=f32=0.1 --input=f64=0.1 | FileCheck %s --check-prefix=FW1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=float_widths --input=f32=-1.5 --input=f64=1e300 | FileCheck %s --check-prefix=FW2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=bitcasts --input=i32=1065353216 --input=f32=-0 --input=i64=4607182418800017408 --input=f64=-2 | FileCheck %s --check-prefix=BC --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=saturate --input=f32=1e10 --input=f64=-1e300 --input=f32=nan | FileCheck %s --check-prefix=SAT --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=folded | FileCheck %s --check-prefix=FOLD --match-full-lines

// I2F1: EXEC @int_to_float
// I2F1-NEXT: result[0]: f32=-1
// I2F1-NEXT: result[1]: f32=4294967296
// I2F1-NEXT: result[2]: f64=-1
// I2F1-NEXT: result[3]: f64=4294967295
// I2F1-NEXT: result[4]: f32=-1
// I2F1-NEXT: result[5]: f64=18446744073709551616
// I2F1-NEXT: result[6]: f32=-1
// I2F1-NEXT: result[7]: f32=255

// I2F2: EXEC @int_to_float
// I2F2-NEXT: result[0]: f32=16777216
// I2F2-NEXT: result[1]: f32=16777216
// I2F2-NEXT: result[2]: f64=16777217
// I2F2-NEXT: result[3]: f64=16777217
// I2F2-NEXT: result[4]: f32=1099511627776
// I2F2-NEXT: result[5]: f64=1099511627776
// I2F2-NEXT: result[6]: f32=100
// I2F2-NEXT: result[7]: f32=100
func.func @int_to_float(%i: i32, %l: i64, %b: i8) -> (f32, f32, f64, f64, f32, f64, f32, f32) {
  %0 = arith.sitofp %i : i32 to f32
  %1 = arith.uitofp %i : i32 to f32
  %2 = arith.sitofp %i : i32 to f64
  %3 = arith.uitofp %i : i32 to f64
  %4 = arith.sitofp %l : i64 to f32
  %5 = arith.uitofp %l : i64 to f64
  %6 = arith.sitofp %b : i8 to f32
  %7 = arith.uitofp %b : i8 to f32
  return %0, %1, %2, %3, %4, %5, %6, %7 : f32, f32, f64, f64, f32, f64, f32, f32
}

// FTS1: EXEC @fptosi
// FTS1-NEXT: result[0]: i32=-2
// FTS1-NEXT: result[1]: i64=-10000000000
// FTS1-NEXT: result[2]: i32=-100
// FTS1-NEXT: result[3]: i64=-2

// FTS2: EXEC @fptosi
// FTS2-NEXT: result[0]: i32=2
// FTS2-NEXT: result[1]: i64=123456789012
// FTS2-NEXT: result[2]: i32=127
// FTS2-NEXT: result[3]: i64=2
func.func @fptosi(%f: f32, %d: f64, %g: f32) -> (i32, i64, i8, i64) {
  %0 = arith.fptosi %f : f32 to i32
  %1 = arith.fptosi %d : f64 to i64
  %2 = arith.fptosi %g : f32 to i8
  %3 = arith.fptosi %f : f32 to i64
  return %0, %1, %2, %3 : i32, i64, i8, i64
}

// Unsigned results above the signed range print as their signed bit pattern.
// FTU: EXEC @fptoui
// FTU-NEXT: result[0]: i32=-1294967296
// FTU-NEXT: result[1]: i64=-8446744073709551616
// FTU-NEXT: result[2]: i32=-1
// FTU-NEXT: result[3]: i64=3000000000
func.func @fptoui(%f: f32, %d: f64, %g: f32) -> (i32, i64, i8, i64) {
  %0 = arith.fptoui %f : f32 to i32
  %1 = arith.fptoui %d : f64 to i64
  %2 = arith.fptoui %g : f32 to i8
  %3 = arith.fptoui %f : f32 to i64
  return %0, %1, %2, %3 : i32, i64, i8, i64
}

// FW1: EXEC @float_widths
// FW1-NEXT: result[0]: f64=0.10000000149011612
// FW1-NEXT: result[1]: f32=0.1
// FW1-NEXT: result[2]: f64=0.1

// FW2: EXEC @float_widths
// FW2-NEXT: result[0]: f64=-1.5
// FW2-NEXT: result[1]: f32=inf
// FW2-NEXT: result[2]: f64=1e+300
func.func @float_widths(%f: f32, %d: f64) -> (f64, f32, f64) {
  %0 = arith.extf %f : f32 to f64
  %1 = arith.truncf %d : f64 to f32
  return %0, %1, %d : f64, f32, f64
}

// BC: EXEC @bitcasts
// BC-NEXT: result[0]: f32=1
// BC-NEXT: result[1]: i32=-2147483648
// BC-NEXT: result[2]: f64=1
// BC-NEXT: result[3]: i64=-4611686018427387904
func.func @bitcasts(%i: i32, %f: f32, %l: i64, %d: f64) -> (f32, i32, f64, i64) {
  %0 = arith.bitcast %i : i32 to f32
  %1 = arith.bitcast %f : f32 to i32
  %2 = arith.bitcast %l : i64 to f64
  %3 = arith.bitcast %d : f64 to i64
  return %0, %1, %2, %3 : f32, i32, f64, i64
}

// Out-of-range float -> int conversions are poison in MLIR; kiln's VM defines
// them (opcodes.h): they saturate, and NaN converts to 0.
// SAT: EXEC @saturate
// SAT-NEXT: result[0]: i32=2147483647
// SAT-NEXT: result[1]: i64=-9223372036854775808
// SAT-NEXT: result[2]: i32=0
func.func @saturate(%f: f32, %d: f64, %nan: f32) -> (i32, i64, i32) {
  %0 = arith.fptosi %f : f32 to i32
  %1 = arith.fptosi %d : f64 to i64
  %2 = arith.fptosi %nan : f32 to i32
  return %0, %1, %2 : i32, i64, i32
}

// Constants, folded at compile time.
// FOLD: EXEC @folded
// FOLD-NEXT: result[0]: f32=4294967296
// FOLD-NEXT: result[1]: i32=-7
// FOLD-NEXT: result[2]: f32=0.33333334
// FOLD-NEXT: result[3]: i32=-1077936128
// FOLD-NEXT: result[4]: f64=3.141592653589793
// FOLD-NEXT: result[5]: f64=0.10000000149011612
func.func @folded() -> (f32, i32, f32, i32, f64, f64) {
  %m1 = arith.constant -1 : i32
  %f = arith.constant -7.9 : f64
  %third = arith.constant 0.33333333333333331 : f64
  %x = arith.constant -1.5 : f32
  %pi_bits = arith.constant 4614256656552045848 : i64
  %tenth = arith.constant 0.1 : f32
  %0 = arith.uitofp %m1 : i32 to f32
  %1 = arith.fptosi %f : f64 to i32
  %2 = arith.truncf %third : f64 to f32
  %3 = arith.bitcast %x : f32 to i32
  %4 = arith.bitcast %pi_bits : i64 to f64
  %5 = arith.extf %tenth : f32 to f64
  return %0, %1, %2, %3, %4, %5 : f32, i32, f32, i32, f64, f64
}
