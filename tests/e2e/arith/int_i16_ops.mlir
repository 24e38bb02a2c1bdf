// i16 arithmetic: wraps at 16 bits; unsigned ops see the 16-bit pattern.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i16=32767 --input=i16=1 | FileCheck %s --check-prefix=BIN0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i16=-32768 --input=i16=-1 | FileCheck %s --check-prefix=BIN1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i16=300 --input=i16=300 | FileCheck %s --check-prefix=BIN2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i16=-1 --input=i16=1 | FileCheck %s --check-prefix=BIN3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i16=-12345 --input=i16=2 | FileCheck %s --check-prefix=BIN4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops_folded | FileCheck %s --check-prefix=BINF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i16=-1 --input=i16=2 | FileCheck %s --check-prefix=DIV0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i16=-7 --input=i16=2 | FileCheck %s --check-prefix=DIV1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i16=-32768 --input=i16=7 | FileCheck %s --check-prefix=DIV2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i16=32767 --input=i16=-4 | FileCheck %s --check-prefix=DIV3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops_folded | FileCheck %s --check-prefix=DIVF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i16=-32768 --input=i16=1 | FileCheck %s --check-prefix=SH0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i16=16384 --input=i16=1 | FileCheck %s --check-prefix=SH1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i16=-1 --input=i16=15 | FileCheck %s --check-prefix=SH2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i16=255 --input=i16=8 | FileCheck %s --check-prefix=SH3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts_folded | FileCheck %s --check-prefix=SHF --match-full-lines

// BIN0: EXEC @binops
// BIN0-NEXT: result[0]: i32=-32768
// BIN0-NEXT: result[1]: i32=32766
// BIN0-NEXT: result[2]: i32=32767
// BIN0-NEXT: result[3]: i32=1
// BIN0-NEXT: result[4]: i32=32767
// BIN0-NEXT: result[5]: i32=32766
// BIN0-NEXT: result[6]: i32=32767
// BIN0-NEXT: result[7]: i32=1
// BIN0-NEXT: result[8]: i32=32767
// BIN0-NEXT: result[9]: i32=1

// BIN1: EXEC @binops
// BIN1-NEXT: result[0]: i32=32767
// BIN1-NEXT: result[1]: i32=-32767
// BIN1-NEXT: result[2]: i32=-32768
// BIN1-NEXT: result[3]: i32=-32768
// BIN1-NEXT: result[4]: i32=-1
// BIN1-NEXT: result[5]: i32=32767
// BIN1-NEXT: result[6]: i32=-1
// BIN1-NEXT: result[7]: i32=-32768
// BIN1-NEXT: result[8]: i32=-1
// BIN1-NEXT: result[9]: i32=-32768

// BIN2: EXEC @binops
// BIN2-NEXT: result[0]: i32=600
// BIN2-NEXT: result[1]: i32=0
// BIN2-NEXT: result[2]: i32=24464
// BIN2-NEXT: result[3]: i32=300
// BIN2-NEXT: result[4]: i32=300
// BIN2-NEXT: result[5]: i32=0
// BIN2-NEXT: result[6]: i32=300
// BIN2-NEXT: result[7]: i32=300
// BIN2-NEXT: result[8]: i32=300
// BIN2-NEXT: result[9]: i32=300

// BIN3: EXEC @binops
// BIN3-NEXT: result[0]: i32=0
// BIN3-NEXT: result[1]: i32=-2
// BIN3-NEXT: result[2]: i32=-1
// BIN3-NEXT: result[3]: i32=1
// BIN3-NEXT: result[4]: i32=-1
// BIN3-NEXT: result[5]: i32=-2
// BIN3-NEXT: result[6]: i32=1
// BIN3-NEXT: result[7]: i32=-1
// BIN3-NEXT: result[8]: i32=-1
// BIN3-NEXT: result[9]: i32=1

// BIN4: EXEC @binops
// BIN4-NEXT: result[0]: i32=-12343
// BIN4-NEXT: result[1]: i32=-12347
// BIN4-NEXT: result[2]: i32=-24690
// BIN4-NEXT: result[3]: i32=2
// BIN4-NEXT: result[4]: i32=-12345
// BIN4-NEXT: result[5]: i32=-12347
// BIN4-NEXT: result[6]: i32=2
// BIN4-NEXT: result[7]: i32=-12345
// BIN4-NEXT: result[8]: i32=-12345
// BIN4-NEXT: result[9]: i32=2

// BINF: EXEC @binops_folded
// BINF-NEXT: result[0]: i32=-32768
// BINF-NEXT: result[1]: i32=32766
// BINF-NEXT: result[2]: i32=32767
// BINF-NEXT: result[3]: i32=1
// BINF-NEXT: result[4]: i32=32767
// BINF-NEXT: result[5]: i32=32766
// BINF-NEXT: result[6]: i32=32767
// BINF-NEXT: result[7]: i32=1
// BINF-NEXT: result[8]: i32=32767
// BINF-NEXT: result[9]: i32=1

// DIV0: EXEC @divops
// DIV0-NEXT: result[0]: i32=0
// DIV0-NEXT: result[1]: i32=32767
// DIV0-NEXT: result[2]: i32=-1
// DIV0-NEXT: result[3]: i32=1
// DIV0-NEXT: result[4]: i32=0
// DIV0-NEXT: result[5]: i32=-1

// DIV1: EXEC @divops
// DIV1-NEXT: result[0]: i32=-3
// DIV1-NEXT: result[1]: i32=32764
// DIV1-NEXT: result[2]: i32=-1
// DIV1-NEXT: result[3]: i32=1
// DIV1-NEXT: result[4]: i32=-3
// DIV1-NEXT: result[5]: i32=-4

