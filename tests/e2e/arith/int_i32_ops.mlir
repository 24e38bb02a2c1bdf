// i32 integer arithmetic: wrapping add/sub/mul, bitwise ops, signed and
// unsigned min/max, division and remainder (truncating, ceil, floor; the
// signed division INT_MIN / -1 wraps to INT_MIN as the VM defines it), shifts.
// Each function takes its operands at run time; the *_folded variants
// compute the same on constants, through the compiler's constant folder.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i32=2147483647 --input=i32=1 | FileCheck %s --check-prefix=BIN0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i32=-7 --input=i32=3 | FileCheck %s --check-prefix=BIN1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i32=-1 --input=i32=1 | FileCheck %s --check-prefix=BIN2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i32=123456 --input=i32=-789 | FileCheck %s --check-prefix=BIN3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i32=-2147483648 --input=i32=-1 | FileCheck %s --check-prefix=BIN4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i32=305419896 --input=i32=252645135 | FileCheck %s --check-prefix=BIN5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops_folded | FileCheck %s --check-prefix=BINF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i32=7 --input=i32=2 | FileCheck %s --check-prefix=DIV0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i32=-7 --input=i32=2 | FileCheck %s --check-prefix=DIV1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i32=7 --input=i32=-2 | FileCheck %s --check-prefix=DIV2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i32=-7 --input=i32=-2 | FileCheck %s --check-prefix=DIV3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i32=-1 --input=i32=7 | FileCheck %s --check-prefix=DIV4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i32=0 --input=i32=5 | FileCheck %s --check-prefix=DIV5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i32=100 --input=i32=10 | FileCheck %s --check-prefix=DIV6 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i32=2147483647 --input=i32=-3 | FileCheck %s --check-prefix=DIV7 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops_folded | FileCheck %s --check-prefix=DIVF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=wrapdiv --input=i32=-2147483648 --input=i32=-1 | FileCheck %s --check-prefix=WRAP0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=wrapdiv_folded | FileCheck %s --check-prefix=WRAPF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i32=1 --input=i32=0 | FileCheck %s --check-prefix=SH0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i32=1 --input=i32=31 | FileCheck %s --check-prefix=SH1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i32=-8 --input=i32=1 | FileCheck %s --check-prefix=SH2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i32=-1 --input=i32=31 | FileCheck %s --check-prefix=SH3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i32=-2147483648 --input=i32=3 | FileCheck %s --check-prefix=SH4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i32=4660 --input=i32=4 | FileCheck %s --check-prefix=SH5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts_folded | FileCheck %s --check-prefix=SHF --match-full-lines

// BIN0: EXEC @binops
// BIN0-NEXT: result[0]: i32=-2147483648
// BIN0-NEXT: result[1]: i32=2147483646
// BIN0-NEXT: result[2]: i32=2147483647
// BIN0-NEXT: result[3]: i32=1
// BIN0-NEXT: result[4]: i32=2147483647
// BIN0-NEXT: result[5]: i32=2147483646
// BIN0-NEXT: result[6]: i32=2147483647
// BIN0-NEXT: result[7]: i32=1
// BIN0-NEXT: result[8]: i32=2147483647
// BIN0-NEXT: result[9]: i32=1
// BIN1: EXEC @binops
// BIN1-NEXT: result[0]: i32=-4
// BIN1-NEXT: result[1]: i32=-10
// BIN1-NEXT: result[2]: i32=-21
// BIN1-NEXT: result[3]: i32=1
// BIN1-NEXT: result[4]: i32=-5
// BIN1-NEXT: result[5]: i32=-6
// BIN1-NEXT: result[6]: i32=3
// BIN1-NEXT: result[7]: i32=-7
// BIN1-NEXT: result[8]: i32=-7
// BIN1-NEXT: result[9]: i32=3
// BIN2: EXEC @binops
// BIN2-NEXT: result[0]: i32=0
// BIN2-NEXT: result[1]: i32=-2
// BIN2-NEXT: result[2]: i32=-1
// BIN2-NEXT: result[3]: i32=1
// BIN2-NEXT: result[4]: i32=-1
// BIN2-NEXT: result[5]: i32=-2
// BIN2-NEXT: result[6]: i32=1
// BIN2-NEXT: result[7]: i32=-1
// BIN2-NEXT: result[8]: i32=-1
// BIN2-NEXT: result[9]: i32=1
// BIN3: EXEC @binops
// BIN3-NEXT: result[0]: i32=122667
// BIN3-NEXT: result[1]: i32=124245
// BIN3-NEXT: result[2]: i32=-97406784
// BIN3-NEXT: result[3]: i32=122944
// BIN3-NEXT: result[4]: i32=-277
// BIN3-NEXT: result[5]: i32=-123221
// BIN3-NEXT: result[6]: i32=123456
// BIN3-NEXT: result[7]: i32=-789
// BIN3-NEXT: result[8]: i32=-789
// BIN3-NEXT: result[9]: i32=123456
// BIN4: EXEC @binops
// BIN4-NEXT: result[0]: i32=2147483647
// BIN4-NEXT: result[1]: i32=-2147483647
// BIN4-NEXT: result[2]: i32=-2147483648
// BIN4-NEXT: result[3]: i32=-2147483648
// BIN4-NEXT: result[4]: i32=-1
// BIN4-NEXT: result[5]: i32=2147483647
// BIN4-NEXT: result[6]: i32=-1
// BIN4-NEXT: result[7]: i32=-2147483648
// BIN4-NEXT: result[8]: i32=-1
// BIN4-NEXT: result[9]: i32=-2147483648
// BIN5: EXEC @binops
// BIN5-NEXT: result[0]: i32=558065031
// BIN5-NEXT: result[1]: i32=52774761
// BIN5-NEXT: result[2]: i32=992614664
// BIN5-NEXT: result[3]: i32=33818120
// BIN5-NEXT: result[4]: i32=524246911
// BIN5-NEXT: result[5]: i32=490428791
// BIN5-NEXT: result[6]: i32=305419896
// BIN5-NEXT: result[7]: i32=252645135
// BIN5-NEXT: result[8]: i32=305419896
// BIN5-NEXT: result[9]: i32=252645135

