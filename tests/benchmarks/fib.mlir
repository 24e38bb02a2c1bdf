// Recursive Fibonacci, the same algorithm as fib.lua and BM_Fib32 in
// vm_benchmark.cc (there written with the module builder):
//   fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
// run_mlir_benchmarks.sh compiles it with kiln-compile and times fib(32).
func.func @fib(%n: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %small = arith.cmpi slt, %n, %c2 : i32
  %r = scf.if %small -> (i32) {
    scf.yield %n : i32
  } else {
    %n1 = arith.subi %n, %c1 : i32
    %f1 = func.call @fib(%n1) : (i32) -> i32
    %n2 = arith.subi %n, %c2 : i32
    %f2 = func.call @fib(%n2) : (i32) -> i32
    %sum = arith.addi %f1, %f2 : i32
    scf.yield %sum : i32
  }
  return %r : i32
}
