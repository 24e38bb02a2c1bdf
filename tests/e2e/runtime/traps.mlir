// Run-time traps: integer division and remainder by zero stop the invocation
// with an error that names the source location of the division (the VM
// defines INT_MIN / -1, but not x / 0). A division by zero that is never
// executed must not break compilation (the constant folder leaves it alone).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: not %kiln-run-module --module=%t.kmod --function=divide --input=7 --input=0 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not %kiln-run-module --module=%t.kmod --function=remainder --input=i64=7 --input=i64=0 2>&1 | FileCheck %s --check-prefix=REM
// RUN: %kiln-run-module --module=%t.kmod --function=guarded --input=0 | FileCheck %s --check-prefix=GUARDED0 --match-full-lines
// RUN: not %kiln-run-module --module=%t.kmod --function=guarded --input=1 2>&1 | FileCheck %s --check-prefix=GUARDED1
// RUN: %kiln-run-module --module=%t.kmod --function=divide --input=7 --input=2 | FileCheck %s --check-prefix=OK --match-full-lines

// OK: EXEC @divide
// OK-NEXT: result[0]: i32=3

// DIV: {{^}}error: {{.*}}traps.mlir:[[@LINE+3]]:{{(3|8)}}
// DIV-NOT: result
func.func @divide(%a: i32, %b: i32) -> i32 {
  %q = arith.divsi %a, %b : i32
  return %q : i32
}

// REM: {{^}}error: {{.*}}traps.mlir:[[@LINE+3]]:{{(3|8)}}
// REM-NOT: result
func.func @remainder(%a: i64, %b: i64) -> i64 {
  %r = arith.remui %a, %b : i64
  return %r : i64
}

// The division by the constant zero only runs when %c is true.
// The column is the op's result (5) or its name (12, where MLIR locates it).
// GUARDED0: EXEC @guarded
// GUARDED0-NEXT: result[0]: i32=-1
// GUARDED1: {{^}}error: {{.*}}traps.mlir:[[@LINE+7]]:{{(5|12)}}
func.func @guarded(%c: i1) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m1 = arith.constant -1 : i32
  %r = scf.if %c -> (i32) {
    // Division by a constant zero, folded never, executed only when %c.
    %bad = arith.divsi %c1, %c0 : i32
    scf.yield %bad : i32
  } else {
    scf.yield %m1 : i32
  }
  return %r : i32
}
