// RUN: %kiln-opt %s --split-input-file --kiln-hal-bufferize-dispatches | FileCheck %s

// Tensor constants on the host: util.unfoldable_constant and
// flow.tensor.dynamic_constant become buffers filled from the module's data
// (hal.allocator.allocate.initialized, each time they run); the dims a
// dynamic constant hides pass through a util.optimization_barrier. Scalar
// unfoldable constants stay for the VM.

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<3xi32>, tensor<?x2xf32>, i32) {
  // CHECK: %[[DEVICE:.+]] = util.global.load immutable @__hal_device : !hal.device
  // CHECK: %[[ALLOCATOR:.+]] = hal.device.allocator<%[[DEVICE]] : !hal.device> : !hal.allocator
  // CHECK: %[[A:.+]] = hal.allocator.allocate.initialized<%[[ALLOCATOR]] : !hal.allocator> value(dense<[1, 2, 3]> : tensor<3xi32>) : !hal.buffer
  %a = util.unfoldable_constant dense<[1, 2, 3]> : tensor<3xi32>
  // CHECK: %[[D:.+]] = hal.allocator.allocate.initialized<%[[ALLOCATOR]] : !hal.allocator> value(dense<{{.+}}> : tensor<3x2xf32>) : !hal.buffer
  // CHECK: %[[C3:.+]] = arith.constant 3 : index
  // CHECK: %[[ROWS:.+]] = util.optimization_barrier %[[C3]] : index
  %d = flow.tensor.dynamic_constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> -> tensor<?x2xf32>
  // CHECK: %[[S:.+]] = util.unfoldable_constant 7 : i32
  %s = util.unfoldable_constant 7 : i32
  // CHECK: hal.buffer_view.create buffer(%[[A]] : !hal.buffer)
  // CHECK: hal.buffer_view.create buffer(%[[D]] : !hal.buffer) shape([%[[ROWS]], %{{.+}}])
  // CHECK: return %{{.+}}, %{{.+}}, %[[S]] : !hal.buffer_view, !hal.buffer_view, i32
  return %a, %d, %s : tensor<3xi32>, tensor<?x2xf32>, i32
}

// -----

// Comparisons of tensors compare their buffer views on the function's
// device (or the one the op names); the `_const` forms (left to
// canonicalization in the pipeline) compare with a constant buffer.

// CHECK-LABEL: func.func @checks
// CHECK-SAME: (%[[A:.+]]: !hal.buffer_view, %[[B:.+]]: !hal.buffer_view, %[[MINE:.+]]: !hal.device, %[[FLAG:.+]]: i32)
func.func @checks(%a: tensor<4xf32>, %b: tensor<4xf32>, %mine: !hal.device, %flag: i32) {
  // CHECK: %[[DEVICE:.+]] = util.global.load immutable @__hal_device : !hal.device
  // CHECK: check.expect_eq<%[[DEVICE]]>(%[[A]], %[[B]]) : !hal.buffer_view
  check.expect_eq(%a, %b) : tensor<4xf32>
  // CHECK: check.expect_almost_eq<%[[MINE]]>(%[[A]], %[[B]], atol 1.000000e-01, rtol 2.000000e-01) : !hal.buffer_view
  check.expect_almost_eq<%mine>(%a, %b, atol 1.0e-01, rtol 2.0e-01) : tensor<4xf32>
  // CHECK: %[[CONST:.+]] = hal.allocator.allocate.initialized<%{{.+}} : !hal.allocator> value(dense<1.000000e+00> : tensor<4xf32>) : !hal.buffer
  // CHECK: %[[VIEW:.+]] = hal.buffer_view.create buffer(%[[CONST]] : !hal.buffer)
  // CHECK: check.expect_eq<%[[DEVICE]]>(%[[A]], %[[VIEW]]) : !hal.buffer_view
  check.expect_eq_const(%a, dense<1.0> : tensor<4xf32>) : tensor<4xf32>
  // CHECK: check.expect_almost_eq<%[[DEVICE]]>(%[[A]], %{{.+}}, atol 5.000000e-01) : !hal.buffer_view
  check.expect_almost_eq_const(%a, dense<2.0> : tensor<4xf32>, atol 5.0e-01) : tensor<4xf32>
  // CHECK: check.expect_true(%[[FLAG]]) : i32
  check.expect_true(%flag) : i32
  return
}

// -----

// Buffer views given without a device get the function's.

// CHECK-LABEL: func.func @views
func.func @views(%a: !hal.buffer_view, %i: tensor<2xi32>) {
  // CHECK: %[[DEVICE:.+]] = util.global.load immutable @__hal_device : !hal.device
  // CHECK: check.expect_eq<%[[DEVICE]]>(%{{.+}}, %{{.+}}) : !hal.buffer_view
  check.expect_eq(%a, %a) : !hal.buffer_view
  // CHECK: check.expect_all_true<%[[DEVICE]]>(%{{.+}}) : !hal.buffer_view
  check.expect_all_true(%i) : tensor<2xi32>
  return
}
