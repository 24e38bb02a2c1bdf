// RUN: %kiln-opt %s --split-input-file --kiln-convert-to-vm | FileCheck %s

// The check ops become calls of the runtime's `check` module, declared from
// its import table (hal/module/check_imports.h); each passes the op's
// "file:line:col" as a rodata string, which a failure reports.

// CHECK-LABEL: vm.module @scalars
module @scalars {
  // CHECK-DAG: vm.import @check.expect_true(i32, !vm.ref<!vm.buffer>)
  // CHECK-DAG: vm.import @check.expect_false(i32, !vm.ref<!vm.buffer>)
  // CHECK: vm.func @f(%[[FLAG:[^:]+]]: i32, %{{[^:]+}}: i32, %[[WIDE:[^:]+]]: i64)
  func.func @f(%flag: i32, %bit: i1, %wide: i64) {
    // CHECK: %[[LOC:.+]] = vm.const.ref.rodata @__hal_string : !vm.ref<!vm.buffer>
    // CHECK: vm.call.import @check.expect_true(%[[FLAG]], %[[LOC]]) : (i32, !vm.ref<!vm.buffer>) -> ()
    check.expect_true(%flag) : i32 loc("checks.mlir":3:5)
    // An i1 is an i32 register holding 0 or 1 (made so on entry).
    // CHECK: %[[LOC2:.+]] = vm.const.ref.rodata @__hal_string_1 : !vm.ref<!vm.buffer>
    // CHECK: vm.call.import @check.expect_false(%{{.+}}, %[[LOC2]])
    check.expect_false(%bit) : i1 loc("checks.mlir":4:5)
    // An i64 is compared with 0.
    // CHECK: %[[NZ:.+]] = vm.cmp.ne.i64 %[[WIDE]], %{{.+}} : i32
    // CHECK: vm.call.import @check.expect_true(%[[NZ]], %{{.+}})
    check.expect_true(%wide) : i64 loc(fused["checks.mlir":5:5, "other.mlir":1:1])
    // No location: an empty string.
    // CHECK: vm.call.import @check.expect_true(%[[FLAG]], %{{.+}})
    check.expect_true(%flag) : i32 loc(unknown)
    return
  }
  // CHECK-DAG: vm.rodata @__hal_string "checks.mlir:3:5"
  // CHECK-DAG: vm.rodata @__hal_string_1 "checks.mlir:4:5"
  // CHECK-DAG: vm.rodata @__hal_string_2 "checks.mlir:5:5"
  // CHECK-DAG: vm.rodata @__hal_string_3 ""
}

// -----

// CHECK-LABEL: vm.module @views
module @views {
  // CHECK-DAG: vm.import @check.expect_eq(!vm.ref<!hal.device>, !vm.ref<!hal.buffer_view>, !vm.ref<!hal.buffer_view>, !vm.ref<!vm.buffer>)
  // CHECK-DAG: vm.import @check.expect_almost_eq(!vm.ref<!hal.device>, !vm.ref<!hal.buffer_view>, !vm.ref<!hal.buffer_view>, f32, f32, !vm.ref<!vm.buffer>)
  // CHECK-DAG: vm.import @check.expect_all_true(!vm.ref<!hal.device>, !vm.ref<!hal.buffer_view>, !vm.ref<!vm.buffer>)
  // CHECK-DAG: vm.import @hal.devices.get(i32) -> !vm.ref<!hal.device>
  // CHECK: vm.func @f(%[[DEVICE:[^:]+]]: !vm.ref<!hal.device>, %[[A:[^:]+]]: !vm.ref<!hal.buffer_view>, %[[B:[^:]+]]: !vm.ref<!hal.buffer_view>)
  // CHECK-DAG: %[[ATOL:.+]] = vm.const.f32 0.00999999977
  // CHECK-DAG: %[[RTOL:.+]] = vm.const.f32 5.000000e-01
  // CHECK-DAG: vm.const.f32 9.99999974E-5
  func.func @f(%device: !hal.device, %a: !hal.buffer_view, %b: !hal.buffer_view) {
    // CHECK: vm.call.import @check.expect_eq(%[[DEVICE]], %[[A]], %[[B]], %{{.+}})
    check.expect_eq<%device>(%a, %b) : !hal.buffer_view loc("t.mlir":1:1)
    // The tolerances as f32 constants (pooled at the top; the defaults: 1e-4 and 0).
    // CHECK: vm.call.import @check.expect_almost_eq(%[[DEVICE]], %[[A]], %[[B]], %[[ATOL]], %[[RTOL]], %{{.+}})
    check.expect_almost_eq<%device>(%a, %b, atol 1.0e-02, rtol 0.5) : !hal.buffer_view loc("t.mlir":2:1)
    // CHECK: vm.call.import @check.expect_almost_eq(%[[DEVICE]], %[[A]], %[[B]], %{{.+}}, %{{.+}}, %{{.+}})
    check.expect_almost_eq<%device>(%a, %b) : !hal.buffer_view loc("t.mlir":3:1)
    // Without a device: device 0.
    // CHECK: %[[DEVICE0:.+]] = vm.call.import @hal.devices.get(%{{.+}})
    // CHECK: vm.call.import @check.expect_all_true(%[[DEVICE0]], %[[A]], %{{.+}})
    check.expect_all_true(%a) : !hal.buffer_view loc("t.mlir":4:1)
    return
  }
}
