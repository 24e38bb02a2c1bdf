// index arithmetic: 64-bit in kiln, results print as i64.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=index=5 --input=index=-3 | FileCheck %s --check-prefix=BIN0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=index=9223372036854775807 --input=index=1 | FileCheck %s --check-prefix=BIN1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops --input=index=1099511627776 --input=index=3 | FileCheck %s --check-prefix=BIN2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=binops_folded | FileCheck %s --check-prefix=BINF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=index=-9 --input=index=4 | FileCheck %s --check-prefix=DIV0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=index=9 --input=index=-4 | FileCheck %s --check-prefix=DIV1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops --input=index=17 --input=index=5 | FileCheck %s --check-prefix=DIV2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=divops_folded | FileCheck %s --check-prefix=DIVF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=index=-256 --input=index=4 | FileCheck %s --check-prefix=SH0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=shifts --input=index=3 --input=index=62 | FileCheck %s --check-prefix=SH1 --match-full-lines

// BIN0: EXEC @binops
// BIN0-NEXT: result[0]: i64=2
// BIN0-NEXT: result[1]: i64=8
// BIN0-NEXT: result[2]: i64=-15
// BIN0-NEXT: result[3]: i64=5
// BIN0-NEXT: result[4]: i64=-3
// BIN0-NEXT: result[5]: i64=-8
// BIN0-NEXT: result[6]: i64=5
// BIN0-NEXT: result[7]: i64=-3
// BIN0-NEXT: result[8]: i64=-3
// BIN0-NEXT: result[9]: i64=5
// BIN1: EXEC @binops
// BIN1-NEXT: result[0]: i64=-9223372036854775808
// BIN1-NEXT: result[1]: i64=9223372036854775806
// BIN1-NEXT: result[2]: i64=9223372036854775807
// BIN1-NEXT: result[3]: i64=1
// BIN1-NEXT: result[4]: i64=9223372036854775807
// BIN1-NEXT: result[5]: i64=9223372036854775806
// BIN1-NEXT: result[6]: i64=9223372036854775807
// BIN1-NEXT: result[7]: i64=1
// BIN1-NEXT: result[8]: i64=9223372036854775807
// BIN1-NEXT: result[9]: i64=1
// BIN2: EXEC @binops
// BIN2-NEXT: result[0]: i64=1099511627779
// BIN2-NEXT: result[1]: i64=1099511627773
// BIN2-NEXT: result[2]: i64=3298534883328
// BIN2-NEXT: result[3]: i64=0
// BIN2-NEXT: result[4]: i64=1099511627779
// BIN2-NEXT: result[5]: i64=1099511627779
// BIN2-NEXT: result[6]: i64=1099511627776
// BIN2-NEXT: result[7]: i64=3
// BIN2-NEXT: result[8]: i64=1099511627776
// BIN2-NEXT: result[9]: i64=3

// BINF: EXEC @binops_folded
// BINF-NEXT: result[0]: i64=42
// BINF-NEXT: result[1]: i64=38
// BINF-NEXT: result[2]: i64=80
// BINF-NEXT: result[3]: i64=0
// BINF-NEXT: result[4]: i64=42
// BINF-NEXT: result[5]: i64=42
// BINF-NEXT: result[6]: i64=40
// BINF-NEXT: result[7]: i64=2
// BINF-NEXT: result[8]: i64=40
// BINF-NEXT: result[9]: i64=2

// DIV0: EXEC @divops
// DIV0-NEXT: result[0]: i64=-2
// DIV0-NEXT: result[1]: i64=4611686018427387901
// DIV0-NEXT: result[2]: i64=-1
// DIV0-NEXT: result[3]: i64=3
// DIV0-NEXT: result[4]: i64=-2
// DIV0-NEXT: result[5]: i64=-3
// DIV1: EXEC @divops
// DIV1-NEXT: result[0]: i64=-2
// DIV1-NEXT: result[1]: i64=0
// DIV1-NEXT: result[2]: i64=1
// DIV1-NEXT: result[3]: i64=9
// DIV1-NEXT: result[4]: i64=-2
// DIV1-NEXT: result[5]: i64=-3
// DIV2: EXEC @divops
// DIV2-NEXT: result[0]: i64=3
// DIV2-NEXT: result[1]: i64=3
// DIV2-NEXT: result[2]: i64=2
// DIV2-NEXT: result[3]: i64=2
// DIV2-NEXT: result[4]: i64=4
// DIV2-NEXT: result[5]: i64=3

