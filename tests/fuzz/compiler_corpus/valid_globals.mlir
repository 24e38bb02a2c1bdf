module @globals {
  util.global private mutable @counter : i64 = 0 : i64
  util.global private @scale : f64 = 2.5 : f64
  func.func @bump(%by: i64) -> (i64, f64) {
    %v = util.global.load @counter : i64
    %n = arith.addi %v, %by : i64
    util.global.store %n, @counter : i64
    %s = util.global.load @scale : f64
    %f = arith.sitofp %n : i64 to f64
    %m = arith.mulf %f, %s : f64
    return %n, %m : i64, f64
  }
}
