// RUN: %kiln-opt %s --split-input-file --kiln-hal-bufferize-dispatches | FileCheck %s

// Tensor globals become !hal.buffer globals that the module initializer
// fills before the program's own initializers run: element lists from the
// module's data, splats (and the zeros of a mutable global without a value)
// by a fill on the device; an immutable global without a value is left to
// the program's initializer. A load is the global's buffer (immutable
// globals' loads stay `immutable`), a store makes a dispatch's result the
// global's buffer.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK-LABEL: module @globals
module @globals {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @scale ordinal(0) layout(#layout)
  }
  // CHECK: util.global private @w : !hal.buffer
  // CHECK: util.global private @half : !hal.buffer
  // CHECK: util.global private mutable @state : !hal.buffer
  // CHECK: util.global private @set_later : !hal.buffer
  util.global private @w = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  util.global private @half = dense<0.5> : tensor<4xf32>
  util.global private mutable @state : tensor<4xf32>
  util.global private @set_later : tensor<2xi32>
  // The module initializer, first:
  // CHECK: util.initializer {
  // CHECK:   %[[DEVICE:.+]] = hal.devices.get
  // CHECK:   util.global.store %[[DEVICE]], @__hal_device : !hal.device
  // CHECK:   util.global.store %{{.+}}, @__hal_executable_ex : !hal.executable
  // CHECK:   %[[ALLOCATOR:.+]] = hal.device.allocator<%[[DEVICE]] : !hal.device> : !hal.allocator
  // CHECK:   %[[W:.+]] = hal.allocator.allocate.initialized<%[[ALLOCATOR]] : !hal.allocator> value(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>) : !hal.buffer
  // CHECK:   util.global.store %[[W]], @w : !hal.buffer
  // 0.5 is 0x3F000000:
  // CHECK:   %[[HALF_BITS:.+]] = arith.constant 1056964608 : i32
  // CHECK:   %[[HALF:.+]] = hal.allocator.allocate<%[[ALLOCATOR]] : !hal.allocator> {{.*}} : !hal.buffer{%[[C16:.+]]}
  // CHECK:   %[[CMD:.+]] = hal.command_buffer.create device(%[[DEVICE]] : !hal.device)
  // CHECK:   hal.command_buffer.fill_buffer<%[[CMD]] : !hal.command_buffer> target(%[[HALF]] : !hal.buffer)[%{{.+}}, %[[C16]]] pattern(%[[HALF_BITS]] : i32)
  // CHECK:   hal.fence.await
  // CHECK:   util.global.store %[[HALF]], @half : !hal.buffer
  // CHECK:   %[[STATE:.+]] = hal.allocator.allocate<%[[ALLOCATOR]] : !hal.allocator>
  // CHECK:   hal.command_buffer.fill_buffer<%{{.+}} : !hal.command_buffer> target(%[[STATE]] : !hal.buffer)[%{{.+}}, %{{.+}}] pattern(%{{.+}} : i32)
  // CHECK:   hal.fence.await
  // CHECK:   util.global.store %[[STATE]], @state : !hal.buffer
  // CHECK-NOT: @set_later
  // CHECK:   util.return
  // The program's initializer stores its constant (uploaded as it runs once).
  // CHECK: util.initializer {
  // CHECK:   %[[D:.+]] = util.global.load immutable @__hal_device : !hal.device
  // CHECK:   %[[A:.+]] = hal.device.allocator<%[[D]] : !hal.device> : !hal.allocator
  // CHECK:   %[[C:.+]] = hal.allocator.allocate.initialized<%[[A]] : !hal.allocator> value(dense<[5, 6]> : tensor<2xi32>) : !hal.buffer
  // CHECK:   util.global.store %[[C]], @set_later : !hal.buffer
  // CHECK:   util.return
  util.initializer {
    %c = arith.constant dense<[5, 6]> : tensor<2xi32>
    util.global.store %c, @set_later : tensor<2xi32>
    util.return
  }
  // CHECK-LABEL: func.func @step
  func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c4 = arith.constant 4 : index
    %n = arith.constant 4 : i32
    // CHECK: %[[WBUF:.+]] = util.global.load immutable @w : !hal.buffer
    %w = util.global.load @w : tensor<4xf32>
    // CHECK: %[[RESULT:.+]] = hal.allocator.allocate
    // CHECK: hal.command_buffer.dispatch
    // CHECK-NEXT: (%[[WBUF]] : !hal.buffer)
    // CHECK-NEXT: (%[[RESULT]] : !hal.buffer)
    %0 = flow.dispatch @ex::@scale[%c4](%n, %w) : (i32, tensor<4xf32>) -> tensor<4xf32>
    // CHECK: hal.fence.await
    // CHECK: util.global.store %[[RESULT]], @state : !hal.buffer
    util.global.store %0, @state : tensor<4xf32>
    // CHECK: %[[S:.+]] = util.global.load @state : !hal.buffer
    %s = util.global.load @state : tensor<4xf32>
    // CHECK: %[[VIEW:.+]] = hal.buffer_view.create buffer(%[[S]] : !hal.buffer)
    // CHECK: return %[[VIEW]]
    return %s : tensor<4xf32>
  }
}

