// The host-overhead smoke model: 3 x (Linear 1024 + bias + ReLU) on a static
// 256x1024 batch. Static shapes give the whole call one recorded command
// buffer (a CUDA graph replayed every call); the matmuls may go to cuBLASLt
// (a library call captured into a child graph), the bias and ReLU to a
// generated kernel. Weights and biases are arguments, uploaded once before
// timing, so a call is the program's own work only:
//
//   kiln-benchmark-module --module=mlp.kmod --device=cuda --function=mlp \
//     --input=256x1024xf32=1 --input=1024x1024xf32=0.001 --input=1024xf32=0.5 \
//     --input=1024x1024xf32=0.001 --input=1024xf32=0.5 \
//     --input=1024x1024xf32=0.001 --input=1024xf32=0.5
func.func @mlp(%x: tensor<256x1024xf32>,
               %w0: tensor<1024x1024xf32>, %b0: tensor<1024xf32>,
               %w1: tensor<1024x1024xf32>, %b1: tensor<1024xf32>,
               %w2: tensor<1024x1024xf32>, %b2: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %h0 = call @layer(%x, %w0, %b0) : (tensor<256x1024xf32>, tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<256x1024xf32>
  %h1 = call @layer(%h0, %w1, %b1) : (tensor<256x1024xf32>, tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<256x1024xf32>
  %h2 = call @layer(%h1, %w2, %b2) : (tensor<256x1024xf32>, tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<256x1024xf32>
  return %h2 : tensor<256x1024xf32>
}

func.func private @layer(%x: tensor<256x1024xf32>, %w: tensor<1024x1024xf32>,
                         %b: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x1024xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<256x1024xf32>, tensor<1024x1024xf32>)
                      outs(%init : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<256x1024xf32>, tensor<1024xf32>) outs(%empty : tensor<256x1024xf32>) {
  ^bb0(%v: f32, %bias: f32, %out: f32):
    %s = arith.addf %v, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}
