// A function with a dynamic shape: 3 x (Linear 1024 + ReLU) on a batch of
// any size. Every call records a one-shot command buffer (the shapes, and
// so the dispatches' sizes, are known only then); on CUDA its graph comes
// from the device's graph cache when a call of the same structure ran
// before (run_dynamic_shape_benchmarks.sh compares --cuda_graph_cache).
func.func @mlp(%x: tensor<?x1024xf32>, %w0: tensor<1024x1024xf32>, %w1: tensor<1024x1024xf32>,
               %w2: tensor<1024x1024xf32>, %b: tensor<1024xf32>) -> tensor<?x1024xf32> {
  %h0 = call @layer(%x, %w0, %b) : (tensor<?x1024xf32>, tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<?x1024xf32>
  %h1 = call @layer(%h0, %w1, %b) : (tensor<?x1024xf32>, tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<?x1024xf32>
  %h2 = call @layer(%h1, %w2, %b) : (tensor<?x1024xf32>, tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<?x1024xf32>
  return %h2 : tensor<?x1024xf32>
}

func.func private @layer(%x: tensor<?x1024xf32>, %w: tensor<1024x1024xf32>, %b: tensor<1024xf32>) -> tensor<?x1024xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x1024xf32>
  %empty = tensor.empty(%n) : tensor<?x1024xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x1024xf32>, tensor<1024x1024xf32>) outs(%init : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x1024xf32>, tensor<1024xf32>) outs(%empty : tensor<?x1024xf32>) {
  ^bb0(%v: f32, %bias: f32, %out: f32):
    %s = arith.addf %v, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}
