// RUN: %kiln-opt %s --split-input-file --kiln-distribute-to-workgroups | FileCheck %s

// A generated kernel on tensors becomes one workgroup's tile on memrefs: the
// root (marked with its workgroup tiles by --kiln-form-dispatches) is tiled
// with its producers fused, bufferized into the bindings, and the tile is
// taken from the workgroup id. The last tile is partial (affine.min).

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
#map = affine_map<(d0) -> (d0)>
// CHECK: #[[MIN:.+]] = affine_map<()[s0, s1] -> (1024, s0 - s1)>
// CHECK-LABEL: hal.executable.source private @elementwise
hal.executable.source private @elementwise {
  hal.executable.export public @elementwise ordinal(0) layout(#layout)
  builtin.module {
    // CHECK: func.func @elementwise()
    func.func @elementwise() {
      %c0 = arith.constant 0 : index
      %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
      // CHECK: %[[IN:.+]] = hal.interface.binding.subspan {{.*}} binding(0)
      // CHECK: %[[OUT:.+]] = hal.interface.binding.subspan {{.*}} binding(1)
      %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
      %in_t = bufferization.to_tensor %in restrict : memref<?xf32> to tensor<?xf32>
      %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%n}
      %out_t = bufferization.to_tensor %out restrict writable : memref<?xf32> to tensor<?xf32>
      // CHECK: %[[ID:.+]] = hal.interface.workgroup.id[0] : index
      // CHECK: %[[BEGIN:.+]] = arith.muli %[[ID]], %c1024 : index
      // CHECK: %[[SIZE:.+]] = affine.min #[[MIN]]()[%{{.+}}, %[[BEGIN]]]
      // CHECK: %[[IN_TILE:.+]] = memref.subview %[[IN]][%[[BEGIN]]] [%[[SIZE]]] [1]
      // CHECK: %[[OUT_TILE:.+]] = memref.subview %[[OUT]][%[[BEGIN]]] [%[[SIZE]]] [1]
      // CHECK: linalg.generic {{.*}} ins(%[[IN_TILE]] : {{.*}}) outs(%[[OUT_TILE]] : {{.*}})
      // CHECK-NOT: memref.copy
      // CHECK-NOT: memref.alloc
      %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
          ins(%in_t : tensor<?xf32>) outs(%out_t : tensor<?xf32>) attrs = {kiln.workgroup_tiles = array<i64: 1024>} {
      ^bb0(%x: f32, %unused: f32):
        %e = math.exp %x : f32
        linalg.yield %e : f32
      } -> tensor<?xf32>
      bufferization.materialize_in_destination %r in restrict writable %out : (tensor<?xf32>, memref<?xf32>) -> ()
      // CHECK: return
      return
    }
  }
}

// -----

// A reduction with its accumulator's fill: the fill is fused into the tile
// and writes the result's binding there, never the whole output in front of
// the loop; each workgroup reduces its rows.

