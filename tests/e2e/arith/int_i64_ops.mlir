// i64 integer arithmetic: wrapping add/sub/mul, bitwise ops, signed and
// unsigned min/max, division and remainder (truncating, ceil, floor; the
// signed division INT_MIN / -1 wraps to INT_MIN as the VM defines it), shifts.
// Each function takes its operands at run time; the *_folded variants
// compute the same on constants, through the compiler's constant folder.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i64=9223372036854775807 --input=i64=1 | FileCheck %s --check-prefix=BIN0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i64=-7 --input=i64=3 | FileCheck %s --check-prefix=BIN1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i64=-1 --input=i64=1 | FileCheck %s --check-prefix=BIN2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i64=123456 --input=i64=-789 | FileCheck %s --check-prefix=BIN3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i64=-9223372036854775808 --input=i64=-1 | FileCheck %s --check-prefix=BIN4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i64=305419896 --input=i64=252645135 | FileCheck %s --check-prefix=BIN5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i64=1250999896491 --input=i64=16777216 | FileCheck %s --check-prefix=BIN6 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=i64=9223372036854775807 --input=i64=9223372036854775807 | FileCheck %s --check-prefix=BIN7 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops_folded | FileCheck %s --check-prefix=BINF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i64=7 --input=i64=2 | FileCheck %s --check-prefix=DIV0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i64=-7 --input=i64=2 | FileCheck %s --check-prefix=DIV1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i64=7 --input=i64=-2 | FileCheck %s --check-prefix=DIV2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i64=-7 --input=i64=-2 | FileCheck %s --check-prefix=DIV3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i64=-1 --input=i64=7 | FileCheck %s --check-prefix=DIV4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i64=0 --input=i64=5 | FileCheck %s --check-prefix=DIV5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i64=100 --input=i64=10 | FileCheck %s --check-prefix=DIV6 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=i64=9223372036854775807 --input=i64=-3 | FileCheck %s --check-prefix=DIV7 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops_folded | FileCheck %s --check-prefix=DIVF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=wrapdiv --input=i64=-9223372036854775808 --input=i64=-1 | FileCheck %s --check-prefix=WRAP0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=wrapdiv_folded | FileCheck %s --check-prefix=WRAPF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i64=1 --input=i64=0 | FileCheck %s --check-prefix=SH0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i64=1 --input=i64=63 | FileCheck %s --check-prefix=SH1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i64=-8 --input=i64=1 | FileCheck %s --check-prefix=SH2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i64=-1 --input=i64=63 | FileCheck %s --check-prefix=SH3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i64=-9223372036854775808 --input=i64=3 | FileCheck %s --check-prefix=SH4 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=i64=4660 --input=i64=4 | FileCheck %s --check-prefix=SH5 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts_folded | FileCheck %s --check-prefix=SHF --match-full-lines

