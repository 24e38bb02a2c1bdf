// A check test with failing expectations: each failure is printed with the
// check's source location and both tensors, the function goes on (EXPECT
// semantics: the second failure of @two_failures is reported too), the test
// fails, the others still run, and kiln-check-module exits 1.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: not %kiln-check-module --device=%device --module=%t.kmod | FileCheck %s

// CHECK: [==========] Running 5 tests from module 'checks'.
module @checks {

// CHECK-NEXT: [ RUN      ] checks.two_failures
func.func @two_failures() {
  %a = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %sum = arith.addi %a, %a : tensor<4xi32>
  // CHECK-NEXT: failing.mlir:[[@LINE+1]]:3: Failure
  check.expect_eq_const(%sum, dense<[2, 4, 7, 8]> : tensor<4xi32>) : tensor<4xi32>
  // CHECK-NEXT: expect_eq failed: element [2]: expected 7 but got 6
  // CHECK-NEXT:   lhs: 4xi32=2 4 6 8
  // CHECK-NEXT:   rhs: 4xi32=2 4 7 8
  %zero = util.unfoldable_constant 0 : i32
  // CHECK-NEXT: failing.mlir:[[@LINE+1]]:3: Failure
  check.expect_true(%zero) : i32
  // CHECK-NEXT: expect_true failed: the operand is 0
  return
}
// CHECK-NEXT: [  FAILED  ] checks.two_failures

// CHECK-NEXT: [ RUN      ] checks.passes
// CHECK-NEXT: [       OK ] checks.passes
func.func @passes() {
  %one = util.unfoldable_constant 1 : i32
  check.expect_true(%one) : i32
  return
}

// CHECK-NEXT: [ RUN      ] checks.tolerance
func.func @tolerance() {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %square = arith.mulf %a, %a : tensor<2xf32>
  // CHECK-NEXT: failing.mlir:[[@LINE+1]]:3: Failure
  check.expect_almost_eq_const(%square, dense<[1.0, 4.01]> : tensor<2xf32>, atol 1.0e-03) : tensor<2xf32>
  // CHECK-NEXT: expect_almost_eq (atol 0.001, rtol 0) failed: element [1]: expected 4.01 but got 4
  // CHECK-NEXT:   lhs: 2xf32=1 4
  // CHECK-NEXT:   rhs: 2xf32=1 4.01
  return
}
// CHECK-NEXT: [  FAILED  ] checks.tolerance

// Shapes the compiler cannot see differ at run time.
// CHECK-NEXT: [ RUN      ] checks.shape_mismatch
func.func @shape_mismatch() {
  %a = flow.tensor.dynamic_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32> -> tensor<?xf32>
  %b = flow.tensor.dynamic_constant dense<[1.0, 2.0]> : tensor<2xf32> -> tensor<?xf32>
  // CHECK-NEXT: failing.mlir:[[@LINE+1]]:3: Failure
  check.expect_eq(%a, %b) : tensor<?xf32>
  // CHECK-NEXT: expect_eq failed: shapes differ (3xf32 vs 2xf32)
  // CHECK-NEXT:   lhs: 3xf32=1 2 3
  // CHECK-NEXT:   rhs: 2xf32=1 2
  return
}
// CHECK-NEXT: [  FAILED  ] checks.shape_mismatch

// CHECK-NEXT: [ RUN      ] checks.false_and_all_true
func.func @false_and_all_true() {
  %one = util.unfoldable_constant 1 : i32
  %m = util.unfoldable_constant dense<[[1, 2], [0, 4]]> : tensor<2x2xi32>
  // CHECK-NEXT: failing.mlir:[[@LINE+1]]:3: Failure
  check.expect_false(%one) : i32
  // CHECK-NEXT: expect_false failed: the operand is 1
  // CHECK-NEXT: failing.mlir:[[@LINE+1]]:3: Failure
  check.expect_all_true(%m) : tensor<2x2xi32>
  // CHECK-NEXT: expect_all_true failed: element [1, 0] is 0
  // CHECK-NEXT:   operand: 2x2xi32=[1 2][0 4]
  return
}
// CHECK-NEXT: [  FAILED  ] checks.false_and_all_true
// CHECK-NEXT: [==========] 5 tests ran.
// CHECK-NEXT: [  PASSED  ] 1 test.
// CHECK-NEXT: [  FAILED  ] 4 tests, listed below:
// CHECK-NEXT: [  FAILED  ] checks.two_failures
// CHECK-NEXT: [  FAILED  ] checks.tolerance
// CHECK-NEXT: [  FAILED  ] checks.shape_mismatch
// CHECK-NEXT: [  FAILED  ] checks.false_and_all_true

}
