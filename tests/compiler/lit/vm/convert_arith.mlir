// --kiln-convert-to-vm on arith: one vm opcode op per operation, i1/i8/i16
// kept canonical in i32 registers (i8/i16 sign-extended, i1 as 0 or 1),
// index in i64, and every constant pooled at the top of the entry block.
// RUN: %kiln-opt %s --kiln-convert-to-vm --split-input-file | FileCheck %s

// CHECK-LABEL: vm.func private @i32_ops
// CHECK-SAME: (%[[A:.+]]: i32, %[[B:.+]]: i32) -> i32
// CHECK-NEXT: %[[S:.+]] = vm.add.i32 %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[D:.+]] = vm.div.i32.s %[[S]], %[[B]] : i32
// CHECK-NEXT: %[[R:.+]] = vm.shr.i32.u %[[D]], %[[A]] : i32
// CHECK-NEXT: vm.return %[[R]] : i32
func.func private @i32_ops(%a: i32, %b: i32) -> i32 {
  %s = arith.addi %a, %b : i32
  %d = arith.divsi %s, %b : i32
  %r = arith.shrui %d, %a : i32
  return %r : i32
}

// -----

// i8 results that may leave the range are sign-extended again; unsigned ops
// see zero-extended views (trunc.i32.i8).
// CHECK-LABEL: vm.func private @i8_ops
// CHECK-SAME: (%[[A:.+]]: i32, %[[B:.+]]: i32) -> i32
// CHECK-NEXT: %[[S:.+]] = vm.add.i32 %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[SC:.+]] = vm.ext.i8.i32.s %[[S]] : i32
// CHECK-NEXT: %[[UA:.+]] = vm.trunc.i32.i8 %[[SC]] : i32
// CHECK-NEXT: %[[UB:.+]] = vm.trunc.i32.i8 %[[B]] : i32
// CHECK-NEXT: %[[Q:.+]] = vm.div.i32.u %[[UA]], %[[UB]] : i32
// CHECK-NEXT: %[[QC:.+]] = vm.ext.i8.i32.s %[[Q]] : i32
// CHECK-NEXT: %[[X:.+]] = vm.xor.i32 %[[QC]], %[[A]] : i32
// CHECK-NEXT: vm.return %[[X]] : i32
func.func private @i8_ops(%a: i8, %b: i8) -> i8 {
  %s = arith.addi %a, %b : i8
  %q = arith.divui %s, %b : i8
  // Bitwise ops of canonical values are canonical.
  %x = arith.xori %q, %a : i8
  return %x : i8
}

// -----

// i1 arithmetic is modulo 2 (addi is xor, muli is and); an i1 is
// sign-extended by negation, and signed i1 compares are unsigned compares
// with swapped operands.
// CHECK-LABEL: vm.func private @i1_ops
// CHECK-SAME: (%[[A:.+]]: i32, %[[B:.+]]: i32) -> (i32, i32, i32, i32)
// CHECK-NEXT: %[[ADD:.+]] = vm.xor.i32 %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[MUL:.+]] = vm.and.i32 %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[LT:.+]] = vm.cmp.lt.i32.u %[[B]], %[[A]] : i32
// CHECK-NEXT: %[[NEG:.+]] = vm.neg.i32 %[[A]] : i32
// CHECK-NEXT: vm.return %[[ADD]], %[[MUL]], %[[LT]], %[[NEG]] : i32, i32, i32, i32
func.func private @i1_ops(%a: i1, %b: i1) -> (i1, i1, i1, i32) {
  %add = arith.addi %a, %b : i1
  %mul = arith.muli %a, %b : i1
  %lt = arith.cmpi slt, %a, %b : i1
  %ext = arith.extsi %a : i1 to i32
  return %add, %mul, %lt, %ext : i1, i1, i1, i32
}

// -----

