// A mutable util.global counter incremented by a helper function, called
// several times within one invocation; each kiln-run-module invocation starts
// from the initial value again.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=count_calls --input=5 | FileCheck %s --check-prefix=FIVE --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=count_calls --input=0 | FileCheck %s --check-prefix=ZERO --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=read_counter | FileCheck %s --check-prefix=INITIAL --match-full-lines

util.global private mutable @counter : i32 = 10 : i32

// Bumps the counter and returns the value it had before.
func.func private @bump() -> i32 {
  %old = util.global.load @counter : i32
  %c1 = arith.constant 1 : i32
  %new = arith.addi %old, %c1 : i32
  util.global.store %new, @counter : i32
  return %old : i32
}

// FIVE: EXEC @count_calls
// FIVE-NEXT: result[0]: i32=15
// FIVE-NEXT: result[1]: i32=14
// ZERO: EXEC @count_calls
// ZERO-NEXT: result[0]: i32=10
// ZERO-NEXT: result[1]: i32=-1
func.func @count_calls(%n: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m1 = arith.constant -1 : i32
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %m1) -> (i32) : i32 {
    %old = func.call @bump() : () -> i32
    scf.yield %old : i32
  }
  %now = util.global.load @counter : i32
  return %now, %last : i32, i32
}

// INITIAL: EXEC @read_counter
// INITIAL-NEXT: result[0]: i32=10
func.func @read_counter() -> i32 {
  %v = util.global.load @counter : i32
  return %v : i32
}
