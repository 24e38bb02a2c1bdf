// RUN: %kiln-opt %s --split-input-file --kiln-form-dispatches --verify-diagnostics

// A dispatch takes scalars of up to 32 bits (kiln's dispatch ABI passes
// 32-bit constants): a wider one is refused, naming it.
#map = affine_map<(d0) -> (d0)>
func.func @wide_scalar(%a: tensor<4xf64>, %s: f64) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  // expected-error @+1 {{reads a scalar of type 'f64' from outside its dispatch, which takes index, f32 and integers of up to 32 bits}}
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%x: f64, %unused: f64):
    %m = arith.mulf %x, %s : f64
    linalg.yield %m : f64
  } -> tensor<4xf64>
  return %r : tensor<4xf64>
}
