func.func @fib(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^loop(%c0, %c1, %n : i32, i32, i32)
^loop(%a: i32, %b: i32, %k: i32):
  %done = arith.cmpi eq, %k, %c0 : i32
  %k1 = arith.subi %k, %c1 : i32
  %s = arith.addi %a, %b : i32
  cf.cond_br %done, ^exit, ^loop(%b, %s, %k1 : i32, i32, i32)
^exit:
  return %a : i32
}
