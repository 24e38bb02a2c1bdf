// The `_const` forms canonicalize to the plain comparisons, the constant a
// util.unfoldable_constant: it reaches the runtime as data (a buffer filled
// from the module's rodata), not as something to fold into the producer.
// RUN: %kiln-opt %s --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @eq_const
// CHECK-SAME: (%[[A:.+]]: tensor<2xi32>, %[[DEVICE:.+]]: !hal.device)
func.func @eq_const(%a: tensor<2xi32>, %device: !hal.device) {
  // CHECK: %[[C:.+]] = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  // CHECK-NEXT: check.expect_eq(%[[A]], %[[C]]) : tensor<2xi32>
  check.expect_eq_const(%a, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  // The device stays.
  // CHECK: %[[D:.+]] = util.unfoldable_constant dense<7> : tensor<2xi32>
  // CHECK-NEXT: check.expect_eq<%[[DEVICE]]>(%[[A]], %[[D]]) : tensor<2xi32>
  check.expect_eq_const<%device>(%a, dense<7> : tensor<2xi32>) : tensor<2xi32>
  return
}

// CHECK-LABEL: func.func @almost_eq_const
// CHECK-SAME: (%[[A:.+]]: tensor<2xf32>)
func.func @almost_eq_const(%a: tensor<2xf32>) {
  // The tolerances stay (the defaults stay implicit).
  // CHECK: %[[C:.+]] = util.unfoldable_constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  // CHECK-NEXT: check.expect_almost_eq(%[[A]], %[[C]], atol 5.000000e-01, rtol 2.500000e-01) : tensor<2xf32>
  check.expect_almost_eq_const(%a, dense<[1.0, 2.0]> : tensor<2xf32>, atol 5.0e-01, rtol 2.5e-01) : tensor<2xf32>
  // CHECK: %[[D:.+]] = util.unfoldable_constant dense<3.000000e+00> : tensor<2xf32>
  // CHECK-NEXT: check.expect_almost_eq(%[[A]], %[[D]]) : tensor<2xf32>
  check.expect_almost_eq_const(%a, dense<3.0> : tensor<2xf32>) : tensor<2xf32>
  return
}

// Nothing folds the unfoldable constant into the comparison.
// CHECK-LABEL: func.func @stays
func.func @stays() {
  // CHECK: %[[A:.+]] = util.unfoldable_constant dense<1> : tensor<4xi32>
  // CHECK: %[[B:.+]] = util.unfoldable_constant dense<1> : tensor<4xi32>
  // CHECK: check.expect_eq(%[[A]], %[[B]]) : tensor<4xi32>
  %a = util.unfoldable_constant dense<1> : tensor<4xi32>
  check.expect_eq_const(%a, dense<1> : tensor<4xi32>) : tensor<4xi32>
  return
}