// BIN0: EXEC @binops
// BIN0-NEXT: result[0]: i64=-9223372036854775808
// BIN0-NEXT: result[1]: i64=9223372036854775806
// BIN0-NEXT: result[2]: i64=9223372036854775807
// BIN0-NEXT: result[3]: i64=1
// BIN0-NEXT: result[4]: i64=9223372036854775807
// BIN0-NEXT: result[5]: i64=9223372036854775806
// BIN0-NEXT: result[6]: i64=9223372036854775807
// BIN0-NEXT: result[7]: i64=1
// BIN0-NEXT: result[8]: i64=9223372036854775807
// BIN0-NEXT: result[9]: i64=1
// BIN1: EXEC @binops
// BIN1-NEXT: result[0]: i64=-4
// BIN1-NEXT: result[1]: i64=-10
// BIN1-NEXT: result[2]: i64=-21
// BIN1-NEXT: result[3]: i64=1
// BIN1-NEXT: result[4]: i64=-5
// BIN1-NEXT: result[5]: i64=-6
// BIN1-NEXT: result[6]: i64=3
// BIN1-NEXT: result[7]: i64=-7
// BIN1-NEXT: result[8]: i64=-7
// BIN1-NEXT: result[9]: i64=3
// BIN2: EXEC @binops
// BIN2-NEXT: result[0]: i64=0
// BIN2-NEXT: result[1]: i64=-2
// BIN2-NEXT: result[2]: i64=-1
// BIN2-NEXT: result[3]: i64=1
// BIN2-NEXT: result[4]: i64=-1
// BIN2-NEXT: result[5]: i64=-2
// BIN2-NEXT: result[6]: i64=1
// BIN2-NEXT: result[7]: i64=-1
// BIN2-NEXT: result[8]: i64=-1
// BIN2-NEXT: result[9]: i64=1
// BIN3: EXEC @binops
// BIN3-NEXT: result[0]: i64=122667
// BIN3-NEXT: result[1]: i64=124245
// BIN3-NEXT: result[2]: i64=-97406784
// BIN3-NEXT: result[3]: i64=122944
// BIN3-NEXT: result[4]: i64=-277
// BIN3-NEXT: result[5]: i64=-123221
// BIN3-NEXT: result[6]: i64=123456
// BIN3-NEXT: result[7]: i64=-789
// BIN3-NEXT: result[8]: i64=-789
// BIN3-NEXT: result[9]: i64=123456
// BIN4: EXEC @binops
// BIN4-NEXT: result[0]: i64=9223372036854775807
// BIN4-NEXT: result[1]: i64=-9223372036854775807
// BIN4-NEXT: result[2]: i64=-9223372036854775808
// BIN4-NEXT: result[3]: i64=-9223372036854775808
// BIN4-NEXT: result[4]: i64=-1
// BIN4-NEXT: result[5]: i64=9223372036854775807
// BIN4-NEXT: result[6]: i64=-1
// BIN4-NEXT: result[7]: i64=-9223372036854775808
// BIN4-NEXT: result[8]: i64=-1
// BIN4-NEXT: result[9]: i64=-9223372036854775808
// BIN5: EXEC @binops
// BIN5-NEXT: result[0]: i64=558065031
// BIN5-NEXT: result[1]: i64=52774761
// BIN5-NEXT: result[2]: i64=77162850856605960
// BIN5-NEXT: result[3]: i64=33818120
// BIN5-NEXT: result[4]: i64=524246911
// BIN5-NEXT: result[5]: i64=490428791
// BIN5-NEXT: result[6]: i64=305419896
// BIN5-NEXT: result[7]: i64=252645135
// BIN5-NEXT: result[8]: i64=305419896
// BIN5-NEXT: result[9]: i64=252645135
// BIN6: EXEC @binops
// BIN6-NEXT: result[0]: i64=1251016673707
// BIN6-NEXT: result[1]: i64=1250983119275
// BIN6-NEXT: result[2]: i64=2541551405697597440
// BIN6-NEXT: result[3]: i64=16777216
// BIN6-NEXT: result[4]: i64=1250999896491
// BIN6-NEXT: result[5]: i64=1250983119275
// BIN6-NEXT: result[6]: i64=1250999896491
// BIN6-NEXT: result[7]: i64=16777216
// BIN6-NEXT: result[8]: i64=1250999896491
// BIN6-NEXT: result[9]: i64=16777216
// BIN7: EXEC @binops
// BIN7-NEXT: result[0]: i64=-2
// BIN7-NEXT: result[1]: i64=0
// BIN7-NEXT: result[2]: i64=1
// BIN7-NEXT: result[3]: i64=9223372036854775807
// BIN7-NEXT: result[4]: i64=9223372036854775807
// BIN7-NEXT: result[5]: i64=0
// BIN7-NEXT: result[6]: i64=9223372036854775807
// BIN7-NEXT: result[7]: i64=9223372036854775807
// BIN7-NEXT: result[8]: i64=9223372036854775807
// BIN7-NEXT: result[9]: i64=9223372036854775807

// BINF: EXEC @binops_folded
// BINF-NEXT: result[0]: i64=-9223372036854775807
// BINF-NEXT: result[1]: i64=9223372036854775805
// BINF-NEXT: result[2]: i64=-2
// BINF-NEXT: result[3]: i64=2
// BINF-NEXT: result[4]: i64=9223372036854775807
// BINF-NEXT: result[5]: i64=9223372036854775805
// BINF-NEXT: result[6]: i64=9223372036854775807
// BINF-NEXT: result[7]: i64=2
// BINF-NEXT: result[8]: i64=9223372036854775807
// BINF-NEXT: result[9]: i64=2

