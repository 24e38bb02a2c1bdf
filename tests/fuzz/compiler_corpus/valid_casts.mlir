func.func @casts(%a: i8, %b: i32, %c: f32, %d: index) -> (i32, i64, f64, i32, i16, f32, i32, index) {
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.extui %b : i32 to i64
  %2 = arith.extf %c : f32 to f64
  %3 = arith.fptosi %c : f32 to i32
  %4 = arith.trunci %b : i32 to i16
  %5 = arith.uitofp %b : i32 to f32
  %6 = arith.bitcast %c : f32 to i32
  %7 = arith.index_castui %b : i32 to index
  return %0, %1, %2, %3, %4, %5, %6, %7 : i32, i64, f64, i32, i16, f32, i32, index
}
