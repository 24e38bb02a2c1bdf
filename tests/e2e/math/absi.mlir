// math.absi at i32, i64 and i8: |INT_MIN| wraps to INT_MIN (two's complement).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=absi --input=i32=-5 --input=i64=-9000000000 --input=i8=-100 | FileCheck %s --check-prefix=NEG --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=absi --input=i32=7 --input=i64=0 --input=i8=100 | FileCheck %s --check-prefix=POS --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=absi --input=i32=-2147483648 --input=i64=-9223372036854775808 --input=i8=-128 | FileCheck %s --check-prefix=MIN --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=absi_folded | FileCheck %s --check-prefix=FOLD --match-full-lines

// NEG: EXEC @absi
// NEG-NEXT: result[0]: i32=5
// NEG-NEXT: result[1]: i64=9000000000
// NEG-NEXT: result[2]: i32=100

// POS: EXEC @absi
// POS-NEXT: result[0]: i32=7
// POS-NEXT: result[1]: i64=0
// POS-NEXT: result[2]: i32=100

// MIN: EXEC @absi
// MIN-NEXT: result[0]: i32=-2147483648
// MIN-NEXT: result[1]: i64=-9223372036854775808
// MIN-NEXT: result[2]: i32=-128
func.func @absi(%a: i32, %b: i64, %c: i8) -> (i32, i64, i8) {
  %0 = math.absi %a : i32
  %1 = math.absi %b : i64
  %2 = math.absi %c : i8
  return %0, %1, %2 : i32, i64, i8
}

// FOLD: EXEC @absi_folded
// FOLD-NEXT: result[0]: i32=42
// FOLD-NEXT: result[1]: i64=-9223372036854775808
func.func @absi_folded() -> (i32, i64) {
  %a = arith.constant -42 : i32
  %b = arith.constant -9223372036854775808 : i64
  %0 = math.absi %a : i32
  %1 = math.absi %b : i64
  return %0, %1 : i32, i64
}
