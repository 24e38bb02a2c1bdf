// A max pooling and a convolution of padded inputs (tensor.pad with -inf and
// 0, as ONNX's MaxPool and Conv with pads import), on %device: the padded
// tensor is a dispatch of its own (--kiln-lower-tensor-pads); a max pooling
// whose fused pad read uninitialized elements on the CPU now sees -inf.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=max_pool --input="1x1x3x4xf32=1 -2 3 -4 -5 6 -7 8 9 -10 11 -12" | FileCheck %s --check-prefix=POOL --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=box_sum --input="1x1x3x3xf32=1 2 3 4 5 6 7 8 9" | FileCheck %s --check-prefix=SUM --match-full-lines

// 3x3 windows, stride 1, one row and column of -inf around: each output is the
// maximum of the input's 3x3 neighbourhood.
// POOL-LABEL: EXEC @max_pool
// POOL-NEXT: result[0]: hal.buffer_view
// POOL-NEXT: 1x1x3x4xf32={{\[\[\[}}6 6 8 8][9 11 11 11][9 11 11 11]]]
func.func @max_pool(%x: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x1x3x4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x1x3x4xf32> to tensor<1x1x5x6xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%p, %w : tensor<1x1x5x6xf32>, tensor<3x3xf32>) outs(%init : tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  return %r : tensor<1x1x3x4xf32>
}

// A 3x3 all-ones convolution with zero padding: the sum of each neighbourhood.
// SUM-LABEL: EXEC @box_sum
// SUM-NEXT: result[0]: hal.buffer_view
// SUM-NEXT: 1x1x3x3xf32={{\[\[\[}}12 21 16][27 45 33][24 39 28]]]
func.func @box_sum(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %ones = arith.constant dense<1.0> : tensor<1x1x3x3xf32>
  %e = tensor.empty() : tensor<1x1x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x1x3x3xf32> to tensor<1x1x5x5xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%p, %ones : tensor<1x1x5x5xf32>, tensor<1x1x3x3xf32>) outs(%init : tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %r : tensor<1x1x3x3xf32>
}
