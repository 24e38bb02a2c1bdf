// RUN: %kiln-opt %s --split-input-file --kiln-detach-unread-inits | FileCheck %s

// convert-elementwise-to-linalg writes `outs(%a)` for `arith.addf %a, %b`;
// the payload never reads it, so the init becomes a tensor.empty of %a's
// shape and %a keeps only the use it really has.

#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[A:.+]]: tensor<?xf32>, %[[B:.+]]: tensor<?xf32>)
func.func @elementwise(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: %[[DIM:.+]] = tensor.dim %[[A]]
  // CHECK: %[[EMPTY:.+]] = tensor.empty(%[[DIM]]) : tensor<?xf32>
  // CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : {{.*}}) outs(%[[EMPTY]] : tensor<?xf32>)
  %0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %unused: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// The sizes of an init made by another linalg op come from that op (its own
// init's dims), not from a tensor.dim of the init: that would be one more use
// of it, and keep it from fusing into this op all the same.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @chain
func.func @chain(%a: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: %[[FIRST:.+]] = linalg.generic
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32, %unused: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<?xf32>
  // CHECK-NOT: tensor.dim %[[FIRST]]
  // CHECK: %[[EMPTY:.+]] = tensor.empty
  // CHECK: linalg.generic {{.*}} ins(%[[FIRST]] : tensor<?xf32>) outs(%[[EMPTY]] : tensor<?xf32>)
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%0 : tensor<?xf32>) outs(%0 : tensor<?xf32>) {
  ^bb0(%x: f32, %unused: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// A reduction reads its init (the accumulator): it stays.
#map = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @reduction
// CHECK-SAME: (%[[A:.+]]: tensor<?xf32>, %[[ACC:.+]]: tensor<f32>)
func.func @reduction(%a: tensor<?xf32>, %acc: tensor<f32>) -> tensor<f32> {
  // CHECK-NOT: tensor.empty
  // CHECK: outs(%[[ACC]] : tensor<f32>)
  %0 = linalg.generic {indexing_maps = [#map, #sum], iterator_types = ["reduction"]}
      ins(%a : tensor<?xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.addf %x, %s : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}
