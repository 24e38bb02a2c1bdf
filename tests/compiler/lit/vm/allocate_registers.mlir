// --kiln-vm-allocate-registers: SSA greedy colouring per bank with coalescing
// preferences, recorded as vm.regs (registers an op writes), vm.block_regs (a
// block's arguments, on its first op) and vm.register_counts (per bank: i32,
// i64, f32, f64, ref).
// RUN: %kiln-opt %s --kiln-vm-allocate-registers | FileCheck %s

vm.module @m {
  // A counted loop carries no copies: the body's arguments take the
  // registers of the values arriving on the back edge, and for.step's
  // increment (its vm.regs) takes the induction variable's register.
  // Arguments are precoloured: the k-th argument of a bank is its register k.
  // CHECK-LABEL: vm.func @loop
  // CHECK-SAME: vm.register_counts = array<i32: 0, 6, 0, 0, 0>
  vm.func @loop(%n: i64) -> i64 {
    // CHECK: vm.const.i64 0 {vm.block_regs = array<i32: 0>, vm.regs = array<i32: 1>}
    %c0 = vm.const.i64 0 : i64
    %c3 = vm.const.i64 3 : i64
    %c7 = vm.const.i64 7 : i64
    vm.br.lt.i64.s %c0, %n, ^body(%c0, %c0 : i64, i64), ^exit(%c0 : i64)
  ^body(%i: i64, %acc: i64):
    // CHECK: vm.mul.i64 {{.*}} {vm.block_regs = array<i32: 1, 4>, vm.regs = array<i32: 5>}
    %t = vm.mul.i64 %i, %c3 : i64
    // CHECK: vm.rem.i64.s {{.*}} {vm.regs = array<i32: 5>}
    %r = vm.rem.i64.s %t, %c7 : i64
    // CHECK: vm.add.i64 {{.*}} {vm.regs = array<i32: 4>}
    %next = vm.add.i64 %acc, %r : i64
    // CHECK: vm.for.step.i64 {{.*}} {vm.regs = array<i32: 1>}
    vm.for.step.i64 %i, 1, %n, ^body(%next : i64), ^exit(%next : i64)
  ^exit(%s: i64):
    // CHECK: vm.return {vm.block_regs = array<i32: 4>}
    vm.return %s : i64
  }

  // Banks are allocated independently; an operand read for the last time
  // (or an argument never read: %b) frees its register for the result.
  // CHECK-LABEL: vm.func @banks
  // CHECK-SAME: vm.register_counts = array<i32: 1, 1, 2, 0, 1>
  vm.func @banks(%a: i32, %b: i64, %f: f32, %r: !vm.ref<!vm.buffer>) -> f32 {
    // CHECK: vm.add.i32 {{.*}} {vm.block_regs = array<i32: 0, 0, 0, 0>, vm.regs = array<i32: 0>}
    %x = vm.add.i32 %a, %a : i32
    // CHECK: vm.ext.i32.i64.s {{.*}} {vm.regs = array<i32: 0>}
    %y = vm.ext.i32.i64.s %x : i64
    // CHECK: vm.buffer.load.f32 {{.*}} {vm.regs = array<i32: 1>}
    %v = vm.buffer.load.f32 %r, %y : !vm.ref<!vm.buffer> -> f32
    // CHECK: vm.add.f32 {{.*}} {vm.regs = array<i32: 0>}
    %w = vm.add.f32 %v, %f : f32
    vm.return %w : f32
  }

  // A join's argument takes the register of an incoming value when it is
  // free (here both arms compute into register 0, free once %c is read), so
  // neither edge copies. Arguments nothing reads get no register (-1).
  // CHECK-LABEL: vm.func @join
  vm.func @join(%c: i32, %a: i32) -> i32 {
    // CHECK: vm.cond_br {{.*}} {vm.block_regs = array<i32: 0, 1>}
    vm.cond_br %c, ^left, ^right
  ^left:
    // CHECK: vm.add.imm.i32 {{.*}} {vm.regs = array<i32: 0>}
    %l = vm.add.imm.i32 %a, 1 : i32
    vm.br ^join(%l, %a : i32, i32)
  ^right:
    // CHECK: vm.add.imm.i32 {{.*}} {vm.regs = array<i32: 0>}
    %r = vm.add.imm.i32 %a, 2 : i32
    vm.br ^join(%r, %a : i32, i32)
  ^join(%v: i32, %unused: i32):
    // CHECK: vm.return {vm.block_regs = array<i32: 0, -1>}
    vm.return %v : i32
  }
}
