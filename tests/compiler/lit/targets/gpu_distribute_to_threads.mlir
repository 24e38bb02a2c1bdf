// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-gpu-distribute-to-threads --canonicalize --cse | FileCheck %s

// --kiln-gpu-distribute-to-threads spreads each linalg op of a contract
// kernel (one workgroup's tile) over the kernel's kiln.workgroup_size
// threads: the op's parallel iterations, linearized row-major, are dealt out
// cyclically (`for i = thread_id; i < total; i += threads`), so consecutive
// threads touch consecutive elements of the innermost dimension; reduction
// loops stay sequential inside a thread. No linalg is left.

// 1-D elementwise over a tile whose last one is partial: the thread loop
// runs to the tile's size, each thread on its own element.
#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#map = affine_map<(d0) -> (d0)>
#min = affine_map<()[s0, s1] -> (1024, s0 - s1)>
// CHECK-LABEL: func.func @add()
func.func @add() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
// CHECK-DAG:     %[[C128:.+]] = arith.constant 128 : index
// CHECK-DAG:     %[[TID:.+]] = gpu.thread_id x upper_bound 128
  %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
  %a = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
  %b = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
  %out = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<?xf32>{%n}
  %id = hal.interface.workgroup.id[0] : index
  %begin = arith.muli %id, %c1024 : index
  %size = affine.min #min()[%n, %begin]
