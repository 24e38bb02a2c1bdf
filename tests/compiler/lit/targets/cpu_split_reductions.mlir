// RUN: %kiln-opt %s --split-input-file --kiln-cpu-split-reductions | FileCheck %s

// --kiln-cpu-split-reductions computes a long reduction of a CPU kernel as
// 128 strided partials added as a tree: partial r folds the elements r,
// r + 128, ... in order, starting from the combiner's neutral element (0
// for a sum); the partials are added pairwise (64, 32, ..., 1 apart); the
// total is folded into the output's initial value.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: func.func @sum(
// CHECK:         %[[PARTIALS:.+]] = memref.alloca() : memref<128xf32>
// CHECK:         scf.for %[[R:.+]] = %{{.+}} to %c128 step %{{.+}} {
// CHECK-NEXT:      memref.store %cst, %[[PARTIALS]][%[[R]]]
// CHECK:         scf.for %[[K0:.+]] = %{{.+}} to %{{.+}} step %c128 {
// CHECK:           %[[COUNT:.+]] = arith.minui
// CHECK:           scf.for %[[LANE:.+]] = %{{.+}} to %[[COUNT]] step %{{.+}} {
// CHECK:             arith.addi %[[K0]], %[[LANE]]
// CHECK:             %[[SLOT:.+]] = memref.subview %[[PARTIALS]][%[[LANE]]] [1] [1]
// CHECK:             memref.load %[[SLOT]]
// CHECK:             arith.addf
// CHECK:             memref.store %{{.+}}, %[[SLOT]]
// CHECK:         scf.for %[[T:.+]] = %{{.+}} to %c64 step %{{.+}} {
// CHECK:           %[[PARTNER:.+]] = arith.addi %[[T]], %c64
// CHECK:           %[[A:.+]] = memref.load %[[PARTIALS]][%[[T]]]
// CHECK:           %[[B:.+]] = memref.load %[[PARTIALS]][%[[PARTNER]]]
// CHECK:           %[[S:.+]] = arith.addf %[[B]], %[[A]]
// CHECK:           memref.store %[[S]], %[[PARTIALS]][%[[T]]]
// CHECK:         scf.for %{{.+}} = %{{.+}} to %c1{{(_[0-9]+)?}} step %{{.+}} {
// CHECK:         %[[INIT:.+]] = memref.load %[[OUT:.+]][]
// CHECK:         %[[TOTAL:.+]] = memref.load %[[PARTIALS]][%{{.+}}]
// CHECK:         %[[RESULT:.+]] = arith.addf %[[TOTAL]], %[[INIT]]
// CHECK:         memref.store %[[RESULT]], %[[OUT]][]
// CHECK-NOT:     linalg.
func.func @sum() {
  %c0 = arith.constant 0 : index
  %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
  %in = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
  %out = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : memref<f32>
  linalg.reduce ins(%in : memref<?xf32>) outs(%out : memref<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// Short reductions (at most 1024 long) and contractions stay in order.
#layout2 = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: func.func @short_and_dot(
// CHECK-NOT:     memref.alloca
// CHECK:         linalg.reduce
// CHECK:         linalg.matvec
func.func @short_and_dot() {
  %c0 = arith.constant 0 : index
  %a = hal.interface.binding.subspan layout(#layout2) binding(0) offset(%c0) flags(ReadOnly) : memref<4x1024xf32>
  %b = hal.interface.binding.subspan layout(#layout2) binding(1) offset(%c0) flags(ReadOnly) : memref<1024xf32>
  %out = hal.interface.binding.subspan layout(#layout2) binding(2) offset(%c0) : memref<4xf32>
  %short = memref.subview %a[0, 0] [4, 1000] [1, 1] : memref<4x1024xf32> to memref<4x1000xf32, strided<[1024, 1]>>
  linalg.reduce ins(%short : memref<4x1000xf32, strided<[1024, 1]>>) outs(%out : memref<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %m = arith.maximumf %x, %acc : f32
      linalg.yield %m : f32
    }
  linalg.matvec ins(%a, %b : memref<4x1024xf32>, memref<1024xf32>) outs(%out : memref<4xf32>)
  return
}
