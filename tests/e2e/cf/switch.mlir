// cf.switch: a default and several cases (negative and sparse case values),
// block arguments on the default and on cases, two cases sharing a block, and
// a switch inside a loop (a tiny state machine).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=classify --input=0 | FileCheck %s --check-prefix=ZERO --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=classify --input=1 | FileCheck %s --check-prefix=ONE --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=classify --input=-5 | FileCheck %s --check-prefix=MINUS5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=classify --input=1000 | FileCheck %s --check-prefix=THOUSAND --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=classify --input=2 | FileCheck %s --check-prefix=DEFAULT2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=classify --input=999 | FileCheck %s --check-prefix=DEFAULT999 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=machine --input=10 | FileCheck %s --check-prefix=MACHINE --match-full-lines

// ZERO: EXEC @classify
// ZERO-NEXT: result[0]: i32=100
// ONE: EXEC @classify
// ONE-NEXT: result[0]: i32=101
// MINUS5: EXEC @classify
// MINUS5-NEXT: result[0]: i32=-50
// THOUSAND: EXEC @classify
// THOUSAND-NEXT: result[0]: i32=-50
// DEFAULT2: EXEC @classify
// DEFAULT2-NEXT: result[0]: i32=4
// DEFAULT999: EXEC @classify
// DEFAULT999-NEXT: result[0]: i32=1998
func.func @classify(%x: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %doubled = arith.muli %x, %c2 : i32
  %c100 = arith.constant 100 : i32
  cf.switch %x : i32, [
    default: ^other(%doubled : i32),
    0: ^small(%c100 : i32),
    1: ^one,
    -5: ^far,
    1000: ^far
  ]
^small(%v: i32):
  return %v : i32
^one:
  %c101 = arith.constant 101 : i32
  return %c101 : i32
^far:
  %m50 = arith.constant -50 : i32
  return %m50 : i32
^other(%d: i32):
  return %d : i32
}

// A state machine: state 0 adds 1 and goes to 1, state 1 doubles and goes to
// 2, state 2 subtracts 1 and goes to 0; n steps from (state 0, value 1).
// MACHINE: EXEC @machine
// MACHINE-NEXT: result[0]: i32=16
// MACHINE-NEXT: result[1]: i32=1
func.func @machine(%n: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  cf.br ^loop(%c0, %c1, %n : i32, i32, i32)
^loop(%state: i32, %value: i32, %k: i32):
  %done = arith.cmpi eq, %k, %c0 : i32
  %k1 = arith.subi %k, %c1 : i32
  cf.cond_br %done, ^exit(%value, %state : i32, i32), ^dispatch
^dispatch:
  cf.switch %state : i32, [
    default: ^s0,
    1: ^s1,
    2: ^s2
  ]
^s0:
  %v0 = arith.addi %value, %c1 : i32
  cf.br ^loop(%c1, %v0, %k1 : i32, i32, i32)
^s1:
  %v1 = arith.muli %value, %c2 : i32
  cf.br ^loop(%c2, %v1, %k1 : i32, i32, i32)
^s2:
  %v2 = arith.subi %value, %c1 : i32
  cf.br ^loop(%c0, %v2, %k1 : i32, i32, i32)
^exit(%r: i32, %s: i32):
  return %r, %s : i32, i32
}
