func.func @f(%c: i1) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  return %v : i32
^b:
  %v = arith.constant 1 : i32
  return %v : i32
}
