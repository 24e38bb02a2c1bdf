// A check test whose every expectation holds: kiln-check-module runs each
// function without arguments or results as one test, prints googletest's
// lines and exits 0. The values come from util.unfoldable_constant (data the
// compiler cannot fold into the kernels) and flow.tensor.dynamic_constant
// (a shape the compiler cannot see).
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-check-module --device=%device --module=%t.kmod | FileCheck %s

// CHECK: [==========] Running 7 tests from module 'module'.

// CHECK-NEXT: [ RUN      ] module.add_i32
// CHECK-NEXT: [       OK ] module.add_i32
func.func @add_i32() {
  %a = util.unfoldable_constant dense<[3, -7, 11, 100]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[1, 7, -20, 5]> : tensor<4xi32>
  %sum = arith.addi %a, %b : tensor<4xi32>
  check.expect_eq_const(%sum, dense<[4, 0, -9, 105]> : tensor<4xi32>) : tensor<4xi32>
  %expected = util.unfoldable_constant dense<[4, 0, -9, 105]> : tensor<4xi32>
  check.expect_eq(%sum, %expected) : tensor<4xi32>
  return
}

// CHECK-NEXT: [ RUN      ] module.scale_f32
// CHECK-NEXT: [       OK ] module.scale_f32
func.func @scale_f32() {
  %a = util.unfoldable_constant dense<[[0.5, 1.5, -2.0], [3.0, 0.25, 8.0]]> : tensor<2x3xf32>
  %b = util.optimization_barrier %a : tensor<2x3xf32>
  %twice = arith.addf %b, %b : tensor<2x3xf32>
  // Exact: doubling is exact in binary floating point.
  check.expect_eq_const(%twice, dense<[[1.0, 3.0, -4.0], [6.0, 0.5, 16.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  // Within the default atol (1e-4), then within an explicit rtol.
  check.expect_almost_eq_const(%twice, dense<[[1.00005, 3.0, -4.0], [6.0, 0.5, 16.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  check.expect_almost_eq_const(%twice, dense<[[1.0, 3.0, -4.0], [6.0, 0.5, 16.001]]> : tensor<2x3xf32>, atol 0.0, rtol 1.0e-04) : tensor<2x3xf32>
  %expected = util.unfoldable_constant dense<[[1.0, 3.0, -4.0], [6.0, 0.5, 16.02]]> : tensor<2x3xf32>
  check.expect_almost_eq(%twice, %expected, atol 1.0e-01) : tensor<2x3xf32>
  return
}

// CHECK-NEXT: [ RUN      ] module.scalars
// CHECK-NEXT: [       OK ] module.scalars
func.func @scalars() {
  %one = util.unfoldable_constant 1 : i32
  %zero = util.unfoldable_constant 0 : i32
  check.expect_true(%one) : i32
  check.expect_false(%zero) : i32
  %big = util.unfoldable_constant 4294967296 : i64
  check.expect_true(%big) : i64
  return
}

// CHECK-NEXT: [ RUN      ] module.all_true
// CHECK-NEXT: [       OK ] module.all_true
func.func @all_true() {
  %a = util.unfoldable_constant dense<[1, -1, 7]> : tensor<3xi32>
  %b = util.unfoldable_constant dense<[1, 0, 7]> : tensor<3xi32>
  %ne = arith.cmpi ne, %a, %b : tensor<3xi32>
  %ones = util.unfoldable_constant dense<1> : tensor<3xi32>
  check.expect_all_true(%ones) : tensor<3xi32>
  check.expect_eq_const(%ne, dense<[false, true, false]> : tensor<3xi1>) : tensor<3xi1>
  return
}

// Constants of every element type reach the runtime bit for bit.
// CHECK-NEXT: [ RUN      ] module.element_types
// CHECK-NEXT: [       OK ] module.element_types
func.func @element_types() {
  %i1 = util.unfoldable_constant dense<[true, false]> : tensor<2xi1>
  check.expect_eq_const(%i1, dense<[true, false]> : tensor<2xi1>) : tensor<2xi1>
  %i8 = util.unfoldable_constant dense<[-128, 127]> : tensor<2xi8>
  check.expect_eq_const(%i8, dense<[-128, 127]> : tensor<2xi8>) : tensor<2xi8>
  %i16 = util.unfoldable_constant dense<[-32768, 32767]> : tensor<2xi16>
  check.expect_eq_const(%i16, dense<[-32768, 32767]> : tensor<2xi16>) : tensor<2xi16>
  %i64 = util.unfoldable_constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
  check.expect_eq_const(%i64, dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>) : tensor<2xi64>
  %f16 = util.unfoldable_constant dense<[0.5, -65504.0]> : tensor<2xf16>
  check.expect_almost_eq_const(%f16, dense<[0.5, -65504.0]> : tensor<2xf16>) : tensor<2xf16>
  %bf16 = util.unfoldable_constant dense<[0.5, 3.0e38]> : tensor<2xbf16>
  check.expect_eq_const(%bf16, dense<[0.5, 3.0e38]> : tensor<2xbf16>) : tensor<2xbf16>
  %f64 = util.unfoldable_constant dense<[0.1, -1.0e300]> : tensor<2xf64>
  check.expect_almost_eq_const(%f64, dense<[0.1, -1.0e300]> : tensor<2xf64>, atol 0.0) : tensor<2xf64>
  // NaN is almost equal to NaN (and exactly equal to the same NaN).
  %nan = util.unfoldable_constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  check.expect_almost_eq_const(%nan, dense<[0x7FC00000, 1.0]> : tensor<2xf32>) : tensor<2xf32>
  check.expect_eq_const(%nan, dense<[0x7FC00000, 1.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}

// A dynamic shape the compiler cannot see through: tensor.dim reads it at
// run time.
// CHECK-NEXT: [ RUN      ] module.dynamic_shape
// CHECK-NEXT: [       OK ] module.dynamic_shape
func.func @dynamic_shape() {
  %a = flow.tensor.dynamic_constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> -> tensor<?x2xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %a, %c0 : tensor<?x2xf32>
  %rows_i32 = arith.index_cast %rows : index to i32
  %three = arith.constant 3 : i32
  %is_three = arith.cmpi eq, %rows_i32, %three : i32
  %flag = arith.extui %is_three : i1 to i32
  check.expect_true(%flag) : i32
  %doubled = arith.addf %a, %a : tensor<?x2xf32>
  %expected = flow.tensor.dynamic_constant dense<[[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]]> : tensor<3x2xf32> -> tensor<?x2xf32>
  check.expect_eq(%doubled, %expected) : tensor<?x2xf32>
  return
}

// A function with arguments or results is not a test.
func.func @not_a_test(%x: i32) -> i32 {
  return %x : i32
}

// CHECK-NEXT: [ RUN      ] module.no_checks
// CHECK-NEXT: [       OK ] module.no_checks
// CHECK-NEXT: [==========] 7 tests ran.
// CHECK-NEXT: [  PASSED  ] 7 tests.
// CHECK-NOT: FAILED
func.func @no_checks() {
  return
}
