// RUN: %kiln-opt %s --split-input-file --kiln-gpu-distribute-to-threads --canonicalize --cse | FileCheck %s

// --kiln-gpu-distribute-to-threads shares an argmax or argmin (two outputs,
// value and index, chosen by a strict comparison of each element with the
// accumulated value) among the workgroup's threads: lane r keeps the
// (value, position) of the first greatest of the elements r, r + R, ...,
// starting from the value no winner fails to beat (-inf); the partials meet
// as a tree in workgroup memory where the greater value wins and, of equal
// values, the smaller position (the sequential scan keeps the first); lane 0
// then runs the payload once, on the winning element, with the outputs'
// initial values as the state, so the init keeps ties and any index
// expression of the payload gives what the sequential loop gives.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: func.func @argmax()
// CHECK-DAG:     %[[NONE_I32:.+]] = arith.constant 2147483647 : i32
// CHECK-DAG:     %[[NONE:.+]] = arith.constant 2147483647 : index
// CHECK-DAG:     %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[TRUE:.+]] = arith.constant true
// CHECK-DAG:     %[[POSITIONS:.+]] = memref.alloc() : memref<128xi32, #gpu.address_space<workgroup>>
// CHECK-DAG:     %[[VALUES:.+]] = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[TID:.+]] = gpu.thread_id x upper_bound 128
// CHECK:         %[[IN:.+]] = hal.interface.binding.subspan {{.+}} binding(0)
// CHECK:         %[[VALUE:.+]] = hal.interface.binding.subspan {{.+}} binding(1)
// CHECK:         %[[INDEX:.+]] = hal.interface.binding.subspan {{.+}} binding(2)
// CHECK:         %[[LENGTH:.+]] = memref.dim %[[IN]]
// CHECK:         %[[LANE:.+]] = arith.remui %[[TID]], %c128
// CHECK:         scf.if
// CHECK:           %[[LOOP:.+]]:2 = scf.for %[[K:.+]] = %[[LANE]] to %[[LENGTH]] step %c128 iter_args(%[[BEST:.+]] = %[[NEG_INF]], %[[AT:.+]] = %[[NONE]]) -> (f32, index) {
// CHECK:             %[[X:.+]] = memref.load %[[IN]][%[[K]]]
// CHECK:             %[[WINS:.+]] = arith.cmpf ogt, %[[X]], %[[BEST]]
// CHECK:             %[[V:.+]] = arith.select %[[WINS]], %[[X]], %[[BEST]]
// CHECK:             %[[N:.+]] = arith.select %[[WINS]], %[[K]], %[[AT]]
// CHECK:             scf.yield %[[V]], %[[N]]
// CHECK:           memref.store %[[LOOP]]#0, %[[VALUES]][%[[TID]]]
// CHECK:           %[[LOOP_AT:.+]] = arith.index_castui %[[LOOP]]#1 : index to i32
// CHECK:           memref.store %[[LOOP_AT]], %[[POSITIONS]][%[[TID]]]
// CHECK:         gpu.barrier
// The first level of the tree: the partner's partial is taken when its
// value is greater, or when neither is greater and its position smaller.
// CHECK:         arith.cmpi ult, %[[LANE]], %c64
// CHECK:         scf.if
// CHECK:           %[[PARTNER:.+]] = arith.addi %[[TID]], %c64
// CHECK:           %[[OWN:.+]] = memref.load %[[VALUES]][%[[TID]]]
// CHECK:           %[[THEIRS:.+]] = memref.load %[[VALUES]][%[[PARTNER]]]
// CHECK:           %[[OWN_AT:.+]] = memref.load %[[POSITIONS]][%[[TID]]]
// CHECK:           %[[THEIR_AT:.+]] = memref.load %[[POSITIONS]][%[[PARTNER]]]
// CHECK:           %[[EARLIER:.+]] = arith.cmpi ult, %[[THEIR_AT]], %[[OWN_AT]] : i32
// CHECK:           %[[OWN_WINS:.+]] = arith.cmpf ogt, %[[OWN]], %[[THEIRS]]
// CHECK:           %[[NOT_OWN:.+]] = arith.xori %[[OWN_WINS]], %[[TRUE]]
// CHECK:           %[[TIE:.+]] = arith.andi %[[NOT_OWN]], %[[EARLIER]]
// CHECK:           %[[THEIRS_WIN:.+]] = arith.cmpf ogt, %[[THEIRS]], %[[OWN]]
// CHECK:           %[[TAKE:.+]] = arith.ori %[[THEIRS_WIN]], %[[TIE]]
// CHECK:           %[[NEW:.+]] = arith.select %[[TAKE]], %[[THEIRS]], %[[OWN]]
// CHECK:           memref.store %[[NEW]], %[[VALUES]][%[[TID]]]
// CHECK:           %[[NEW_AT:.+]] = arith.select %[[TAKE]], %[[THEIR_AT]], %[[OWN_AT]]
// CHECK:           memref.store %[[NEW_AT]], %[[POSITIONS]][%[[TID]]]
// CHECK:         gpu.barrier
// CHECK-COUNT-6: gpu.barrier
// Lane 0: the payload on the winner, against the initial value and index.
// CHECK:         arith.cmpi eq, %[[LANE]], %c0
// CHECK:         scf.if
// CHECK:           %[[WINNER:.+]] = memref.load %[[POSITIONS]][%[[TID]]]
// CHECK:           %[[FOUND:.+]] = arith.cmpi ne, %[[WINNER]], %[[NONE_I32]]
// CHECK:           scf.if %[[FOUND]] {
// CHECK:             %[[W:.+]] = arith.index_castui %[[WINNER]] : i32 to index
// CHECK:             %[[ELEMENT:.+]] = memref.subview %[[IN]][%[[W]]] [1] [1]
// CHECK:             %[[XW:.+]] = memref.load %[[ELEMENT]]
// CHECK:             %[[V0:.+]] = memref.load %[[VALUE]][]
// CHECK:             %[[N0:.+]] = memref.load %[[INDEX]][]
// CHECK:             %[[I:.+]] = arith.index_cast %[[W]] : index to i32
// CHECK:             %[[BEATS_INIT:.+]] = arith.cmpf ogt, %[[XW]], %[[V0]]
// CHECK:             %[[RV:.+]] = arith.select %[[BEATS_INIT]], %[[XW]], %[[V0]]
// CHECK:             %[[RN:.+]] = arith.select %[[BEATS_INIT]], %[[I]], %[[N0]]
// CHECK:             memref.store %[[RV]], %[[VALUE]][]
// CHECK:             memref.store %[[RN]], %[[INDEX]][]
// CHECK-NOT:     linalg.
func.func @argmax() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
  %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
  %value = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<f32>
  %index = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<i32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%in : memref<?xf32>) outs(%value, %index : memref<f32>, memref<i32>) {
  ^bb0(%x: f32, %best: f32, %best_index: i32):
    %i = linalg.index 0 : index
    %i32 = arith.index_cast %i : index to i32
    %greater = arith.cmpf ogt, %x, %best : f32
    %v = arith.select %greater, %x, %best : f32
    %k = arith.select %greater, %i32, %best_index : i32
    linalg.yield %v, %k : f32, i32
  }
  return
}

