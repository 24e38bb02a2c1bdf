// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-instrument-dispatches=ring-bytes=4096 | FileCheck %s

// --kiln-instrument-dispatches gives every generated kernel the instrumented
// layout (one more constant, the site id, and the ring as last binding) on
// its export and on all its interface ops, reads the clock at entry, and
// before the return writes one record per workgroup into the ring
// (hal/cpu/kernel_abi.h): after a workgroup barrier, the leader claims a
// slot with an atomic add on header word 0 (`next`) and, when header word 1
// (`capacity`) is not 0, stores 8 words at word 8 + 8 * (slot % capacity):
// site id, workgroup id x y z, start low high, end low high. The ring is
// 4096 bytes: memref<1024xi32>. Each flow.dispatch of an instrumented
// export gets its site id, in program order.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
// The instrumented layout, on the export and on every interface op:
// CHECK-LABEL: hal.executable.source private @scale
// CHECK:         hal.executable.export public @scale ordinal(0) layout(#hal.pipeline.layout<[[LAYOUT:constants = 2, bindings = \[#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer, Instrumentation>\]]]>)
hal.executable.source private @scale {
  hal.executable.export public @scale ordinal(0) layout(#layout)
  builtin.module {
    // CHECK:       func.func @scale()
    // CHECK-NEXT:    %[[START:.+]] = hal.interface.timestamp : i64
    // CHECK:         hal.interface.constant.load layout(<[[LAYOUT]]>) ordinal(0) : index
    // CHECK:         hal.interface.binding.subspan layout(<[[LAYOUT]]>) binding(0)
    // CHECK:         hal.interface.binding.subspan layout(<[[LAYOUT]]>) binding(1)
    // CHECK:         memref.store
    // CHECK-NEXT:    hal.interface.workgroup.barrier
    // CHECK-NEXT:    %[[LEADER:.+]] = hal.interface.workgroup.leader : i1
    // CHECK-NEXT:    scf.if %[[LEADER]] {
    // CHECK-NEXT:      %[[END:.+]] = hal.interface.timestamp : i64
    // CHECK-NEXT:      %[[SITE:.+]] = hal.interface.constant.load layout(<[[LAYOUT]]>) ordinal(1) : i32
    // CHECK:           %[[RING:.+]] = hal.interface.binding.subspan layout(<[[LAYOUT]]>) binding(2) alignment(32) offset(%{{.+}}) : memref<1024xi32>
    // CHECK-DAG:       %[[ONE:.+]] = arith.constant 1 : i32
    // CHECK-DAG:       %[[ZERO:.+]] = arith.constant 0 : i32
    // CHECK-DAG:       %[[NEXT:.+]] = arith.constant 0 : index
    // CHECK:           %[[SLOT:.+]] = memref.atomic_rmw addi %[[ONE]], %[[RING]][%[[NEXT]]] : (i32, memref<1024xi32>) -> i32
    // CHECK-NEXT:      %[[CAPACITY_WORD:.+]] = arith.constant 1 : index
    // CHECK-NEXT:      %[[CAPACITY:.+]] = memref.load %[[RING]][%[[CAPACITY_WORD]]] : memref<1024xi32>
    // CHECK-NEXT:      %[[ROOM:.+]] = arith.cmpi ne, %[[CAPACITY]], %[[ZERO]] : i32
    // CHECK-NEXT:      scf.if %[[ROOM]] {
    // CHECK-NEXT:        %[[RECORD:.+]] = arith.remui %[[SLOT]], %[[CAPACITY]] : i32
    // CHECK-NEXT:        %[[RECORD_INDEX:.+]] = arith.index_castui %[[RECORD]] : i32 to index
    // CHECK-NEXT:        %[[C8:.+]] = arith.constant 8 : index
    // CHECK-NEXT:        %[[WORDS:.+]] = arith.muli %[[RECORD_INDEX]], %[[C8]] : index
    // CHECK-NEXT:        %[[C8_HEADER:.+]] = arith.constant 8 : index
    // CHECK-NEXT:        %[[BASE:.+]] = arith.addi %[[WORDS]], %[[C8_HEADER]] : index
    // Word 0: the site id.
    // CHECK-NEXT:        %[[W0:.+]] = arith.constant 0 : index
    // CHECK-NEXT:        %[[I0:.+]] = arith.addi %[[BASE]], %[[W0]] : index
    // CHECK-NEXT:        memref.store %[[SITE]], %[[RING]][%[[I0]]] : memref<1024xi32>
    // Words 1-3: the workgroup id.
    // CHECK-NEXT:        %[[X:.+]] = hal.interface.workgroup.id[0] : index
    // CHECK-NEXT:        %[[X32:.+]] = arith.index_castui %[[X]] : index to i32
    // CHECK-NEXT:        %[[W1:.+]] = arith.constant 1 : index
    // CHECK-NEXT:        %[[I1:.+]] = arith.addi %[[BASE]], %[[W1]] : index
    // CHECK-NEXT:        memref.store %[[X32]], %[[RING]][%[[I1]]]
    // CHECK-NEXT:        hal.interface.workgroup.id[1] : index
    // CHECK:             arith.constant 2 : index
    // CHECK:             hal.interface.workgroup.id[2] : index
    // CHECK:             arith.constant 3 : index
    // Words 4-5 and 6-7: start and end, low word first.
    // CHECK:             %[[START_LOW:.+]] = arith.trunci %[[START]] : i64 to i32
    // CHECK-NEXT:        %[[C32:.+]] = arith.constant 32 : i64
    // CHECK-NEXT:        %[[START_SHIFTED:.+]] = arith.shrui %[[START]], %[[C32]] : i64
    // CHECK-NEXT:        %[[START_HIGH:.+]] = arith.trunci %[[START_SHIFTED]] : i64 to i32
    // CHECK-NEXT:        %[[W4:.+]] = arith.constant 4 : index
    // CHECK-NEXT:        %[[I4:.+]] = arith.addi %[[BASE]], %[[W4]] : index
    // CHECK-NEXT:        memref.store %[[START_LOW]], %[[RING]][%[[I4]]]
    // CHECK-NEXT:        %[[W5:.+]] = arith.constant 5 : index
    // CHECK-NEXT:        %[[I5:.+]] = arith.addi %[[BASE]], %[[W5]] : index
    // CHECK-NEXT:        memref.store %[[START_HIGH]], %[[RING]][%[[I5]]]
    // CHECK-NEXT:        %[[END_LOW:.+]] = arith.trunci %[[END]] : i64 to i32
    // CHECK:             %[[END_SHIFTED:.+]] = arith.shrui %[[END]], %{{.+}} : i64
    // CHECK-NEXT:        %[[END_HIGH:.+]] = arith.trunci %[[END_SHIFTED]] : i64 to i32
    // CHECK-NEXT:        %[[W6:.+]] = arith.constant 6 : index
    // CHECK-NEXT:        %[[I6:.+]] = arith.addi %[[BASE]], %[[W6]] : index
    // CHECK-NEXT:        memref.store %[[END_LOW]], %[[RING]][%[[I6]]]
    // CHECK-NEXT:        %[[W7:.+]] = arith.constant 7 : index
    // CHECK-NEXT:        %[[I7:.+]] = arith.addi %[[BASE]], %[[W7]] : index
    // CHECK-NEXT:        memref.store %[[END_HIGH]], %[[RING]][%[[I7]]]
    // CHECK-NEXT:      }
    // CHECK-NEXT:    }
    // CHECK-NEXT:    return
    func.func @scale() {
      %c0 = arith.constant 0 : index
      %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
      %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
      %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%n}
      %id = hal.interface.workgroup.id[0] : index
      %x = memref.load %in[%id] : memref<?xf32>
      memref.store %x, %out[%id] : memref<?xf32>
      return
    }
  }
}

