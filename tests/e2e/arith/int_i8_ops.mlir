// i8 arithmetic: values live in i32 registers, so every result must be
// re-wrapped to 8 bits (127 + 1 = -128) and unsigned ops must see the 8-bit
// pattern (i8 -1 is 255: 255 / 2 = 127). Results print sign-extended as i32.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i8=127 --input=i8=1 | FileCheck %s --check-prefix=BIN0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i8=-128 --input=i8=-1 | FileCheck %s --check-prefix=BIN1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i8=16 --input=i8=16 | FileCheck %s --check-prefix=BIN2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i8=-1 --input=i8=1 | FileCheck %s --check-prefix=BIN3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i8=100 --input=i8=100 | FileCheck %s --check-prefix=BIN4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i8=-100 --input=i8=27 | FileCheck %s --check-prefix=BIN5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops_folded | FileCheck %s --check-prefix=BINF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i8=-1 --input=i8=2 | FileCheck %s --check-prefix=DIV0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i8=-7 --input=i8=2 | FileCheck %s --check-prefix=DIV1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i8=-128 --input=i8=3 | FileCheck %s --check-prefix=DIV2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i8=127 --input=i8=-2 | FileCheck %s --check-prefix=DIV3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i8=-2 --input=i8=-1 | FileCheck %s --check-prefix=DIV4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops_folded | FileCheck %s --check-prefix=DIVF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=wrapdiv --input=i8=-128 --input=i8=-1 | FileCheck %s --check-prefix=WRAP0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=wrapdiv_folded | FileCheck %s --check-prefix=WRAPF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i8=-128 --input=i8=1 | FileCheck %s --check-prefix=SH0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i8=64 --input=i8=1 | FileCheck %s --check-prefix=SH1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i8=-1 --input=i8=7 | FileCheck %s --check-prefix=SH2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i8=1 --input=i8=7 | FileCheck %s --check-prefix=SH3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i8=-3 --input=i8=2 | FileCheck %s --check-prefix=SH4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts_folded | FileCheck %s --check-prefix=SHF --match-full-lines

// BIN0: EXEC @binops
// BIN0-NEXT: result[0]: i32=-128
// BIN0-NEXT: result[1]: i32=126
// BIN0-NEXT: result[2]: i32=127
// BIN0-NEXT: result[3]: i32=1
// BIN0-NEXT: result[4]: i32=127
// BIN0-NEXT: result[5]: i32=126
// BIN0-NEXT: result[6]: i32=127
// BIN0-NEXT: result[7]: i32=1
// BIN0-NEXT: result[8]: i32=127
// BIN0-NEXT: result[9]: i32=1

// BIN1: EXEC @binops
// BIN1-NEXT: result[0]: i32=127
// BIN1-NEXT: result[1]: i32=-127
// BIN1-NEXT: result[2]: i32=-128
// BIN1-NEXT: result[3]: i32=-128
// BIN1-NEXT: result[4]: i32=-1
// BIN1-NEXT: result[5]: i32=127
// BIN1-NEXT: result[6]: i32=-1
// BIN1-NEXT: result[7]: i32=-128
// BIN1-NEXT: result[8]: i32=-1
// BIN1-NEXT: result[9]: i32=-128

// BIN2: EXEC @binops
// BIN2-NEXT: result[0]: i32=32
// BIN2-NEXT: result[1]: i32=0
// BIN2-NEXT: result[2]: i32=0
// BIN2-NEXT: result[3]: i32=16
// BIN2-NEXT: result[4]: i32=16
// BIN2-NEXT: result[5]: i32=0
// BIN2-NEXT: result[6]: i32=16
// BIN2-NEXT: result[7]: i32=16
// BIN2-NEXT: result[8]: i32=16
// BIN2-NEXT: result[9]: i32=16

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
// BIN4-NEXT: result[0]: i32=-56
// BIN4-NEXT: result[1]: i32=0
// BIN4-NEXT: result[2]: i32=16
// BIN4-NEXT: result[3]: i32=100
// BIN4-NEXT: result[4]: i32=100
// BIN4-NEXT: result[5]: i32=0
// BIN4-NEXT: result[6]: i32=100
// BIN4-NEXT: result[7]: i32=100
// BIN4-NEXT: result[8]: i32=100
// BIN4-NEXT: result[9]: i32=100