// DIV0: EXEC @divops
// DIV0-NEXT: result[0]: i64=3
// DIV0-NEXT: result[1]: i64=3
// DIV0-NEXT: result[2]: i64=1
// DIV0-NEXT: result[3]: i64=1
// DIV0-NEXT: result[4]: i64=4
// DIV0-NEXT: result[5]: i64=3
// DIV1: EXEC @divops
// DIV1-NEXT: result[0]: i64=-3
// DIV1-NEXT: result[1]: i64=9223372036854775804
// DIV1-NEXT: result[2]: i64=-1
// DIV1-NEXT: result[3]: i64=1
// DIV1-NEXT: result[4]: i64=-3
// DIV1-NEXT: result[5]: i64=-4
// DIV2: EXEC @divops
// DIV2-NEXT: result[0]: i64=-3
// DIV2-NEXT: result[1]: i64=0
// DIV2-NEXT: result[2]: i64=1
// DIV2-NEXT: result[3]: i64=7
// DIV2-NEXT: result[4]: i64=-3
// DIV2-NEXT: result[5]: i64=-4
// DIV3: EXEC @divops
// DIV3-NEXT: result[0]: i64=3
// DIV3-NEXT: result[1]: i64=0
// DIV3-NEXT: result[2]: i64=-1
// DIV3-NEXT: result[3]: i64=-7
// DIV3-NEXT: result[4]: i64=4
// DIV3-NEXT: result[5]: i64=3
// DIV4: EXEC @divops
// DIV4-NEXT: result[0]: i64=0
// DIV4-NEXT: result[1]: i64=2635249153387078802
// DIV4-NEXT: result[2]: i64=-1
// DIV4-NEXT: result[3]: i64=1
// DIV4-NEXT: result[4]: i64=0
// DIV4-NEXT: result[5]: i64=-1
// DIV5: EXEC @divops
// DIV5-NEXT: result[0]: i64=0
// DIV5-NEXT: result[1]: i64=0
// DIV5-NEXT: result[2]: i64=0
// DIV5-NEXT: result[3]: i64=0
// DIV5-NEXT: result[4]: i64=0
// DIV5-NEXT: result[5]: i64=0
// DIV6: EXEC @divops
// DIV6-NEXT: result[0]: i64=10
// DIV6-NEXT: result[1]: i64=10
// DIV6-NEXT: result[2]: i64=0
// DIV6-NEXT: result[3]: i64=0
// DIV6-NEXT: result[4]: i64=10
// DIV6-NEXT: result[5]: i64=10
// DIV7: EXEC @divops
// DIV7-NEXT: result[0]: i64=-3074457345618258602
// DIV7-NEXT: result[1]: i64=0
// DIV7-NEXT: result[2]: i64=1
// DIV7-NEXT: result[3]: i64=9223372036854775807
// DIV7-NEXT: result[4]: i64=-3074457345618258602
// DIV7-NEXT: result[5]: i64=-3074457345618258603

// DIVF: EXEC @divops_folded
// DIVF-NEXT: result[0]: i64=-3
// DIVF-NEXT: result[1]: i64=9223372036854775804
// DIVF-NEXT: result[2]: i64=-1
// DIVF-NEXT: result[3]: i64=1
// DIVF-NEXT: result[4]: i64=-3
// DIVF-NEXT: result[5]: i64=-4

// WRAP0: EXEC @wrapdiv
// WRAP0-NEXT: result[0]: i64=-9223372036854775808
// WRAP0-NEXT: result[1]: i64=0

// WRAPF: EXEC @wrapdiv_folded
// WRAPF-NEXT: result[0]: i64=-9223372036854775808
// WRAPF-NEXT: result[1]: i64=0

// SH0: EXEC @shifts
// SH0-NEXT: result[0]: i64=1
// SH0-NEXT: result[1]: i64=1
// SH0-NEXT: result[2]: i64=1
// SH1: EXEC @shifts
// SH1-NEXT: result[0]: i64=-9223372036854775808
// SH1-NEXT: result[1]: i64=0
// SH1-NEXT: result[2]: i64=0
// SH2: EXEC @shifts
// SH2-NEXT: result[0]: i64=-16
// SH2-NEXT: result[1]: i64=-4
// SH2-NEXT: result[2]: i64=9223372036854775804
// SH3: EXEC @shifts
// SH3-NEXT: result[0]: i64=-9223372036854775808
// SH3-NEXT: result[1]: i64=-1
// SH3-NEXT: result[2]: i64=1
// SH4: EXEC @shifts
// SH4-NEXT: result[0]: i64=0
// SH4-NEXT: result[1]: i64=-1152921504606846976
// SH4-NEXT: result[2]: i64=1152921504606846976
// SH5: EXEC @shifts
// SH5-NEXT: result[0]: i64=74560
// SH5-NEXT: result[1]: i64=291
// SH5-NEXT: result[2]: i64=291

