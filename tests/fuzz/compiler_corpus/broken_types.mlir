func.func @f(%a: i32, %b: f32) -> i64 {
  %0 = arith.addi %a, %b : i32
  cf.br ^x(%b : f32)
^x(%y: i32):
  return %y : i32
}
