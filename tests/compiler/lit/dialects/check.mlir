// The check dialect in IREE's spelling: each op prints as it parses.
// RUN: %kiln-opt %s | FileCheck %s
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @scalars
func.func @scalars(%flag: i32, %bit: i1) {
  // CHECK: check.expect_true(%{{.*}}) : i32
  check.expect_true(%flag) : i32
  // CHECK: check.expect_false(%{{.*}}) : i1
  check.expect_false(%bit) : i1
  return
}

// CHECK-LABEL: func.func @tensors
func.func @tensors(%a: tensor<2xf32>, %b: tensor<2xf32>, %i: tensor<2xi32>) {
  // CHECK: check.expect_eq(%{{.*}}, %{{.*}}) : tensor<2xf32>
  check.expect_eq(%a, %b) : tensor<2xf32>
  // CHECK: check.expect_eq_const(%{{.*}}, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  check.expect_eq_const(%i, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  // CHECK: check.expect_almost_eq(%{{.*}}, %{{.*}}, atol 2.500000e-01, rtol 1.250000e-01) : tensor<2xf32>
  check.expect_almost_eq(%a, %b, atol 2.5e-1, rtol 1.25e-1) : tensor<2xf32>
  // CHECK: check.expect_almost_eq(%{{.*}}, %{{.*}}) : tensor<2xf32>
  check.expect_almost_eq(%a, %b) : tensor<2xf32>
  // CHECK: check.expect_almost_eq_const(%{{.*}}, dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>, atol 5.000000e-01) : tensor<2xf32>
  check.expect_almost_eq_const(%a, dense<[1.0, 2.0]> : tensor<2xf32>, atol 0.5) : tensor<2xf32>
  // CHECK: check.expect_all_true(%{{.*}}) : tensor<2xi32>
  check.expect_all_true(%i) : tensor<2xi32>
  return
}

// IREE's optional device, and buffer views as comparables.
// CHECK-LABEL: func.func @devices_and_views
func.func @devices_and_views(%device: !hal.device, %a: !hal.buffer_view, %b: !hal.buffer_view, %t: tensor<2xf32>, %i: tensor<2xi32>) {
  // CHECK: check.expect_eq<%{{.*}}>(%{{.*}}, %{{.*}}) : !hal.buffer_view
  check.expect_eq<%device>(%a, %b) : !hal.buffer_view
  // CHECK: check.expect_eq(%{{.*}}, %{{.*}}) : !hal.buffer_view
  check.expect_eq(%a, %b) : !hal.buffer_view
  // CHECK: check.expect_almost_eq<%{{.*}}>(%{{.*}}, %{{.*}}, atol 1.000000e-01) : !hal.buffer_view
  check.expect_almost_eq<%device>(%a, %b, atol 0.1) : !hal.buffer_view
  // CHECK: check.expect_all_true<%{{.*}}>(%{{.*}}) : !hal.buffer_view
  check.expect_all_true<%device>(%a) : !hal.buffer_view
  // CHECK: check.expect_eq_const<%{{.*}}>(%{{.*}}, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  check.expect_eq_const<%device>(%i, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  // CHECK: check.expect_almost_eq_const<%{{.*}}>(%{{.*}}, dense<1.000000e+00> : tensor<2xf32>) : tensor<2xf32>
  check.expect_almost_eq_const<%device>(%t, dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  return
}
