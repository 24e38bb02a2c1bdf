// A program that reads external parameters (scope "model") in its
// initializer: x * W + b with W and b from a safetensors file.
util.global private @weight = #flow.parameter.named<"model"::"fc.weight"> : tensor<2x3xf32>
util.global private @bias = #flow.parameter.named<"model"::"fc.bias"> : tensor<1x3xf32>

func.func @linear(%x: tensor<1x2xf32>) -> tensor<1x3xf32> {
  %w = util.global.load @weight : tensor<2x3xf32>
  %b = util.global.load @bias : tensor<1x3xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x3xf32>) -> tensor<1x3xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x3xf32>) outs(%init : tensor<1x3xf32>) -> tensor<1x3xf32>
  %sum = arith.addf %mm, %b : tensor<1x3xf32>
  return %sum : tensor<1x3xf32>
}
