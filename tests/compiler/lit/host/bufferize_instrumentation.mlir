// RUN: %kiln-opt %s --split-input-file --kiln-hal-bufferize-dispatches --verify-diagnostics | FileCheck %s

// A dispatch of an instrumented export (its layout's last binding is the
// Instrumentation binding) passes its site id as the last constant and binds
// the context's instrumentation ring, whole, as the last binding; the
// module initializer makes the ring once. Hand-written kernels compiled
// without --instrument-dispatches have no site ids yet: they are numbered in
// program order over the module, and the ring is 1 MiB.

#plain = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
#instrumented = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer, Instrumentation>
]>

// CHECK-LABEL: module @hand_written
module @hand_written {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @plain ordinal(0) layout(#plain)
    hal.executable.export public @timed ordinal(1) layout(#instrumented)
  }
  // CHECK: func.func @f(
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %c4 = arith.constant 4 : i32
    // CHECK: %[[C7:.+]] = arith.constant 7 : i32
    %c7 = arith.constant 7 : i32
    // After the result's allocation:
    // CHECK: hal.allocator.allocate
    // CHECK-NEXT: %[[SITE0:.+]] = arith.constant 0 : i32
    // CHECK-NEXT: %[[RING0:.+]] = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
    // CHECK-NEXT: %[[BYTES0:.+]] = arith.constant 1048576 : index
    // CHECK: hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> target(%{{.+}} : !hal.executable)[%{{.+}}] workgroups([%{{.+}}, %{{.+}}, %{{.+}}]) constants([%[[C7]], %[[SITE0]]]) bindings([
    // CHECK-NEXT: (%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}],
    // CHECK-NEXT: (%[[OUT0:.+]] : !hal.buffer)[%{{.+}}, %{{.+}}],
    // CHECK-NEXT: (%[[RING0]] : !hal.buffer)[%{{.+}}, %[[BYTES0]]]
    // CHECK-NEXT: ]) attributes {dispatch = @ex::@timed, kiln.dispatch_site_id = 0 : i32}
    %0 = flow.dispatch @ex::@timed(%c7, %a) : (i32, tensor<4xf32>) -> tensor<4xf32>
    // An uninstrumented export: nothing appended, no site id.
    // CHECK: constants([%{{[^,]+}}]) bindings([
    // CHECK-NEXT: (%[[OUT0]] : !hal.buffer)[%{{.+}}, %{{.+}}],
    // CHECK-NEXT: (%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}]
    // CHECK-NEXT: ]) attributes {dispatch = @ex::@plain}
    %1 = flow.dispatch @ex::@plain(%c4, %0) : (i32, tensor<4xf32>) -> tensor<4xf32>
    // CHECK: hal.allocator.allocate
    // CHECK-NEXT: %[[SITE1:.+]] = arith.constant 1 : i32
    // CHECK-NEXT: %[[RING1:.+]] = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
    // CHECK: constants([%{{.+}}, %[[SITE1]]]) bindings([
    // CHECK: (%[[RING1]] : !hal.buffer)
    // CHECK-NEXT: ]) attributes {dispatch = @ex::@timed, kiln.dispatch_site_id = 1 : i32}
    %2 = flow.dispatch @ex::@timed(%c7, %1) : (i32, tensor<4xf32>) -> tensor<4xf32>
    // CHECK: call @g(
    %3 = func.call @g(%2) : (tensor<4xf32>) -> tensor<4xf32>
    return %3 : tensor<4xf32>
  }
  // Ids continue over the module, in program order.
  // CHECK: func.func @g(
  func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
    %c7 = arith.constant 7 : i32
    // CHECK: attributes {dispatch = @ex::@timed, kiln.dispatch_site_id = 2 : i32}
    %0 = flow.dispatch @ex::@timed(%c7, %a) : (i32, tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  // CHECK-DAG: util.global private @__hal_instrumentation_ring : !hal.buffer
  // CHECK-DAG: util.global private @__hal_device : !hal.device
  // CHECK: util.initializer {
  // CHECK:   %[[D:.+]] = hal.devices.get %{{.+}} : !hal.device
  // CHECK:   util.global.store %[[D]], @__hal_device : !hal.device
  // CHECK:   hal.executable.create device(%[[D]] : !hal.device) target(@ex)
  // CHECK:   %[[BYTES:.+]] = arith.constant 1048576 : index
  // CHECK:   %[[RING:.+]] = hal.device.instrumentation_ring<%[[D]] : !hal.device> bytes(%[[BYTES]]) : !hal.buffer
  // CHECK:   util.global.store %[[RING]], @__hal_instrumentation_ring : !hal.buffer
  // CHECK:   util.return
}

// -----

// Site ids given by kiln-instrument-dispatches are kept; the ring has the
// module's size (kiln.instrument_ring_bytes).

#instrumented = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer, Instrumentation>
]>

// CHECK-LABEL: module @numbered
module @numbered attributes {kiln.instrument_ring_bytes = 4096 : i64} {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @timed ordinal(0) layout(#instrumented)
  }
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    // CHECK: %[[SITE:.+]] = arith.constant 5 : i32
    // CHECK-NEXT: util.global.load immutable @__hal_instrumentation_ring
    // CHECK-NEXT: %[[BYTES:.+]] = arith.constant 4096 : index
    // CHECK: constants([%[[SITE]]]) bindings([
    // CHECK-NEXT: (%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}],
    // CHECK-NEXT: (%{{.+}} : !hal.buffer)[%{{.+}}, %[[BYTES]]]
    // CHECK-NEXT: ]) attributes {dispatch = @ex::@timed, kiln.dispatch_site_id = 5 : i32}
    %0 = flow.dispatch @ex::@timed(%a) {kiln.dispatch_site_id = 5 : i32} : (tensor<4xf32>) -> %a
    // A dispatch without an id gets the next one after the module's largest.
    // CHECK: attributes {dispatch = @ex::@timed, kiln.dispatch_site_id = 6 : i32}
    %1 = flow.dispatch @ex::@timed(%0) : (tensor<4xf32>) -> %0
    return %1 : tensor<4xf32>
  }
  // CHECK: util.initializer {
  // CHECK:   %[[B:.+]] = arith.constant 4096 : index
  // CHECK:   hal.device.instrumentation_ring<%{{.+}} : !hal.device> bytes(%[[B]]) : !hal.buffer
}

// -----

// A module without instrumented exports has no ring.

#plain = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK-LABEL: module @plain
// CHECK-NOT: instrumentation
// CHECK-NOT: kiln.dispatch_site_id
module @plain {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @f ordinal(0) layout(#plain)
  }
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = flow.dispatch @ex::@f(%a) : (tensor<4xf32>) -> %a
    return %0 : tensor<4xf32>
  }
}

// -----

#instrumented = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer, Instrumentation>
]>

// expected-error @+1 {{'kiln.instrument_ring_bytes' must be an integer of at least 64 bytes and a multiple of 32, got 100 : i64}}
module @bad_size attributes {kiln.instrument_ring_bytes = 100 : i64} {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @timed ordinal(0) layout(#instrumented)
  }
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = flow.dispatch @ex::@timed(%a) : (tensor<4xf32>) -> %a
    return %0 : tensor<4xf32>
  }
}
