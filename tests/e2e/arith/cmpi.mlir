// arith.cmpi with all ten predicates (eq ne slt sle sgt sge ult ule ugt uge)
// at i32, i64, index, i8 and i16; the i1 results print as i32=0/1. Operands
// whose signed and unsigned orders differ (-1 vs 1) tell s* from u* apart.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_i32 --input=i32=-1 --input=i32=1 | FileCheck %s --check-prefix=I32_0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_i32 --input=i32=3 --input=i32=3 | FileCheck %s --check-prefix=I32_1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_i32 --input=i32=5 --input=i32=2 | FileCheck %s --check-prefix=I32_2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_i32 --input=i32=-2147483648 --input=i32=2147483647 | FileCheck %s --check-prefix=I32_3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_i64 --input=i64=-1 --input=i64=1 | FileCheck %s --check-prefix=I64_0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_i64 --input=i64=7 --input=i64=7 | FileCheck %s --check-prefix=I64_1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_i64 --input=i64=-9223372036854775808 --input=i64=9223372036854775807 | FileCheck %s --check-prefix=I64_2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_i64 --input=i64=1099511627776 --input=i64=-5 | FileCheck %s --check-prefix=I64_3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_index --input=index=-3 --input=index=2 | FileCheck %s --check-prefix=INDEX_0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_index --input=index=2 --input=index=2 | FileCheck %s --check-prefix=INDEX_1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_i8 --input=i8=-1 --input=i8=1 | FileCheck %s --check-prefix=I8_0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_i8 --input=i8=127 --input=i8=-128 | FileCheck %s --check-prefix=I8_1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_i16 --input=i16=-300 --input=i16=300 | FileCheck %s --check-prefix=I16_0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=cmpi_folded | FileCheck %s --check-prefix=FOLD --match-full-lines

// I32_0: EXEC @cmpi_i32
// I32_0-NEXT: result[0]: i32=0
// I32_0-NEXT: result[1]: i32=1
// I32_0-NEXT: result[2]: i32=1
// I32_0-NEXT: result[3]: i32=1
// I32_0-NEXT: result[4]: i32=0
// I32_0-NEXT: result[5]: i32=0
// I32_0-NEXT: result[6]: i32=0
// I32_0-NEXT: result[7]: i32=0
// I32_0-NEXT: result[8]: i32=1
// I32_0-NEXT: result[9]: i32=1

// I32_1: EXEC @cmpi_i32
// I32_1-NEXT: result[0]: i32=1
// I32_1-NEXT: result[1]: i32=0
// I32_1-NEXT: result[2]: i32=0
// I32_1-NEXT: result[3]: i32=1
// I32_1-NEXT: result[4]: i32=0
// I32_1-NEXT: result[5]: i32=1
// I32_1-NEXT: result[6]: i32=0
// I32_1-NEXT: result[7]: i32=1
// I32_1-NEXT: result[8]: i32=0
// I32_1-NEXT: result[9]: i32=1

// I32_2: EXEC @cmpi_i32
// I32_2-NEXT: result[0]: i32=0
// I32_2-NEXT: result[1]: i32=1
// I32_2-NEXT: result[2]: i32=0
// I32_2-NEXT: result[3]: i32=0
// I32_2-NEXT: result[4]: i32=1
// I32_2-NEXT: result[5]: i32=1
// I32_2-NEXT: result[6]: i32=0
// I32_2-NEXT: result[7]: i32=0
// I32_2-NEXT: result[8]: i32=1
// I32_2-NEXT: result[9]: i32=1

// I32_3: EXEC @cmpi_i32
// I32_3-NEXT: result[0]: i32=0
// I32_3-NEXT: result[1]: i32=1
// I32_3-NEXT: result[2]: i32=1
// I32_3-NEXT: result[3]: i32=1
// I32_3-NEXT: result[4]: i32=0
// I32_3-NEXT: result[5]: i32=0
// I32_3-NEXT: result[6]: i32=0
// I32_3-NEXT: result[7]: i32=0
// I32_3-NEXT: result[8]: i32=1
// I32_3-NEXT: result[9]: i32=1

// I64_0: EXEC @cmpi_i64
// I64_0-NEXT: result[0]: i32=0
// I64_0-NEXT: result[1]: i32=1
// I64_0-NEXT: result[2]: i32=1
// I64_0-NEXT: result[3]: i32=1
// I64_0-NEXT: result[4]: i32=0
// I64_0-NEXT: result[5]: i32=0
// I64_0-NEXT: result[6]: i32=0
// I64_0-NEXT: result[7]: i32=0
// I64_0-NEXT: result[8]: i32=1
// I64_0-NEXT: result[9]: i32=1

