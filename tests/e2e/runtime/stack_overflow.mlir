// Unbounded recursion ends with an error (the VM's stack limit), not a crash;
// bounded recursion 1000 calls deep works (the default limit is 4096 frames).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: not %kiln-run-module --module=%t.kmod --function=forever --input=1 2>&1 | FileCheck %s --check-prefix=FOREVER
// RUN: %kiln-run-module --module=%t.kmod --function=depth --input=1000 | FileCheck %s --check-prefix=DEEP --match-full-lines

// FOREVER: {{^}}error: {{.+}}
// FOREVER-NOT: result[0]
func.func @forever(%n: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %n1 = arith.addi %n, %c1 : i32
  %r = func.call @forever(%n1) : (i32) -> i32
  %r1 = arith.addi %r, %c1 : i32
  return %r1 : i32
}

// DEEP: EXEC @depth
// DEEP-NEXT: result[0]: i32=1000
func.func @depth(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %done = arith.cmpi sle, %n, %c0 : i32
  %r = scf.if %done -> (i32) {
    scf.yield %c0 : i32
  } else {
    %n1 = arith.subi %n, %c1 : i32
    %d = func.call @depth(%n1) : (i32) -> i32
    %d1 = arith.addi %d, %c1 : i32
    scf.yield %d1 : i32
  }
  return %r : i32
}
