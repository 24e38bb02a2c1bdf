// --kiln-convert-to-vm on cf: branches keep their successors; cf.switch is a
// VM switch table when its cases are dense (offset by the smallest case; an
// i64 flag is range-checked before truncation), else a compare chain (an i32
// flag needs no constant: flag - c is zero on a match); cf.assert branches to
// a cold vm.fail block at the end of the function.
// RUN: %kiln-opt %s --kiln-convert-to-vm --split-input-file | FileCheck %s

// CHECK-LABEL: vm.func private @branches
// CHECK-SAME: (%[[C:.+]]: i32, %[[X:.+]]: i32) -> i32
// CHECK-NEXT: vm.cond_br %[[C]], ^bb1(%[[X]] : i32), ^bb2
// CHECK-NEXT: ^bb1(%{{.+}}: i32):
// CHECK-NEXT: vm.br ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: vm.return %[[X]] : i32
func.func private @branches(%c: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^bb1(%x : i32), ^bb2
^bb1(%v: i32):
  cf.br ^bb2
^bb2:
  return %x : i32
}

// -----

// Cases 1, 2, 4: a table of 4 slots from 1; the hole (3) goes to the default.
// CHECK-LABEL: vm.func private @dense_i32
// CHECK-SAME: (%[[F:.+]]: i32, %[[A:.+]]: f32, %[[B:.+]]: f32)
// CHECK-NEXT: %[[I:.+]] = vm.add.imm.i32 %[[F]], -1 : i32
// CHECK-NEXT: vm.switch %[[I]] [^bb1, ^bb2(%[[B]] : f32), ^bb3(%[[A]] : f32), ^bb1], default ^bb3(%[[A]] : f32)
func.func private @dense_i32(%flag: i32, %a: f32, %b: f32) -> f32 {
  cf.switch %flag : i32, [
    default: ^bb3(%a : f32),
    1: ^bb1,
    2: ^bb2(%b : f32),
    4: ^bb1
  ]
^bb1:
  return %a : f32
^bb2(%v: f32):
  return %v : f32
^bb3(%w: f32):
  return %w : f32
}

// -----

// Two cases of an i8 flag: a compare chain, each test a new block.
// CHECK-LABEL: vm.func private @chain_i32
// CHECK-SAME: (%[[F:.+]]: i32) -> i32
// CHECK-NEXT: %[[C0:.+]] = vm.const.i32 0 : i32
// CHECK-NEXT: %[[C1:.+]] = vm.const.i32 1 : i32
// CHECK-NEXT: vm.cond_br %[[F]], ^bb1, ^bb2(%[[C1]] : i32)
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: %[[D:.+]] = vm.add.imm.i32 %[[F]], 100 : i32
// CHECK-NEXT: vm.cond_br %[[D]], ^bb2(%[[C0]] : i32), ^bb2(%[[C0]] : i32)
func.func private @chain_i32(%flag: i8) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.switch %flag : i8, [
    default: ^bb1(%c0 : i32),
    0: ^bb1(%c1 : i32),
    -100: ^bb1(%c0 : i32)
  ]
^bb1(%r: i32):
  return %r : i32
}

// -----

// CHECK-LABEL: vm.func private @chain_i64
// CHECK-SAME: (%[[F:.+]]: i64) -> i32
// CHECK:      %[[SEVEN:.+]] = vm.const.i64 7 : i64
// CHECK-NEXT: %[[EQ:.+]] = vm.cmp.eq.i64 %[[F]], %[[SEVEN]] : i32
// CHECK-NEXT: vm.cond_br %[[EQ]], ^bb1(%{{.+}} : i32), ^bb1(%{{.+}} : i32)
func.func private @chain_i64(%flag: i64) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.switch %flag : i64, [
    default: ^bb1(%c0 : i32),
    7: ^bb1(%c1 : i32)
  ]
^bb1(%r: i32):
  return %r : i32
}

// -----

// CHECK-LABEL: vm.func private @dense_i64
// CHECK-SAME: (%[[F:.+]]: i64) -> i32
// CHECK:      %[[RANGE:.+]] = vm.const.i64 3 : i64
// CHECK-NEXT: %[[OFF:.+]] = vm.add.imm.i64 %[[F]], -10 : i64
// CHECK-NEXT: %[[IN:.+]] = vm.cmp.lt.i64.u %[[OFF]], %[[RANGE]] : i32
// CHECK-NEXT: vm.cond_br %[[IN]], ^bb1, ^bb2(%{{.+}} : i32)
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: %[[I:.+]] = vm.trunc.i64.i32 %[[OFF]] : i32
// CHECK-NEXT: vm.switch %[[I]] [^bb2(%{{.+}} : i32), ^bb2(%{{.+}} : i32), ^bb2(%{{.+}} : i32)], default ^bb2(%{{.+}} : i32)
func.func private @dense_i64(%flag: i64) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  cf.switch %flag : i64, [
    default: ^bb1(%c0 : i32),
    10: ^bb1(%c1 : i32),
    11: ^bb1(%c2 : i32),
    12: ^bb1(%c1 : i32)
  ]
^bb1(%r: i32):
  return %r : i32
}

// -----

// The failure block goes last, at the assert's location.
// CHECK-LABEL: vm.func private @assert
// CHECK:      %[[OK:.+]] = vm.cmp.ne.i32
// CHECK-NEXT: vm.cond_br %[[OK]], ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: vm.div.i32.s
// CHECK-NEXT: vm.return
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: vm.fail "divisor must not be zero"
// CHECK-NEXT: }
// RUN: %kiln-opt %s --kiln-convert-to-vm --split-input-file --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// LOC: vm.fail "divisor must not be zero" loc([[ASSERT:#loc[0-9]+]])
// LOC: [[ASSERT]] = loc("{{.*}}convert_cf.mlir":[[# @LINE + 4]]:3)
func.func private @assert(%a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %nonzero = arith.cmpi ne, %b, %c0 : i32
  cf.assert %nonzero, "divisor must not be zero"
  %q = arith.divsi %a, %b : i32
  return %q : i32
}