// A library call's export runs no kernel where the call is taken: it keeps
// its layout, and its kernel records nothing.
// CHECK-LABEL: hal.executable.source private @matmul
// CHECK:         hal.executable.export public @matmul ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) attributes {kiln.library_call
// CHECK:         func.func @matmul()
// CHECK-NOT:     hal.interface.timestamp
// CHECK:         return
hal.executable.source private @matmul {
  hal.executable.export public @matmul ordinal(0) layout(#layout) attributes {kiln.library_call = {kind = "matmul"}}
  builtin.module {
    func.func @matmul() {
      return
    }
  }
}

// A hand-written executable (objects) is left alone: it opts in by
// declaring the Instrumentation binding itself, and its dispatches get site
// ids as well.
#manual = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer, Instrumentation>
]>
// CHECK-LABEL: hal.executable.source private @handwritten
// CHECK:         hal.executable.export public @plain ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
// CHECK:         hal.executable.export public @opted_in ordinal(1) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer, Instrumentation>]>)
hal.executable.source private @handwritten attributes {
  objects = #hal.executable.objects<{
    #hal.executable.target<"llvm-cpu", "system-elf-x86_64"> = [#hal.executable.object<{path = "k.so"}>]
  }>
} {
  hal.executable.export public @plain ordinal(0) layout(#layout)
  hal.executable.export public @opted_in ordinal(1) layout(#manual)
}

// CHECK-LABEL: func.func @program
// CHECK:         flow.dispatch @scale::@scale{{.*}}kiln.dispatch_site_id = 0 : i32
// CHECK:         flow.dispatch @matmul::@matmul
// CHECK-NOT:     kiln.dispatch_site_id
// CHECK:         flow.dispatch @handwritten::@plain
// CHECK-NOT:     kiln.dispatch_site_id
// CHECK:         flow.dispatch @handwritten::@opted_in{{.*}}kiln.dispatch_site_id = 1 : i32
// CHECK:         flow.dispatch @scale::@scale{{.*}}kiln.dispatch_site_id = 2 : i32
func.func @program(%a: tensor<4xf32>, %n: i32) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %0 = flow.dispatch @scale::@scale[%c1](%n, %a) : (i32, tensor<4xf32>) -> tensor<4xf32>
  %1 = flow.dispatch @matmul::@matmul[%c1](%n, %0) : (i32, tensor<4xf32>) -> tensor<4xf32>
  %2 = flow.dispatch @handwritten::@plain[%c1](%n, %1) : (i32, tensor<4xf32>) -> tensor<4xf32>
  %3 = flow.dispatch @handwritten::@opted_in[%c1](%2) : (tensor<4xf32>) -> %2
  %4 = flow.dispatch @scale::@scale[%c1](%n, %3) : (i32, tensor<4xf32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// The Instrumentation binding must close the layout...
// expected-error @+1 {{binding 0 is an Instrumentation binding, which must be the last binding (the layout has 2)}}
#bad = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, Instrumentation>,
  #hal.pipeline.binding<storage_buffer>
]>

// -----

// ...and the layout needs a constant for the site id.
// expected-error @+1 {{a layout with an Instrumentation binding needs at least one constant}}
#bad = #hal.pipeline.layout<bindings = [
  #hal.pipeline.binding<storage_buffer, Instrumentation>
]>
