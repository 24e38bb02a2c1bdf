// Bytecode quality (issue 13, item 5): fib and the counted loop of
// tests/benchmarks, in the vm dialect instruction selection makes of them,
// emit exactly the instructions the hand-written compiler emitted: per fib call
// br.lt.imm + 6 instructions + return, per loop iteration mul, rem, add,
// for.step and no copies (the loop carries its values in place).
// RUN: %kiln-opt %s --kiln-vm-allocate-registers --kiln-vm-emit-module=output=%t.kmod
// RUN: %kiln-dump-module %t.kmod | FileCheck %s
// RUN: %kiln-run-module %t.kmod --function=fib --input=20 | FileCheck %s --check-prefix=FIB
// RUN: %kiln-run-module %t.kmod --function=loop --input=1000 | FileCheck %s --check-prefix=LOOP

vm.module @module {
  // CHECK-LABEL: {{^}}function 0 'fib' (i32) -> (i32)
  // CHECK-NEXT: registers: i32 2, i64 0, f32 0, f64 0, ref 0
  // CHECK:      br.lt.imm.i32.s i0, 2, @[[RET:[0-9]+]], @[[REC:[0-9]+]]
  // CHECK-NEXT: [[REC]]  add.imm.i32 i1, i0, -1
  // CHECK-NEXT: call @fib(i1) -> (i1)
  // CHECK-NEXT: add.imm.i32 i0, i0, -2
  // CHECK-NEXT: call @fib(i0) -> (i0)
  // CHECK-NEXT: add.i32 i0, i1, i0
  // CHECK-NEXT: return i0
  // CHECK-NEXT: [[RET]]  return i0
  // CHECK-EMPTY:
  vm.func @fib(%n: i32) -> i32 attributes {vm.export} {
    vm.br.lt.imm.i32.s %n, 2, ^bb2(%n : i32), ^bb1
  ^bb1:
    %a = vm.add.imm.i32 %n, -1 : i32
    %f1 = vm.call @fib(%a) : (i32) -> i32
    %b = vm.add.imm.i32 %n, -2 : i32
    %f2 = vm.call @fib(%b) : (i32) -> i32
    %s = vm.add.i32 %f1, %f2 : i32
    vm.br ^bb2(%s : i32)
  ^bb2(%r: i32):
    vm.return %r : i32
  }

  // CHECK-LABEL: {{^}}function 1 'loop' (i64) -> (i64)
  // CHECK-NEXT: registers: i32 0, i64 6, f32 0, f64 0, ref 0
  // CHECK:      const.i64 I1, 0
  // CHECK-NEXT: const.i64 I2, 3
  // CHECK-NEXT: const.i64 I3, 7
  // CHECK-NEXT: const.i64 I4, 0
  // CHECK-NEXT: br.lt.i64.s I1, I0, @[[BODY:[0-9]+]], @[[EXIT:[0-9]+]]
  // CHECK-NEXT: [[BODY]]  mul.i64 I5, I1, I2
  // CHECK-NEXT: rem.i64.s I5, I5, I3
  // CHECK-NEXT: add.i64 I4, I4, I5
  // CHECK-NEXT: for.step.i64 I1, 1, I0, @[[BODY]], @[[EXIT]]
  // CHECK-NEXT: [[EXIT]]  return I4
  // CHECK-EMPTY:
  vm.func @loop(%n: i64) -> i64 attributes {vm.export} {
    %c0 = vm.const.i64 0 : i64
    %c3 = vm.const.i64 3 : i64
    %c7 = vm.const.i64 7 : i64
    vm.br.lt.i64.s %c0, %n, ^body(%c0, %c0 : i64, i64), ^exit(%c0 : i64)
  ^body(%i: i64, %acc: i64):
    %t = vm.mul.i64 %i, %c3 : i64
    %r = vm.rem.i64.s %t, %c7 : i64
    %next = vm.add.i64 %acc, %r : i64
    vm.for.step.i64 %i, 1, %n, ^body(%next : i64), ^exit(%next : i64)
  ^exit(%s: i64):
    vm.return %s : i64
  }
}
// FIB: result[0]: i32=6765
// LOOP: result[0]: i64=2999
