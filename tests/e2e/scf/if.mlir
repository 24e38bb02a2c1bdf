// scf.if: with results (one and several, of different types), nested, without
// results (a side effect on a global in one arm), with an empty else, and on a
// constant condition (folded away).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=sign --input=-7 | FileCheck %s --check-prefix=SIGN_NEG --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=sign --input=0 | FileCheck %s --check-prefix=SIGN_ZERO --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=sign --input=12 | FileCheck %s --check-prefix=SIGN_POS --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=classify --input=f64=-1 | FileCheck %s --check-prefix=CL_NEG --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=classify --input=f64=0.5 | FileCheck %s --check-prefix=CL_SMALL --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=classify --input=f64=100 | FileCheck %s --check-prefix=CL_BIG --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=side_effect --input=1 | FileCheck %s --check-prefix=SIDE1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=side_effect --input=0 | FileCheck %s --check-prefix=SIDE0 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=constant_condition | FileCheck %s --check-prefix=CONST --match-full-lines

// Nested ifs returning -1, 0 or 1.
// SIGN_NEG: EXEC @sign
// SIGN_NEG-NEXT: result[0]: i32=-1
// SIGN_ZERO: EXEC @sign
// SIGN_ZERO-NEXT: result[0]: i32=0
// SIGN_POS: EXEC @sign
// SIGN_POS-NEXT: result[0]: i32=1
func.func @sign(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %neg = arith.cmpi slt, %x, %c0 : i32
  %r = scf.if %neg -> (i32) {
    %m1 = arith.constant -1 : i32
    scf.yield %m1 : i32
  } else {
    %zero = arith.cmpi eq, %x, %c0 : i32
    %inner = scf.if %zero -> (i32) {
      scf.yield %c0 : i32
    } else {
      %c1 = arith.constant 1 : i32
      scf.yield %c1 : i32
    }
    scf.yield %inner : i32
  }
  return %r : i32
}

// Three results of three types from one if; the else arm holds another if.
// CL_NEG: EXEC @classify
// CL_NEG-NEXT: result[0]: i32=0
// CL_NEG-NEXT: result[1]: f64=1
// CL_NEG-NEXT: result[2]: i64=-1
// CL_SMALL: EXEC @classify
// CL_SMALL-NEXT: result[0]: i32=1
// CL_SMALL-NEXT: result[1]: f64=0.25
// CL_SMALL-NEXT: result[2]: i64=10
// CL_BIG: EXEC @classify
// CL_BIG-NEXT: result[0]: i32=2
// CL_BIG-NEXT: result[1]: f64=10000
// CL_BIG-NEXT: result[2]: i64=100
func.func @classify(%x: f64) -> (i32, f64, i64) {
  %zero = arith.constant 0.0 : f64
  %ten = arith.constant 10.0 : f64
  %is_neg = arith.cmpf olt, %x, %zero : f64
  %r:3 = scf.if %is_neg -> (i32, f64, i64) {
    %c0 = arith.constant 0 : i32
    %neg = arith.negf %x : f64
    %m1 = arith.constant -1 : i64
    scf.yield %c0, %neg, %m1 : i32, f64, i64
  } else {
    %is_small = arith.cmpf olt, %x, %ten : f64
    %s:3 = scf.if %is_small -> (i32, f64, i64) {
      %c1 = arith.constant 1 : i32
      %sq = arith.mulf %x, %x : f64
      %c10 = arith.constant 10 : i64
      scf.yield %c1, %sq, %c10 : i32, f64, i64
    } else {
      %c2 = arith.constant 2 : i32
      %sq = arith.mulf %x, %x : f64
      %i = arith.fptosi %x : f64 to i64
      scf.yield %c2, %sq, %i : i32, f64, i64
    }
    scf.yield %s#0, %s#1, %s#2 : i32, f64, i64
  }
  return %r#0, %r#1, %r#2 : i32, f64, i64
}

// An if without results and without else: it only stores to a global.
util.global private mutable @flag : i32 = 100 : i32

// SIDE1: EXEC @side_effect
// SIDE1-NEXT: result[0]: i32=7
// SIDE0: EXEC @side_effect
// SIDE0-NEXT: result[0]: i32=100
func.func @side_effect(%c: i1) -> i32 {
  scf.if %c {
    %c7 = arith.constant 7 : i32
    util.global.store %c7, @flag : i32
  }
  %v = util.global.load @flag : i32
  return %v : i32
}

// CONST: EXEC @constant_condition
// CONST-NEXT: result[0]: i32=1
// CONST-NEXT: result[1]: i32=4
func.func @constant_condition() -> (i32, i32) {
  %true = arith.constant true
  %false = arith.constant false
  %a = scf.if %true -> (i32) {
    %c1 = arith.constant 1 : i32
    scf.yield %c1 : i32
  } else {
    %c2 = arith.constant 2 : i32
    scf.yield %c2 : i32
  }
  %b = scf.if %false -> (i32) {
    %c3 = arith.constant 3 : i32
    scf.yield %c3 : i32
  } else {
    %c4 = arith.constant 4 : i32
    scf.yield %c4 : i32
  }
  return %a, %b : i32, i32
}
