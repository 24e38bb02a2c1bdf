// hal's host ops: one per function of the runtime's `hal` module
// (hal/module/hal_module.h), in IREE's keyword syntax, and the casts between
// tensors and buffer views. Each prints as it parses.
// RUN: %kiln-opt %s | FileCheck %s
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s

hal.executable.source private @executable {
  hal.executable.export public @mul ordinal(0)
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>
      ]>)
}

// CHECK-LABEL: func.func @tensors
func.func @tensors(%view: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  // CHECK: %[[T:.+]] = hal.tensor.import %{{.+}} "input0" : !hal.buffer_view -> tensor<?x4xf32>{%{{.+}}}
  %t = hal.tensor.import %view "input0" : !hal.buffer_view -> tensor<?x4xf32>{%n}
  // CHECK: %[[S:.+]] = hal.tensor.import %{{.+}} : !hal.buffer_view -> tensor<4xi32>
  %s = hal.tensor.import %view : !hal.buffer_view -> tensor<4xi32>
  // CHECK: hal.tensor.export %[[T]] "output0" : tensor<?x4xf32>{%{{.+}}} -> !hal.buffer_view
  %r = hal.tensor.export %t "output0" : tensor<?x4xf32>{%n} -> !hal.buffer_view
  return %r : !hal.buffer_view
}

// CHECK-LABEL: func.func @devices_and_buffers
func.func @devices_and_buffers(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0 : i32
  // CHECK: %{{.+}} = hal.devices.count : index
  %count = hal.devices.count : index
  // CHECK: %[[DEVICE:.+]] = hal.devices.get %{{.+}} : !hal.device
  %device = hal.devices.get %c0 : !hal.device
  // CHECK: %[[ALLOCATOR:.+]] = hal.device.allocator<%[[DEVICE]] : !hal.device> : !hal.allocator
  %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
  // CHECK: %[[BUFFER:.+]] = hal.allocator.allocate<%[[ALLOCATOR]] : !hal.allocator> type(%{{.+}}) usage(%{{.+}}) : !hal.buffer{%{{.+}}}
  %buffer = hal.allocator.allocate<%allocator : !hal.allocator> type(%zero) usage(%zero) : !hal.buffer{%c16}
  // CHECK: hal.allocator.allocate.initialized<%[[ALLOCATOR]] : !hal.allocator> value(dense<[1, 2]> : tensor<2xi32>) : !hal.buffer
  %initialized = hal.allocator.allocate.initialized<%allocator : !hal.allocator> value(dense<[1, 2]> : tensor<2xi32>) : !hal.buffer
  // CHECK: hal.allocator.allocate.parameter<%[[ALLOCATOR]] : !hal.allocator> scope("model") key("fc.weight") : tensor<2x3xf32> -> !hal.buffer
  %parameter = hal.allocator.allocate.parameter<%allocator : !hal.allocator> scope("model") key("fc.weight") : tensor<2x3xf32> -> !hal.buffer
  // CHECK: hal.buffer.length<%[[BUFFER]] : !hal.buffer> : index
  %length = hal.buffer.length<%buffer : !hal.buffer> : index
  // CHECK: hal.buffer.assert<%[[BUFFER]] : !hal.buffer> message("operand 1") minimum_length(%{{.+}})
  hal.buffer.assert<%buffer : !hal.buffer> message("operand 1") minimum_length(%c16)
  // CHECK: hal.buffer.load<%[[DEVICE]] : !hal.device> source(%[[BUFFER]] : !hal.buffer)[%{{.+}}] : f32
  %element = hal.buffer.load<%device : !hal.device> source(%buffer : !hal.buffer)[%c0] : f32
  // CHECK: hal.buffer.load<%[[DEVICE]] : !hal.device> source(%[[BUFFER]] : !hal.buffer)[%{{.+}}] : i1
  %flag = hal.buffer.load<%device : !hal.device> source(%buffer : !hal.buffer)[%c0] : i1
  // CHECK: hal.buffer.subspan<%[[BUFFER]] : !hal.buffer>[%{{.+}}, %{{.+}}] : !hal.buffer
  %span = hal.buffer.subspan<%buffer : !hal.buffer>[%c0, %c16] : !hal.buffer
  // CHECK: %[[F32:.+]] = hal.element_type<f32> : i32
  %f32 = hal.element_type<f32> : i32
  // CHECK: hal.buffer_view.create buffer(%[[BUFFER]] : !hal.buffer) shape([%{{.+}}]) type(%[[F32]]) : !hal.buffer_view
  %v0 = hal.buffer_view.create buffer(%buffer : !hal.buffer) shape([%c16]) type(%f32) : !hal.buffer_view
  // CHECK: hal.buffer_view.create buffer(%[[BUFFER]] : !hal.buffer)[%{{.+}}, %{{.+}}] shape([%{{.+}}, %{{.+}}]) type(%[[F32]]) encoding(%{{.+}}) : !hal.buffer_view
  %v1 = hal.buffer_view.create buffer(%buffer : !hal.buffer)[%c0, %c16] shape([%c16, %c16]) type(%f32) encoding(%zero) : !hal.buffer_view
  // CHECK: hal.buffer_view.assert<%{{.+}} : !hal.buffer_view> message("input0") shape([%{{.+}}]) type(%[[F32]])
  hal.buffer_view.assert<%view : !hal.buffer_view> message("input0") shape([%c16]) type(%f32)
  // CHECK: hal.buffer_view.buffer<%{{.+}} : !hal.buffer_view> : !hal.buffer
  %b = hal.buffer_view.buffer<%view : !hal.buffer_view> : !hal.buffer
  // CHECK: hal.buffer_view.rank<%{{.+}} : !hal.buffer_view> : index
  %rank = hal.buffer_view.rank<%view : !hal.buffer_view> : index
  // CHECK: hal.buffer_view.dim<%{{.+}} : !hal.buffer_view>[1] : index
  %dim = hal.buffer_view.dim<%view : !hal.buffer_view>[1] : index
  // CHECK: hal.buffer_view.element_type<%{{.+}} : !hal.buffer_view> : i32
  %type = hal.buffer_view.element_type<%view : !hal.buffer_view> : i32
  return %v1 : !hal.buffer_view
}

