// Ackermann's function: deep, non-tail recursion with two arguments.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=ack --input=2 --input=3 | FileCheck %s --check-prefix=A23 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=ack --input=3 --input=3 | FileCheck %s --check-prefix=A33 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=ack --input=0 --input=0 | FileCheck %s --check-prefix=A00 --match-full-lines

// A23: EXEC @ack
// A23-NEXT: result[0]: i32=9
// A33: EXEC @ack
// A33-NEXT: result[0]: i32=61
// A00: EXEC @ack
// A00-NEXT: result[0]: i32=1
func.func @ack(%m: i32, %n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m_zero = arith.cmpi eq, %m, %c0 : i32
  %r = scf.if %m_zero -> (i32) {
    %n1 = arith.addi %n, %c1 : i32
    scf.yield %n1 : i32
  } else {
    %m1 = arith.subi %m, %c1 : i32
    %n_zero = arith.cmpi eq, %n, %c0 : i32
    %inner = scf.if %n_zero -> (i32) {
      %a = func.call @ack(%m1, %c1) : (i32, i32) -> i32
      scf.yield %a : i32
    } else {
      %nm1 = arith.subi %n, %c1 : i32
      %t = func.call @ack(%m, %nm1) : (i32, i32) -> i32
      %a = func.call @ack(%m1, %t) : (i32, i32) -> i32
      scf.yield %a : i32
    }
    scf.yield %inner : i32
  }
  return %r : i32
}
