// Top-level operations without a `module` are wrapped in an implicit module
// (as MLIR does); globals and functions may come in any order; and an empty
// function body with only a return is fine.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=first | FileCheck %s --check-prefix=FIRST --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=nothing | FileCheck %s --check-prefix=NOTHING --match-full-lines

// FIRST: EXEC @first
// FIRST-NEXT: result[0]: i32=43
func.func @first() -> i32 {
  %v = util.global.load @declared_later : i32
  %r = func.call @second(%v) : (i32) -> i32
  return %r : i32
}

func.func private @second(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = arith.addi %x, %c1 : i32
  return %r : i32
}

util.global private @declared_later : i32 = 42 : i32

// A function without arguments or results prints only its EXEC line.
// NOTHING: EXEC @nothing
// NOTHING-NOT: result
func.func @nothing() {
  return
}
