// RUN: %kiln-opt %s --split-input-file --kiln-expand-tensor-inserts | FileCheck %s

// tensor.insert of a scalar becomes an elementwise linalg.generic over the
// destination that selects the scalar where every loop index is the insert
// position (IREE's argmax_1d plants its maximum this way).

// CHECK-LABEL: func.func @insert_1d
// CHECK-SAME: (%[[T:.+]]: tensor<131072xf32>, %[[V:.+]]: f32, %[[I:.+]]: index)
func.func @insert_1d(%t: tensor<131072xf32>, %v: f32, %i: index) -> tensor<131072xf32> {
  // CHECK: %[[E:.+]] = tensor.empty() : tensor<131072xf32>
  // CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[MAP:.+]], #[[MAP]]], iterator_types = ["parallel"]}
  // CHECK-SAME: ins(%[[T]] : tensor<131072xf32>) outs(%[[E]] : tensor<131072xf32>)
  // CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
  // CHECK-NEXT:   %[[D0:.+]] = linalg.index 0 : index
  // CHECK-NEXT:   %[[AT:.+]] = arith.cmpi eq, %[[D0]], %[[I]] : index
  // CHECK-NEXT:   %[[X:.+]] = arith.select %[[AT]], %[[V]], %[[IN]] : f32
  // CHECK-NEXT:   linalg.yield %[[X]] : f32
  %r = tensor.insert %v into %t[%i] : tensor<131072xf32>
  // CHECK: return %[[R]]
  return %r : tensor<131072xf32>
}

// -----

// Every index must match; a dynamic destination sizes the result by its dims.
// CHECK-LABEL: func.func @insert_2d_dynamic
// CHECK-SAME: (%[[T:.+]]: tensor<?x4xi8>, %[[V:.+]]: i8, %[[I:.+]]: index, %[[J:.+]]: index)
func.func @insert_2d_dynamic(%t: tensor<?x4xi8>, %v: i8, %i: index, %j: index) -> tensor<?x4xi8> {
  // CHECK: %[[N:.+]] = tensor.dim %[[T]], %{{.+}} : tensor<?x4xi8>
  // CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x4xi8>
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
  // CHECK-SAME: ins(%[[T]] : tensor<?x4xi8>) outs(%[[E]] : tensor<?x4xi8>)
  // CHECK:   %[[D0:.+]] = linalg.index 0 : index
  // CHECK:   %[[A0:.+]] = arith.cmpi eq, %[[D0]], %[[I]] : index
  // CHECK:   %[[D1:.+]] = linalg.index 1 : index
  // CHECK:   %[[A1:.+]] = arith.cmpi eq, %[[D1]], %[[J]] : index
  // CHECK:   %[[AT:.+]] = arith.andi %[[A0]], %[[A1]] : i1
  // CHECK:   arith.select %[[AT]], %[[V]], %{{.+}} : i8
  %r = tensor.insert %v into %t[%i, %j] : tensor<?x4xi8>
  return %r : tensor<?x4xi8>
}

// -----

// A rank-0 destination is the scalar.
// CHECK-LABEL: func.func @insert_0d
// CHECK-SAME: (%[[T:.+]]: tensor<f32>, %[[V:.+]]: f32)
func.func @insert_0d(%t: tensor<f32>, %v: f32) -> tensor<f32> {
  // CHECK: linalg.generic
  // CHECK-NEXT: ^bb0(
  // CHECK-NEXT:   linalg.yield %[[V]] : f32
  %r = tensor.insert %v into %t[] : tensor<f32>
  return %r : tensor<f32>
}

// -----

// Inside a linalg op's body an insert belongs to the kernel: it stays.
// CHECK-LABEL: func.func @inside_linalg
func.func @inside_linalg(%t: tensor<4xf32>, %small: tensor<2xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%t : tensor<4xf32>) {
  ^bb0(%out: f32):
    // CHECK: tensor.insert
    %u = tensor.insert %out into %small[%c0] : tensor<2xf32>
    %e = tensor.extract %u[%c0] : tensor<2xf32>
    linalg.yield %e : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
