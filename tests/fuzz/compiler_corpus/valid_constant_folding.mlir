func.func @folds() -> (i32, i64, f32, i1) {
  %a = arith.constant -2147483648 : i32
  %m1 = arith.constant -1 : i32
  %q = arith.divsi %a, %m1 : i32
  %b = arith.constant 0x7FFFFFFFFFFFFFFF : i64
  %one = arith.constant 1 : i64
  %w = arith.addi %b, %one : i64
  %z = arith.constant 0.0 : f32
  %nan = arith.divf %z, %z : f32
  %t = arith.constant true
  %s = arith.select %t, %nan, %z : f32
  %u = arith.cmpf uno, %s, %s : f32
  return %q, %w, %s, %u : i32, i64, f32, i1
}