// CHECK:         %[[SIZE:.+]] = affine.min
  %sa = memref.subview %a[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
  %sb = memref.subview %b[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
  %so = memref.subview %out[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK:         scf.for %[[I:.+]] = %[[TID]] to %[[SIZE]] step %[[C128]] {
// CHECK:           memref.subview %{{.+}}[%[[I]]] [1] [1]
// CHECK:           memref.load
// CHECK:           memref.load
// CHECK:           arith.addf
// CHECK:           memref.store
// CHECK:         }
// CHECK-NOT:     linalg.
// CHECK-NOT:     gpu.barrier
  linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%sa, %sb : memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>)
      outs(%so : memref<?xf32, strided<[1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// 2-D with a transposed read: the thread's linear index is delinearized
// over (rows, cols), the output's column (innermost) fastest: coalesced
// writes.
#layout2 = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#transposed = affine_map<(d0, d1) -> (d1, d0)>
#identity = affine_map<(d0, d1) -> (d0, d1)>
#tile = affine_map<(d0)[s0] -> (16, s0 - d0)>
// CHECK-LABEL: func.func @transpose()
// CHECK:         %[[TID:.+]] = gpu.thread_id x upper_bound 128
func.func @transpose() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %m = hal.interface.constant.load layout(#layout2) ordinal(0) : index
  %n = hal.interface.constant.load layout(#layout2) ordinal(1) : index
  %in = hal.interface.binding.subspan layout(#layout2) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?x?xf32>{%n, %m}
  %out = hal.interface.binding.subspan layout(#layout2) binding(1) alignment(64) offset(%c0) : memref<?x?xf32>{%m, %n}
  %col_tile = hal.interface.workgroup.id[0] : index
  %row_tile = hal.interface.workgroup.id[1] : index
  %r0 = arith.muli %row_tile, %c16 : index
  %c0_ = arith.muli %col_tile, %c16 : index
  %rows = affine.min #tile(%r0)[%m]
  %cols = affine.min #tile(%c0_)[%n]
// CHECK:         %[[ROWS:.+]] = affine.min
// CHECK:         %[[COLS:.+]] = affine.min
// CHECK:         %[[IN:.+]] = memref.subview
// CHECK:         %[[OUT:.+]] = memref.subview
  %sin = memref.subview %in[%c0_, %r0] [%cols, %rows] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  %sout = memref.subview %out[%r0, %c0_] [%rows, %cols] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK:         %[[TOTAL:.+]] = arith.muli %[[ROWS]], %[[COLS]] : index
// CHECK:         scf.for %[[I:.+]] = %[[TID]] to %[[TOTAL]] step %c128 {
// CHECK:           %[[P:.+]]:2 = affine.delinearize_index %[[I]] into (%[[ROWS]], %[[COLS]])
// CHECK:           %[[X:.+]] = memref.subview %[[IN]][%[[P]]#1, %[[P]]#0] [1, 1] [1, 1]
// CHECK:           %[[Y:.+]] = memref.subview %[[OUT]][%[[P]]#0, %[[P]]#1] [1, 1] [1, 1]
// CHECK:           %[[V:.+]] = memref.load %[[X]]
// CHECK:           %[[E:.+]] = math.exp %[[V]]
// CHECK:           memref.store %[[E]], %[[Y]]
  linalg.generic {indexing_maps = [#transposed, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%sin : memref<?x?xf32, strided<[?, 1], offset: ?>>)
      outs(%sout : memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A fill and a row reduction into the same accumulator: a barrier between
// them (the threads are not in lockstep). With one row per workgroup, the
// threads share the row (a cooperative reduction): 128 lanes each sum the
// elements lane, lane + 128, ... in order into their slot of a workgroup
// buffer, starting from the sum's neutral element; the 128 partials are
// added as a tree (a barrier after each level); lane 0 adds the total to
// the accumulator's initial value.
#layout2 = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#row = affine_map<(i, j) -> (i, j)>
#rowout = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @rowsum()
// CHECK:         %[[PARTIAL:.+]] = memref.alloc() : memref<128x1xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[TID:.+]] = gpu.thread_id x upper_bound 128
func.func @rowsum() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %rows = hal.interface.constant.load layout(#layout2) ordinal(0) : index
  %cols = hal.interface.constant.load layout(#layout2) ordinal(1) : index
  %in = hal.interface.binding.subspan layout(#layout2) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?x?xf32>{%rows, %cols}
  %out = hal.interface.binding.subspan layout(#layout2) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%rows}
  %id = hal.interface.workgroup.id[0] : index
  %row = memref.subview %in[%id, 0] [1, %cols] [1, 1] : memref<?x?xf32> to memref<1x?xf32, strided<[?, 1], offset: ?>>
  %acc = memref.subview %out[%id] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
// CHECK:         scf.for %{{.+}} = %[[TID]] to %c1 step %c128 {
// CHECK:           memref.store %cst
// CHECK:         }
// CHECK-NEXT:    gpu.barrier
// CHECK:         %[[LANE:.+]] = arith.remui %[[TID]], %[[LANES:.+]] : index
// CHECK:         scf.if
// CHECK:           memref.store %{{.+}}, %[[PARTIAL]][%[[TID]], %{{.+}}]
// CHECK:           %[[SLOT:.+]] = memref.subview %[[PARTIAL]][%[[TID]], 0] [1, 1] [1, 1]
// CHECK:           scf.for %{{.+}} = %[[LANE]] to %{{.+}} step %[[LANES]] {
// CHECK:             memref.load %[[SLOT]]
// CHECK:             arith.addf
// CHECK:             memref.store %{{.+}}, %[[SLOT]]
// CHECK:         gpu.barrier
// CHECK:         arith.cmpi ult, %[[LANE]], %c64
// CHECK:         scf.if
// CHECK:           %[[PARTNER:.+]] = arith.addi %[[TID]], %c64
// CHECK:           %[[MINE:.+]] = memref.load %[[PARTIAL]][%[[TID]], %{{.+}}]
// CHECK:           %[[THEIRS:.+]] = memref.load %[[PARTIAL]][%[[PARTNER]], %{{.+}}]
// CHECK:           %[[SUM:.+]] = arith.addf %[[THEIRS]], %[[MINE]]
// CHECK:           memref.store %[[SUM]], %[[PARTIAL]][%[[TID]], %{{.+}}]
// CHECK:         gpu.barrier
// CHECK-COUNT-6: gpu.barrier
// CHECK:         arith.cmpi eq, %[[LANE]], %{{.+}}
// CHECK:         scf.if
// CHECK:           %[[INIT:.+]] = memref.load %subview
// CHECK:           %[[TOTAL:.+]] = memref.load %[[PARTIAL]][%[[TID]], %{{.+}}]
// CHECK:           %[[RESULT:.+]] = arith.addf %[[TOTAL]], %[[INIT]]
// CHECK:           memref.store %[[RESULT]], %subview
  linalg.fill ins(%zero : f32) outs(%acc : memref<1xf32, strided<[1], offset: ?>>)
  linalg.generic {indexing_maps = [#row, #rowout], iterator_types = ["parallel", "reduction"]}
      ins(%row : memref<1x?xf32, strided<[?, 1], offset: ?>>) outs(%acc : memref<1xf32, strided<[1], offset: ?>>) {
  ^bb0(%x: f32, %a: f32):
    %y = arith.addf %x, %a : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// An intermediate buffer: the consumer reads an element (the first) that
// another thread wrote, so the buffer moves to workgroup memory, sized by
// the tile's static bound (1024), viewed at the tile's actual size, with a
// barrier between producer and consumer; its dealloc goes.
#layout2 = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#map = affine_map<(d0) -> (d0)>
#first = affine_map<(d0) -> (0)>
#min = affine_map<()[s0, s1] -> (1024, s0 - s1)>
// CHECK-LABEL: func.func @intermediate()
func.func @intermediate() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %n = hal.interface.constant.load layout(#layout2) ordinal(0) : index
  %in = hal.interface.binding.subspan layout(#layout2) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
  %out = hal.interface.binding.subspan layout(#layout2) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%n}
  %id = hal.interface.workgroup.id[0] : index
  %begin = arith.muli %id, %c1024 : index
  %size = affine.min #min()[%n, %begin]
  %sin = memref.subview %in[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
  %sout = memref.subview %out[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK:         %[[SIZE:.+]] = affine.min
// CHECK:         %[[SHARED:.+]] = memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[TMP:.+]] = memref.subview %[[SHARED]][0] [%[[SIZE]]] [1]
// CHECK-SAME:        to memref<?xf32, strided<[1]>, #gpu.address_space<workgroup>>
// CHECK:         scf.for
// CHECK:           math.exp
// CHECK:         }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    scf.for
// CHECK:           memref.load %[[TMP]][%c0]
// CHECK:           arith.divf
// CHECK-NOT:     memref.dealloc
  %tmp = memref.alloc(%size) : memref<?xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%sin : memref<?xf32, strided<[1], offset: ?>>) outs(%tmp : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#map, #first, #map], iterator_types = ["parallel"]}
      ins(%tmp, %tmp : memref<?xf32>, memref<?xf32>) outs(%sout : memref<?xf32, strided<[1], offset: ?>>) {
  ^bb0(%x: f32, %f: f32, %y: f32):
    %d = arith.divf %x, %f : f32
    linalg.yield %d : f32
  }
  memref.dealloc %tmp : memref<?xf32>
  return
}

// -----

// A dead intermediate (written, never read: bufferization can leave one) is
// erased with its writer.
// CHECK-LABEL: func.func @dead
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     gpu.barrier
// CHECK:         return
func.func @dead() {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = arith.constant 64 : index
  %tmp = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%tmp : memref<?xf32>)
  memref.dealloc %tmp : memref<?xf32>
  return
}

// -----

// An intermediate without a static bound cannot be placed in workgroup
// memory.
#layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>]>
#map = affine_map<(d0) -> (d0)>
func.func @unbounded() {
  %c0 = arith.constant 0 : index
  %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
  %out = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) : memref<?xf32>{%n}
  // expected-error @+1 {{'memref.alloc' op allocates an intermediate buffer whose dimension 0 has no static upper bound}}
  %tmp = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%out : memref<?xf32>) outs(%tmp : memref<?xf32>)
  linalg.copy ins(%tmp : memref<?xf32>) outs(%out : memref<?xf32>)
  return
}

// -----

// A contraction with a long reduction (a matrix-vector product's dot
// products, K = 1024) is shared by the threads like a sum: 4 points of 32
// lanes, each lane multiplying and adding the elements lane, lane + 32, ...
// into its partial, then a tree of 5 levels (a barrier after each).
#layout_dot = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: func.func @rowdot()
// CHECK:         %[[PARTIAL:.+]] = memref.alloc() : memref<128x1xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[TID:.+]] = gpu.thread_id x upper_bound 128
// CHECK:         %[[LANE:.+]] = arith.remui %[[TID]], %c32 : index
// CHECK:         scf.if
// CHECK:           scf.for %{{.+}} = %[[LANE]] to %c1024 step %c32 {
// CHECK:             arith.mulf
// CHECK:             arith.addf
// CHECK:         gpu.barrier
// CHECK:         arith.cmpi ult, %[[LANE]], %c16
// CHECK-COUNT-5: gpu.barrier
// CHECK-NOT:     gpu.barrier
// CHECK:         arith.cmpi eq, %[[LANE]], %{{.+}}
func.func @rowdot() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %a = hal.interface.binding.subspan layout(#layout_dot) binding(0) offset(%c0) flags(ReadOnly) : memref<4x1024xf32>
  %b = hal.interface.binding.subspan layout(#layout_dot) binding(1) offset(%c0) flags(ReadOnly) : memref<1024xf32>
  %out = hal.interface.binding.subspan layout(#layout_dot) binding(2) offset(%c0) : memref<4xf32>
  linalg.matvec ins(%a, %b : memref<4x1024xf32>, memref<1024xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

// A short contraction (K = 128, below kMinSharedDotProduct) is not shared:
// each thread accumulates its point along K in order.
#layout_short = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: func.func @shortdot()
// CHECK-NOT:     memref.alloc
// CHECK:         %[[TID:.+]] = gpu.thread_id x upper_bound 128
// CHECK:         scf.for %{{.+}} = %[[TID]] to %c4 step %c128 {
// CHECK:           scf.for %{{.+}} = %c0 to %c128 step %c1 {
// CHECK:             arith.mulf
// CHECK:             arith.addf
// CHECK-NOT:     gpu.barrier
func.func @shortdot() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %a = hal.interface.binding.subspan layout(#layout_short) binding(0) offset(%c0) flags(ReadOnly) : memref<4x128xf32>
  %b = hal.interface.binding.subspan layout(#layout_short) binding(1) offset(%c0) flags(ReadOnly) : memref<128xf32>
  %out = hal.interface.binding.subspan layout(#layout_short) binding(2) offset(%c0) : memref<4xf32>
  linalg.matvec ins(%a, %b : memref<4x128xf32>, memref<128xf32>) outs(%out : memref<4xf32>)
  return
}
