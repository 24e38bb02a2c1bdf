// The vm dialect round-trips: structural ops, and the generated opcode ops in
// their assembly forms (vm_dialect.h documents every form).
// RUN: %kiln-opt %s | FileCheck %s
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s

// CHECK-LABEL: vm.module @m
vm.module @m {
  // CHECK: vm.import @hal.buffer.length(!vm.ref<!hal.buffer>) -> i64
  vm.import @hal.buffer.length(!vm.ref<!hal.buffer>) -> i64
  // CHECK: vm.import optional @mod.variadic(i32, ...) -> (i32, i64)
  vm.import optional @mod.variadic(i32, ...) -> (i32, i64)
  // CHECK: vm.global.i32 mutable @counter = 5
  vm.global.i32 mutable @counter = 5
  // CHECK: vm.global.f64 @pi = 3.140000e+00
  vm.global.f64 @pi = 3.14
  // CHECK: vm.global.ref mutable @device : !vm.ref<!hal.device>
  vm.global.ref mutable @device : !vm.ref<!hal.device>
  // CHECK: vm.rodata @table dense<[1, 2, 3]> : tensor<3xi32>
  vm.rodata @table dense<[1, 2, 3]> : tensor<3xi32>
  // CHECK: vm.rodata @kernels "\01\02" {alignment = 64 : i64, executable = #vm.executable_variant<name = "ex", target = "llvm-cpu", format = "embedded-elf-x86_64", exports = [#vm.executable_export<name = "add", ordinal = 0, layout = "constants = 0", workgroup_size = 64, 1, 1>]>}
  vm.rodata @kernels "\01\02" {alignment = 64 : i64, executable = #vm.executable_variant<
      name = "ex", target = "llvm-cpu", format = "embedded-elf-x86_64",
      exports = [#vm.executable_export<name = "add", ordinal = 0, layout = "constants = 0",
                                       workgroup_size = 64, 1, 1>]>}

  // CHECK: vm.func @arith(%{{.*}}: i32, %{{.*}}: i64, %{{.*}}: f32) -> (i32, f64) attributes {vm.abi_type = (i1, index, f32) -> (i32, f64), vm.export}
  vm.func @arith(%a: i32, %b: i64, %f: f32) -> (i32, f64)
      attributes {vm.export, vm.abi_type = (i1, index, f32) -> (i32, f64)} {
    // CHECK: vm.const.i32 7 : i32
    %c7 = vm.const.i32 7 : i32
    // CHECK: vm.add.i32 %{{.*}}, %{{.*}} : i32
    %0 = vm.add.i32 %a, %c7 : i32
    // CHECK: vm.add.imm.i64 %{{.*}}, -1 : i64
    %1 = vm.add.imm.i64 %b, -1 : i64
    // CHECK: vm.cmp.lt.i64.s %{{.*}}, %{{.*}} : i32
    %2 = vm.cmp.lt.i64.s %1, %b : i32
    // CHECK: vm.select.i32 %{{.*}}, %{{.*}}, %{{.*}} : i32
    %3 = vm.select.i32 %2, %0, %a : i32
    // CHECK: vm.fma.f32 %{{.*}}, %{{.*}}, %{{.*}} : f32
    %4 = vm.fma.f32 %f, %f, %f : f32
    // CHECK: vm.ext.f32.f64 %{{.*}} : f64
    %5 = vm.ext.f32.f64 %4 : f64
    // CHECK: vm.trace "values"(%{{.*}}, %{{.*}} : i32, f64)
    vm.trace "values"(%3, %5 : i32, f64)
    // CHECK: vm.return %{{.*}}, %{{.*}} : i32, f64
    vm.return %3, %5 : i32, f64
  }

  // CHECK-LABEL: vm.func @refs
  vm.func @refs(%buffer: !vm.ref<!hal.buffer>, %bytes: !vm.ref<!vm.buffer>, %i: i32) -> i32 {
    // CHECK: vm.call.import @hal.buffer.length(%{{.*}}) {dispatch = @ex::@add} : (!vm.ref<!hal.buffer>) -> i64
    %n = vm.call.import @hal.buffer.length(%buffer) {dispatch = @ex::@add} : (!vm.ref<!hal.buffer>) -> i64
    // CHECK: vm.call.import @mod.variadic(%{{.*}}, %{{.*}}, %{{.*}}) : (i32, i64, !vm.ref<!vm.buffer>) -> (i32, i64)
    %r:2 = vm.call.import @mod.variadic(%i, %n, %bytes) : (i32, i64, !vm.ref<!vm.buffer>) -> (i32, i64)
    // CHECK: vm.buffer.load.f32 %{{.*}}, %{{.*}} : !vm.ref<!vm.buffer> -> f32
    %v = vm.buffer.load.f32 %bytes, %n : !vm.ref<!vm.buffer> -> f32
    // CHECK: vm.buffer.store.f32 %{{.*}}, %{{.*}}, %{{.*}} : !vm.ref<!vm.buffer>
    vm.buffer.store.f32 %bytes, %n, %v : !vm.ref<!vm.buffer>
    // CHECK: vm.global.load.ref @device : !vm.ref<!hal.device>
    %d = vm.global.load.ref @device : !vm.ref<!hal.device>
    // CHECK: vm.global.store.ref @device, %{{.*}} : !vm.ref<!hal.device>
    vm.global.store.ref @device, %d : !vm.ref<!hal.device>
    // CHECK: vm.ref.is_null %{{.*}} : !vm.ref<!hal.device> -> i32
    %z = vm.ref.is_null %d : !vm.ref<!hal.device> -> i32
    // CHECK: vm.ref.is_type %{{.*}}, !hal.buffer : !vm.ref<!hal.buffer> -> i32
    %t = vm.ref.is_type %buffer, !hal.buffer : !vm.ref<!hal.buffer> -> i32
    // CHECK: vm.const.ref.rodata @table : !vm.ref<!vm.buffer>
    %ro = vm.const.ref.rodata @table : !vm.ref<!vm.buffer>
    // CHECK: vm.const.ref.null : !vm.ref<?>
    %null = vm.const.ref.null : !vm.ref<?>
    // CHECK: vm.global.load.i32 @counter : i32
    %g = vm.global.load.i32 @counter : i32
    // CHECK: vm.global.store.i32 @counter, %{{.*}}
    vm.global.store.i32 @counter, %g
    // CHECK: vm.import.resolved @mod.variadic : i32
    %ok = vm.import.resolved @mod.variadic : i32
    // CHECK: vm.switch %{{.*}} [^bb1, ^bb2(%{{.*}} : i32)], default ^bb3
    vm.switch %i [^bb1, ^bb2(%z : i32)], default ^bb3
  ^bb1:
    // CHECK: vm.fail "unreachable case"
    vm.fail "unreachable case"
  ^bb2(%x: i32):
    vm.return %x : i32
  ^bb3:
    vm.return %t : i32
  }

  // CHECK-LABEL: vm.func @loop
  vm.func @loop(%n: i64) -> i64 attributes {vm.export = "sum"} {
    %c0 = vm.const.i64 0 : i64
    // CHECK: vm.br.lt.i64.s %{{.*}}, %{{.*}}, ^bb1(%{{.*}}, %{{.*}} : i64, i64), ^bb2(%{{.*}} : i64)
    vm.br.lt.i64.s %c0, %n, ^body(%c0, %c0 : i64, i64), ^exit(%c0 : i64)
  // CHECK: ^bb1(%[[I:.*]]: i64, %{{.*}}: i64):
  ^body(%i: i64, %acc: i64):
    %next = vm.add.i64 %acc, %i : i64
    // CHECK: vm.for.step.i64 %[[I]], 1, %{{.*}}, ^bb1(%{{.*}} : i64), ^bb2(%{{.*}} : i64)
    vm.for.step.i64 %i, 1, %n, ^body(%next : i64), ^exit(%next : i64)
  ^exit(%s: i64):
    // CHECK: vm.call @loop(%{{.*}}) : (i64) -> i64
    %again = vm.call @loop(%s) : (i64) -> i64
    // CHECK: vm.br.lt.imm.i32.s %{{.*}}, 3, ^bb3, ^bb4
    %t = vm.trunc.i64.i32 %again : i32
    vm.br.lt.imm.i32.s %t, 3, ^a, ^b
  ^a:
    // CHECK: vm.cond_br %{{.*}}, ^bb4, ^bb5(%{{.*}} : i64)
    vm.cond_br %t, ^b, ^c(%s : i64)
  ^b:
    vm.br ^c(%again : i64)
  ^c(%out: i64):
    vm.return %out : i64
  }

  // CHECK: vm.func @init() attributes {vm.initializer}
  vm.func @init() attributes {vm.initializer} {
    vm.return
  }
}