// BINF: EXEC @binops_folded
// BINF-NEXT: result[0]: i32=-2147483647
// BINF-NEXT: result[1]: i32=2147483645
// BINF-NEXT: result[2]: i32=-2
// BINF-NEXT: result[3]: i32=2
// BINF-NEXT: result[4]: i32=2147483647
// BINF-NEXT: result[5]: i32=2147483645
// BINF-NEXT: result[6]: i32=2147483647
// BINF-NEXT: result[7]: i32=2
// BINF-NEXT: result[8]: i32=2147483647
// BINF-NEXT: result[9]: i32=2

// DIV0: EXEC @divops
// DIV0-NEXT: result[0]: i32=3
// DIV0-NEXT: result[1]: i32=3
// DIV0-NEXT: result[2]: i32=1
// DIV0-NEXT: result[3]: i32=1
// DIV0-NEXT: result[4]: i32=4
// DIV0-NEXT: result[5]: i32=3
// DIV1: EXEC @divops
// DIV1-NEXT: result[0]: i32=-3
// DIV1-NEXT: result[1]: i32=2147483644
// DIV1-NEXT: result[2]: i32=-1
// DIV1-NEXT: result[3]: i32=1
// DIV1-NEXT: result[4]: i32=-3
// DIV1-NEXT: result[5]: i32=-4
// DIV2: EXEC @divops
// DIV2-NEXT: result[0]: i32=-3
// DIV2-NEXT: result[1]: i32=0
// DIV2-NEXT: result[2]: i32=1
// DIV2-NEXT: result[3]: i32=7
// DIV2-NEXT: result[4]: i32=-3
// DIV2-NEXT: result[5]: i32=-4
// DIV3: EXEC @divops
// DIV3-NEXT: result[0]: i32=3
// DIV3-NEXT: result[1]: i32=0
// DIV3-NEXT: result[2]: i32=-1
// DIV3-NEXT: result[3]: i32=-7
// DIV3-NEXT: result[4]: i32=4
// DIV3-NEXT: result[5]: i32=3
// DIV4: EXEC @divops
// DIV4-NEXT: result[0]: i32=0
// DIV4-NEXT: result[1]: i32=613566756
// DIV4-NEXT: result[2]: i32=-1
// DIV4-NEXT: result[3]: i32=3
// DIV4-NEXT: result[4]: i32=0
// DIV4-NEXT: result[5]: i32=-1
// DIV5: EXEC @divops
// DIV5-NEXT: result[0]: i32=0
// DIV5-NEXT: result[1]: i32=0
// DIV5-NEXT: result[2]: i32=0
// DIV5-NEXT: result[3]: i32=0
// DIV5-NEXT: result[4]: i32=0
// DIV5-NEXT: result[5]: i32=0
// DIV6: EXEC @divops
// DIV6-NEXT: result[0]: i32=10
// DIV6-NEXT: result[1]: i32=10
// DIV6-NEXT: result[2]: i32=0
// DIV6-NEXT: result[3]: i32=0
// DIV6-NEXT: result[4]: i32=10
// DIV6-NEXT: result[5]: i32=10
// DIV7: EXEC @divops
// DIV7-NEXT: result[0]: i32=-715827882
// DIV7-NEXT: result[1]: i32=0
// DIV7-NEXT: result[2]: i32=1
// DIV7-NEXT: result[3]: i32=2147483647
// DIV7-NEXT: result[4]: i32=-715827882
// DIV7-NEXT: result[5]: i32=-715827883

// DIVF: EXEC @divops_folded
// DIVF-NEXT: result[0]: i32=-3
// DIVF-NEXT: result[1]: i32=2147483644
// DIVF-NEXT: result[2]: i32=-1
// DIVF-NEXT: result[3]: i32=1
// DIVF-NEXT: result[4]: i32=-3
// DIVF-NEXT: result[5]: i32=-4

// WRAP0: EXEC @wrapdiv
// WRAP0-NEXT: result[0]: i32=-2147483648
// WRAP0-NEXT: result[1]: i32=0

