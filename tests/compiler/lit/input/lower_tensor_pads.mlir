// RUN: %kiln-opt %s --split-input-file --kiln-lower-tensor-pads | FileCheck %s

// tensor.pad with a position-independent value becomes a linalg.generic with
// no inputs: each element reads the source where the position minus the low
// padding lies inside it (the index clamped to 0 elsewhere, so nothing is read
// out of bounds) and is the pad value outside. Unpadded dimensions read the
// loop index as is.

// CHECK-LABEL: func.func @pad_columns
// CHECK-SAME: (%[[X:.+]]: tensor<4x5xf32>)
func.func @pad_columns(%x: tensor<4x5xf32>) -> tensor<4x8xf32> {
  // CHECK-DAG: %[[PAD:.+]] = arith.constant 0xFF800000 : f32
  // CHECK: %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
  // CHECK: linalg.generic {indexing_maps = [#{{.+}}], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<4x8xf32>)
  // CHECK-DAG: %[[I:.+]] = linalg.index 0 : index
  // CHECK-DAG: %[[J:.+]] = linalg.index 1 : index
  // CHECK: %[[S:.+]] = arith.subi %[[J]], %c2
  // CHECK: %[[GE:.+]] = arith.cmpi sge, %[[S]], %c0
  // CHECK: %[[LT:.+]] = arith.cmpi slt, %[[S]], %c5
  // CHECK: %[[IN:.+]] = arith.andi %[[GE]], %[[LT]]
  // CHECK: %[[SC:.+]] = arith.select %[[IN]], %[[S]], %c0
  // CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]], %[[SC]]] : tensor<4x5xf32>
  // CHECK: %[[R:.+]] = arith.select %[[IN]], %[[V]], %[[PAD]] : f32
  // CHECK: linalg.yield %[[R]] : f32
  // CHECK-NOT: tensor.pad
  %cst = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 2] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<4x5xf32> to tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

// Dynamic sizes and padding: the result is sized by the reified shape; a
// constant defined inside the pad's body moves out with it.

// CHECK-LABEL: func.func @pad_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?xi32>, %[[L:.+]]: index)
func.func @pad_dynamic(%x: tensor<?xi32>, %l: index) -> tensor<?xi32> {
  // CHECK-DAG: %[[SEVEN:.+]] = arith.constant 7 : i32
  // CHECK: %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?xi32>
  // CHECK: linalg.generic
  // CHECK: arith.subi %{{.+}}, %[[L]]
  // CHECK: tensor.extract %[[X]]
  // CHECK: arith.select %{{.+}}, %{{.+}}, %[[SEVEN]] : i32
  %p = tensor.pad %x low[%l] high[1] {
  ^bb0(%i: index):
    %c7 = arith.constant 7 : i32
    tensor.yield %c7 : i32
  } : tensor<?xi32> to tensor<?xi32>
  return %p : tensor<?xi32>
}

// -----

// A pad whose value depends on the position stays a tensor.pad.

// CHECK-LABEL: func.func @pad_by_position
// CHECK: tensor.pad
func.func @pad_by_position(%x: tensor<4xindex>) -> tensor<6xindex> {
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %i : index
  } : tensor<4xindex> to tensor<6xindex>
  return %p : tensor<6xindex>
}
