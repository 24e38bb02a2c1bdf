// --kiln-vm-fuse: the VM's fused and immediate forms, chosen as the old
// code generator's peephole did (see fuse_instructions.cc for the phases).
// RUN: %kiln-opt %s --kiln-vm-fuse --split-input-file | FileCheck %s

// Compare-and-branch: gt swaps the operands, ge swaps the successors; a
// compare against a constant then takes the immediate form, and the
// constant is no longer materialised.
// CHECK-LABEL: vm.func @compare_branch
// CHECK-SAME: (%[[A:.+]]: i32, %[[B:.+]]: i64, %[[C:.+]]: i64)
// CHECK-NOT:  vm.const.i32
// CHECK:      vm.br.lt.imm.i32.s %[[A]], 10, ^bb1, ^bb2
// CHECK:      ^bb1:
// CHECK-NEXT: vm.br.lt.i64.s %[[C]], %[[B]], ^bb2, ^bb3
// CHECK:      ^bb2:
// CHECK-NEXT: vm.br.lt.i64.s %[[B]], %[[C]], ^bb4, ^bb3
vm.module @m {
  vm.func @compare_branch(%a: i32, %b: i64, %c: i64) {
    %ten = vm.const.i32 10 : i32
    %0 = vm.cmp.lt.i32.s %a, %ten : i32
    vm.cond_br %0, ^bb1, ^bb2
  ^bb1:
    %1 = vm.cmp.gt.i64.s %b, %c : i32
    vm.cond_br %1, ^bb2, ^bb3
  ^bb2:
    %2 = vm.cmp.ge.i64.s %b, %c : i32
    vm.cond_br %2, ^bb3, ^bb4
  ^bb3:
    vm.return
  ^bb4:
    vm.return
  }
}

// -----

// `C < b` becomes `!(b < C + 1)`; a compare with another use stays.
// CHECK-LABEL: vm.func @constant_lhs
// CHECK:      vm.br.lt.imm.i32.s %{{.+}}, 6, ^bb3, ^bb1
// CHECK:      %[[K:.+]] = vm.cmp.lt.i32.s
// CHECK-NEXT: vm.cond_br %[[K]], ^bb3, ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: vm.return %[[K]] : i32
vm.module @m {
  vm.func @constant_lhs(%b: i32) -> i32 {
    %five = vm.const.i32 5 : i32
    %0 = vm.cmp.lt.i32.s %five, %b : i32
    vm.cond_br %0, ^bb1, ^bb2
  ^bb1:
    %1 = vm.cmp.lt.i32.s %b, %b : i32
    vm.cond_br %1, ^bb2, ^bb3(%1 : i32)
  ^bb2:
    vm.return %b : i32
  ^bb3(%r: i32):
    vm.return %r : i32
  }
}

// -----

// A rotated counted loop: the latch's add + compare + branch is one
// vm.for.step that hands the stepped value to the body's first argument (and
// the exit edge returns directly).
// CHECK-LABEL: vm.func @counted
// CHECK-SAME: (%[[N:.+]]: i64) -> i64
// CHECK:      ^bb1(%[[I:.+]]: i64, %[[ACC:.+]]: i64):
// CHECK-NEXT: %[[NEXT:.+]] = vm.add.i64 %[[ACC]], %[[I]] : i64
// CHECK-NEXT: vm.for.step.i64 %[[I]], 1, %[[N]], ^bb1(%[[NEXT]] : i64), ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: vm.return %[[NEXT]] : i64
vm.module @m {
  vm.func @counted(%n: i64) -> i64 {
    %c0 = vm.const.i64 0 : i64
    %c1 = vm.const.i64 1 : i64
    %0 = vm.cmp.lt.i64.s %c0, %n : i32
    vm.cond_br %0, ^bb1(%c0, %c0 : i64, i64), ^bb3
  ^bb1(%i: i64, %acc: i64):
    %next = vm.add.i64 %acc, %i : i64
    %i1 = vm.add.i64 %i, %c1 : i64
    %more = vm.cmp.lt.i64.s %i1, %n : i32
    vm.cond_br %more, ^bb1(%i1, %next : i64, i64), ^bb2(%next : i64)
  ^bb2(%r: i64):
    vm.return %r : i64
  ^bb3:
    vm.return %c0 : i64
  }
}

