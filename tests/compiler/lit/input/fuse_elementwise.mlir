// RUN: %kiln-opt %s --split-input-file --kiln-fuse-elementwise | FileCheck %s

// Elementwise producers fuse into their elementwise consumers (the bias and
// the ReLU after a matmul become one op), but not into a contraction: the
// exp stays its own op, so that the matmul stays a matmul (a library can
// take it, and its generated kernel does not compute exp per output tile).

#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
// CHECK-LABEL: func.func @exp_matmul_bias_relu(
// CHECK: %[[EXP:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<8x16xf32>)
// CHECK: math.exp
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[EXP]], %{{.+}} : tensor<8x16xf32>, tensor<16x32xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[MM]], %{{.+}} : tensor<8x32xf32>, tensor<32xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @exp_matmul_bias_relu(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e16 = tensor.empty() : tensor<8x16xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%e16 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %e32 = tensor.empty() : tensor<8x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%exp, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<8x32xf32>, tensor<32xf32>) outs(%e32 : tensor<8x32xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %r = arith.addf %in, %bias : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%biased : tensor<8x32xf32>) outs(%e32 : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  return %relu : tensor<8x32xf32>
}

// -----

// A broadcast (a bias spread over a matmul's rows, as ONNX exporters write
// Gemm's bias) fuses into each of its consumers even with several uses: each
// epilogue reads the bias itself, and the broadcast tensor is gone. An exp
// of two uses stays its own op.

#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
// CHECK-LABEL: func.func @shared_bias(
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<32xf32>
// CHECK: %[[EXP:.+]] = linalg.generic
// CHECK: math.exp
// CHECK: %[[MM1:.+]] = linalg.matmul
// CHECK: %[[MM2:.+]] = linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%[[MM1]], %[[B]], %[[EXP]] : tensor<8x32xf32>, tensor<32xf32>, tensor<8x32xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[MM2]], %[[B]], %[[EXP]] : tensor<8x32xf32>, tensor<32xf32>, tensor<8x32xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @shared_bias(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<16x32xf32>, %b: tensor<32xf32>, %r: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e32 = tensor.empty() : tensor<8x32xf32>
  %spread = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<32xf32>) outs(%e32 : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x32xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<8x32xf32>) outs(%e32 : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm1 = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm2 = linalg.matmul ins(%x, %w2 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y1 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm1, %spread, %exp : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>) outs(%e32 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    %t = arith.addf %s, %d : f32
    linalg.yield %t : f32
  } -> tensor<8x32xf32>
  %y2 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm2, %spread, %exp : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>) outs(%e32 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    %t = arith.addf %s, %d : f32
    linalg.yield %t : f32
  } -> tensor<8x32xf32>
  return %y1, %y2 : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// Reshape fusion rewrites a named batch_matmul whose result is expanded
// into a generic on the expanded shape; its kiln.library choice goes with
// it (a matmul marked "none" keeps its generated kernel).
// CHECK-LABEL: func.func @library_choice_through_reshape
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: attrs = {kiln.library = "none"}
// CHECK-NOT: linalg.batch_matmul
func.func @library_choice_through_reshape(%x: tensor<4x32x16xf32>, %w: tensor<4x16x32xf32>) -> tensor<1x4x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %mm = linalg.batch_matmul {kiln.library = "none"} ins(%x, %w : tensor<4x32x16xf32>, tensor<4x16x32xf32>) outs(%f : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %r = tensor.expand_shape %mm [[0, 1], [2], [3]] output_shape [1, 4, 32, 32] : tensor<4x32x32xf32> into tensor<1x4x32x32xf32>
  return %r : tensor<1x4x32x32xf32>
}
