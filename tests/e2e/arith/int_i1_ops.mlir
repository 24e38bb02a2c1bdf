// i1 arithmetic: true prints as i32=1, false as i32=0. As a signed 1-bit
// number true is -1, so maxsi(false, true) is false and minsi is true.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i1=0 --input=i1=0 | FileCheck %s --check-prefix=BIN0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i1=0 --input=i1=1 | FileCheck %s --check-prefix=BIN1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i1=1 --input=i1=0 | FileCheck %s --check-prefix=BIN2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i1=1 --input=i1=1 | FileCheck %s --check-prefix=BIN3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops_folded | FileCheck %s --check-prefix=BINF --match-full-lines

// BIN0: EXEC @binops
// BIN0-NEXT: result[0]: i32=0
// BIN0-NEXT: result[1]: i32=0
// BIN0-NEXT: result[2]: i32=0
// BIN0-NEXT: result[3]: i32=0
// BIN0-NEXT: result[4]: i32=0
// BIN0-NEXT: result[5]: i32=0
// BIN0-NEXT: result[6]: i32=0
// BIN0-NEXT: result[7]: i32=0
// BIN0-NEXT: result[8]: i32=0
// BIN0-NEXT: result[9]: i32=0

// BIN1: EXEC @binops
// BIN1-NEXT: result[0]: i32=1
// BIN1-NEXT: result[1]: i32=1
// BIN1-NEXT: result[2]: i32=0
// BIN1-NEXT: result[3]: i32=0
// BIN1-NEXT: result[4]: i32=1
// BIN1-NEXT: result[5]: i32=1
// BIN1-NEXT: result[6]: i32=0
// BIN1-NEXT: result[7]: i32=1
// BIN1-NEXT: result[8]: i32=1
// BIN1-NEXT: result[9]: i32=0

// BIN2: EXEC @binops
// BIN2-NEXT: result[0]: i32=1
// BIN2-NEXT: result[1]: i32=1
// BIN2-NEXT: result[2]: i32=0
// BIN2-NEXT: result[3]: i32=0
// BIN2-NEXT: result[4]: i32=1
// BIN2-NEXT: result[5]: i32=1
// BIN2-NEXT: result[6]: i32=0
// BIN2-NEXT: result[7]: i32=1
// BIN2-NEXT: result[8]: i32=1
// BIN2-NEXT: result[9]: i32=0

// BIN3: EXEC @binops
// BIN3-NEXT: result[0]: i32=0
// BIN3-NEXT: result[1]: i32=0
// BIN3-NEXT: result[2]: i32=1
// BIN3-NEXT: result[3]: i32=1
// BIN3-NEXT: result[4]: i32=1
// BIN3-NEXT: result[5]: i32=0
// BIN3-NEXT: result[6]: i32=1
// BIN3-NEXT: result[7]: i32=1
// BIN3-NEXT: result[8]: i32=1
// BIN3-NEXT: result[9]: i32=1

// BINF: EXEC @binops_folded
// BINF-NEXT: result[0]: i32=0
// BINF-NEXT: result[1]: i32=0
// BINF-NEXT: result[2]: i32=1
// BINF-NEXT: result[3]: i32=1
// BINF-NEXT: result[4]: i32=1
// BINF-NEXT: result[5]: i32=0
// BINF-NEXT: result[6]: i32=1
// BINF-NEXT: result[7]: i32=1
// BINF-NEXT: result[8]: i32=1
// BINF-NEXT: result[9]: i32=1

func.func @binops(%a: i1, %b: i1) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %addi = arith.addi %a, %b : i1
  %subi = arith.subi %a, %b : i1
  %muli = arith.muli %a, %b : i1
  %andi = arith.andi %a, %b : i1
  %ori = arith.ori %a, %b : i1
  %xori = arith.xori %a, %b : i1
  %maxsi = arith.maxsi %a, %b : i1
  %minsi = arith.minsi %a, %b : i1
  %maxui = arith.maxui %a, %b : i1
  %minui = arith.minui %a, %b : i1
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @binops_folded() -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %a = arith.constant true
  %b = arith.constant 1 : i1
  %addi = arith.addi %a, %b : i1
  %subi = arith.subi %a, %b : i1
  %muli = arith.muli %a, %b : i1
  %andi = arith.andi %a, %b : i1
  %ori = arith.ori %a, %b : i1
  %xori = arith.xori %a, %b : i1
  %maxsi = arith.maxsi %a, %b : i1
  %minsi = arith.minsi %a, %b : i1
  %maxui = arith.maxui %a, %b : i1
  %minui = arith.minui %a, %b : i1
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}