// CHECK-LABEL: func.func @command_buffers
func.func @command_buffers(%device: !hal.device, %a: !hal.buffer, %b: !hal.buffer) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %all = arith.constant -1 : index
  %n = arith.constant 4 : i32
  %pattern = arith.constant 0 : i8
  %forever = arith.constant -1 : i64
  // CHECK: %[[EXE:.+]] = hal.executable.create device(%{{.+}} : !hal.device) target(@executable) : !hal.executable
  %exe = hal.executable.create device(%device : !hal.device) target(@executable) : !hal.executable
  // CHECK: %[[ORDINAL:.+]] = hal.executable.export.ordinal target(@executable::@mul) : index
  %ordinal = hal.executable.export.ordinal target(@executable::@mul) : index

  // A one-shot command buffer binds buffers.
  // CHECK: %[[CMD:.+]] = hal.command_buffer.create device(%{{.+}} : !hal.device) mode(OneShot) : !hal.command_buffer
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  // CHECK: hal.command_buffer.fill_buffer<%[[CMD]] : !hal.command_buffer> target(%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}] pattern(%{{.+}} : i8)
  hal.command_buffer.fill_buffer<%cmd : !hal.command_buffer> target(%b : !hal.buffer)[%c0, %c16] pattern(%pattern : i8)
  // CHECK: hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
  hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer>
  // CHECK: hal.command_buffer.copy_buffer<%[[CMD]] : !hal.command_buffer> source(%{{.+}} : !hal.buffer)[%{{.+}}] target(%{{.+}} : !hal.buffer)[%{{.+}}] length(%{{.+}})
  hal.command_buffer.copy_buffer<%cmd : !hal.command_buffer> source(%a : !hal.buffer)[%c0] target(%b : !hal.buffer)[%c0] length(%c16)
  // CHECK: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> target(%[[EXE]] : !hal.executable)[%[[ORDINAL]]] workgroups([%{{.+}}, %{{.+}}, %{{.+}}]) constants([%{{.+}}]) bindings([
  // CHECK-NEXT:   (%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}],
  // CHECK-NEXT:   (%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}]
  // CHECK-NEXT: ]) attributes {dispatch = @executable::@mul}
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer>
      target(%exe : !hal.executable)[%ordinal]
      workgroups([%c1, %c1, %c1])
      constants([%n])
      bindings([
        (%a : !hal.buffer)[%c0, %c16],
        (%b : !hal.buffer)[%c0, %all]
      ]) attributes {dispatch = @executable::@mul}
  // CHECK: hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  // CHECK: %[[DONE:.+]] = hal.fence.create device(%{{.+}} : !hal.device) : !hal.fence
  %done = hal.fence.create device(%device : !hal.device) : !hal.fence
  // CHECK: hal.device.queue.execute<%{{.+}} : !hal.device> signal(%[[DONE]]) commands(%[[CMD]])
  hal.device.queue.execute<%device : !hal.device> signal(%done) commands(%cmd)

  // A reusable one binds binding-table slots (index values); each
  // submission gives the table.
  // CHECK: %[[REUSABLE:.+]] = hal.command_buffer.create device(%{{.+}} : !hal.device) mode(None) bindings(%{{.+}}) : !hal.command_buffer
  %reusable = hal.command_buffer.create device(%device : !hal.device) mode(None) bindings(%c2) : !hal.command_buffer
  // CHECK: hal.command_buffer.dispatch<%[[REUSABLE]] : !hal.command_buffer> target(%[[EXE]] : !hal.executable)[%[[ORDINAL]]] workgroups([%{{.+}}, %{{.+}}, %{{.+}}]) bindings([
  // CHECK-NEXT:   (%{{.+}} : index)[%{{.+}}, %{{.+}}],
  // CHECK-NEXT:   (%{{.+}} : index)[%{{.+}}, %{{.+}}]
  // CHECK-NEXT: ])
  hal.command_buffer.dispatch<%reusable : !hal.command_buffer>
      target(%exe : !hal.executable)[%ordinal]
      workgroups([%c1, %c1, %c1])
      bindings([
        (%c0 : index)[%c0, %c16],
        (%c1 : index)[%c0, %c16]
      ])
  hal.command_buffer.finalize<%reusable : !hal.command_buffer>
  // CHECK: hal.command_buffer.create device(%{{.+}} : !hal.device) mode("OneShot|AllowInlineExecution") : !hal.command_buffer
  %inline = hal.command_buffer.create device(%device : !hal.device) mode(OneShot|AllowInlineExecution) : !hal.command_buffer
  // CHECK: %[[AGAIN:.+]] = hal.fence.create
  %again = hal.fence.create device(%device : !hal.device) : !hal.fence
  // CHECK: hal.device.queue.execute.indirect<%{{.+}} : !hal.device> wait(%[[DONE]]) signal(%[[AGAIN]]) commands(%[[REUSABLE]]) bindings([%{{.+}}, %{{.+}}])
  hal.device.queue.execute.indirect<%device : !hal.device> wait(%done) signal(%again) commands(%reusable) bindings([%a, %b])

  // Queue-ordered allocation.
  // CHECK: %[[TRANSIENT:.+]] = hal.device.queue.alloca<%{{.+}} : !hal.device> wait(%[[AGAIN]]) signal(%{{.+}}) : !hal.buffer{%{{.+}}}
  %allocated = hal.fence.create device(%device : !hal.device) : !hal.fence
  %transient = hal.device.queue.alloca<%device : !hal.device> wait(%again) signal(%allocated) : !hal.buffer{%c16}
  %freed = hal.fence.create device(%device : !hal.device) : !hal.fence
  // CHECK: hal.device.queue.dealloca<%{{.+}} : !hal.device> wait(%{{.+}}) signal(%[[FREED:.+]]) buffer(%[[TRANSIENT]] : !hal.buffer)
  hal.device.queue.dealloca<%device : !hal.device> wait(%allocated) signal(%freed) buffer(%transient : !hal.buffer)
  // CHECK: hal.fence.await until([%[[FREED]]]) timeout_millis(%{{.+}})
  hal.fence.await until([%freed]) timeout_millis(%forever)
  return
}
