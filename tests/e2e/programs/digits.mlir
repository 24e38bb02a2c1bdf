// Decimal digits of an i64 with remui/divui: their sum and the number with
// its digits reversed, through a cf block loop with three block arguments.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=digits --input=i64=1234567890123 | FileCheck %s --check-prefix=D1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=digits --input=i64=9223372036854775807 | FileCheck %s --check-prefix=DMAX --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=digits --input=i64=0 | FileCheck %s --check-prefix=D0 --match-full-lines

// D1: EXEC @digits
// D1-NEXT: result[0]: i64=51
// D1-NEXT: result[1]: i64=3210987654321
// DMAX: EXEC @digits
// DMAX-NEXT: result[0]: i64=88
// DMAX-NEXT: result[1]: i64=7085774586302733229
// D0: EXEC @digits
// D0-NEXT: result[0]: i64=0
// D0-NEXT: result[1]: i64=0
func.func @digits(%x: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %c10 = arith.constant 10 : i64
  cf.br ^loop(%x, %c0, %c0 : i64, i64, i64)
^loop(%v: i64, %sum: i64, %rev: i64):
  %done = arith.cmpi eq, %v, %c0 : i64
  cf.cond_br %done, ^exit, ^body
^body:
  %d = arith.remui %v, %c10 : i64
  %v1 = arith.divui %v, %c10 : i64
  %sum1 = arith.addi %sum, %d : i64
  %r10 = arith.muli %rev, %c10 : i64
  %rev1 = arith.addi %r10, %d : i64
  cf.br ^loop(%v1, %sum1, %rev1 : i64, i64, i64)
^exit:
  return %sum, %rev : i64, i64
}
