func.func @pick(%x: i32) -> i32 {
  %c7 = arith.constant 7 : i32
  cf.switch %x : i32, [
    default: ^d(%x : i32),
    0: ^a,
    -3: ^b(%c7 : i32)
  ]
^a:
  return %c7 : i32
^b(%v: i32):
  %w = arith.muli %v, %v : i32
  return %w : i32
^d(%y: i32):
  return %y : i32
}