// SHF: EXEC @shifts_folded
// SHF-NEXT: result[0]: i64=-64
// SHF-NEXT: result[1]: i64=-4
// SHF-NEXT: result[2]: i64=4611686018427387900

func.func @binops(%a: i64, %b: i64) -> (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) {
  %addi = arith.addi %a, %b : i64
  %subi = arith.subi %a, %b : i64
  %muli = arith.muli %a, %b : i64
  %andi = arith.andi %a, %b : i64
  %ori = arith.ori %a, %b : i64
  %xori = arith.xori %a, %b : i64
  %maxsi = arith.maxsi %a, %b : i64
  %minsi = arith.minsi %a, %b : i64
  %maxui = arith.maxui %a, %b : i64
  %minui = arith.minui %a, %b : i64
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : i64, i64, i64, i64, i64, i64, i64, i64, i64, i64
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @binops_folded() -> (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) {
  %a = arith.constant 9223372036854775807 : i64
  %b = arith.constant 2 : i64
  %addi = arith.addi %a, %b : i64
  %subi = arith.subi %a, %b : i64
  %muli = arith.muli %a, %b : i64
  %andi = arith.andi %a, %b : i64
  %ori = arith.ori %a, %b : i64
  %xori = arith.xori %a, %b : i64
  %maxsi = arith.maxsi %a, %b : i64
  %minsi = arith.minsi %a, %b : i64
  %maxui = arith.maxui %a, %b : i64
  %minui = arith.minui %a, %b : i64
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : i64, i64, i64, i64, i64, i64, i64, i64, i64, i64
}

func.func @divops(%a: i64, %b: i64) -> (i64, i64, i64, i64, i64, i64) {
  %divsi = arith.divsi %a, %b : i64
  %divui = arith.divui %a, %b : i64
  %remsi = arith.remsi %a, %b : i64
  %remui = arith.remui %a, %b : i64
  %ceildivsi = arith.ceildivsi %a, %b : i64
  %floordivsi = arith.floordivsi %a, %b : i64
  return %divsi, %divui, %remsi, %remui, %ceildivsi, %floordivsi : i64, i64, i64, i64, i64, i64
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @divops_folded() -> (i64, i64, i64, i64, i64, i64) {
  %a = arith.constant -7 : i64
  %b = arith.constant 2 : i64
  %divsi = arith.divsi %a, %b : i64
  %divui = arith.divui %a, %b : i64
  %remsi = arith.remsi %a, %b : i64
  %remui = arith.remui %a, %b : i64
  %ceildivsi = arith.ceildivsi %a, %b : i64
  %floordivsi = arith.floordivsi %a, %b : i64
  return %divsi, %divui, %remsi, %remui, %ceildivsi, %floordivsi : i64, i64, i64, i64, i64, i64
}

func.func @wrapdiv(%a: i64, %b: i64) -> (i64, i64) {
  %divsi = arith.divsi %a, %b : i64
  %remsi = arith.remsi %a, %b : i64
  return %divsi, %remsi : i64, i64
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @wrapdiv_folded() -> (i64, i64) {
  %a = arith.constant -9223372036854775808 : i64
  %b = arith.constant -1 : i64
  %divsi = arith.divsi %a, %b : i64
  %remsi = arith.remsi %a, %b : i64
  return %divsi, %remsi : i64, i64
}

func.func @shifts(%a: i64, %b: i64) -> (i64, i64, i64) {
  %shli = arith.shli %a, %b : i64
  %shrsi = arith.shrsi %a, %b : i64
  %shrui = arith.shrui %a, %b : i64
  return %shli, %shrsi, %shrui : i64, i64, i64
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @shifts_folded() -> (i64, i64, i64) {
  %a = arith.constant -16 : i64
  %b = arith.constant 2 : i64
  %shli = arith.shli %a, %b : i64
  %shrsi = arith.shrsi %a, %b : i64
  %shrui = arith.shrui %a, %b : i64
  return %shli, %shrsi, %shrui : i64, i64, i64
}
