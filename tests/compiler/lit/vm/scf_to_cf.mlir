// --kiln-scf-to-cf: scf.for is rotated (a guard, then a latch that steps,
// tests and branches back) so --kiln-vm-fuse can make the latch one
// vm.for.step; scf.if/while use upstream's lowering.
// RUN: %kiln-opt %s --kiln-scf-to-cf | FileCheck %s

// CHECK-LABEL: func.func @sum
// CHECK-SAME: (%[[N:.+]]: i64) -> i64
// CHECK:      %[[C0:.+]] = arith.constant 0 : i64
// CHECK:      %[[C1:.+]] = arith.constant 1 : i64
// CHECK:      %[[ENTER:.+]] = arith.cmpi slt, %[[C0]], %[[N]] : i64
// CHECK-NEXT: cf.cond_br %[[ENTER]], ^bb1(%[[C0]], %[[C0]] : i64, i64), ^bb2(%[[C0]] : i64)
// CHECK-NEXT: ^bb1(%[[I:.+]]: i64, %[[ACC:.+]]: i64):
// CHECK-NEXT: %[[NEXT:.+]] = arith.addi %[[ACC]], %[[I]] : i64
// CHECK-NEXT: %[[I1:.+]] = arith.addi %[[I]], %[[C1]] : i64
// CHECK-NEXT: %[[MORE:.+]] = arith.cmpi slt, %[[I1]], %[[N]] : i64
// CHECK-NEXT: cf.cond_br %[[MORE]], ^bb1(%[[I1]], %[[NEXT]] : i64, i64), ^bb2(%[[NEXT]] : i64)
// CHECK-NEXT: ^bb2(%[[R:.+]]: i64):
// CHECK-NEXT: return %[[R]] : i64
func.func @sum(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i64) : i64 {
    %next = arith.addi %acc, %i : i64
    scf.yield %next : i64
  }
  return %s : i64
}

func.func private @f(i32)

// Unsigned loops compare with ult; nested loops are rotated too.
// CHECK-LABEL: func.func @nested
// CHECK:      arith.cmpi ult
// CHECK:      arith.cmpi slt
// CHECK:      arith.cmpi slt
// CHECK:      arith.cmpi ult
// CHECK-NOT:  scf.
func.func @nested(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for unsigned %i = %c0 to %n step %c1 : i32 {
    scf.for %j = %c0 to %i step %c1 : i32 {
      func.call @f(%j) : (i32) -> ()
    }
  }
  return
}
