// RUN: %kiln-opt %s --split-input-file --kiln-convolutions-to-matmuls | FileCheck %s
// RUN: %kiln-opt %s --split-input-file --kiln-convolutions-to-matmuls="im2col-max-pixels=0" | FileCheck %s --check-prefix=POINTWISE
// RUN: %kiln-opt %s --split-input-file --kiln-convolutions-to-matmuls --kiln-form-dispatches=library-calls=true --kiln-select-library-calls | FileCheck %s --check-prefix=CALLS

// A 1x1 convolution of stride 1 is a matmul of the filter (collapsed to
// KxC) and the image as stored: (n, k, h, w, c), the pixels one group.

// CHECK-DAG: #[[FILTER:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4)>
// CHECK-DAG: #[[IMAGE:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2, d3)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:.+]]: tensor<1x64x14x14xf32>, %[[W:.+]]: tensor<128x64x1x1xf32>)
// CHECK: %[[INIT:.+]] = linalg.fill
// CHECK: %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<128x64x1x1xf32> into tensor<128x64xf32>
// CHECK: linalg.generic {indexing_maps = [#[[FILTER]], #[[IMAGE]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[WC]], %[[X]] : tensor<128x64xf32>, tensor<1x64x14x14xf32>) outs(%[[INIT]] : tensor<1x128x14x14xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// POINTWISE-LABEL: func.func @pointwise
// POINTWISE-NOT: linalg.conv_2d_nchw_fchw
// CALLS: kiln.library_call = {{{.*}}batch_count = 1{{.*}}k = 64 : i64, kind = "matmul", m = 128 : i64, n = 196 : i64
func.func @pointwise(%x: tensor<1x64x14x14xf32>, %w: tensor<128x64x1x1xf32>) -> tensor<1x128x14x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x128x14x14xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128x14x14xf32>) -> tensor<1x128x14x14xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x14x14xf32>, tensor<128x64x1x1xf32>) outs(%init : tensor<1x128x14x14xf32>) -> tensor<1x128x14x14xf32>
  return %y : tensor<1x128x14x14xf32>
}

// -----

// A strided 3x3 convolution with dilation (2x5 output pixels): im2col
// copies each (c, r, s) window position's pixels into xc[n, c, r, s, p, q],
// then the filter multiplies it with (c, r, s) the reduction.

// CHECK-DAG: #[[WINDOW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2 * 2, d5 + d3 * 3)>
// CHECK-DAG: #[[COLUMNS:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[FILTER:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[COLUMNS_IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d5, d6, d2, d3)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @strided
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x9x11xf32>, %[[W:.+]]: tensor<8x4x3x3xf32>)
// CHECK: %[[INIT:.+]] = linalg.fill
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<1x4x3x3x2x5xf32>
// CHECK: %[[XC:.+]] = linalg.generic {indexing_maps = [#[[WINDOW]], #[[COLUMNS]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<1x4x9x11xf32>) outs(%[[EMPTY]] : tensor<1x4x3x3x2x5xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[FILTER]], #[[COLUMNS_IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[W]], %[[XC]] : tensor<8x4x3x3xf32>, tensor<1x4x3x3x2x5xf32>) outs(%[[INIT]] : tensor<1x8x2x5xf32>)
// CHECK-SAME: kiln.library = "always"
// Beyond im2col-max-pixels the convolution stays.
// POINTWISE-LABEL: func.func @strided
// POINTWISE: linalg.conv_2d_nchw_fchw
// CALLS: kiln.library_call = {{{.*}}k = 36 : i64, kind = "matmul", m = 8 : i64, n = 10 : i64
func.func @strided(%x: tensor<1x4x9x11xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x2x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x2x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x2x5xf32>) -> tensor<1x8x2x5xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 3]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>, kiln.library = "always"} ins(%x, %w : tensor<1x4x9x11xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x2x5xf32>) -> tensor<1x8x2x5xf32>
  return %y : tensor<1x8x2x5xf32>
}

// -----

// Convolutions a library would not take stay: marked "none" and too small
// (under kMinLibraryWork multiply-adds). The third (900 output pixels)
// becomes a matmul by default (every convolution), and stays one with
// im2col-max-pixels=0.

// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: tensor<1x16x3x3x30x30xf32>
// POINTWISE-LABEL: func.func @kept
// POINTWISE-COUNT-3: linalg.conv_2d_nchw_fchw
func.func @kept(%x: tensor<1x64x14x14xf32>, %w: tensor<128x64x1x1xf32>, %small_x: tensor<1x2x4x4xf32>, %small_w: tensor<2x2x1x1xf32>, %big_x: tensor<1x16x32x32xf32>, %big_w: tensor<16x16x3x3xf32>) -> (tensor<1x128x14x14xf32>, tensor<1x2x4x4xf32>, tensor<1x16x30x30xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x128x14x14xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128x14x14xf32>) -> tensor<1x128x14x14xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, kiln.library = "none"} ins(%x, %w : tensor<1x64x14x14xf32>, tensor<128x64x1x1xf32>) outs(%init : tensor<1x128x14x14xf32>) -> tensor<1x128x14x14xf32>
  %se = tensor.empty() : tensor<1x2x4x4xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%se : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %sy = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%small_x, %small_w : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) outs(%sinit : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %be = tensor.empty() : tensor<1x16x30x30xf32>
  %binit = linalg.fill ins(%zero : f32) outs(%be : tensor<1x16x30x30xf32>) -> tensor<1x16x30x30xf32>
  %by = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%big_x, %big_w : tensor<1x16x32x32xf32>, tensor<16x16x3x3xf32>) outs(%binit : tensor<1x16x30x30xf32>) -> tensor<1x16x30x30xf32>
  return %y, %sy, %by : tensor<1x128x14x14xf32>, tensor<1x2x4x4xf32>, tensor<1x16x30x30xf32>
}

// -----

// A convolution of a zero padding: im2col reads the unpadded image at
// p * 2 + r - 1 (q * 2 + s - 1), zero where that is outside it; the padded
// copy is not read (and goes with the next canonicalization). Each
// coordinate read is clamped by its own bound (h by h's, w by w's), the
// value by both.

// CHECK-LABEL: func.func @padded
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x7x7xf32>
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<1x4x3x3x4x4xf32>
// CHECK: %[[XC:.+]] = linalg.generic {{.*}} outs(%[[EMPTY]] : tensor<1x4x3x3x4x4xf32>)
// CHECK-DAG: linalg.index 2 : index
// CHECK-DAG: linalg.index 4 : index
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: %[[IN_H:.+]] = arith.andi
// CHECK: %[[IN_W:.+]] = arith.andi
// CHECK: %[[IN:.+]] = arith.andi %[[IN_H]], %[[IN_W]] : i1
// CHECK: %[[H:.+]] = arith.select %[[IN_H]], %{{.+}}, %{{.+}} : index
// CHECK: %[[W:.+]] = arith.select %[[IN_W]], %{{.+}}, %{{.+}} : index
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%{{.+}}, %{{.+}}, %[[H]], %[[W]]]
// CHECK: arith.select %[[IN]], %[[V]], %{{.+}} : f32
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[XC]] : tensor<8x4x3x3xf32>, tensor<1x4x3x3x4x4xf32>)
// CALLS: kiln.library_call = {{{.*}}k = 36 : i64, kind = "matmul", m = 8 : i64, n = 16 : i64
func.func @padded(%x: tensor<1x4x7x7xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x7x7xf32> to tensor<1x4x9x9xf32>
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, kiln.library = "always"} ins(%padded, %w : tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}
