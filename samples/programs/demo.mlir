// kiln's demo program: scalar code in MLIR's textual syntax, compiled by
// kiln-compile into a .kmod and run by kiln-run-module (see README.md).
module @demo {
  // How many times @fib has been entered since the module was loaded.
  util.global private mutable @fib_calls : i64 = 0 : i64

  // Recursive Fibonacci: scf.if with a result, calls, a global counter.
  func.func @fib(%n: i32) -> i32 {
    %calls = util.global.load @fib_calls : i64
    %c1_i64 = arith.constant 1 : i64
    %calls_next = arith.addi %calls, %c1_i64 : i64
    util.global.store %calls_next, @fib_calls : i64
    %c2 = arith.constant 2 : i32
    %small = arith.cmpi slt, %n, %c2 : i32
    %result = scf.if %small -> (i32) {
      scf.yield %n : i32
    } else {
      %c1 = arith.constant 1 : i32
      %n1 = arith.subi %n, %c1 : i32
      %f1 = func.call @fib(%n1) : (i32) -> i32
      %n2 = arith.subi %n, %c2 : i32
      %f2 = func.call @fib(%n2) : (i32) -> i32
      %sum = arith.addi %f1, %f2 : i32
      scf.yield %sum : i32
    }
    return %result : i32
  }

  // fib(n) and how many calls computing it took: two results.
  func.func @fib_with_calls(%n: i32) -> (i32, i64) {
    %zero = arith.constant 0 : i64
    util.global.store %zero, @fib_calls : i64
    %f = func.call @fib(%n) : (i32) -> i32
    %calls = util.global.load @fib_calls : i64
    return %f, %calls : i32, i64
  }

  // Sum of i*i for i in [0, n): scf.for with iter_args.
  func.func @sum_of_squares(%n: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %sq = arith.muli %i, %i : index
      %next = arith.addi %acc, %sq : index
      scf.yield %next : index
    }
    return %sum : index
  }

  // Greatest common divisor: scf.while.
  func.func @gcd(%a: i64, %b: i64) -> i64 {
    %r:2 = scf.while (%x = %a, %y = %b) : (i64, i64) -> (i64, i64) {
      %c0 = arith.constant 0 : i64
      %more = arith.cmpi ne, %y, %c0 : i64
      scf.condition(%more) %x, %y : i64, i64
    } do {
    ^bb0(%x: i64, %y: i64):
      %rem = arith.remsi %x, %y : i64
      scf.yield %y, %rem : i64, i64
    }
    return %r#0 : i64
  }

  // Euclidean distance in f32: math ops.
  func.func @hypot(%x: f32, %y: f32) -> f32 {
    %xx = arith.mulf %x, %x : f32
    %sum = math.fma %y, %y, %xx : f32
    %root = math.sqrt %sum : f32
    return %root : f32
  }
}