// I64_1: EXEC @cmpi_i64
// I64_1-NEXT: result[0]: i32=1
// I64_1-NEXT: result[1]: i32=0
// I64_1-NEXT: result[2]: i32=0
// I64_1-NEXT: result[3]: i32=1
// I64_1-NEXT: result[4]: i32=0
// I64_1-NEXT: result[5]: i32=1
// I64_1-NEXT: result[6]: i32=0
// I64_1-NEXT: result[7]: i32=1
// I64_1-NEXT: result[8]: i32=0
// I64_1-NEXT: result[9]: i32=1

// I64_2: EXEC @cmpi_i64
// I64_2-NEXT: result[0]: i32=0
// I64_2-NEXT: result[1]: i32=1
// I64_2-NEXT: result[2]: i32=1
// I64_2-NEXT: result[3]: i32=1
// I64_2-NEXT: result[4]: i32=0
// I64_2-NEXT: result[5]: i32=0
// I64_2-NEXT: result[6]: i32=0
// I64_2-NEXT: result[7]: i32=0
// I64_2-NEXT: result[8]: i32=1
// I64_2-NEXT: result[9]: i32=1

// I64_3: EXEC @cmpi_i64
// I64_3-NEXT: result[0]: i32=0
// I64_3-NEXT: result[1]: i32=1
// I64_3-NEXT: result[2]: i32=0
// I64_3-NEXT: result[3]: i32=0
// I64_3-NEXT: result[4]: i32=1
// I64_3-NEXT: result[5]: i32=1
// I64_3-NEXT: result[6]: i32=1
// I64_3-NEXT: result[7]: i32=1
// I64_3-NEXT: result[8]: i32=0
// I64_3-NEXT: result[9]: i32=0

// INDEX_0: EXEC @cmpi_index
// INDEX_0-NEXT: result[0]: i32=0
// INDEX_0-NEXT: result[1]: i32=1
// INDEX_0-NEXT: result[2]: i32=1
// INDEX_0-NEXT: result[3]: i32=1
// INDEX_0-NEXT: result[4]: i32=0
// INDEX_0-NEXT: result[5]: i32=0
// INDEX_0-NEXT: result[6]: i32=0
// INDEX_0-NEXT: result[7]: i32=0
// INDEX_0-NEXT: result[8]: i32=1
// INDEX_0-NEXT: result[9]: i32=1

// INDEX_1: EXEC @cmpi_index
// INDEX_1-NEXT: result[0]: i32=1
// INDEX_1-NEXT: result[1]: i32=0
// INDEX_1-NEXT: result[2]: i32=0
// INDEX_1-NEXT: result[3]: i32=1
// INDEX_1-NEXT: result[4]: i32=0
// INDEX_1-NEXT: result[5]: i32=1
// INDEX_1-NEXT: result[6]: i32=0
// INDEX_1-NEXT: result[7]: i32=1
// INDEX_1-NEXT: result[8]: i32=0
// INDEX_1-NEXT: result[9]: i32=1

// I8_0: EXEC @cmpi_i8
// I8_0-NEXT: result[0]: i32=0
// I8_0-NEXT: result[1]: i32=1
// I8_0-NEXT: result[2]: i32=1
// I8_0-NEXT: result[3]: i32=1
// I8_0-NEXT: result[4]: i32=0
// I8_0-NEXT: result[5]: i32=0
// I8_0-NEXT: result[6]: i32=0
// I8_0-NEXT: result[7]: i32=0
// I8_0-NEXT: result[8]: i32=1
// I8_0-NEXT: result[9]: i32=1

// I8_1: EXEC @cmpi_i8
// I8_1-NEXT: result[0]: i32=0
// I8_1-NEXT: result[1]: i32=1
// I8_1-NEXT: result[2]: i32=0
// I8_1-NEXT: result[3]: i32=0
// I8_1-NEXT: result[4]: i32=1
// I8_1-NEXT: result[5]: i32=1
// I8_1-NEXT: result[6]: i32=1
// I8_1-NEXT: result[7]: i32=1
// I8_1-NEXT: result[8]: i32=0
// I8_1-NEXT: result[9]: i32=0

// I16_0: EXEC @cmpi_i16
// I16_0-NEXT: result[0]: i32=0
// I16_0-NEXT: result[1]: i32=1
// I16_0-NEXT: result[2]: i32=1
// I16_0-NEXT: result[3]: i32=1
// I16_0-NEXT: result[4]: i32=0
// I16_0-NEXT: result[5]: i32=0
// I16_0-NEXT: result[6]: i32=0
// I16_0-NEXT: result[7]: i32=0
// I16_0-NEXT: result[8]: i32=1
// I16_0-NEXT: result[9]: i32=1

// FOLD: EXEC @cmpi_folded
// FOLD-NEXT: result[0]: i32=0
// FOLD-NEXT: result[1]: i32=1
// FOLD-NEXT: result[2]: i32=1
// FOLD-NEXT: result[3]: i32=1
// FOLD-NEXT: result[4]: i32=0
// FOLD-NEXT: result[5]: i32=0
// FOLD-NEXT: result[6]: i32=0
// FOLD-NEXT: result[7]: i32=0
// FOLD-NEXT: result[8]: i32=1
// FOLD-NEXT: result[9]: i32=1