// BIN5: EXEC @binops
// BIN5-NEXT: result[0]: i32=-73
// BIN5-NEXT: result[1]: i32=-127
// BIN5-NEXT: result[2]: i32=116
// BIN5-NEXT: result[3]: i32=24
// BIN5-NEXT: result[4]: i32=-97
// BIN5-NEXT: result[5]: i32=-121
// BIN5-NEXT: result[6]: i32=27
// BIN5-NEXT: result[7]: i32=-100
// BIN5-NEXT: result[8]: i32=-100
// BIN5-NEXT: result[9]: i32=27

// BINF: EXEC @binops_folded
// BINF-NEXT: result[0]: i32=-128
// BINF-NEXT: result[1]: i32=126
// BINF-NEXT: result[2]: i32=127
// BINF-NEXT: result[3]: i32=1
// BINF-NEXT: result[4]: i32=127
// BINF-NEXT: result[5]: i32=126
// BINF-NEXT: result[6]: i32=127
// BINF-NEXT: result[7]: i32=1
// BINF-NEXT: result[8]: i32=127
// BINF-NEXT: result[9]: i32=1

// DIV0: EXEC @divops
// DIV0-NEXT: result[0]: i32=0
// DIV0-NEXT: result[1]: i32=127
// DIV0-NEXT: result[2]: i32=-1
// DIV0-NEXT: result[3]: i32=1
// DIV0-NEXT: result[4]: i32=0
// DIV0-NEXT: result[5]: i32=-1

// DIV1: EXEC @divops
// DIV1-NEXT: result[0]: i32=-3
// DIV1-NEXT: result[1]: i32=124
// DIV1-NEXT: result[2]: i32=-1
// DIV1-NEXT: result[3]: i32=1
// DIV1-NEXT: result[4]: i32=-3
// DIV1-NEXT: result[5]: i32=-4

// DIV2: EXEC @divops
// DIV2-NEXT: result[0]: i32=-42
// DIV2-NEXT: result[1]: i32=42
// DIV2-NEXT: result[2]: i32=-2
// DIV2-NEXT: result[3]: i32=2
// DIV2-NEXT: result[4]: i32=-42
// DIV2-NEXT: result[5]: i32=-43

// DIV3: EXEC @divops
// DIV3-NEXT: result[0]: i32=-63
// DIV3-NEXT: result[1]: i32=0
// DIV3-NEXT: result[2]: i32=1
// DIV3-NEXT: result[3]: i32=127
// DIV3-NEXT: result[4]: i32=-63
// DIV3-NEXT: result[5]: i32=-64

// DIV4: EXEC @divops
// DIV4-NEXT: result[0]: i32=2
// DIV4-NEXT: result[1]: i32=0
// DIV4-NEXT: result[2]: i32=0
// DIV4-NEXT: result[3]: i32=-2
// DIV4-NEXT: result[4]: i32=2
// DIV4-NEXT: result[5]: i32=2

// DIVF: EXEC @divops_folded
// DIVF-NEXT: result[0]: i32=0
// DIVF-NEXT: result[1]: i32=127
// DIVF-NEXT: result[2]: i32=-1
// DIVF-NEXT: result[3]: i32=1
// DIVF-NEXT: result[4]: i32=0
// DIVF-NEXT: result[5]: i32=-1

// WRAP0: EXEC @wrapdiv
// WRAP0-NEXT: result[0]: i32=-128
// WRAP0-NEXT: result[1]: i32=0

// WRAPF: EXEC @wrapdiv_folded
// WRAPF-NEXT: result[0]: i32=-128
// WRAPF-NEXT: result[1]: i32=0

// SH0: EXEC @shifts
// SH0-NEXT: result[0]: i32=0
// SH0-NEXT: result[1]: i32=-64
// SH0-NEXT: result[2]: i32=64

// SH1: EXEC @shifts
// SH1-NEXT: result[0]: i32=-128
// SH1-NEXT: result[1]: i32=32
// SH1-NEXT: result[2]: i32=32

// SH2: EXEC @shifts
// SH2-NEXT: result[0]: i32=-128
// SH2-NEXT: result[1]: i32=-1
// SH2-NEXT: result[2]: i32=1

// SH3: EXEC @shifts
// SH3-NEXT: result[0]: i32=-128
// SH3-NEXT: result[1]: i32=0
// SH3-NEXT: result[2]: i32=0

