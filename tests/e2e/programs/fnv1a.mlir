// FNV-1a over the bytes 0, 1, ..., n-1 (byte i is i mod 256): i32 xor and a
// multiply that wraps, with the byte made by trunci to i8 and extui back.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=fnv1a --input=0 | FileCheck %s --check-prefix=H0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fnv1a --input=10 | FileCheck %s --check-prefix=H10 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fnv1a --input=1000 | FileCheck %s --check-prefix=H1000 --match-full-lines

// H0: EXEC @fnv1a
// H0-NEXT: result[0]: i32=-2128831035
// H10: EXEC @fnv1a
// H10-NEXT: result[0]: i32=797261938
// H1000: EXEC @fnv1a
// H1000-NEXT: result[0]: i32=1700552701
func.func @fnv1a(%n: i32) -> i32 {
  %offset_basis = arith.constant 2166136261 : i32
  %prime = arith.constant 16777619 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %h = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %offset_basis) -> (i32) : i32 {
    %byte = arith.trunci %i : i32 to i8
    %b = arith.extui %byte : i8 to i32
    %x = arith.xori %acc, %b : i32
    %m = arith.muli %x, %prime : i32
    scf.yield %m : i32
  }
  return %h : i32
}
