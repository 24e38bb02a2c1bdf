// RUN: %kiln-opt %s --kiln-hal-plan-memory --cse | FileCheck %s
// (CSE'd: equal ranges of the arena are one value.)

// Collectives take part in memory planning like dispatches: a buffer a
// collective sends or receives lives from its first use to the await of
// the last submission using it. A chain of collectives, each its own
// awaited submission (as bufferization makes them):
//   in -all_reduce-> %a -all_to_all-> %b -all_reduce-> %c -all_gather-> %d -> returned
// %a is dead once the all_to_all's submission is awaited, so %c reuses its
// bytes; %b lives across both; %d escapes (returned) and keeps its own
// allocation.

// CHECK: util.global private @__hal_arena_chain {kiln.memory_arena} : !hal.buffer
// CHECK-LABEL: func.func @chain
// CHECK-SAME: kiln.reflection = {arena_size = "512"}
// CHECK: %[[ARENA:.+]] = util.global.load immutable @__hal_arena_chain : !hal.buffer
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[A:.+]] = hal.buffer.subspan<%[[ARENA]] : !hal.buffer>[%[[C0]], %{{.+}}]
// CHECK: hal.command_buffer.collective<{{.+}} op(<all_reduce with sum : f32>) send(%arg0 : !hal.buffer){{.+}} recv(%[[A]] : !hal.buffer)
// CHECK: %[[C256:.+]] = arith.constant 256 : index
// CHECK-NEXT: %[[B:.+]] = hal.buffer.subspan<%[[ARENA]] : !hal.buffer>[%[[C256]], %{{.+}}]
// CHECK: hal.command_buffer.collective<{{.+}} op(<all_to_all : f32>) send(%[[A]] : !hal.buffer){{.+}} recv(%[[B]] : !hal.buffer)
// %c is %a's range (one subspan, once CSE'd).
// CHECK-NOT: hal.buffer.subspan
// CHECK: hal.command_buffer.collective<{{.+}} op(<all_reduce with maximum : f32>) send(%[[B]] : !hal.buffer){{.+}} recv(%[[A]] : !hal.buffer)
// CHECK: %[[D:.+]] = hal.allocator.allocate
// CHECK: hal.command_buffer.collective<{{.+}} op(<all_gather : f32>) send(%[[A]] : !hal.buffer){{.+}} recv(%[[D]] : !hal.buffer)
// CHECK: return %[[D]]
util.global private @__hal_device : !hal.device
util.global private @__hal_channel : !hal.channel

func.func @chain(%in: !hal.buffer) -> !hal.buffer {
  %device = util.global.load immutable @__hal_device : !hal.device
  %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
  %channel = util.global.load immutable @__hal_channel : !hal.channel
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c0_i32 = arith.constant 0 : i32
  %timeout = arith.constant -1 : i64
  %a = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %cmd0 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd0 : !hal.command_buffer> channel(%channel : !hal.channel) op(<all_reduce with sum : f32>) send(%in : !hal.buffer)[%c0, %c16] recv(%a : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd0 : !hal.command_buffer>
  %f0 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f0) commands(%cmd0)
  hal.fence.await until([%f0]) timeout_millis(%timeout)
  %b = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %cmd1 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd1 : !hal.command_buffer> channel(%channel : !hal.channel) op(<all_to_all : f32>) send(%a : !hal.buffer)[%c0, %c16] recv(%b : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd1 : !hal.command_buffer>
  %f1 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f1) commands(%cmd1)
  hal.fence.await until([%f1]) timeout_millis(%timeout)
  %c = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %cmd2 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd2 : !hal.command_buffer> channel(%channel : !hal.channel) op(<all_reduce with maximum : f32>) send(%b : !hal.buffer)[%c0, %c16] recv(%c : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd2 : !hal.command_buffer>
  %f2 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f2) commands(%cmd2)
  hal.fence.await until([%f2]) timeout_millis(%timeout)
  %d = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %cmd3 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd3 : !hal.command_buffer> channel(%channel : !hal.channel) op(<all_gather : f32>) send(%c : !hal.buffer)[%c0, %c16] recv(%d : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd3 : !hal.command_buffer>
  %f3 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f3) commands(%cmd3)
  hal.fence.await until([%f3]) timeout_millis(%timeout)
  return %d : !hal.buffer
}