func.func @cmpi_i32(%a: i32, %b: i32) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %eq = arith.cmpi eq, %a, %b : i32
  %ne = arith.cmpi ne, %a, %b : i32
  %slt = arith.cmpi slt, %a, %b : i32
  %sle = arith.cmpi sle, %a, %b : i32
  %sgt = arith.cmpi sgt, %a, %b : i32
  %sge = arith.cmpi sge, %a, %b : i32
  %ult = arith.cmpi ult, %a, %b : i32
  %ule = arith.cmpi ule, %a, %b : i32
  %ugt = arith.cmpi ugt, %a, %b : i32
  %uge = arith.cmpi uge, %a, %b : i32
  return %eq, %ne, %slt, %sle, %sgt, %sge, %ult, %ule, %ugt, %uge : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}

func.func @cmpi_i64(%a: i64, %b: i64) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %eq = arith.cmpi eq, %a, %b : i64
  %ne = arith.cmpi ne, %a, %b : i64
  %slt = arith.cmpi slt, %a, %b : i64
  %sle = arith.cmpi sle, %a, %b : i64
  %sgt = arith.cmpi sgt, %a, %b : i64
  %sge = arith.cmpi sge, %a, %b : i64
  %ult = arith.cmpi ult, %a, %b : i64
  %ule = arith.cmpi ule, %a, %b : i64
  %ugt = arith.cmpi ugt, %a, %b : i64
  %uge = arith.cmpi uge, %a, %b : i64
  return %eq, %ne, %slt, %sle, %sgt, %sge, %ult, %ule, %ugt, %uge : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}

func.func @cmpi_index(%a: index, %b: index) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %eq = arith.cmpi eq, %a, %b : index
  %ne = arith.cmpi ne, %a, %b : index
  %slt = arith.cmpi slt, %a, %b : index
  %sle = arith.cmpi sle, %a, %b : index
  %sgt = arith.cmpi sgt, %a, %b : index
  %sge = arith.cmpi sge, %a, %b : index
  %ult = arith.cmpi ult, %a, %b : index
  %ule = arith.cmpi ule, %a, %b : index
  %ugt = arith.cmpi ugt, %a, %b : index
  %uge = arith.cmpi uge, %a, %b : index
  return %eq, %ne, %slt, %sle, %sgt, %sge, %ult, %ule, %ugt, %uge : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}

func.func @cmpi_i8(%a: i8, %b: i8) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %eq = arith.cmpi eq, %a, %b : i8
  %ne = arith.cmpi ne, %a, %b : i8
  %slt = arith.cmpi slt, %a, %b : i8
  %sle = arith.cmpi sle, %a, %b : i8
  %sgt = arith.cmpi sgt, %a, %b : i8
  %sge = arith.cmpi sge, %a, %b : i8
  %ult = arith.cmpi ult, %a, %b : i8
  %ule = arith.cmpi ule, %a, %b : i8
  %ugt = arith.cmpi ugt, %a, %b : i8
  %uge = arith.cmpi uge, %a, %b : i8
  return %eq, %ne, %slt, %sle, %sgt, %sge, %ult, %ule, %ugt, %uge : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}

func.func @cmpi_i16(%a: i16, %b: i16) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %eq = arith.cmpi eq, %a, %b : i16
  %ne = arith.cmpi ne, %a, %b : i16
  %slt = arith.cmpi slt, %a, %b : i16
  %sle = arith.cmpi sle, %a, %b : i16
  %sgt = arith.cmpi sgt, %a, %b : i16
  %sge = arith.cmpi sge, %a, %b : i16
  %ult = arith.cmpi ult, %a, %b : i16
  %ule = arith.cmpi ule, %a, %b : i16
  %ugt = arith.cmpi ugt, %a, %b : i16
  %uge = arith.cmpi uge, %a, %b : i16
  return %eq, %ne, %slt, %sle, %sgt, %sge, %ult, %ule, %ugt, %uge : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}

// The same on constants (folded): -1 vs 1 at i32.
func.func @cmpi_folded() -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %a = arith.constant -1 : i32
  %b = arith.constant 1 : i32
  %eq = arith.cmpi eq, %a, %b : i32
  %ne = arith.cmpi ne, %a, %b : i32
  %slt = arith.cmpi slt, %a, %b : i32
  %sle = arith.cmpi sle, %a, %b : i32
  %sgt = arith.cmpi sgt, %a, %b : i32
  %sge = arith.cmpi sge, %a, %b : i32
  %ult = arith.cmpi ult, %a, %b : i32
  %ule = arith.cmpi ule, %a, %b : i32
  %ugt = arith.cmpi ugt, %a, %b : i32
  %uge = arith.cmpi uge, %a, %b : i32
  return %eq, %ne, %slt, %sle, %sgt, %sge, %ult, %ule, %ugt, %uge : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}
