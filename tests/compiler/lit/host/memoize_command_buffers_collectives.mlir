// RUN: %kiln-opt %s --kiln-hal-memoize-command-buffers --cse | FileCheck %s
// (CSE'd: one constant per value.)

// Collectives are recorded once like dispatches when they are static: the
// channel a default one (an immutable global the initializer set), the
// ranges, the count and send_recv's ranks constants. Their send and recv
// buffers are bound as a dispatch's two bindings would be: both slots of
// the binding table when one of them is the call's own buffer (a fixed
// buffer, here the arena, then a slot whose entry is its global, at the
// range's offset in it), or both fixed buffers recorded as they are.

// CHECK-LABEL: func.func @slots
// CHECK-NOT: hal.command_buffer.collective
// CHECK: %[[ARENA:.+]] = util.global.load immutable @__hal_arena_f : !hal.buffer
// CHECK: hal.device.queue.execute.indirect<%{{.+}} : !hal.device> signal(%{{.+}}) commands(%{{.+}}) bindings([%arg0, %[[ARENA]], %arg1])

// CHECK-LABEL: func.func @fixed
// CHECK-NOT: hal.command_buffer.collective
// CHECK: hal.device.queue.execute.indirect<%{{.+}} : !hal.device> signal(%{{.+}}) commands(%{{.+}}) bindings([])

// A collective on a channel split at run time is recorded at every call.
// CHECK-LABEL: func.func @split_channel
// CHECK: %[[SPLIT:.+]] = hal.channel.split
// CHECK: hal.command_buffer.create device(%{{.+}} : !hal.device) mode({{ ?}}OneShot)
// CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%[[SPLIT]] : !hal.channel)
// CHECK: hal.device.queue.execute<

// So is a send_recv whose peers are known only at run time.
// CHECK-LABEL: func.func @dynamic_ranks
// CHECK: hal.command_buffer.create device(%{{.+}} : !hal.device) mode({{ ?}}OneShot)
// CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> {{.+}} ranks(%arg2, %arg3)
// CHECK: hal.device.queue.execute<

// The recordings: slot 0 = %arg0, slot 1 = the arena (its range at 256),
// slot 2 = %arg1.
// CHECK-LABEL: func.func private @__hal_record_command_buffer_0() -> !hal.command_buffer
// CHECK-DAG: %[[S0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[S1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK-DAG: %[[CHANNEL:.+]] = util.global.load immutable @__hal_channel : !hal.channel
// CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%[[CHANNEL]] : !hal.channel) op(<all_reduce with sum : f32>) send(%[[S0]] : index)[%{{.+}}, %{{.+}}] recv(%[[S1]] : index)[%[[C256]], %{{.+}}]
// CHECK-NEXT: hal.command_buffer.execution_barrier
// CHECK-DAG: %[[S2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[SEND:.+]] = arith.constant 1 : i32
// CHECK-DAG: %[[RECV:.+]] = arith.constant -1 : i32
// CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%[[CHANNEL]] : !hal.channel) op(<send_recv : f32>) ranks(%[[SEND]], %[[RECV]]) send(%[[S1]] : index)[%[[C256]], %{{.+}}] recv(%[[S2]] : index)
// CHECK-NEXT: hal.command_buffer.finalize

// All fixed: the weights and the arena themselves.
// CHECK-LABEL: func.func private @__hal_record_command_buffer_1() -> !hal.command_buffer
// CHECK-DAG: %[[WEIGHTS:.+]] = util.global.load immutable @weights : !hal.buffer
// CHECK-DAG: %[[ARENA_COPY:.+]] = util.global.load immutable @__hal_arena_f : !hal.buffer
// CHECK-DAG: %[[AT:.+]] = arith.constant 256 : index
// CHECK: hal.command_buffer.collective<%{{.+}} : !hal.command_buffer> channel(%{{.+}} : !hal.channel) op(<all_reduce with sum : f32>) send(%[[WEIGHTS]] : !hal.buffer)[%{{.+}}, %{{.+}}] recv(%[[ARENA_COPY]] : !hal.buffer)[%[[AT]], %{{.+}}]

util.global private @__hal_device : !hal.device
util.global private @__hal_channel : !hal.channel
util.global private @weights : !hal.buffer
util.global private @__hal_arena_f {kiln.memory_arena} : !hal.buffer

func.func @slots(%a: !hal.buffer, %r: !hal.buffer) {
  %device = util.global.load immutable @__hal_device : !hal.device
  %channel = util.global.load immutable @__hal_channel : !hal.channel
  %arena = util.global.load immutable @__hal_arena_f : !hal.buffer
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %c1_i32 = arith.constant 1 : i32
  %c-1_i32 = arith.constant -1 : i32
  %timeout = arith.constant -1 : i64
  %t = hal.buffer.subspan<%arena : !hal.buffer>[%c256, %c16] : !hal.buffer
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%channel : !hal.channel) op(<all_reduce with sum : f32>) send(%a : !hal.buffer)[%c0, %c16] recv(%t : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer>
  hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%channel : !hal.channel) op(<send_recv : f32>) ranks(%c1_i32, %c-1_i32) send(%t : !hal.buffer)[%c0, %c16] recv(%r : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  return
}

func.func @fixed() {
  %device = util.global.load immutable @__hal_device : !hal.device
  %channel = util.global.load immutable @__hal_channel : !hal.channel
  %weights = util.global.load immutable @weights : !hal.buffer
  %arena = util.global.load immutable @__hal_arena_f : !hal.buffer
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %timeout = arith.constant -1 : i64
  %t = hal.buffer.subspan<%arena : !hal.buffer>[%c256, %c16] : !hal.buffer
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%channel : !hal.channel) op(<all_reduce with sum : f32>) send(%weights : !hal.buffer)[%c0, %c16] recv(%t : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  return
}

func.func @split_channel(%a: !hal.buffer, %b: !hal.buffer, %color: i32) {
  %device = util.global.load immutable @__hal_device : !hal.device
  %channel = util.global.load immutable @__hal_channel : !hal.channel
  %split = hal.channel.split<%channel : !hal.channel> color(%color) key(%color) : !hal.channel
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %timeout = arith.constant -1 : i64
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%split : !hal.channel) op(<all_reduce with sum : f32>) send(%a : !hal.buffer)[%c0, %c16] recv(%b : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  return
}

func.func @dynamic_ranks(%a: !hal.buffer, %b: !hal.buffer, %send: i32, %recv: i32) {
  %device = util.global.load immutable @__hal_device : !hal.device
  %channel = util.global.load immutable @__hal_channel : !hal.channel
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %timeout = arith.constant -1 : i64
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%channel : !hal.channel) op(<send_recv : f32>) ranks(%send, %recv) send(%a : !hal.buffer)[%c0, %c16] recv(%b : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  return
}