// WRAPF: EXEC @wrapdiv_folded
// WRAPF-NEXT: result[0]: i32=-2147483648
// WRAPF-NEXT: result[1]: i32=0

// SH0: EXEC @shifts
// SH0-NEXT: result[0]: i32=1
// SH0-NEXT: result[1]: i32=1
// SH0-NEXT: result[2]: i32=1
// SH1: EXEC @shifts
// SH1-NEXT: result[0]: i32=-2147483648
// SH1-NEXT: result[1]: i32=0
// SH1-NEXT: result[2]: i32=0
// SH2: EXEC @shifts
// SH2-NEXT: result[0]: i32=-16
// SH2-NEXT: result[1]: i32=-4
// SH2-NEXT: result[2]: i32=2147483644
// SH3: EXEC @shifts
// SH3-NEXT: result[0]: i32=-2147483648
// SH3-NEXT: result[1]: i32=-1
// SH3-NEXT: result[2]: i32=1
// SH4: EXEC @shifts
// SH4-NEXT: result[0]: i32=0
// SH4-NEXT: result[1]: i32=-268435456
// SH4-NEXT: result[2]: i32=268435456
// SH5: EXEC @shifts
// SH5-NEXT: result[0]: i32=74560
// SH5-NEXT: result[1]: i32=291
// SH5-NEXT: result[2]: i32=291

// SHF: EXEC @shifts_folded
// SHF-NEXT: result[0]: i32=-64
// SHF-NEXT: result[1]: i32=-4
// SHF-NEXT: result[2]: i32=1073741820

func.func @binops(%a: i32, %b: i32) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
  %addi = arith.addi %a, %b : i32
  %subi = arith.subi %a, %b : i32
  %muli = arith.muli %a, %b : i32
  %andi = arith.andi %a, %b : i32
  %ori = arith.ori %a, %b : i32
  %xori = arith.xori %a, %b : i32
  %maxsi = arith.maxsi %a, %b : i32
  %minsi = arith.minsi %a, %b : i32
  %maxui = arith.maxui %a, %b : i32
  %minui = arith.minui %a, %b : i32
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @binops_folded() -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
  %a = arith.constant 2147483647 : i32
  %b = arith.constant 2 : i32
  %addi = arith.addi %a, %b : i32
  %subi = arith.subi %a, %b : i32
  %muli = arith.muli %a, %b : i32
  %andi = arith.andi %a, %b : i32
  %ori = arith.ori %a, %b : i32
  %xori = arith.xori %a, %b : i32
  %maxsi = arith.maxsi %a, %b : i32
  %minsi = arith.minsi %a, %b : i32
  %maxui = arith.maxui %a, %b : i32
  %minui = arith.minui %a, %b : i32
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
}

func.func @divops(%a: i32, %b: i32) -> (i32, i32, i32, i32, i32, i32) {
  %divsi = arith.divsi %a, %b : i32
  %divui = arith.divui %a, %b : i32
  %remsi = arith.remsi %a, %b : i32
  %remui = arith.remui %a, %b : i32
  %ceildivsi = arith.ceildivsi %a, %b : i32
  %floordivsi = arith.floordivsi %a, %b : i32
  return %divsi, %divui, %remsi, %remui, %ceildivsi, %floordivsi : i32, i32, i32, i32, i32, i32
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @divops_folded() -> (i32, i32, i32, i32, i32, i32) {
  %a = arith.constant -7 : i32
  %b = arith.constant 2 : i32
  %divsi = arith.divsi %a, %b : i32
  %divui = arith.divui %a, %b : i32
  %remsi = arith.remsi %a, %b : i32
  %remui = arith.remui %a, %b : i32
  %ceildivsi = arith.ceildivsi %a, %b : i32
  %floordivsi = arith.floordivsi %a, %b : i32
  return %divsi, %divui, %remsi, %remui, %ceildivsi, %floordivsi : i32, i32, i32, i32, i32, i32
}

func.func @wrapdiv(%a: i32, %b: i32) -> (i32, i32) {
  %divsi = arith.divsi %a, %b : i32
  %remsi = arith.remsi %a, %b : i32
  return %divsi, %remsi : i32, i32
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @wrapdiv_folded() -> (i32, i32) {
  %a = arith.constant -2147483648 : i32
  %b = arith.constant -1 : i32
  %divsi = arith.divsi %a, %b : i32
  %remsi = arith.remsi %a, %b : i32
  return %divsi, %remsi : i32, i32
}

func.func @shifts(%a: i32, %b: i32) -> (i32, i32, i32) {
  %shli = arith.shli %a, %b : i32
  %shrsi = arith.shrsi %a, %b : i32
  %shrui = arith.shrui %a, %b : i32
  return %shli, %shrsi, %shrui : i32, i32, i32
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @shifts_folded() -> (i32, i32, i32) {
  %a = arith.constant -16 : i32
  %b = arith.constant 2 : i32
  %shli = arith.shli %a, %b : i32
  %shrsi = arith.shrsi %a, %b : i32
  %shrui = arith.shrui %a, %b : i32
  return %shli, %shrsi, %shrui : i32, i32, i32
}