// -----

// maximumf for the value (IREE's argmax tests): the value becomes NaN at the
// first NaN element and no comparison holds after it, so a first pass folds
// maximumf over every element and finds the first NaN's position (minui),
// and the argmax pass stops there. Lane 0 stores maximumf of the initial
// value and the fold over the value the payload on the winner wrote.
#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: func.func @argmax_maximumf()
// CHECK-DAG:     %[[NONE:.+]] = arith.constant 2147483647 : index
// CHECK-DAG:     %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         memref.alloc() : memref<128xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[FIRST_NAN:.+]] = memref.alloc() : memref<128xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[FOLDED:.+]] = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[TID:.+]] = gpu.thread_id x upper_bound 128
// CHECK:         %[[IN:.+]] = hal.interface.binding.subspan {{.+}} binding(0)
// CHECK:         %[[VALUE:.+]] = hal.interface.binding.subspan {{.+}} binding(1)
// CHECK:         %[[LENGTH:.+]] = memref.dim %[[IN]]
// CHECK:         %[[LANE:.+]] = arith.remui %[[TID]], %c128
// CHECK:         %[[LANE0:.+]] = arith.subi %[[TID]], %[[LANE]]
// CHECK:         scf.if
// CHECK:           scf.for %[[K:.+]] = %[[LANE]] to %[[LENGTH]] step %c128 iter_args(%[[M:.+]] = %[[NEG_INF]], %[[P:.+]] = %[[NONE]])
// CHECK:             %[[X:.+]] = memref.load %[[IN]][%[[K]]]
// CHECK:             %[[MAX:.+]] = arith.maximumf %[[X]], %[[M]]
// CHECK:             %[[IS_NAN:.+]] = arith.cmpf uno, %[[X]], %[[X]]
// CHECK:             %[[AT:.+]] = arith.select %[[IS_NAN]], %[[K]], %[[NONE]]
// CHECK:             %[[FIRST:.+]] = arith.minui %[[P]], %[[AT]]
// CHECK:             scf.yield %[[MAX]], %[[FIRST]]
// CHECK:         gpu.barrier
// CHECK:         scf.if
// CHECK:           arith.maximumf
// CHECK:           arith.minui %{{.+}}, %{{.+}} : i32
// CHECK:         gpu.barrier
// CHECK-COUNT-6: gpu.barrier
// CHECK:         %[[POINT_NAN:.+]] = memref.load %[[FIRST_NAN]][%[[LANE0]]]
// CHECK:         %[[POINT_NAN_INDEX:.+]] = arith.index_castui %[[POINT_NAN]]
// CHECK:         %[[LIMIT:.+]] = arith.minui %[[LENGTH]], %[[POINT_NAN_INDEX]]
// CHECK:         scf.if
// CHECK:           scf.for %{{.+}} = %[[LANE]] to %[[LIMIT]] step %c128
// CHECK:             arith.cmpf ogt
// CHECK:         gpu.barrier
// CHECK-COUNT-7: gpu.barrier
// CHECK:         scf.if
// CHECK:           %[[INIT:.+]] = memref.load %[[VALUE]][]
// CHECK:           scf.if
// CHECK:             arith.maximumf
// CHECK:           }
// CHECK:           %[[ALL:.+]] = memref.load %[[FOLDED]][%[[TID]]]
// CHECK:           %[[RESULT:.+]] = arith.maximumf %[[ALL]], %[[INIT]]
// CHECK:           memref.store %[[RESULT]], %[[VALUE]][]
func.func @argmax_maximumf() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
  %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
  %value = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<f32>
  %index = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<i32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%in : memref<?xf32>) outs(%value, %index : memref<f32>, memref<i32>) {
  ^bb0(%x: f32, %best: f32, %best_index: i32):
    %i = linalg.index 0 : index
    %i32 = arith.index_cast %i : index to i32
    %v = arith.maximumf %x, %best : f32
    %greater = arith.cmpf ogt, %x, %best : f32
    %k = arith.select %greater, %i32, %best_index : i32
    linalg.yield %v, %k : f32, i32
  }
  return
}