// -----

// Host tensor constants (of distinct elements: form-dispatches leaves them
// on the host) are immutable globals uploaded once by the module
// initializer; equal constants share one. util.unfoldable_constant stays a
// buffer uploaded each time it runs (it hides its value from the compiler).

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK-LABEL: module @constants
module @constants {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @add ordinal(0) layout(#layout)
  }
  // CHECK-LABEL: func.func @f
  func.func @f() -> tensor<3xi32> {
    %c1 = arith.constant 1 : index
    // CHECK: %[[A:.+]] = util.global.load immutable @__constant : !hal.buffer
    %a = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
    // CHECK: %[[U:.+]] = hal.allocator.allocate.initialized<%{{.+}} : !hal.allocator> value(dense<[4, 5, 6]> : tensor<3xi32>)
    %u = util.unfoldable_constant dense<[4, 5, 6]> : tensor<3xi32>
    // CHECK: hal.command_buffer.dispatch
    // CHECK-NEXT: (%[[A]] : !hal.buffer)
    // CHECK-NEXT: (%[[U]] : !hal.buffer)
    %0 = flow.dispatch @ex::@add[%c1](%a, %u) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    return %0 : tensor<3xi32>
  }
  // CHECK-LABEL: func.func @g
  func.func @g(%x: tensor<3xi32>) -> tensor<3xi32> {
    %c1 = arith.constant 1 : index
    // CHECK: util.global.load immutable @__constant : !hal.buffer
    %a = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
    // CHECK: util.global.load immutable @__constant_1 : !hal.buffer
    %b = arith.constant dense<[7, 8, 9]> : tensor<3xi32>
    // CHECK-NOT: allocate.initialized
    %0 = flow.dispatch @ex::@add[%c1](%a, %x) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %1 = flow.dispatch @ex::@add[%c1](%0, %b) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    return %1 : tensor<3xi32>
  }
  // CHECK: util.global private @__constant : !hal.buffer
  // CHECK: util.global private @__constant_1 : !hal.buffer
  // CHECK: util.initializer {
  // CHECK:   %[[C0:.+]] = hal.allocator.allocate.initialized<%{{.+}} : !hal.allocator> value(dense<[1, 2, 3]> : tensor<3xi32>)
  // CHECK:   util.global.store %[[C0]], @__constant : !hal.buffer
  // CHECK:   %[[C1:.+]] = hal.allocator.allocate.initialized<%{{.+}} : !hal.allocator> value(dense<[7, 8, 9]> : tensor<3xi32>)
  // CHECK:   util.global.store %[[C1]], @__constant_1 : !hal.buffer
}

// -----