#layout = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
#row = affine_map<(i, j) -> (i, j)>
#out = affine_map<(i, j) -> (i)>
// CHECK-LABEL: hal.executable.source private @rowsum
hal.executable.source private @rowsum {
  hal.executable.export public @rowsum ordinal(0) layout(#layout)
  builtin.module {
    func.func @rowsum() {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %rows = hal.interface.constant.load layout(#layout) ordinal(0) : index
      %cols = hal.interface.constant.load layout(#layout) ordinal(1) : index
      %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?x?xf32>{%rows, %cols}
      %in_t = bufferization.to_tensor %in restrict : memref<?x?xf32> to tensor<?x?xf32>
      // CHECK: %[[OUT:.+]] = hal.interface.binding.subspan {{.*}} binding(1)
      %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%rows}
      %out_t = bufferization.to_tensor %out restrict writable : memref<?xf32> to tensor<?xf32>
      // CHECK-NOT: memref.alloc
      // CHECK: %[[ID:.+]] = hal.interface.workgroup.id[0] : index
      // CHECK: %[[ROW:.+]] = memref.subview %{{.+}}[%[[ID]], 0] [1, %{{.+}}] [1, 1]
      // CHECK: %[[ACC:.+]] = memref.subview %[[OUT]][%[[ID]]] [1] [1]
      // CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[ACC]] :
      // CHECK: linalg.generic {{.*}} ins(%[[ROW]] : {{.*}}) outs(%[[ACC]] :
      %f = linalg.fill ins(%zero : f32) outs(%out_t : tensor<?xf32>) -> tensor<?xf32>
      %r = linalg.generic {indexing_maps = [#row, #out], iterator_types = ["parallel", "reduction"]}
          ins(%in_t : tensor<?x?xf32>) outs(%f : tensor<?xf32>) attrs = {kiln.workgroup_tiles = array<i64: 1, 0>} {
      ^bb0(%x: f32, %acc: f32):
        %y = arith.addf %x, %acc : f32
        linalg.yield %y : f32
      } -> tensor<?xf32>
      bufferization.materialize_in_destination %r in restrict writable %out : (tensor<?xf32>, memref<?xf32>) -> ()
      return
    }
  }
}

// -----

// Four parallel loops: x and y are the two innermost, the outer two are
// delinearized from z.

#layout = #hal.pipeline.layout<bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
#id4 = affine_map<(a, b, c, d) -> (a, b, c, d)>
// CHECK-LABEL: hal.executable.source private @four_d
hal.executable.source private @four_d {
  hal.executable.export public @four_d ordinal(0) layout(#layout)
  builtin.module {
    func.func @four_d() {
      %c0 = arith.constant 0 : index
      %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<2x3x4x5xf32>
      %in_t = bufferization.to_tensor %in restrict : memref<2x3x4x5xf32> to tensor<2x3x4x5xf32>
      %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<2x3x4x5xf32>
      %out_t = bufferization.to_tensor %out restrict writable : memref<2x3x4x5xf32> to tensor<2x3x4x5xf32>
      // CHECK-DAG: %[[X:.+]] = hal.interface.workgroup.id[0] : index
      // CHECK-DAG: %[[Y:.+]] = hal.interface.workgroup.id[1] : index
      // CHECK-DAG: %[[Z:.+]] = hal.interface.workgroup.id[2] : index
      // CHECK: %[[OUTER:.+]]:2 = affine.delinearize_index %[[Z]] into (2, 3) : index, index
      // CHECK: memref.subview %{{.+}}[%[[OUTER]]#0, %[[OUTER]]#1, %[[Y]], %[[X]]] [1, 1, 1, 1]
      %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
          ins(%in_t : tensor<2x3x4x5xf32>) outs(%out_t : tensor<2x3x4x5xf32>) attrs = {kiln.workgroup_tiles = array<i64: 1, 1, 1, 1>} {
      ^bb0(%x: f32, %unused: f32):
        %n = arith.negf %x : f32
        linalg.yield %n : f32
      } -> tensor<2x3x4x5xf32>
      bufferization.materialize_in_destination %r in restrict writable %out : (tensor<2x3x4x5xf32>, memref<2x3x4x5xf32>) -> ()
      return
    }
  }
}

// -----

// A reduction's init that is a reshaped fill of an empty tensor becomes a
// fill of an empty tensor of the init's shape: each workgroup fills and
// reduces into its tile of the output binding, with no private buffer
// copied whole into the output.
// CHECK-LABEL: func.func @reshaped_fill_dispatch_0()
// CHECK-NOT:     memref.alloc
// CHECK:         %[[OUT:.+]] = hal.interface.binding.subspan {{.+}} binding(1) {{.+}} : memref<128x1xf32>
// CHECK:         %[[TILE:.+]] = memref.subview %[[OUT]]
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%[[TILE]]
// CHECK:         linalg.generic {{.+}} outs(%[[TILE]]
// CHECK-NOT:     linalg.generic
hal.executable.source private @reshaped_fill_dispatch_0 {
  hal.executable.export public @reshaped_fill_dispatch_0 ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
  builtin.module {
    func.func @reshaped_fill_dispatch_0() {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %in = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<128x384xf32>
      %x = bufferization.to_tensor %in restrict : memref<128x384xf32> to tensor<128x384xf32>
      %out = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) binding(1) alignment(64) offset(%c0) : memref<128x1xf32>
      %e = tensor.empty() : tensor<128xf32>
      %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
      %init = tensor.expand_shape %fill [[0, 1]] output_shape [128, 1] : tensor<128xf32> into tensor<128x1xf32>
      %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [128, 1, 384] : tensor<128x384xf32> into tensor<128x1x384xf32>
      %sum = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b)>],
                             iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%x3 : tensor<128x1x384xf32>) outs(%init : tensor<128x1xf32>) attrs = {kiln.workgroup_tiles = array<i64: 2, 0, 0>} {
        ^bb0(%v: f32, %a: f32):
          %r = arith.addf %v, %a : f32
          linalg.yield %r : f32
        } -> tensor<128x1xf32>
      bufferization.materialize_in_destination %sum in restrict writable %out : (tensor<128x1xf32>, memref<128x1xf32>) -> ()
      return
    }
  }
}

// -----

// A splat constant the host needs in a buffer is a copy of it
// (--kiln-form-dispatches): the copy of the fill it becomes stays the root
// and is tiled, each workgroup filling its 1024 elements (not every
// workgroup the whole output).

#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: hal.executable.source private @splat
hal.executable.source private @splat {
  hal.executable.export public @splat ordinal(0) layout(#layout)
  builtin.module {
    func.func @splat() attributes {kiln.workgroup_loops = 1 : index} {
      %c0 = arith.constant 0 : index
      // CHECK: %[[OUT:.+]] = hal.interface.binding.subspan
      %out = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) : memref<5000xf32>
      %out_t = bufferization.to_tensor %out restrict writable : memref<5000xf32> to tensor<5000xf32>
      %five = arith.constant dense<5.0> : tensor<5000xf32>
      // CHECK: %[[ID:.+]] = hal.interface.workgroup.id[0] : index
      // CHECK: %[[TILE:.+]] = memref.subview %[[OUT]][%{{.+}}] [%{{.+}}] [1]
      // CHECK-NOT: memref<5000xf32>)
      // CHECK: outs(%[[TILE]] :
      %r = linalg.copy {kiln.workgroup_tiles = array<i64: 1024>} ins(%five : tensor<5000xf32>) outs(%out_t : tensor<5000xf32>) -> tensor<5000xf32>
      bufferization.materialize_in_destination %r in restrict writable %out : (tensor<5000xf32>, memref<5000xf32>) -> ()
      return
    }
  }
}