// -----

// No for.step when the stepped value has another use (here: the exit):
// add.imm and the compare-and-branch instead.
// CHECK-LABEL: vm.func @stepped_value_escapes
// CHECK:      %[[I1:.+]] = vm.add.imm.i32 %{{.+}}, -2 : i32
// CHECK-NEXT: vm.br.lt.i32.s %[[I1]], %{{.+}}, ^bb1(%[[I1]] : i32), ^bb2(%[[I1]] : i32)
vm.module @m {
  vm.func @stepped_value_escapes(%n: i32) -> i32 {
    %c0 = vm.const.i32 0 : i32
    %c2 = vm.const.i32 2 : i32
    vm.br ^bb1(%c0 : i32)
  ^bb1(%i: i32):
    %i1 = vm.sub.i32 %i, %c2 : i32
    %more = vm.cmp.lt.i32.s %i1, %n : i32
    vm.cond_br %more, ^bb1(%i1 : i32), ^bb2(%i1 : i32)
  ^bb2(%r: i32):
    vm.call @use(%r) : (i32) -> ()
    vm.return %r : i32
  }
  vm.func private @use(%x: i32) {
    vm.return
  }
}

// -----

// Immediates: add/sub of a constant fitting 32 bits; a wider i64 constant
// stays in a register.
// CHECK-LABEL: vm.func @immediates
// CHECK-SAME: (%[[A:.+]]: i32, %[[L:.+]]: i64)
// CHECK-NEXT: %[[BIG:.+]] = vm.const.i64 4294967296 : i64
// CHECK-NEXT: %[[X:.+]] = vm.add.imm.i32 %[[A]], 3 : i32
// CHECK-NEXT: %[[Y:.+]] = vm.add.imm.i32 %[[X]], -3 : i32
// CHECK-NEXT: %[[Z:.+]] = vm.add.imm.i64 %[[L]], -7 : i64
// CHECK-NEXT: %[[W:.+]] = vm.add.i64 %[[Z]], %[[BIG]] : i64
// CHECK-NEXT: vm.return %[[Y]], %[[W]] : i32, i64
vm.module @m {
  vm.func @immediates(%a: i32, %l: i64) -> (i32, i64) {
    %c3 = vm.const.i32 3 : i32
    %c7 = vm.const.i64 7 : i64
    %big = vm.const.i64 4294967296 : i64
    %x = vm.add.i32 %c3, %a : i32
    %y = vm.sub.i32 %x, %c3 : i32
    %z = vm.sub.i64 %l, %c7 : i64
    %w = vm.add.i64 %z, %big : i64
    vm.return %y, %w : i32, i64
  }
}

// -----

// Forwarded returns: a branch into a block that only returns returns
// itself; a conditional edge into it gets a return of its own.
// CHECK-LABEL: vm.func @forwarded
// CHECK-SAME: (%[[C:.+]]: i32, %[[A:.+]]: i32, %[[B:.+]]: i32)
// CHECK-NEXT: vm.cond_br %[[C]], ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: vm.return %[[A]] : i32
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: %[[S:.+]] = vm.add.i32 %[[A]], %[[B]] : i32
// CHECK-NEXT: vm.return %[[S]] : i32
// CHECK-NEXT: }
vm.module @m {
  vm.func @forwarded(%c: i32, %a: i32, %b: i32) -> i32 {
    vm.cond_br %c, ^bb2(%a : i32), ^bb1
  ^bb1:
    %s = vm.add.i32 %a, %b : i32
    vm.br ^bb2(%s : i32)
  ^bb2(%r: i32):
    vm.return %r : i32
  }
}
