func.func @table(%n: i64) -> (i64, f32) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %f0 = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0, %f = %f0) -> (i64, f32) : i64 {
    %in = scf.for %j = %c0 to %i step %c1 iter_args(%b = %a) -> (i64) : i64 {
      %p = arith.muli %i, %j : i64
      %q = arith.addi %b, %p : i64
      scf.yield %q : i64
    }
    %fi = arith.sitofp %i : i64 to f32
    %f1 = arith.addf %f, %fi : f32
    scf.yield %in, %f1 : i64, f32
  }
  return %r#0, %r#1 : i64, f32
}