// Constants: one per bank and value at the top of the entry block, in
// canonical form (i1 true is 1, i8 -1 is 0xFFFFFFFF), index in i64.
// CHECK-LABEL: vm.func private @constants
// CHECK-NEXT: %[[ONE:.+]] = vm.const.i32 1 : i32
// CHECK-NEXT: %[[M1:.+]] = vm.const.i32 -1 : i32
// CHECK-NEXT: %[[IDX:.+]] = vm.const.i64 42 : i64
// CHECK-NEXT: %[[F:.+]] = vm.const.f32 1.500000e+00 : f32
// CHECK-NEXT: %[[D:.+]] = vm.const.f64 2.500000e-01 : f64
// CHECK-NEXT: vm.cond_br %{{.+}}, ^bb1, ^bb2
// CHECK:      vm.return %[[ONE]], %[[M1]], %[[IDX]], %[[F]], %[[D]], %[[ONE]]
func.func private @constants(%p: i1) -> (i1, i8, index, f32, f64, i32) {
  %t = arith.constant true
  %m1 = arith.constant -1 : i8
  %i = arith.constant 42 : index
  %f = arith.constant 1.5 : f32
  cf.cond_br %p, ^bb1, ^bb2
^bb1:
  // Constants of other blocks join the pool too (one i32 1 for i1 and i32).
  %d = arith.constant 0.25 : f64
  %one = arith.constant 1 : i32
  return %t, %m1, %i, %f, %d, %one : i1, i8, index, f32, f64, i32
^bb2:
  %d2 = arith.constant 0.25 : f64
  %one2 = arith.constant 1 : i32
  return %t, %m1, %i, %f, %d2, %one2 : i1, i8, index, f32, f64, i32
}

// -----

// Compares: unsigned predicates on zero-extended narrow views; cmpf
// ordered/unordered predicates map one to one, false/true are constants.
// CHECK-LABEL: vm.func private @compares
// CHECK-SAME: (%[[A:.+]]: i32, %[[B:.+]]: i32, %[[X:.+]]: f64, %[[Y:.+]]: f64)
// CHECK-NEXT: %[[ZERO:.+]] = vm.const.i32 0 : i32
// CHECK-NEXT: %[[UA:.+]] = vm.trunc.i32.i16 %[[A]] : i32
// CHECK-NEXT: %[[UB:.+]] = vm.trunc.i32.i16 %[[B]] : i32
// CHECK-NEXT: %[[ULT:.+]] = vm.cmp.lt.i32.u %[[UA]], %[[UB]] : i32
// CHECK-NEXT: %[[SGE:.+]] = vm.cmp.ge.i32.s %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[UNO:.+]] = vm.cmp.uno.f64 %[[X]], %[[Y]] : i32
// CHECK-NEXT: %[[ULE:.+]] = vm.cmp.ule.f64 %[[X]], %[[Y]] : i32
// CHECK-NEXT: vm.return %[[ULT]], %[[SGE]], %[[UNO]], %[[ULE]], %[[ZERO]]
func.func private @compares(%a: i16, %b: i16, %x: f64, %y: f64) -> (i1, i1, i1, i1, i1) {
  %ult = arith.cmpi ult, %a, %b : i16
  %sge = arith.cmpi sge, %a, %b : i16
  %uno = arith.cmpf uno, %x, %y : f64
  %ule = arith.cmpf ule, %x, %y : f64
  %false = arith.cmpf false, %x, %y : f64
  return %ult, %sge, %uno, %ule, %false : i1, i1, i1, i1, i1
}

// -----

// CHECK-LABEL: vm.func private @select_and_minmax
// CHECK-SAME: (%[[C:.+]]: i32, %[[A:.+]]: i64, %[[B:.+]]: i64, %[[X:.+]]: f32, %[[Y:.+]]: f32)
// CHECK-NEXT: %[[S:.+]] = vm.select.i64 %[[C]], %[[A]], %[[B]] : i64
// CHECK-NEXT: %[[M:.+]] = vm.max.i64.u %[[S]], %[[B]] : i64
// CHECK-NEXT: %[[F:.+]] = vm.min.f32 %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[R:.+]] = vm.rem.f32 %[[F]], %[[Y]] : f32
// CHECK-NEXT: vm.return %[[M]], %[[R]] : i64, f32
func.func private @select_and_minmax(%c: i1, %a: index, %b: index, %x: f32, %y: f32)
    -> (index, f32) {
  %s = arith.select %c, %a, %b : index
  %m = arith.maxui %s, %b : index
  %f = arith.minimumf %x, %y : f32
  %r = arith.remf %f, %y : f32
  return %m, %r : index, f32
}

