// RUN: %kiln-opt %s --split-input-file --kiln-hal-bufferize-dispatches --verify-diagnostics | FileCheck %s

// Tensor globals initialized from external parameters (#flow.parameter.named)
// become !hal.buffer globals like any tensor global; the module initializer
// fills each with hal.allocator.allocate.parameter (the runtime's parameter
// files, checked there against the global's type), once per context. A load
// is the global's buffer, read-only when the global is immutable: a
// dispatch that may write it gets a copy.

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK-LABEL: module @parameters
module @parameters {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @neg ordinal(0) layout(#layout)
  }
  // CHECK: util.global private @fc.weight : !hal.buffer
  // CHECK: util.global private @mask : !hal.buffer
  // CHECK: util.global private mutable @state : !hal.buffer
  util.global private @"fc.weight" = #flow.parameter.named<"model"::"fc.weight"> : tensor<2x3xf32>
  util.global private @mask = #flow.parameter.named<"mask"> : tensor<4xi1>
  util.global private mutable @state = #flow.parameter.named<"model"::"state"> : tensor<2x3xf32>
  // CHECK-LABEL: func.func @f
  func.func @f() -> tensor<2x3xf32> {
    %c1 = arith.constant 1 : index
    // CHECK: %[[WBUF:.+]] = util.global.load immutable @fc.weight : !hal.buffer
    %w = util.global.load @"fc.weight" : tensor<2x3xf32>
    // A dispatch that writes its operand in place writes a copy of the
    // immutable parameter's buffer.
    // CHECK: %[[COPY:.+]] = hal.allocator.allocate
    // CHECK: hal.command_buffer.copy_buffer<%{{.+}} : !hal.command_buffer> source(%[[WBUF]] : !hal.buffer)[%{{.+}}] target(%[[COPY]] : !hal.buffer)
    // CHECK: hal.command_buffer.dispatch
    // CHECK-NEXT: (%[[COPY]] : !hal.buffer)
    %0 = flow.dispatch @ex::@neg[%c1](%w) : (tensor<2x3xf32>) -> %w
    return %0 : tensor<2x3xf32>
  }
  // The module initializer (at the end: the module has no initializer of
  // its own to come before):
  // CHECK: util.initializer {
  // CHECK:   %[[DEVICE:.+]] = hal.devices.get
  // CHECK:   %[[ALLOCATOR:.+]] = hal.device.allocator<%[[DEVICE]] : !hal.device> : !hal.allocator
  // CHECK:   %[[W:.+]] = hal.allocator.allocate.parameter<%[[ALLOCATOR]] : !hal.allocator> scope("model") key("fc.weight") : tensor<2x3xf32> -> !hal.buffer
  // CHECK:   util.global.store %[[W]], @fc.weight : !hal.buffer
  // CHECK:   %[[M:.+]] = hal.allocator.allocate.parameter<%[[ALLOCATOR]] : !hal.allocator> scope("") key("mask") : tensor<4xi1> -> !hal.buffer
  // CHECK:   util.global.store %[[M]], @mask : !hal.buffer
  // CHECK:   %[[S:.+]] = hal.allocator.allocate.parameter<%[[ALLOCATOR]] : !hal.allocator> scope("model") key("state") : tensor<2x3xf32> -> !hal.buffer
  // CHECK:   util.global.store %[[S]], @state : !hal.buffer
  // CHECK:   util.return
}

// -----

module @mismatch {
  // expected-error @+1 {{tensor global @w of type 'tensor<2x3xf32>' is initialized from a parameter of type 'tensor<3x2xf32>'}}
  util.global private @w : tensor<2x3xf32> = #flow.parameter.named<"model"::"w"> : tensor<3x2xf32>
}
