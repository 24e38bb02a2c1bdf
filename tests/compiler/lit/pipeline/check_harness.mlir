// IREE's test harness through the whole pipeline: the unfoldable constant
// reaches the kernel as a buffer filled from the module's rodata (it is
// bound to the dispatch, not folded into the kernel), and the `_const`
// check becomes a call of the `check` module comparing two buffer views,
// with the check's source location.
// RUN: %kiln-compile %s --output-format=mlir | FileCheck %s

// CHECK-DAG: vm.import @hal.allocator.allocate.initialized(!vm.ref<!hal.allocator>, !vm.ref<!vm.buffer>) -> !vm.ref<!hal.buffer>
// CHECK-DAG: vm.import @check.expect_eq(!vm.ref<!hal.device>, !vm.ref<!hal.buffer_view>, !vm.ref<!hal.buffer_view>, !vm.ref<!vm.buffer>) -> ()
// CHECK: vm.func @doubled()
func.func @doubled() {
  // CHECK: %[[DATA:.+]] = vm.const.ref.rodata @__constant
  // CHECK: %[[INPUT:.+]] = vm.call.import @hal.allocator.allocate.initialized(%{{.+}}, %[[DATA]])
  // CHECK: %[[OUTPUT:.+]] = vm.call.import @hal.allocator.allocate(
  // CHECK: vm.call.import @hal.device.queue.execute.indirect({{.+}}, %[[INPUT]], %[[OUTPUT]])
  %a = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %sum = arith.addi %a, %a : tensor<4xi32>
  // CHECK: %[[EXPECTED_DATA:.+]] = vm.const.ref.rodata @__constant_1
  // CHECK: %[[EXPECTED:.+]] = vm.call.import @hal.allocator.allocate.initialized(%{{.+}}, %[[EXPECTED_DATA]])
  // CHECK: %[[LHS:.+]] = vm.call.import @hal.buffer_view.create(%[[OUTPUT]],
  // CHECK: %[[RHS:.+]] = vm.call.import @hal.buffer_view.create(%[[EXPECTED]],
  // CHECK: %[[LOCATION:.+]] = vm.const.ref.rodata @[[STRING:__hal_string[_0-9]*]]
  // CHECK: vm.call.import @check.expect_eq(%{{.+}}, %[[LHS]], %[[RHS]], %[[LOCATION]])
  check.expect_eq_const(%sum, dense<[2, 4, 6, 8]> : tensor<4xi32>) : tensor<4xi32>
  return
}
// CHECK-DAG: vm.rodata @__constant dense<[1, 2, 3, 4]> : tensor<4xi32>
// CHECK-DAG: vm.rodata @__constant_1 dense<[2, 4, 6, 8]> : tensor<4xi32>
// CHECK-DAG: vm.rodata @[[STRING]] "{{.*}}check_harness.mlir:24:3"