// SH4: EXEC @shifts
// SH4-NEXT: result[0]: i32=-12
// SH4-NEXT: result[1]: i32=-1
// SH4-NEXT: result[2]: i32=63

// SHF: EXEC @shifts_folded
// SHF-NEXT: result[0]: i32=0
// SHF-NEXT: result[1]: i32=-64
// SHF-NEXT: result[2]: i32=64

func.func @binops(%a: i8, %b: i8) -> (i8, i8, i8, i8, i8, i8, i8, i8, i8, i8) {
  %addi = arith.addi %a, %b : i8
  %subi = arith.subi %a, %b : i8
  %muli = arith.muli %a, %b : i8
  %andi = arith.andi %a, %b : i8
  %ori = arith.ori %a, %b : i8
  %xori = arith.xori %a, %b : i8
  %maxsi = arith.maxsi %a, %b : i8
  %minsi = arith.minsi %a, %b : i8
  %maxui = arith.maxui %a, %b : i8
  %minui = arith.minui %a, %b : i8
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : i8, i8, i8, i8, i8, i8, i8, i8, i8, i8
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @binops_folded() -> (i8, i8, i8, i8, i8, i8, i8, i8, i8, i8) {
  %a = arith.constant 127 : i8
  %b = arith.constant 1 : i8
  %addi = arith.addi %a, %b : i8
  %subi = arith.subi %a, %b : i8
  %muli = arith.muli %a, %b : i8
  %andi = arith.andi %a, %b : i8
  %ori = arith.ori %a, %b : i8
  %xori = arith.xori %a, %b : i8
  %maxsi = arith.maxsi %a, %b : i8
  %minsi = arith.minsi %a, %b : i8
  %maxui = arith.maxui %a, %b : i8
  %minui = arith.minui %a, %b : i8
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : i8, i8, i8, i8, i8, i8, i8, i8, i8, i8
}

func.func @divops(%a: i8, %b: i8) -> (i8, i8, i8, i8, i8, i8) {
  %divsi = arith.divsi %a, %b : i8
  %divui = arith.divui %a, %b : i8
  %remsi = arith.remsi %a, %b : i8
  %remui = arith.remui %a, %b : i8
  %ceildivsi = arith.ceildivsi %a, %b : i8
  %floordivsi = arith.floordivsi %a, %b : i8
  return %divsi, %divui, %remsi, %remui, %ceildivsi, %floordivsi : i8, i8, i8, i8, i8, i8
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @divops_folded() -> (i8, i8, i8, i8, i8, i8) {
  %a = arith.constant -1 : i8
  %b = arith.constant 2 : i8
  %divsi = arith.divsi %a, %b : i8
  %divui = arith.divui %a, %b : i8
  %remsi = arith.remsi %a, %b : i8
  %remui = arith.remui %a, %b : i8
  %ceildivsi = arith.ceildivsi %a, %b : i8
  %floordivsi = arith.floordivsi %a, %b : i8
  return %divsi, %divui, %remsi, %remui, %ceildivsi, %floordivsi : i8, i8, i8, i8, i8, i8
}

func.func @wrapdiv(%a: i8, %b: i8) -> (i8, i8) {
  %divsi = arith.divsi %a, %b : i8
  %remsi = arith.remsi %a, %b : i8
  return %divsi, %remsi : i8, i8
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @wrapdiv_folded() -> (i8, i8) {
  %a = arith.constant -128 : i8
  %b = arith.constant -1 : i8
  %divsi = arith.divsi %a, %b : i8
  %remsi = arith.remsi %a, %b : i8
  return %divsi, %remsi : i8, i8
}

func.func @shifts(%a: i8, %b: i8) -> (i8, i8, i8) {
  %shli = arith.shli %a, %b : i8
  %shrsi = arith.shrsi %a, %b : i8
  %shrui = arith.shrui %a, %b : i8
  return %shli, %shrsi, %shrui : i8, i8, i8
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @shifts_folded() -> (i8, i8, i8) {
  %a = arith.constant -128 : i8
  %b = arith.constant 1 : i8
  %shli = arith.shli %a, %b : i8
  %shrsi = arith.shrsi %a, %b : i8
  %shrui = arith.shrui %a, %b : i8
  return %shli, %shrsi, %shrui : i8, i8, i8
}
