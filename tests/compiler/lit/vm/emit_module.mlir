// --kiln-vm-emit-module writes the .kmod of a vm.module: globals laid out
// 8-byte first, non-zero initial values stored by a generated __init that
// then calls the vm.initializer functions; imports once per concrete
// signature; exports with reflection; rodata with the executables debug
// table and its dispatch sites; debug locations; block-argument copies
// (a swap needs a scratch register).
// RUN: %kiln-opt %s --kiln-vm-emit-module=output=%t.kmod
// RUN: %kiln-dump-module %t.kmod | FileCheck %s
// RUN: %kiln-run-module %t.kmod --function=count --input=5 | FileCheck %s --check-prefix=COUNT
// RUN: %kiln-run-module %t.kmod --function=swap --input=10 | FileCheck %s --check-prefix=SWAP
// RUN: %kiln-opt %s --kiln-vm-emit-module="output=%t.nodebug.kmod debug-locations=false module-name=renamed"
// RUN: %kiln-dump-module %t.nodebug.kmod | FileCheck %s --check-prefix=NODEBUG

// CHECK: module: globals
// CHECK: imports: 2
// CHECK-NEXT: test.length (ref) -> (i64) optional
// CHECK-NEXT: test.length (ref, i32) -> (i64) optional
// CHECK: exports: 3
// CHECK-NEXT: @count -> function 0 'count' (i32) -> (i32)
// CHECK-NEXT: argument 0: index
// CHECK-NEXT: result 0: i32
// CHECK: @swap -> function 1 'swap'
// CHECK: @query -> function 3 'dispatch'
// CHECK: globals: 20 bytes, 1 refs, initializer function 4 '__init'
// CHECK-DAG: @device : hal.device at ref slot 0
// CHECK-DAG: @total : i64 at byte 0 (8 bytes)
// CHECK-DAG: @calls : i32 at byte 8 (4 bytes)
// CHECK-DAG: @step : i32 at byte 12 (4 bytes)
// CHECK-DAG: @scale : f32 at byte 16 (4 bytes)
// CHECK: rodata segments: 2
// CHECK-NEXT: [0] "table": 4 bytes, alignment 16
// CHECK-NEXT: [1] "kernel_elf": 3 bytes, alignment 16
// CHECK: executables: 1
// CHECK-NEXT: @ex
// CHECK-NEXT: variant llvm-cpu embedded-elf-x86_64: 3 bytes in rodata [1]
// CHECK-NEXT: export 0 @add workgroup_size [64, 1, 1] layout constants = 1
// CHECK-NEXT: dispatch of @add in function 3 'dispatch' at offset 11 ({{.*}}emit_module.mlir:{{[0-9]+}}:10)
// CHECK: source files: 1
// CHECK-NEXT: emit_module.mlir
vm.module @globals {
  vm.import optional @test.length(!vm.ref<!hal.buffer>, ...) -> i64
  vm.global.i32 mutable @calls
  vm.global.i64 mutable @total = 100
  vm.global.i32 @step = 3
  vm.global.f32 @scale = 0.0
  vm.global.ref mutable @device : !vm.ref<!hal.device>
  vm.rodata @table dense<[1, 2]> : tensor<2xi16>
  vm.rodata @kernel_elf "ELF" {executable = #vm.executable_variant<name = "ex", target = "llvm-cpu",
      format = "embedded-elf-x86_64", exports = [#vm.executable_export<name = "add",
      ordinal = 0, layout = "constants = 1", workgroup_size = 64, 1, 1>]>}

  // count(n): total += n * step for n iterations; returns calls after the
  // increment (the initializer has set it to 7).
  // CHECK-LABEL: {{^}}function 0 'count'
  vm.func @count(%n: i32) -> i32 attributes {vm.export, vm.abi_type = (index) -> i32} {
    %c0 = vm.const.i32 0 : i32
    vm.br.lt.i32.s %c0, %n, ^body(%c0 : i32), ^done
  ^body(%i: i32):
    %step = vm.global.load.i32 @step : i32
    %t = vm.global.load.i64 @total : i64
    %s = vm.ext.i32.i64.s %step : i64
    %u = vm.add.i64 %t, %s : i64
    vm.global.store.i64 @total, %u
    // CHECK: for.step.i32 i{{[0-9]+}}, 1, i0, @{{[0-9]+}}, @{{[0-9]+}} {{.*}}emit_module.mlir:[[@LINE+1]]:5
    vm.for.step.i32 %i, 1, %n, ^body, ^done
  ^done:
    %calls = vm.global.load.i32 @calls : i32
    %next = vm.add.imm.i32 %calls, 1 : i32
    vm.global.store.i32 @calls, %next
    vm.return %next : i32
  }

  // swap(n): (a, b) = (b, a) n times from (n, 1): the back edge is a
  // parallel copy cycle, broken through a scratch register.
  // CHECK-LABEL: {{^}}function 1 'swap'
  // CHECK: add.imm.i32
  // CHECK-NEXT: mov.i32 i[[SCRATCH:[0-9]+]], i[[A:[0-9]+]]
  // CHECK-NEXT: mov.i32 i[[A]], i[[B:[0-9]+]]
  // CHECK-NEXT: mov.i32 i[[B]], i[[SCRATCH]]
  // CHECK-NEXT: br.lt.i32.s
  vm.func @swap(%n: i32) -> i32 attributes {vm.export} {
    %c0 = vm.const.i32 0 : i32
    %c1 = vm.const.i32 1 : i32
    vm.br ^head(%c0, %n, %c1 : i32, i32, i32)
  ^head(%i: i32, %a: i32, %b: i32):
    %r = vm.sub.i32 %a, %b : i32
    %d = vm.add.imm.i32 %i, 1 : i32
    vm.br.lt.i32.s %d, %n, ^head(%d, %b, %a : i32, i32, i32), ^exit(%r : i32)
  ^exit(%x: i32):
    vm.return %x : i32
  }

  vm.func @init() attributes {vm.initializer} {
    %c7 = vm.const.i32 7 : i32
    vm.global.store.i32 @calls, %c7
    vm.return
  }

  // A variadic import called with two tails is imported twice; the call
  // tagged `dispatch` is the executable's dispatch site.
  // CHECK-LABEL: {{^}}function 3 'dispatch'
  // CHECK: 11  call.import @test.length(r0, i0) -> (I1)
  vm.func @dispatch(%b: !vm.ref<!hal.buffer>, %i: i32) -> i64 attributes {vm.export = "query"} {
    %0 = vm.call.import @test.length(%b) : (!vm.ref<!hal.buffer>) -> i64
    %1 = vm.call.import @test.length(%b, %i) {dispatch = @ex::@add} : (!vm.ref<!hal.buffer>, i32) -> i64
    %2 = vm.add.i64 %0, %1 : i64
    vm.return %2 : i64
  }

  // CHECK-LABEL: {{^}}function 4 '__init'
  // CHECK: const.i64 I0, 100
  // CHECK-NEXT: global.store.i64 global[0], I0
  // CHECK-NEXT: const.i32 i0, 3
  // CHECK-NEXT: global.store.i32 global[12], i0
  // CHECK-NEXT: call @init()
  // CHECK-NEXT: return
}
// COUNT: result[0]: i32=8
// SWAP: result[0]: i32=-9
// NODEBUG: module: renamed
// NODEBUG: source files: 0
