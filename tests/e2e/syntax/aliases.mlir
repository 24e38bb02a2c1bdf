// Type aliases (`!name = type`), attribute aliases (`#name = attr`) used as an
// op's attribute, and location aliases defined after their use
// (`loc(#loc1)` ... `#loc1 = loc("file":l:c)`).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=scaled --input=i64=6 | FileCheck %s --check-prefix=SCALED --match-full-lines
// RUN: not %kiln-run-module --module=%t.kmod --function=located_assert 2>&1 | FileCheck %s --check-prefix=LOC

!int = i64
!real = f64
#seven = 7 : i64
#scale = 2.5 : f64

// SCALED: EXEC @scaled
// SCALED-NEXT: result[0]: i64=42
// SCALED-NEXT: result[1]: f64=15
func.func @scaled(%x: !int) -> (!int, !real) {
  %c7 = arith.constant #seven
  %y = arith.muli %x, %c7 : !int
  %s = arith.constant #scale
  %xf = arith.sitofp %x : !int to !real
  %z = arith.mulf %xf, %s : !real
  return %y, %z : !int, !real
}

// The runtime error names the location the alias points at.
// LOC: error: {{.*}}aliased.mlir:12:34
func.func @located_assert() {
  %false = arith.constant false
  cf.assert %false, "always fails" loc(#loc1)
  return
}

#loc1 = loc("aliased.mlir":12:34)
