// RUN: %kiln-opt %s --split-input-file --kiln-tensor-input | FileCheck %s

// --kiln-tensor-input: arith on whole tensors becomes linalg, and a chain of
// elementwise ops fuses into one linalg.generic.

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[A:.+]]: tensor<?xf32>, %[[B:.+]]: tensor<?xf32>)
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<?xf32>, tensor<?xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.mulf %a, %b : tensor<?xf32>
  %1 = arith.addf %0, %b : tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// Fusion through a reshape (the reduction's result is collapsed for its
// consumer) reshapes the reduction's init; the reshaped tensor.empty is an
// empty tensor of the new shape, never an expand_shape of one (which
// bufferization would turn into a private buffer copied whole into the
// dispatch's output).
// CHECK-LABEL: func.func @reshaped_init(
// CHECK-NOT:     tensor.expand_shape %{{.+}} : tensor<128xf32>
// CHECK:         %[[EMPTY:.+]] = tensor.empty() : tensor<128x1xf32>
// CHECK:         %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[EMPTY]] : tensor<128x1xf32>)
// CHECK:         linalg.generic {{.+}} outs(%[[FILL]] : tensor<128x1xf32>)
func.func @reshaped_init(%x: tensor<128x384xf32>, %s: tensor<128x1xf32>) -> tensor<128x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x384xf32>) outs(%fill : tensor<128xf32>) {
    ^bb0(%v: f32, %a: f32):
      %r = arith.addf %v, %a : f32
      linalg.yield %r : f32
    } -> tensor<128xf32>
  %scale = tensor.collapse_shape %s [[0, 1]] : tensor<128x1xf32> into tensor<128xf32>
  %e2 = tensor.empty() : tensor<128x384xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                                          affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %scale : tensor<128x384xf32>, tensor<128xf32>, tensor<128xf32>)
      outs(%e2 : tensor<128x384xf32>) {
    ^bb0(%v: f32, %m: f32, %k: f32, %o: f32):
      %p = arith.mulf %m, %k : f32
      %c = arith.subf %v, %p : f32
      linalg.yield %c : f32
    } -> tensor<128x384xf32>
  return %out : tensor<128x384xf32>
}
