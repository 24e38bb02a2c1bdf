// --output-format=mlir prints the IR the bytecode is emitted from (the vm
// dialect, registers allocated) instead of writing the module: scf.if, scf.for
// and scf.while are lowered to blocks and vm branches (the scf.for rotated
// into a guard and a vm.for.step latch), arith to vm ops.
// RUN: %kiln-compile %s --output-format=mlir -o - | FileCheck %s
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=lowered --input=10 | FileCheck %s --check-prefix=RUN1 --match-full-lines
// MLIR's own printing flag shows the same lowering after one pass (stderr).
// RUN: %kiln-compile %s -o %t.kmod --mlir-print-ir-after=kiln-scf-to-cf 2>&1 | FileCheck %s --check-prefix=CF

// CHECK:       vm.module @module {
// CHECK-LABEL: vm.func @lowered(%arg0: i32) -> i32
// CHECK-SAME:    vm.export
// CHECK-SAME:    vm.register_counts
// CHECK-NOT:   scf.
// CHECK-NOT:   arith.
// CHECK:       vm.br.lt.imm.i32.s %arg0, 1,
// CHECK:       vm.rem.i32.s {{.*}}vm.regs = array<i32: [[#]]>
// CHECK:       vm.cond_br
// CHECK:       vm.for.step.i32
// CHECK:       vm.div.i32.s
// CHECK:       vm.return
// CHECK-NOT:   scf.
// CHECK-NOT:   cf.

// CF:       IR Dump After {{.*}}(kiln-scf-to-cf)
// CF-LABEL: func.func @lowered
// CF-NOT:   scf.
// CF:       cf.cond_br
// CF-NOT:   scf.
// CF:       return

// RUN1: EXEC @lowered
// RUN1-NEXT: result[0]: i32=8
func.func @lowered(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %rem = arith.remsi %i, %c2 : i32
    %even = arith.cmpi eq, %rem, %c0 : i32
    %add = scf.if %even -> (i32) {
      scf.yield %i : i32
    } else {
      %t = arith.muli %i, %c2 : i32
      scf.yield %t : i32
    }
    %next = arith.addi %acc, %add : i32
    scf.yield %next : i32
  }
  %r = scf.while (%x = %sum) : (i32) -> i32 {
    %big = arith.cmpi sgt, %x, %n : i32
    scf.condition(%big) %x : i32
  } do {
  ^bb0(%y: i32):
    %y1 = arith.divsi %y, %c2 : i32
    scf.yield %y1 : i32
  }
  return %r : i32
}
