// scf.for: sums with iter_args over index, i32 and i64 induction variables,
// a factorial in i64, a zero-trip loop (the initial values come out), steps
// above 1 that overshoot the bound, negative bounds, several iter_args of
// different types (fibonacci), nested loops with an inner bound that depends
// on the outer induction variable, and a loop without iter_args that stores to
// a global.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=sum_index --input=index=100 | FileCheck %s --check-prefix=SUM100 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=sum_index --input=index=0 | FileCheck %s --check-prefix=SUM0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=sum_index --input=index=-5 | FileCheck %s --check-prefix=SUM0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=factorial --input=i64=20 | FileCheck %s --check-prefix=FACT20 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=factorial --input=i64=0 | FileCheck %s --check-prefix=FACT0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=stepped_i32 --input=i32=-10 --input=i32=10 --input=i32=3 | FileCheck %s --check-prefix=STEP --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=squares_by_7 | FileCheck %s --check-prefix=SQ7 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fib_for --input=i64=50 | FileCheck %s --check-prefix=FIB50 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fib_for --input=i64=90 | FileCheck %s --check-prefix=FIB90 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fib_for --input=i64=0 | FileCheck %s --check-prefix=FIB0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=table --input=i32=10 | FileCheck %s --check-prefix=TABLE --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=triangle --input=index=10 | FileCheck %s --check-prefix=TRI --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=store_loop --input=index=10 | FileCheck %s --check-prefix=STORE --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=float_accumulate --input=i32=10 | FileCheck %s --check-prefix=FACC --match-full-lines

// SUM100: EXEC @sum_index
// SUM100-NEXT: result[0]: i64=4950
// SUM0: EXEC @sum_index
// SUM0-NEXT: result[0]: i64=0
func.func @sum_index(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %next = arith.addi %acc, %i : index
    scf.yield %next : index
  }
  return %sum : index
}

// FACT20: EXEC @factorial
// FACT20-NEXT: result[0]: i64=2432902008176640000
// FACT0: EXEC @factorial
// FACT0-NEXT: result[0]: i64=1
func.func @factorial(%n: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %ub = arith.addi %n, %c1 : i64
  %r = scf.for %i = %c1 to %ub step %c1 iter_args(%acc = %c1) -> (i64) : i64 {
    %next = arith.muli %acc, %i : i64
    scf.yield %next : i64
  }
  return %r : i64
}

// -10, -7, ..., 8: the last step overshoots 10. Also counts the iterations.
// STEP: EXEC @stepped_i32
// STEP-NEXT: result[0]: i32=-7
// STEP-NEXT: result[1]: i32=7
func.func @stepped_i32(%lb: i32, %ub: i32, %step: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.for %i = %lb to %ub step %step iter_args(%sum = %c0, %count = %c0) -> (i32, i32) : i32 {
    %s = arith.addi %sum, %i : i32
    %k = arith.addi %count, %c1 : i32
    scf.yield %s, %k : i32, i32
  }
  return %r#0, %r#1 : i32, i32
}

// Constant bounds: sum of i*i for i = 0, 7, ..., 994.
// SQ7: EXEC @squares_by_7
// SQ7-NEXT: result[0]: i64=47262215
func.func @squares_by_7() -> i64 {
  %c0 = arith.constant 0 : i64
  %c7 = arith.constant 7 : i64
  %c1000 = arith.constant 1000 : i64
  %r = scf.for %i = %c0 to %c1000 step %c7 iter_args(%acc = %c0) -> (i64) : i64 {
    %sq = arith.muli %i, %i : i64
    %next = arith.addi %acc, %sq : i64
    scf.yield %next : i64
  }
  return %r : i64
}

// Fibonacci with two iter_args that trade places every iteration, plus a
// float iter_arg that counts in parallel.
// FIB50: EXEC @fib_for
// FIB50-NEXT: result[0]: i64=12586269025
// FIB50-NEXT: result[1]: f32=50
// FIB90: EXEC @fib_for
// FIB90-NEXT: result[0]: i64=2880067194370816120
// FIB90-NEXT: result[1]: f32=90
// FIB0: EXEC @fib_for
// FIB0-NEXT: result[0]: i64=0
// FIB0-NEXT: result[1]: f32=0
func.func @fib_for(%n: i64) -> (i64, f32) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0, %b = %c1, %k = %f0) -> (i64, i64, f32) : i64 {
    %s = arith.addi %a, %b : i64
    %k1 = arith.addf %k, %f1 : f32
    scf.yield %b, %s, %k1 : i64, i64, f32
  }
  return %r#0, %r#2 : i64, f32
}

// Nested loops over i32: sum of i*j for i, j in [1, n].
// TABLE: EXEC @table
// TABLE-NEXT: result[0]: i32=3025
func.func @table(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ub = arith.addi %n, %c1 : i32
  %r = scf.for %i = %c1 to %ub step %c1 iter_args(%outer = %c0) -> (i32) : i32 {
    %row = scf.for %j = %c1 to %ub step %c1 iter_args(%inner = %outer) -> (i32) : i32 {
      %p = arith.muli %i, %j : i32
      %s = arith.addi %inner, %p : i32
      scf.yield %s : i32
    }
    scf.yield %row : i32
  }
  return %r : i32
}

// The inner loop runs i times (zero times for i = 0): n(n-1)/2 pairs.
// TRI: EXEC @triangle
// TRI-NEXT: result[0]: i64=45
func.func @triangle(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %in = scf.for %j = %c0 to %i step %c1 iter_args(%a = %acc) -> (index) {
      %a1 = arith.addi %a, %c1 : index
      scf.yield %a1 : index
    }
    scf.yield %in : index
  }
  return %r : index
}

// No iter_args: the loop only has side effects (global += i).
util.global private mutable @total : i64 = 1000 : i64
// STORE: EXEC @store_loop
// STORE-NEXT: result[0]: i64=1045
func.func @store_loop(%n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = util.global.load @total : i64
    %i64 = arith.index_cast %i : index to i64
    %t1 = arith.addi %t, %i64 : i64
    util.global.store %t1, @total : i64
  }
  %r = util.global.load @total : i64
  return %r : i64
}

// sum of 0.5 * i for i in [0, n) in f64, the induction variable cast per step.
// FACC: EXEC @float_accumulate
// FACC-NEXT: result[0]: f64=22.5
func.func @float_accumulate(%n: i32) -> f64 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %half = arith.constant 0.5 : f64
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) : i32 {
    %fi = arith.sitofp %i : i32 to f64
    %t = arith.mulf %fi, %half : f64
    %next = arith.addf %acc, %t : f64
    scf.yield %next : f64
  }
  return %r : f64
}
