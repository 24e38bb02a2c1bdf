// insert_argmax.mlir with the maximum planted at the last element, 131071.
// On a GPU the workgroup's threads share the argmax (a reduction of two
// results): each of 128 lanes scans 1024 elements. A single thread looping
// over all 131072 would not do on lavapipe, which stops every shader loop
// after 65535 iterations (Mesa's LP_MAX_TGSI_LOOP_ITERATIONS): the index
// would stay 0.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-check-module --device=%device --module=%t.kmod | FileCheck %s --check-prefix=CHECKS

// CHECKS: [ RUN      ] module.argmax_1d_static
// CHECKS-NEXT: [       OK ] module.argmax_1d_static
// CHECKS: [ RUN      ] module.argmax_1d_dynamic
// CHECKS-NEXT: [       OK ] module.argmax_1d_dynamic
// CHECKS: [  PASSED  ] 2 tests.

func.func private @argmax(%input: tensor<131072xf32>) -> tensor<i32> {
  %lowest = arith.constant -3.40282347E+38 : f32
  %c0 = arith.constant 0 : i32
  %value_empty = tensor.empty() : tensor<f32>
  %value_init = linalg.fill ins(%lowest : f32) outs(%value_empty : tensor<f32>) -> tensor<f32>
  %index_empty = tensor.empty() : tensor<i32>
  %index_init = linalg.fill ins(%c0 : i32) outs(%index_empty : tensor<i32>) -> tensor<i32>
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]}
      ins(%input : tensor<131072xf32>) outs(%value_init, %index_init : tensor<f32>, tensor<i32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %i = linalg.index 0 : index
    %i32 = arith.index_cast %i : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %i32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<f32>, tensor<i32>)
  return %r#1 : tensor<i32>
}

func.func @argmax_1d_static() {
  %zero = arith.constant 0.0 : f32
  %large = arith.constant 1.0 : f32
  %empty = tensor.empty() : tensor<131072xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%empty : tensor<131072xf32>) -> tensor<131072xf32>
  %index = arith.constant 131071 : index
  %input = tensor.insert %large into %filled[%index] : tensor<131072xf32>
  %result = call @argmax(%input) : (tensor<131072xf32>) -> tensor<i32>
  check.expect_eq_const(%result, dense<131071> : tensor<i32>) : tensor<i32>
  return
}

func.func @argmax_1d_dynamic() {
  %zero = arith.constant 0.0 : f32
  %large = arith.constant 1.0 : f32
  %empty = tensor.empty() : tensor<131072xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%empty : tensor<131072xf32>) -> tensor<131072xf32>
  %index = util.unfoldable_constant 131071 : index
  %input = tensor.insert %large into %filled[%index] : tensor<131072xf32>
  %result = call @argmax(%input) : (tensor<131072xf32>) -> tensor<i32>
  check.expect_eq_const(%result, dense<131071> : tensor<i32>) : tensor<i32>
  return
}

