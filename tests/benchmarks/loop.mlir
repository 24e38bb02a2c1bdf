// Integer loop, the same algorithm as loop.lua and BM_Loop1e8 in
// vm_benchmark.cc: s = sum over i in [0, n) of i * 3 % 7, in 64-bit integers.
// run_mlir_benchmarks.sh compiles it with kiln-compile and times n = 10^8.
func.func @loop(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c3 = arith.constant 3 : i64
  %c7 = arith.constant 7 : i64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i64) : i64 {
    %t = arith.muli %i, %c3 : i64
    %r = arith.remsi %t, %c7 : i64
    %next = arith.addi %acc, %r : i64
    scf.yield %next : i64
  }
  return %s : i64
}
