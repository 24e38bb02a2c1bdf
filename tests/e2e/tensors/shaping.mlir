// Tensor ops that slice, reshape, pad and assemble tensors: they join the
// dispatch of the op that reads them (views of its bindings inside the
// kernel), and a generated copy writes those the host returns.
// The GPU targets cannot yet place a pad's, a concat's or a splat's
// intermediate (compiler/targets/gpu handles intermediates that linalg ops
// alone touch): cpu only for now.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=slice_scale --input="3x4xf32=1 2 3 4 5 6 7 8 9 10 11 12" --input=f32=2 | FileCheck %s --check-prefix=SLICE
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=reshape --input="6xf32=-1 2 -3 4 -5 6" | FileCheck %s --check-prefix=RESHAPE
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=reshape_only --input="6xf32=1 2 3 4 5 6" | FileCheck %s --check-prefix=RESHAPE-ONLY
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=pad --input="2x2xf32=1 2 3 4" | FileCheck %s --check-prefix=PAD
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=concat --input="2xf32=1 2" --input="3xf32=3 4 5" | FileCheck %s --check-prefix=CONCAT

// Rows 1-2, every other column, scaled by a splat of %s.
func.func @slice_scale(%a: tensor<?x?xf32>, %s: f32) -> tensor<?x?xf32> {
  %c2 = arith.constant 2 : index
  %sl = tensor.extract_slice %a[1, 0] [%c2, %c2] [1, 2] : tensor<?x?xf32> to tensor<?x?xf32>
  %sp = tensor.splat %s[%c2, %c2] : tensor<?x?xf32>
  %r = arith.mulf %sl, %sp : tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
// SLICE: 2x2xf32=[10 14][18 22]

func.func @reshape(%a: tensor<6xf32>) -> tensor<2x3xf32> {
  %e = tensor.expand_shape %a [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  %r = math.absf %e : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
// RESHAPE: 2x3xf32=[1 2 3][4 5 6]

func.func @reshape_only(%a: tensor<6xf32>) -> tensor<3x2xf32> {
  %e = tensor.expand_shape %a [[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
  return %e : tensor<3x2xf32>
}
// RESHAPE-ONLY: 3x2xf32=[1 2][3 4][5 6]

func.func @pad(%a: tensor<2x2xf32>) -> tensor<4x3xf32> {
  %nine = arith.constant 9.0 : f32
  %p = tensor.pad %a low[1, 0] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %nine : f32
  } : tensor<2x2xf32> to tensor<4x3xf32>
  return %p : tensor<4x3xf32>
}
// PAD: 4x3xf32=[9 9 9][1 2 9][3 4 9][9 9 9]

func.func @concat(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<5xf32> {
  %c = tensor.concat dim(0) %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>
  return %c : tensor<5xf32>
}
// CONCAT: 5xf32=1 2 3 4 5
