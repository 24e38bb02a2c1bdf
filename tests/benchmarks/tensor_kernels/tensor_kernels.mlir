// The generated kernels that issue 14's speed floor measures (see
// run_tensor_benchmarks.py, which times them against PyTorch and numpy
// doing the same work):
//   @chain4     4 elementwise ops over 64M f32, fused into one dispatch: a
//               memory-bound kernel, compared with the device's copy bandwidth
//   @softmax    softmax over the last dimension of 12x128x128
//   @layernorm  layer normalization over the last dimension of 128x384 with
//               a scale and a bias (eps 1e-5), as torch.nn.functional.layer_norm
//   @chain4_cpu the chain over 16M f32, for the CPU against numpy

// relu(x * 2 + 1) - 0.5
func.func @chain4(%x: tensor<67108864xf32>) -> tensor<67108864xf32> {
  %two = arith.constant dense<2.0> : tensor<67108864xf32>
  %one = arith.constant dense<1.0> : tensor<67108864xf32>
  %zero = arith.constant dense<0.0> : tensor<67108864xf32>
  %half = arith.constant dense<0.5> : tensor<67108864xf32>
  %0 = arith.mulf %x, %two : tensor<67108864xf32>
  %1 = arith.addf %0, %one : tensor<67108864xf32>
  %2 = arith.maximumf %1, %zero : tensor<67108864xf32>
  %3 = arith.subf %2, %half : tensor<67108864xf32>
  return %3 : tensor<67108864xf32>
}

func.func @chain4_cpu(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %two = arith.constant dense<2.0> : tensor<16777216xf32>
  %one = arith.constant dense<1.0> : tensor<16777216xf32>
  %zero = arith.constant dense<0.0> : tensor<16777216xf32>
  %half = arith.constant dense<0.5> : tensor<16777216xf32>
  %0 = arith.mulf %x, %two : tensor<16777216xf32>
  %1 = arith.addf %0, %one : tensor<16777216xf32>
  %2 = arith.maximumf %1, %zero : tensor<16777216xf32>
  %3 = arith.subf %2, %half : tensor<16777216xf32>
  return %3 : tensor<16777216xf32>
}

func.func @softmax(%x: tensor<12x128x128xf32>) -> tensor<12x128x128xf32> {
  %e = tensor.empty() : tensor<12x128x128xf32>
  %r = linalg.softmax dimension(2) ins(%x : tensor<12x128x128xf32>)
                                   outs(%e : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %r : tensor<12x128x128xf32>
}

#rows = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @layernorm(%x: tensor<128x384xf32>, %scale: tensor<384xf32>, %bias: tensor<384xf32>)
    -> tensor<128x384xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 384.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x384xf32>) outs(%acc : tensor<128xf32>) {
    ^bb0(%v: f32, %a: f32):
      %s = arith.addf %v, %a : f32
      linalg.yield %s : f32
    } -> tensor<128xf32>
  %e2 = tensor.empty() : tensor<128x384xf32>
  %centered = linalg.generic {indexing_maps = [#rows, #row, #rows],
                              iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<128x384xf32>, tensor<128xf32>) outs(%e2 : tensor<128x384xf32>) {
    ^bb0(%v: f32, %s: f32, %o: f32):
      %mean = arith.divf %s, %n : f32
      %c = arith.subf %v, %mean : f32
      linalg.yield %c : f32
    } -> tensor<128x384xf32>
  %var = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%centered : tensor<128x384xf32>) outs(%acc : tensor<128xf32>) {
    ^bb0(%c: f32, %a: f32):
      %sq = arith.mulf %c, %c : f32
      %s = arith.addf %sq, %a : f32
      linalg.yield %s : f32
    } -> tensor<128xf32>
  %out = linalg.generic {indexing_maps = [#rows, #row, #col, #col, #rows],
                         iterator_types = ["parallel", "parallel"]}
      ins(%centered, %var, %scale, %bias : tensor<128x384xf32>, tensor<128xf32>, tensor<384xf32>,
          tensor<384xf32>) outs(%e2 : tensor<128x384xf32>) {
    ^bb0(%c: f32, %v: f32, %g: f32, %b: f32, %o: f32):
      %variance = arith.divf %v, %n : f32
      %ve = arith.addf %variance, %eps : f32
      %inv = math.rsqrt %ve : f32
      %normalized = arith.mulf %c, %inv : f32
      %scaled = arith.mulf %normalized, %g : f32
      %y = arith.addf %scaled, %b : f32
      linalg.yield %y : f32
    } -> tensor<128x384xf32>
  return %out : tensor<128x384xf32>
}
