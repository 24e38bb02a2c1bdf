// cf.assert: a passing assert does nothing; a failing one stops the
// invocation with an error naming the message and the assert's location.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=checked_div --input=42 --input=6 | FileCheck %s --check-prefix=PASS --match-full-lines
// RUN: not %kiln-run-module --module=%t.kmod --function=checked_div --input=42 --input=0 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: not %kiln-run-module --module=%t.kmod --function=nested --input=-3 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: %kiln-run-module --module=%t.kmod --function=nested --input=3 | FileCheck %s --check-prefix=NESTED_OK --match-full-lines

// PASS: EXEC @checked_div
// PASS-NEXT: result[0]: i32=7

// The message and the location may come in either order.
// FAIL: {{^}}error: {{.*(divisor must not be zero.*assert\.mlir:18:3|assert\.mlir:18:3.*divisor must not be zero)}}
// FAIL-NOT: result[0]
func.func @checked_div(%a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %nonzero = arith.cmpi ne, %b, %c0 : i32
  cf.assert %nonzero, "divisor must not be zero"
  %q = arith.divsi %a, %b : i32
  return %q : i32
}

// The assert sits in a function two calls deep, inside an scf.if.
// NESTED: {{^}}error: {{.*(value must be positive.*assert\.mlir:40:5|assert\.mlir:40:5.*value must be positive)}}
// NESTED_OK: EXEC @nested
// NESTED_OK-NEXT: result[0]: i32=9
func.func @nested(%x: i32) -> i32 {
  %r = func.call @middle(%x) : (i32) -> i32
  return %r : i32
}
func.func private @middle(%x: i32) -> i32 {
  %r = func.call @check(%x) : (i32) -> i32
  return %r : i32
}
func.func private @check(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %neg = arith.cmpi sle, %x, %c0 : i32
  scf.if %neg {
    %false = arith.constant false
    cf.assert %false, "value must be positive"
  }
  %sq = arith.muli %x, %x : i32
  return %sq : i32
}
