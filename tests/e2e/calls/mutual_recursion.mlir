// Mutual recursion between private functions (is_even calls is_odd, which
// calls is_even), and a forward reference to a function defined later.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=parity --input=10 | FileCheck %s --check-prefix=P10 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=parity --input=7 | FileCheck %s --check-prefix=P7 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=parity --input=0 | FileCheck %s --check-prefix=P0 --match-full-lines
// Private functions are not exported.
// RUN: not %kiln-run-module --module=%t.kmod --function=is_even --input=2 2>&1 | FileCheck %s --check-prefix=PRIVATE

// P10: EXEC @parity
// P10-NEXT: result[0]: i32=1
// P10-NEXT: result[1]: i32=0
// P7: EXEC @parity
// P7-NEXT: result[0]: i32=0
// P7-NEXT: result[1]: i32=1
// P0: EXEC @parity
// P0-NEXT: result[0]: i32=1
// P0-NEXT: result[1]: i32=0
// PRIVATE: error: {{.*}}is_even
func.func @parity(%n: i32) -> (i1, i1) {
  %e = func.call @is_even(%n) : (i32) -> i1
  %o = func.call @is_odd(%n) : (i32) -> i1
  return %e, %o : i1, i1
}

func.func private @is_even(%n: i32) -> i1 {
  %c0 = arith.constant 0 : i32
  %zero = arith.cmpi eq, %n, %c0 : i32
  %r = scf.if %zero -> (i1) {
    %true = arith.constant true
    scf.yield %true : i1
  } else {
    %c1 = arith.constant 1 : i32
    %n1 = arith.subi %n, %c1 : i32
    %o = func.call @is_odd(%n1) : (i32) -> i1
    scf.yield %o : i1
  }
  return %r : i1
}

func.func private @is_odd(%n: i32) -> i1 {
  %c0 = arith.constant 0 : i32
  %zero = arith.cmpi eq, %n, %c0 : i32
  %r = scf.if %zero -> (i1) {
    %false = arith.constant false
    scf.yield %false : i1
  } else {
    %c1 = arith.constant 1 : i32
    %n1 = arith.subi %n, %c1 : i32
    %e = func.call @is_even(%n1) : (i32) -> i1
    scf.yield %e : i1
  }
  return %r : i1
}
