// RUN: %kiln-opt %s --split-input-file --kiln-hal-bufferize-dispatches | FileCheck %s

// Tensors at the function boundary become buffer views: asserted on entry,
// taken apart into buffer and dims; each dispatch gets its own one-shot
// submission. The device and executable come from immutable globals that an
// initializer sets.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK-LABEL: module @one_dispatch
module @one_dispatch {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @mul ordinal(0) layout(#layout) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
  }
  // CHECK: func.func @f(%[[A:.+]]: !hal.buffer_view, %[[B:.+]]: !hal.buffer_view) -> !hal.buffer_view
  // CHECK-SAME: kiln.abi_type = (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    // CHECK: %[[DEVICE:.+]] = util.global.load immutable @__hal_device : !hal.device
    // CHECK: %[[ALLOCATOR:.+]] = hal.device.allocator<%[[DEVICE]] : !hal.device> : !hal.allocator
    // CHECK: %[[EXE:.+]] = util.global.load immutable @__hal_executable_ex : !hal.executable
    // CHECK: hal.buffer_view.assert<%[[A]] : !hal.buffer_view> message("argument 0 of @f") shape([%{{.+}}]) type(%[[F32:.+]])
    // CHECK: %[[ABUF:.+]] = hal.buffer_view.buffer<%[[A]] : !hal.buffer_view> : !hal.buffer
    // CHECK: %[[N:.+]] = hal.buffer_view.dim<%[[A]] : !hal.buffer_view>[0] : index
    // CHECK: hal.buffer_view.assert<%[[B]] : !hal.buffer_view> message("argument 1 of @f")
    // CHECK: %[[BBUF:.+]] = hal.buffer_view.buffer<%[[B]] : !hal.buffer_view> : !hal.buffer
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    // The count region, inlined:
    // CHECK: %[[X:.+]] = affine.apply #{{.+}}()[%[[N]]]
    // (The size check of %b: dispatch_size_check.mlir.)
    // CHECK: %[[RESULT:.+]] = hal.allocator.allocate<%[[ALLOCATOR]] : !hal.allocator> type(%{{.+}}) usage(%{{.+}}) : !hal.buffer{%{{.+}}}
    // CHECK: %[[CMD:.+]] = hal.command_buffer.create device(%[[DEVICE]] : !hal.device) mode({{ ?}}OneShot) : !hal.command_buffer
    // CHECK: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> target(%[[EXE]] : !hal.executable)[%{{.+}}] workgroups([%[[X]], %{{.+}}, %{{.+}}]) constants([%{{.+}}]) bindings([
    // CHECK-NEXT: (%[[ABUF]] : !hal.buffer)[%{{.+}}, %{{.+}}],
    // CHECK-NEXT: (%[[BBUF]] : !hal.buffer)[%{{.+}}, %{{.+}}],
    // CHECK-NEXT: (%[[RESULT]] : !hal.buffer)[%{{.+}}, %{{.+}}]
    // CHECK-NEXT: ]) attributes {dispatch = @ex::@mul}
    %0 = flow.dispatch @ex::@mul[%n](%n_i32, %a, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    // CHECK: hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
    // CHECK: %[[FENCE:.+]] = hal.fence.create device(%[[DEVICE]] : !hal.device) : !hal.fence
    // CHECK: hal.device.queue.execute<%[[DEVICE]] : !hal.device> signal(%[[FENCE]]) commands(%[[CMD]])
    // CHECK: hal.fence.await until([%[[FENCE]]]) timeout_millis(%{{.+}})
    // CHECK: %[[VIEW:.+]] = hal.buffer_view.create buffer(%[[RESULT]] : !hal.buffer) shape([%[[N]]]) type(%{{.+}}) : !hal.buffer_view
    // CHECK: return %[[VIEW]] : !hal.buffer_view
    return %0 : tensor<?xf32>
  }
  // CHECK: util.global private @__hal_device : !hal.device
  // CHECK: util.global private @__hal_executable_ex : !hal.executable
  // CHECK: util.initializer {
  // CHECK:   %[[D:.+]] = hal.devices.get %{{.+}} : !hal.device
  // CHECK:   util.global.store %[[D]], @__hal_device : !hal.device
  // CHECK:   %[[E:.+]] = hal.executable.create device(%[[D]] : !hal.device) target(@ex) : !hal.executable
  // CHECK:   util.global.store %[[E]], @__hal_executable_ex : !hal.executable
  // CHECK:   util.return
}

