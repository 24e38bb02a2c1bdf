// linalg's named ops on tensors, each a generated kernel: transpose,
// broadcast, a 2-D convolution (NCHW/FCHW), batch matmul and integer
// elementwise ops, with values that tell every index apart.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=transpose --input="2x3xf32=1 2 3 4 5 6" | FileCheck %s --check-prefix=TRANSPOSE
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=broadcast --input="3xf32=1 2 3" | FileCheck %s --check-prefix=BROADCAST
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=conv --input="1x1x3x3xf32=1 2 3 4 5 6 7 8 9" --input="1x1x2x2xf32=1 0 0 1" | FileCheck %s --check-prefix=CONV
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=batch_matmul --input="2x2x2xf32=1 2 3 4 1 0 0 1" --input="2x2x2xf32=5 6 7 8 5 6 7 8" | FileCheck %s --check-prefix=BMM
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=ints --input="4xi32=1 -2 3 7" --input="4xi32=2 2 2 2" | FileCheck %s --check-prefix=INTS

func.func @transpose(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}
// TRANSPOSE: 3x2xf32=[1 4][2 5][3 6]

func.func @broadcast(%a: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %t = linalg.broadcast ins(%a : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0]
  return %t : tensor<2x3xf32>
}
// BROADCAST: 2x3xf32=[1 2 3][1 2 3]

func.func @conv(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) outs(%f : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %c : tensor<1x1x2x2xf32>
}
// The identity-diagonal 2x2 filter sums x[i][j] + x[i+1][j+1].
// CONV: 1x1x2x2xf32={{\[\[\[}}6 8][12 14]]]

func.func @batch_matmul(%a: tensor<2x2x2xf32>, %b: tensor<2x2x2xf32>) -> tensor<2x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<2x2x2xf32>, tensor<2x2x2xf32>) outs(%f : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  return %c : tensor<2x2x2xf32>
}
// [1 2; 3 4] x [5 6; 7 8] and the identity times the same.
// BMM: 2x2x2xf32={{\[\[}}19 22][43 50]]{{\[\[}}5 6][7 8]]

func.func @ints(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %c = arith.addi %a, %b : tensor<4xi32>
  %d = arith.muli %c, %c : tensor<4xi32>
  return %d : tensor<4xi32>
}
// INTS: 4xi32=9 0 25 81
