func.func @m(%x: f64, %y: f64) -> (f64, f64, f64, f64, i1) {
  %0 = math.sqrt %x : f64
  %1 = math.fma %x, %y, %0 : f64
  %2 = math.powf %x, %y : f64
  %3 = arith.maximumf %1, %2 : f64
  %4 = arith.cmpf uno, %3, %3 : f64
  return %0, %1, %2, %3, %4 : f64, f64, f64, f64, i1
}
