// util.global of every scalar type with initial values (immutable and
// mutable), globals without an initial value (zero), and stores of each type.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=read_all | FileCheck %s --check-prefix=READ --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=update_all --input=i64=5 | FileCheck %s --check-prefix=UPDATE --match-full-lines

util.global private @i32_const : i32 = -7 : i32
util.global private @i64_const : i64 = 1099511627776 : i64
util.global private @f32_const : f32 = 1.5 : f32
util.global private @f64_const : f64 = 0.1 : f64
util.global private @bool_const : i1 = true
util.global private @byte_const : i8 = -3 : i8
util.global private @index_const : index = 42 : index
util.global private mutable @i32_zero : i32
util.global private mutable @f64_var : f64 = 2.0 : f64
util.global private mutable @f32_var : f32 = 0.25 : f32
util.global private mutable @i64_var : i64 = -1 : i64

// READ: EXEC @read_all
// READ-NEXT: result[0]: i32=-7
// READ-NEXT: result[1]: i64=1099511627776
// READ-NEXT: result[2]: f32=1.5
// READ-NEXT: result[3]: f64=0.1
// READ-NEXT: result[4]: i32=1
// READ-NEXT: result[5]: i32=-3
// READ-NEXT: result[6]: i64=42
// READ-NEXT: result[7]: i32=0
func.func @read_all() -> (i32, i64, f32, f64, i1, i8, index, i32) {
  %0 = util.global.load @i32_const : i32
  %1 = util.global.load @i64_const : i64
  %2 = util.global.load @f32_const : f32
  %3 = util.global.load @f64_const : f64
  %4 = util.global.load @bool_const : i1
  %5 = util.global.load @byte_const : i8
  %6 = util.global.load @index_const : index
  %7 = util.global.load @i32_zero : i32
  return %0, %1, %2, %3, %4, %5, %6, %7 : i32, i64, f32, f64, i1, i8, index, i32
}

// Every mutable global of a different type updated from the input, then read back.
// UPDATE: EXEC @update_all
// UPDATE-NEXT: result[0]: f64=7
// UPDATE-NEXT: result[1]: f32=1.25
// UPDATE-NEXT: result[2]: i64=4
// UPDATE-NEXT: result[3]: i32=5
func.func @update_all(%x: i64) -> (f64, f32, i64, i32) {
  %xf = arith.sitofp %x : i64 to f64
  %d = util.global.load @f64_var : f64
  %d1 = arith.addf %d, %xf : f64
  util.global.store %d1, @f64_var : f64
  %xs = arith.sitofp %x : i64 to f32
  %s = util.global.load @f32_var : f32
  %s1 = arith.mulf %s, %xs : f32
  util.global.store %s1, @f32_var : f32
  %l = util.global.load @i64_var : i64
  %l1 = arith.addi %l, %x : i64
  util.global.store %l1, @i64_var : i64
  %i = arith.trunci %x : i64 to i32
  util.global.store %i, @i32_zero : i32
  %r0 = util.global.load @f64_var : f64
  %r1 = util.global.load @f32_var : f32
  %r2 = util.global.load @i64_var : i64
  %r3 = util.global.load @i32_zero : i32
  return %r0, %r1, %r2, %r3 : f64, f32, i64, i32
}