// -----

// Tied results share their operand's buffer (nothing allocated for them);
// several results are bound after the operands, in order; static shapes
// need no size check; tensors cross calls as buffer views.

#layout2 = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK-LABEL: module @tied_and_multiple
module @tied_and_multiple {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @three ordinal(0) layout(#layout2)
  }
  func.func private @callee(%t: tensor<4xf32>) -> tensor<4xf32> {
    return %t : tensor<4xf32>
  }
  // CHECK: func.func @g(%[[A:.+]]: !hal.buffer_view, %[[B:.+]]: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view, !hal.buffer_view)
  func.func @g(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2x4xi32>) {
    %c1 = arith.constant 1 : index
    // CHECK: %[[BBUF:.+]] = hal.buffer_view.buffer<%[[B]] : !hal.buffer_view>
    // CHECK-NOT: hal.buffer.assert
    // CHECK: %[[R1:.+]] = hal.allocator.allocate
    // CHECK: %[[R2:.+]] = hal.allocator.allocate
    // CHECK-NOT: hal.allocator.allocate
    // CHECK: hal.command_buffer.dispatch
    // CHECK-NEXT: (%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}],
    // CHECK-NEXT: (%[[BBUF]] : !hal.buffer)[%{{.+}}, %{{.+}}],
    // CHECK-NEXT: (%[[R1]] : !hal.buffer)[%{{.+}}, %{{.+}}],
    // CHECK-NEXT: (%[[R2]] : !hal.buffer)[%{{.+}}, %{{.+}}]
    // CHECK-NEXT: ])
    %0, %1, %2 = flow.dispatch @ex::@three[%c1](%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (%b, tensor<4xf32>, tensor<2x4xi32>)
    // A tensor crosses a call as a view of its buffer:
    // CHECK: %[[V1:.+]] = hal.buffer_view.create buffer(%[[R1]] : !hal.buffer)
    // CHECK: %[[CALLED:.+]] = call @callee(%[[V1]]) : (!hal.buffer_view) -> !hal.buffer_view
    %3 = func.call @callee(%1) : (tensor<4xf32>) -> tensor<4xf32>
    // CHECK: hal.buffer_view.buffer<%[[CALLED]] : !hal.buffer_view>
    // The tied result is %b's buffer, viewed again:
    // CHECK: %[[V0:.+]] = hal.buffer_view.create buffer(%[[BBUF]] : !hal.buffer)
    // CHECK: %[[V2:.+]] = hal.buffer_view.create buffer(%[[R2]] : !hal.buffer)
    // CHECK: return %[[V0]], %[[CALLED]], %[[V2]] : !hal.buffer_view, !hal.buffer_view, !hal.buffer_view
    return %0, %3, %2 : tensor<4xf32>, tensor<4xf32>, tensor<2x4xi32>
  }
}

// -----

// util.optimization_barrier on a tensor: the same buffer passes through
// (fusion already stopped at it); a scalar beside it keeps its barrier.
#layout3 = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
// CHECK-LABEL: module @barrier
module @barrier {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @copy ordinal(0) layout(#layout3)
  }
  // CHECK: func.func @f(%[[A:.+]]: !hal.buffer_view, %[[N:.+]]: i32)
  func.func @f(%a: tensor<4xf32>, %n: i32) -> (tensor<4xf32>, i32) {
    %c1 = arith.constant 1 : index
    // CHECK: %[[ABUF:.+]] = hal.buffer_view.buffer<%[[A]]
    // CHECK: %[[KEPT:.+]] = util.optimization_barrier %[[N]] : i32
    // CHECK-NOT: util.optimization_barrier
    %t, %m = util.optimization_barrier %a, %n : tensor<4xf32>, i32
    // CHECK: hal.command_buffer.dispatch
    // CHECK-NEXT: (%[[ABUF]] : !hal.buffer)
    %r = flow.dispatch @ex::@copy[%c1](%m, %t) : (i32, tensor<4xf32>) -> tensor<4xf32>
    // CHECK: return %{{.+}}, %[[KEPT]]
    return %r, %m : tensor<4xf32>, i32
  }
}
