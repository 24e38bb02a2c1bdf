// Block arguments that trade places on a back edge: `cf.br ^loop(%b, %a)`
// needs a parallel copy (a swap), not two moves in sequence. Fibonacci by
// (a, b) <- (b, a + b), a pure swap repeated n times, and a three-way rotation.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=fib --input=30 | FileCheck %s --check-prefix=FIB30 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=fib --input=47 | FileCheck %s --check-prefix=FIB47 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=swap_n --input=1 --input=2 --input=3 | FileCheck %s --check-prefix=SWAP_ODD --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=swap_n --input=1 --input=2 --input=4 | FileCheck %s --check-prefix=SWAP_EVEN --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=rotate --input=1 | FileCheck %s --check-prefix=ROT1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=rotate --input=5 | FileCheck %s --check-prefix=ROT5 --match-full-lines

// fib(47) = 2971215073 does not fit i32: it wraps to -1323752223.
// FIB30: EXEC @fib
// FIB30-NEXT: result[0]: i32=832040
// FIB47: EXEC @fib
// FIB47-NEXT: result[0]: i32=-1323752223
func.func @fib(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^loop(%c0, %c1, %n : i32, i32, i32)
^loop(%a: i32, %b: i32, %k: i32):
  %done = arith.cmpi eq, %k, %c0 : i32
  cf.cond_br %done, ^exit, ^body
^body:
  %sum = arith.addi %a, %b : i32
  %k1 = arith.subi %k, %c1 : i32
  cf.br ^loop(%b, %sum, %k1 : i32, i32, i32)
^exit:
  return %a : i32
}

// SWAP_ODD: EXEC @swap_n
// SWAP_ODD-NEXT: result[0]: i32=2
// SWAP_ODD-NEXT: result[1]: i32=1
// SWAP_EVEN: EXEC @swap_n
// SWAP_EVEN-NEXT: result[0]: i32=1
// SWAP_EVEN-NEXT: result[1]: i32=2
func.func @swap_n(%x: i32, %y: i32, %n: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^loop(%x, %y, %n : i32, i32, i32)
^loop(%a: i32, %b: i32, %k: i32):
  %done = arith.cmpi sle, %k, %c0 : i32
  %k1 = arith.subi %k, %c1 : i32
  cf.cond_br %done, ^exit, ^loop(%b, %a, %k1 : i32, i32, i32)
^exit:
  return %a, %b : i32, i32
}

// (a, b, c) <- (b, c, a), n times, starting from (10, 20, 30).
// ROT1: EXEC @rotate
// ROT1-NEXT: result[0]: i32=20
// ROT1-NEXT: result[1]: i32=30
// ROT1-NEXT: result[2]: i32=10
// ROT5: EXEC @rotate
// ROT5-NEXT: result[0]: i32=30
// ROT5-NEXT: result[1]: i32=10
// ROT5-NEXT: result[2]: i32=20
func.func @rotate(%n: i32) -> (i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c10 = arith.constant 10 : i32
  %c20 = arith.constant 20 : i32
  %c30 = arith.constant 30 : i32
  cf.br ^loop(%c10, %c20, %c30, %n : i32, i32, i32, i32)
^loop(%a: i32, %b: i32, %c: i32, %k: i32):
  %done = arith.cmpi eq, %k, %c0 : i32
  cf.cond_br %done, ^exit, ^body
^body:
  %k1 = arith.subi %k, %c1 : i32
  cf.br ^loop(%b, %c, %a, %k1 : i32, i32, i32, i32)
^exit:
  return %a, %b, %c : i32, i32, i32
}
