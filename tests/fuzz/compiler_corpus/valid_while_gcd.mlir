func.func @gcd(%a: i64, %b: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %r:2 = scf.while (%x = %a, %y = %b) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi ne, %y, %c0 : i64
    scf.condition(%more) %x, %y : i64, i64
  } do {
  ^bb0(%x: i64, %y: i64):
    %rem = arith.remsi %x, %y : i64
    scf.yield %y, %rem : i64, i64
  }
  return %r#0 : i64
}
