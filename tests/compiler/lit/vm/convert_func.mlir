// --kiln-convert-to-vm on func: the module's body moves into a vm.module;
// public functions are exported with their source signature (vm.abi_type)
// and canonicalise narrow integer arguments on entry; calls of defined
// functions are vm.call, of declarations vm.import + vm.call.import (narrow
// results canonicalised); declarations nothing calls are dropped.
// RUN: %kiln-opt %s --kiln-convert-to-vm | FileCheck %s

// CHECK: vm.module @m {
module @m {
  // CHECK-DAG: vm.import @env.read(i32) -> i32
  func.func private @env.read(i32) -> i8
  // CHECK-DAG: vm.import @env.write(i64, f64) -> ()
  func.func private @write(index, f64) attributes {import_name = "env.write"}
  // CHECK-NOT: unused
  func.func private @unused(i32)

  // CHECK-LABEL: vm.func @exported
  // CHECK-SAME: (%[[A:.+]]: i32, %[[N:.+]]: i64) -> i32
  // CHECK-SAME: attributes {vm.abi_type = (i8, index) -> i8, vm.export}
  // CHECK-NEXT: %[[CA:.+]] = vm.ext.i8.i32.s %[[A]] : i32
  // CHECK-NEXT: %[[R:.+]] = vm.call @helper(%[[CA]]) : (i32) -> i32
  // CHECK-NEXT: vm.return %[[R]] : i32
  func.func @exported(%a: i8, %n: index) -> i8 {
    %r = func.call @helper(%a) : (i8) -> i8
    return %r : i8
  }

  // Private functions trust their callers: no canonicalisation on entry.
  // CHECK-LABEL: vm.func private @helper
  // CHECK-SAME: (%[[A:.+]]: i32) -> i32 {
  // CHECK-NEXT: %[[X:.+]] = vm.call.import @env.read(%[[A]]) : (i32) -> i32
  // CHECK-NEXT: %[[C:.+]] = vm.ext.i8.i32.s %[[X]] : i32
  // CHECK-NEXT: vm.return %[[C]] : i32
  func.func private @helper(%a: i8) -> i8 {
    %w = arith.extsi %a : i8 to i32
    %x = func.call @env.read(%w) : (i32) -> i8
    return %x : i8
  }

  // CHECK-LABEL: vm.func @calls_import
  // CHECK-SAME: attributes {vm.abi_type = (index, f64) -> (), vm.export}
  // CHECK-NEXT: vm.call.import @env.write(%{{.+}}, %{{.+}}) {dispatch = @ex::@fn} : (i64, f64) -> ()
  // CHECK-NEXT: vm.return
  func.func @calls_import(%i: index, %d: f64) {
    func.call @write(%i, %d) {dispatch = @ex::@fn} : (index, f64) -> ()
    return
  }

  // An earlier pass's source-level signature wins (tensors lowered to buffer
  // views); an i1 argument is masked to 0/1 on entry.
  // CHECK-LABEL: vm.func @abi
  // CHECK-SAME: attributes {vm.abi_type = (tensor<4xf32>, i1) -> (), vm.export}
  // CHECK-NEXT: %[[ONE:.+]] = vm.const.i32 1 : i32
  // CHECK-NEXT: vm.and.i32 %{{.+}}, %[[ONE]] : i32
  func.func @abi(%v: !hal.buffer_view, %p: i1) attributes {kiln.abi_type = (tensor<4xf32>, i1) -> ()} {
    return
  }

  // CHECK-LABEL: vm.func private @init
  // CHECK-SAME: attributes {vm.initializer}
  func.func private @init() attributes {kiln.initializer} {
    return
  }
}
