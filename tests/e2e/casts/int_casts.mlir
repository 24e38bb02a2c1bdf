// Integer casts: extsi/extui between i1, i8, i16, i32, i64; trunci down to
// i16, i8 and i1 (keeps the low bits, then the narrow value is signed);
// index_cast (sign-extends into index, truncates out of it) and index_castui
// (zero-extends).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=ext_trunc --input=i8=-1 --input=i16=-2 --input=i32=-3 --input=i64=6442450945 --input=i1=1 | FileCheck %s --check-prefix=ET1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=ext_trunc --input=i8=127 --input=i16=32767 --input=i32=70000 --input=i64=1099511640121 --input=i1=0 | FileCheck %s --check-prefix=ET2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=ext_trunc --input=i8=255 --input=i16=65535 --input=i32=-3 --input=i64=6442450945 --input=i1=1 | FileCheck %s --check-prefix=ET3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=index_casts --input=i32=-1 --input=index=4294967297 | FileCheck %s --check-prefix=IX1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=index_casts --input=i32=-2147483648 --input=index=-5 | FileCheck %s --check-prefix=IX2 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=index_casts --input=i32=7 --input=index=300 | FileCheck %s --check-prefix=IX3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=folded | FileCheck %s --check-prefix=FOLD --match-full-lines

// i8=255 and i16=65535 are the bit patterns of -1: the same as i8=-1, i16=-1.
// ET1: EXEC @ext_trunc
// ET1-NEXT: result[0]: i32=-1
// ET1-NEXT: result[1]: i32=255
// ET1-NEXT: result[2]: i64=-3
// ET1-NEXT: result[3]: i64=4294967293
// ET1-NEXT: result[4]: i32=-2
// ET1-NEXT: result[5]: i32=65534
// ET1-NEXT: result[6]: i32=-3
// ET1-NEXT: result[7]: i32=-3
// ET1-NEXT: result[8]: i32=-2147483647
// ET1-NEXT: result[9]: i32=1
// ET1-NEXT: result[10]: i64=1
// ET1-NEXT: result[11]: i32=-1
// ET1-NEXT: result[12]: i64=-1
// ET1-NEXT: result[13]: i64=255

// ET3: EXEC @ext_trunc
// ET3-NEXT: result[0]: i32=-1
// ET3-NEXT: result[1]: i32=255
// ET3-NEXT: result[2]: i64=-3
// ET3-NEXT: result[3]: i64=4294967293
// ET3-NEXT: result[4]: i32=-1
// ET3-NEXT: result[5]: i32=65535
// ET3-NEXT: result[6]: i32=-3
// ET3-NEXT: result[7]: i32=-3
// ET3-NEXT: result[8]: i32=-2147483647
// ET3-NEXT: result[9]: i32=1
// ET3-NEXT: result[10]: i64=1
// ET3-NEXT: result[11]: i32=-1
// ET3-NEXT: result[12]: i64=-1
// ET3-NEXT: result[13]: i64=255

// ET2: EXEC @ext_trunc
// ET2-NEXT: result[0]: i32=127
// ET2-NEXT: result[1]: i32=127
// ET2-NEXT: result[2]: i64=70000
// ET2-NEXT: result[3]: i64=70000
// ET2-NEXT: result[4]: i32=32767
// ET2-NEXT: result[5]: i32=32767
// ET2-NEXT: result[6]: i32=112
// ET2-NEXT: result[7]: i32=4464
// ET2-NEXT: result[8]: i32=12345
// ET2-NEXT: result[9]: i32=0
// ET2-NEXT: result[10]: i64=0
// ET2-NEXT: result[11]: i32=0
// ET2-NEXT: result[12]: i64=127
// ET2-NEXT: result[13]: i64=127
func.func @ext_trunc(%a: i8, %b: i16, %c: i32, %d: i64, %e: i1)
    -> (i32, i32, i64, i64, i32, i32, i8, i16, i32, i1, i64, i32, i64, i64) {
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.extui %a : i8 to i32
  %2 = arith.extsi %c : i32 to i64
  %3 = arith.extui %c : i32 to i64
  %4 = arith.extsi %b : i16 to i32
  %5 = arith.extui %b : i16 to i32
  %6 = arith.trunci %c : i32 to i8
  %7 = arith.trunci %c : i32 to i16
  %8 = arith.trunci %d : i64 to i32
  %9 = arith.trunci %c : i32 to i1
  %10 = arith.extui %e : i1 to i64
  %11 = arith.extsi %e : i1 to i32
  %12 = arith.extsi %a : i8 to i64
  %13 = arith.extui %a : i8 to i64
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13
      : i32, i32, i64, i64, i32, i32, i8, i16, i32, i1, i64, i32, i64, i64
}

// IX1: EXEC @index_casts
// IX1-NEXT: result[0]: i64=-1
// IX1-NEXT: result[1]: i64=4294967295
// IX1-NEXT: result[2]: i32=1
// IX1-NEXT: result[3]: i32=1
// IX1-NEXT: result[4]: i64=4294967297
// IX1-NEXT: result[5]: i32=1

// IX2: EXEC @index_casts
// IX2-NEXT: result[0]: i64=-2147483648
// IX2-NEXT: result[1]: i64=2147483648
// IX2-NEXT: result[2]: i32=-5
// IX2-NEXT: result[3]: i32=-5
// IX2-NEXT: result[4]: i64=-5
// IX2-NEXT: result[5]: i32=-5

// IX3: EXEC @index_casts
// IX3-NEXT: result[0]: i64=7
// IX3-NEXT: result[1]: i64=7
// IX3-NEXT: result[2]: i32=300
// IX3-NEXT: result[3]: i32=300
// IX3-NEXT: result[4]: i64=300
// IX3-NEXT: result[5]: i32=44
func.func @index_casts(%i: i32, %x: index) -> (index, index, i32, i32, i64, i8) {
  %a = arith.index_cast %i : i32 to index
  %b = arith.index_castui %i : i32 to index
  %c = arith.index_cast %x : index to i32
  %d = arith.index_castui %x : index to i32
  %e = arith.index_cast %x : index to i64
  %f = arith.index_cast %x : index to i8
  return %a, %b, %c, %d, %e, %f : index, index, i32, i32, i64, i8
}

// The same casts on constants, folded at compile time.
// FOLD: EXEC @folded
// FOLD-NEXT: result[0]: i32=255
// FOLD-NEXT: result[1]: i64=4294967293
// FOLD-NEXT: result[2]: i32=-56
// FOLD-NEXT: result[3]: i64=4294967295
// FOLD-NEXT: result[4]: i32=-2147483647
// FOLD-NEXT: result[5]: i32=-1
func.func @folded() -> (i32, i64, i8, index, i32, i32) {
  %m1_i8 = arith.constant -1 : i8
  %m3 = arith.constant -3 : i32
  %c200 = arith.constant 200 : i32
  %m1 = arith.constant -1 : i32
  %big = arith.constant 6442450945 : i64
  %true = arith.constant true
  %0 = arith.extui %m1_i8 : i8 to i32
  %1 = arith.extui %m3 : i32 to i64
  %2 = arith.trunci %c200 : i32 to i8
  %3 = arith.index_castui %m1 : i32 to index
  %4 = arith.trunci %big : i64 to i32
  %5 = arith.extsi %true : i1 to i32
  return %0, %1, %2, %3, %4, %5 : i32, i64, i8, index, i32, i32
}