// An immutable global's buffer is never written: a dispatch writing its
// operand in place (a tied result) writes a copy made on the device first,
// and a buffer that escapes to a caller (or a callee, or a mutable global)
// is a copy. A mutable global is written in place.

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK-LABEL: module @read_only
module @read_only {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @mul_in_place ordinal(0) layout(#layout)
  }
  util.global private @w = dense<[1.0, 2.0]> : tensor<2xf32>
  util.global private mutable @acc = dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK-LABEL: func.func @f
  func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %c1 = arith.constant 1 : index
    // CHECK: %[[W:.+]] = util.global.load immutable @w : !hal.buffer
    %w = util.global.load @w : tensor<2xf32>
    // CHECK: %[[COPY:.+]] = hal.allocator.allocate<%{{.+}} : !hal.allocator> {{.*}} : !hal.buffer{%[[LENGTH:.+]]}
    // CHECK: %[[CMD:.+]] = hal.command_buffer.create
    // CHECK: hal.command_buffer.copy_buffer<%[[CMD]] : !hal.command_buffer> source(%[[W]] : !hal.buffer)[%{{.+}}] target(%[[COPY]] : !hal.buffer)[%{{.+}}] length(%[[LENGTH]])
    // CHECK: hal.fence.await
    // CHECK: hal.command_buffer.dispatch
    // CHECK-NEXT: (%{{.+}} : !hal.buffer)
    // CHECK-NEXT: (%[[COPY]] : !hal.buffer)
    %0 = flow.dispatch @ex::@mul_in_place[%c1](%x, %w) : (tensor<2xf32>, tensor<2xf32>) -> %w
    // CHECK: %[[ACC:.+]] = util.global.load @acc : !hal.buffer
    %acc = util.global.load @acc : tensor<2xf32>
    // CHECK-NOT: copy_buffer
    // CHECK: hal.command_buffer.dispatch
    // CHECK-NEXT: (%{{.+}} : !hal.buffer)
    // CHECK-NEXT: (%[[ACC]] : !hal.buffer)
    %1 = flow.dispatch @ex::@mul_in_place[%c1](%x, %acc) : (tensor<2xf32>, tensor<2xf32>) -> %acc
    // CHECK: util.global.store %[[ACC]], @acc : !hal.buffer
    util.global.store %1, @acc : tensor<2xf32>
    // CHECK: %[[W2:.+]] = util.global.load immutable @w : !hal.buffer
    %w2 = util.global.load @w : tensor<2xf32>
    // CHECK: %[[V0:.+]] = hal.buffer_view.create buffer(%[[COPY]] : !hal.buffer)
    // CHECK: %[[RETURNED:.+]] = hal.allocator.allocate
    // CHECK: hal.command_buffer.copy_buffer<%{{.+}} : !hal.command_buffer> source(%[[W2]] : !hal.buffer)[%{{.+}}] target(%[[RETURNED]] : !hal.buffer)
    // CHECK: %[[V1:.+]] = hal.buffer_view.create buffer(%[[RETURNED]] : !hal.buffer)
    // CHECK: return %[[V0]], %[[V1]]
    return %0, %w2 : tensor<2xf32>, tensor<2xf32>
  }
}

// -----

// tensor.extract on the host reads the element back from its buffer at the
// row-major byte offset ((i * d1) + j) * element size.

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK-LABEL: module @extract
module @extract {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @neg ordinal(0) layout(#layout)
  }
  // CHECK-LABEL: func.func @f
  func.func @f(%x: tensor<?x5xi16>, %i: index, %j: index) -> i16 {
    // CHECK-SAME: %[[I:[a-z0-9]+]]: index, %[[J:[a-z0-9]+]]: index
    // CHECK: %[[DEVICE:.+]] = util.global.load immutable @__hal_device : !hal.device
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = tensor.dim %x, %c0 : tensor<?x5xi16>
    // CHECK: %[[RESULT:.+]] = hal.allocator.allocate
    %0 = flow.dispatch @ex::@neg[%c1](%x) : (tensor<?x5xi16>{%n}) -> tensor<?x5xi16>{%n}
    // CHECK: hal.fence.await
    // CHECK: %[[ROW:.+]] = arith.muli %{{.+}}, %{{.+}} : index
    // CHECK: %[[R:.+]] = arith.addi %[[ROW]], %[[I]] : index
    // CHECK: %[[ROWS:.+]] = arith.muli %[[R]], %[[C5:.+]] : index
    // CHECK: %[[E:.+]] = arith.addi %[[ROWS]], %[[J]] : index
    // CHECK: %[[OFFSET:.+]] = arith.muli %[[E]], %[[C2:.+]] : index
    // CHECK: %[[V:.+]] = hal.buffer.load<%[[DEVICE]] : !hal.device> source(%[[RESULT]] : !hal.buffer)[%[[OFFSET]]] : i16
    %e = tensor.extract %0[%i, %j] : tensor<?x5xi16>
    // CHECK: return %[[V]] : i16
    return %e : i16
  }
}