// -----

// floordivsi: the truncating quotient, minus one when the remainder is
// non-zero and its sign differs from the divisor's.
// CHECK-LABEL: vm.func private @floordiv
// CHECK-SAME: (%[[A:.+]]: i32, %[[B:.+]]: i32) -> i32
// CHECK-NEXT: %[[ZERO:.+]] = vm.const.i32 0 : i32
// CHECK-NEXT: %[[Q:.+]] = vm.div.i32.s %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[R:.+]] = vm.rem.i32.s %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[NZ:.+]] = vm.cmp.ne.i32 %[[R]], %[[ZERO]] : i32
// CHECK-NEXT: %[[SIGNS:.+]] = vm.xor.i32 %[[R]], %[[B]] : i32
// CHECK-NEXT: %[[NEG:.+]] = vm.cmp.lt.i32.s %[[SIGNS]], %[[ZERO]] : i32
// CHECK-NEXT: %[[ADJ:.+]] = vm.and.i32 %[[NZ]], %[[NEG]] : i32
// CHECK-NEXT: %[[Q1:.+]] = vm.add.imm.i32 %[[Q]], -1 : i32
// CHECK-NEXT: %[[SEL:.+]] = vm.select.i32 %[[ADJ]], %[[Q1]], %[[Q]] : i32
// CHECK-NEXT: vm.return %[[SEL]] : i32
func.func private @floordiv(%a: i32, %b: i32) -> i32 {
  %q = arith.floordivsi %a, %b : i32
  return %q : i32
}

// -----

// Casts: width changes within and across banks, int/float conversions
// (narrow results wrap to the width), float widths, bitcasts.
// CHECK-LABEL: vm.func private @casts
// CHECK-SAME: (%[[B:.+]]: i32, %[[L:.+]]: i64, %[[F:.+]]: f32, %[[P:.+]]: i32)
// CHECK-NEXT: %[[ONE:.+]] = vm.const.i32 1 : i32
// CHECK-NEXT: %[[UB:.+]] = vm.trunc.i32.i8 %[[B]] : i32
// CHECK-NEXT: %[[EXT:.+]] = vm.ext.i32.i64.u %[[UB]] : i64
// CHECK-NEXT: %[[T:.+]] = vm.trunc.i64.i32 %[[L]] : i32
// CHECK-NEXT: %[[T16:.+]] = vm.ext.i16.i32.s %[[T]] : i32
// CHECK-NEXT: %[[NEG:.+]] = vm.neg.i32 %[[P]] : i32
// CHECK-NEXT: %[[SI:.+]] = vm.cast.si32.f32 %[[NEG]] : f32
// CHECK-NEXT: %[[RAW:.+]] = vm.cast.f32.si32 %[[F]] : i32
// CHECK-NEXT: %[[I1:.+]] = vm.and.i32 %[[RAW]], %[[ONE]] : i32
// CHECK-NEXT: %[[D:.+]] = vm.ext.f32.f64 %[[F]] : f64
// CHECK-NEXT: %[[BITS:.+]] = vm.bitcast.f64.i64 %[[D]] : i64
// CHECK-NEXT: vm.return %[[EXT]], %[[T16]], %[[SI]], %[[I1]], %[[BITS]]
func.func private @casts(%b: i8, %l: i64, %f: f32, %p: i1) -> (index, i16, f32, i1, i64) {
  %ext = arith.extui %b : i8 to i64
  %idx = arith.index_cast %ext : i64 to index
  %t = arith.trunci %l : i64 to i16
  %si = arith.sitofp %p : i1 to f32
  %fi = arith.fptosi %f : f32 to i1
  %d = arith.extf %f : f32 to f64
  %bits = arith.bitcast %d : f64 to i64
  return %idx, %t, %si, %fi, %bits : index, i16, f32, i1, i64
}