// DIV2: EXEC @divops
// DIV2-NEXT: result[0]: i32=-4681
// DIV2-NEXT: result[1]: i32=4681
// DIV2-NEXT: result[2]: i32=-1
// DIV2-NEXT: result[3]: i32=1
// DIV2-NEXT: result[4]: i32=-4681
// DIV2-NEXT: result[5]: i32=-4682

// DIV3: EXEC @divops
// DIV3-NEXT: result[0]: i32=-8191
// DIV3-NEXT: result[1]: i32=0
// DIV3-NEXT: result[2]: i32=3
// DIV3-NEXT: result[3]: i32=32767
// DIV3-NEXT: result[4]: i32=-8191
// DIV3-NEXT: result[5]: i32=-8192

// DIVF: EXEC @divops_folded
// DIVF-NEXT: result[0]: i32=0
// DIVF-NEXT: result[1]: i32=32767
// DIVF-NEXT: result[2]: i32=-1
// DIVF-NEXT: result[3]: i32=1
// DIVF-NEXT: result[4]: i32=0
// DIVF-NEXT: result[5]: i32=-1

// SH0: EXEC @shifts
// SH0-NEXT: result[0]: i32=0
// SH0-NEXT: result[1]: i32=-16384
// SH0-NEXT: result[2]: i32=16384

// SH1: EXEC @shifts
// SH1-NEXT: result[0]: i32=-32768
// SH1-NEXT: result[1]: i32=8192
// SH1-NEXT: result[2]: i32=8192

// SH2: EXEC @shifts
// SH2-NEXT: result[0]: i32=-32768
// SH2-NEXT: result[1]: i32=-1
// SH2-NEXT: result[2]: i32=1

// SH3: EXEC @shifts
// SH3-NEXT: result[0]: i32=-256
// SH3-NEXT: result[1]: i32=0
// SH3-NEXT: result[2]: i32=0

// SHF: EXEC @shifts_folded
// SHF-NEXT: result[0]: i32=0
// SHF-NEXT: result[1]: i32=-16384
// SHF-NEXT: result[2]: i32=16384

func.func @binops(%a: i16, %b: i16) -> (i16, i16, i16, i16, i16, i16, i16, i16, i16, i16) {
  %addi = arith.addi %a, %b : i16
  %subi = arith.subi %a, %b : i16
  %muli = arith.muli %a, %b : i16
  %andi = arith.andi %a, %b : i16
  %ori = arith.ori %a, %b : i16
  %xori = arith.xori %a, %b : i16
  %maxsi = arith.maxsi %a, %b : i16
  %minsi = arith.minsi %a, %b : i16
  %maxui = arith.maxui %a, %b : i16
  %minui = arith.minui %a, %b : i16
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : i16, i16, i16, i16, i16, i16, i16, i16, i16, i16
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @binops_folded() -> (i16, i16, i16, i16, i16, i16, i16, i16, i16, i16) {
  %a = arith.constant 32767 : i16
  %b = arith.constant 1 : i16
  %addi = arith.addi %a, %b : i16
  %subi = arith.subi %a, %b : i16
  %muli = arith.muli %a, %b : i16
  %andi = arith.andi %a, %b : i16
  %ori = arith.ori %a, %b : i16
  %xori = arith.xori %a, %b : i16
  %maxsi = arith.maxsi %a, %b : i16
  %minsi = arith.minsi %a, %b : i16
  %maxui = arith.maxui %a, %b : i16
  %minui = arith.minui %a, %b : i16
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : i16, i16, i16, i16, i16, i16, i16, i16, i16, i16
}

func.func @divops(%a: i16, %b: i16) -> (i16, i16, i16, i16, i16, i16) {
  %divsi = arith.divsi %a, %b : i16
  %divui = arith.divui %a, %b : i16
  %remsi = arith.remsi %a, %b : i16
  %remui = arith.remui %a, %b : i16
  %ceildivsi = arith.ceildivsi %a, %b : i16
  %floordivsi = arith.floordivsi %a, %b : i16
  return %divsi, %divui, %remsi, %remui, %ceildivsi, %floordivsi : i16, i16, i16, i16, i16, i16
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @divops_folded() -> (i16, i16, i16, i16, i16, i16) {
  %a = arith.constant -1 : i16
  %b = arith.constant 2 : i16
  %divsi = arith.divsi %a, %b : i16
  %divui = arith.divui %a, %b : i16
  %remsi = arith.remsi %a, %b : i16
  %remui = arith.remui %a, %b : i16
  %ceildivsi = arith.ceildivsi %a, %b : i16
  %floordivsi = arith.floordivsi %a, %b : i16
  return %divsi, %divui, %remsi, %remui, %ceildivsi, %floordivsi : i16, i16, i16, i16, i16, i16
}

func.func @shifts(%a: i16, %b: i16) -> (i16, i16, i16) {
  %shli = arith.shli %a, %b : i16
  %shrsi = arith.shrsi %a, %b : i16
  %shrui = arith.shrui %a, %b : i16
  return %shli, %shrsi, %shrui : i16, i16, i16
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @shifts_folded() -> (i16, i16, i16) {
  %a = arith.constant -32768 : i16
  %b = arith.constant 1 : i16
  %shli = arith.shli %a, %b : i16
  %shrsi = arith.shrsi %a, %b : i16
  %shrui = arith.shrui %a, %b : i16
  return %shli, %shrsi, %shrui : i16, i16, i16
}