// DIVF: EXEC @divops_folded
// DIVF-NEXT: result[0]: i64=-2
// DIVF-NEXT: result[1]: i64=4611686018427387901
// DIVF-NEXT: result[2]: i64=-1
// DIVF-NEXT: result[3]: i64=3
// DIVF-NEXT: result[4]: i64=-2
// DIVF-NEXT: result[5]: i64=-3

// SH0: EXEC @shifts
// SH0-NEXT: result[0]: i64=-4096
// SH0-NEXT: result[1]: i64=-16
// SH0-NEXT: result[2]: i64=1152921504606846960
// SH1: EXEC @shifts
// SH1-NEXT: result[0]: i64=-4611686018427387904
// SH1-NEXT: result[1]: i64=0
// SH1-NEXT: result[2]: i64=0

func.func @binops(%a: index, %b: index) -> (index, index, index, index, index, index, index, index, index, index) {
  %addi = arith.addi %a, %b : index
  %subi = arith.subi %a, %b : index
  %muli = arith.muli %a, %b : index
  %andi = arith.andi %a, %b : index
  %ori = arith.ori %a, %b : index
  %xori = arith.xori %a, %b : index
  %maxsi = arith.maxsi %a, %b : index
  %minsi = arith.minsi %a, %b : index
  %maxui = arith.maxui %a, %b : index
  %minui = arith.minui %a, %b : index
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : index, index, index, index, index, index, index, index, index, index
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @binops_folded() -> (index, index, index, index, index, index, index, index, index, index) {
  %a = arith.constant 40 : index
  %b = arith.constant 2 : index
  %addi = arith.addi %a, %b : index
  %subi = arith.subi %a, %b : index
  %muli = arith.muli %a, %b : index
  %andi = arith.andi %a, %b : index
  %ori = arith.ori %a, %b : index
  %xori = arith.xori %a, %b : index
  %maxsi = arith.maxsi %a, %b : index
  %minsi = arith.minsi %a, %b : index
  %maxui = arith.maxui %a, %b : index
  %minui = arith.minui %a, %b : index
  return %addi, %subi, %muli, %andi, %ori, %xori, %maxsi, %minsi, %maxui, %minui : index, index, index, index, index, index, index, index, index, index
}

func.func @divops(%a: index, %b: index) -> (index, index, index, index, index, index) {
  %divsi = arith.divsi %a, %b : index
  %divui = arith.divui %a, %b : index
  %remsi = arith.remsi %a, %b : index
  %remui = arith.remui %a, %b : index
  %ceildivsi = arith.ceildivsi %a, %b : index
  %floordivsi = arith.floordivsi %a, %b : index
  return %divsi, %divui, %remsi, %remui, %ceildivsi, %floordivsi : index, index, index, index, index, index
}

// Same ops on constants: FoldConstants must compute what the VM computes.
func.func @divops_folded() -> (index, index, index, index, index, index) {
  %a = arith.constant -9 : index
  %b = arith.constant 4 : index
  %divsi = arith.divsi %a, %b : index
  %divui = arith.divui %a, %b : index
  %remsi = arith.remsi %a, %b : index
  %remui = arith.remui %a, %b : index
  %ceildivsi = arith.ceildivsi %a, %b : index
  %floordivsi = arith.floordivsi %a, %b : index
  return %divsi, %divui, %remsi, %remui, %ceildivsi, %floordivsi : index, index, index, index, index, index
}

func.func @shifts(%a: index, %b: index) -> (index, index, index) {
  %shli = arith.shli %a, %b : index
  %shrsi = arith.shrsi %a, %b : index
  %shrui = arith.shrui %a, %b : index
  return %shli, %shrsi, %shrui : index, index, index
}
