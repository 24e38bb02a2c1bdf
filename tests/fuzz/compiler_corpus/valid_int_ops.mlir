func.func @ops(%a: i16, %b: i16) -> (i16, i16, i16, i16, i16, i16, i16) {
  %0 = arith.divui %a, %b : i16
  %1 = arith.remsi %a, %b : i16
  %2 = arith.ceildivsi %a, %b : i16
  %3 = arith.floordivsi %a, %b : i16
  %4 = arith.shrui %a, %b : i16
  %5 = arith.maxui %a, %b : i16
  %6 = math.absi %a : i16
  return %0, %1, %2, %3, %4, %5, %6 : i16, i16, i16, i16, i16, i16, i16
}