// -----

// An integer argmin over rows, written with the accumulator first
// (`cmpi sgt %best, %x`: x is smaller), index first in the outputs: 4 rows of
// 32 lanes each; the partials start from the largest i32.
#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: func.func @argmin_rows()
// CHECK-DAG:     %[[LARGEST:.+]] = arith.constant 2147483647 : i32
// CHECK-DAG:     memref.alloc() : memref<128xi32, #gpu.address_space<workgroup>>
// CHECK:         %[[TID:.+]] = gpu.thread_id x upper_bound 128
// CHECK:         %[[ROW:.+]] = arith.divui %[[TID]], %c32
// CHECK:         %[[LANE:.+]] = arith.remui %[[TID]], %c32
// CHECK:         scf.if
// CHECK:           scf.for %[[K:.+]] = %[[LANE]] to %c1000 step %c32 iter_args(%[[BEST:.+]] = %[[LARGEST]], %{{.+}} = %{{.+}})
// CHECK:             %[[X:.+]] = memref.load %{{.+}}[%[[ROW]], %[[K]]]
// CHECK:             arith.cmpi sgt, %[[BEST]], %[[X]] : i32
// CHECK:         gpu.barrier
// CHECK:         arith.cmpi ult, %[[LANE]], %c16
// CHECK:         scf.if
// CHECK:           arith.cmpi sgt
// CHECK:           arith.cmpi sgt
// CHECK-COUNT-4: gpu.barrier
// CHECK:         arith.cmpi eq, %[[LANE]], %c0
// CHECK:         scf.if
// CHECK:           scf.if
// CHECK:             arith.cmpi sgt
// CHECK:             memref.store
// CHECK:             memref.store
func.func @argmin_rows() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<4x1000xi32>
  %index = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<4xi64>
  %value = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<4xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<4x1000xi32>) outs(%index, %value : memref<4xi64>, memref<4xi32>) {
  ^bb0(%x: i32, %best_index: i64, %best: i32):
    %i = linalg.index 1 : index
    %i64 = arith.index_cast %i : index to i64
    %smaller = arith.cmpi sgt, %best, %x : i32
    %v = arith.select %smaller, %x, %best : i32
    %k = arith.select %smaller, %i64, %best_index : i64
    linalg.yield %k, %v : i64, i32
  }
  return
}

// -----

// A non-strict comparison keeps the LAST of equal values, which the tree's
// tie-break does not reproduce: one thread per point loops over the whole
// reduction, as before.
#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: func.func @argmax_last()
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     gpu.barrier
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             arith.cmpf oge
// CHECK-NOT:     gpu.barrier
func.func @argmax_last() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<1000xf32>
  %value = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<f32>
  %index = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<i32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%in : memref<1000xf32>) outs(%value, %index : memref<f32>, memref<i32>) {
  ^bb0(%x: f32, %best: f32, %best_index: i32):
    %i = linalg.index 0 : index
    %i32 = arith.index_cast %i : index to i32
    %greater = arith.cmpf oge, %x, %best : f32
    %v = arith.select %greater, %x, %best : f32
    %k = arith.select %greater, %i32, %best_index : i32
    linalg.yield %v, %k : f32, i32
  }
  return
}
