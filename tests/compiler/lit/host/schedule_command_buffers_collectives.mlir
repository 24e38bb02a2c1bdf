// RUN: %kiln-opt %s --kiln-hal-schedule-command-buffers | FileCheck %s

// Collectives share a command buffer with the dispatches around them. A
// collective reads its send buffer and writes its recv buffer, and gets an
// execution barrier where that conflicts with a command before it since the
// last barrier; a dispatch after it likewise. Two collectives always get a
// barrier between them, even on unrelated buffers: every participant must
// run them in the same order, and commands between barriers may overlap.

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @copy ordinal(0) layout(#layout)
}

// CHECK-LABEL: func.func @mixed
func.func @mixed(%device: !hal.device, %allocator: !hal.allocator, %exe: !hal.executable, %channel: !hal.channel, %in: !hal.buffer) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c0_i32 = arith.constant 0 : i32
  %timeout = arith.constant -1 : i64
  %t = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %u = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %w = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %x = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %v = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  // The dispatch writes %t.
  // CHECK: %[[CMD:.+]] = hal.command_buffer.create
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer>
  // CHECK: ]) attributes {dispatch = @ex::@copy}
  %cmd0 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd0 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%in : !hal.buffer)[%c0, %c16], (%t : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd0 : !hal.command_buffer>
  %f0 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f0) commands(%cmd0)
  hal.fence.await until([%f0]) timeout_millis(%timeout)
  // The all_reduce reads %t: a barrier first.
  // CHECK-NEXT: hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
  // CHECK-NEXT: hal.command_buffer.collective<%[[CMD]] : !hal.command_buffer> {{.+}} op(<all_reduce with sum : f32>)
  %cmd1 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd1 : !hal.command_buffer> channel(%channel : !hal.channel) op(<all_reduce with sum : f32>) send(%t : !hal.buffer)[%c0, %c16] recv(%u : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd1 : !hal.command_buffer>
  %f1 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f1) commands(%cmd1)
  hal.fence.await until([%f1]) timeout_millis(%timeout)
  // Another collective on buffers nothing else touched: still a barrier.
  // CHECK-NEXT: hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
  // CHECK-NEXT: hal.command_buffer.collective<%[[CMD]] : !hal.command_buffer> {{.+}} op(<all_gather : f32>)
  %cmd2 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd2 : !hal.command_buffer> channel(%channel : !hal.channel) op(<all_gather : f32>) send(%w : !hal.buffer)[%c0, %c16] recv(%x : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd2 : !hal.command_buffer>
  %f2 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f2) commands(%cmd2)
  hal.fence.await until([%f2]) timeout_millis(%timeout)
  // A dispatch that touches neither %w nor %x overlaps the all_gather.
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer>
  // CHECK: ]) attributes {dispatch = @ex::@copy}
  %cmd3 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd3 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%in : !hal.buffer)[%c0, %c16], (%v : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd3 : !hal.command_buffer>
  %f3 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f3) commands(%cmd3)
  hal.fence.await until([%f3]) timeout_millis(%timeout)
  // One that reads what the all_gather wrote waits for it.
  // CHECK-NEXT: hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer>
  // CHECK: ]) attributes {dispatch = @ex::@copy}
  %cmd4 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd4 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%x : !hal.buffer)[%c0, %c16], (%t : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd4 : !hal.command_buffer>
  %f4 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f4) commands(%cmd4)
  hal.fence.await until([%f4]) timeout_millis(%timeout)
  // One submission at the end.
  // CHECK-NEXT: hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
  // CHECK-NEXT: %[[F:.+]] = hal.fence.create
  // CHECK-NEXT: hal.device.queue.execute<%{{.+}} : !hal.device> signal(%[[F]]) commands(%[[CMD]])
  // CHECK-NEXT: hal.fence.await until([%[[F]]])
  // CHECK-NOT: hal.command_buffer.create
  return
}

// A channel split ends the recording: it communicates on the host, and
// the collectives before it must have run.
// CHECK-LABEL: func.func @split
func.func @split(%device: !hal.device, %allocator: !hal.allocator, %channel: !hal.channel, %a: !hal.buffer, %b: !hal.buffer, %color: i32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %timeout = arith.constant -1 : i64
  // CHECK: hal.command_buffer.create
  // CHECK: hal.command_buffer.collective
  // CHECK: hal.device.queue.execute
  // CHECK: hal.fence.await
  // CHECK: hal.channel.split
  // CHECK: hal.command_buffer.create
  // CHECK: hal.command_buffer.collective
  %cmd0 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd0 : !hal.command_buffer> channel(%channel : !hal.channel) op(<all_reduce with sum : f32>) send(%a : !hal.buffer)[%c0, %c16] recv(%b : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd0 : !hal.command_buffer>
  %f0 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f0) commands(%cmd0)
  hal.fence.await until([%f0]) timeout_millis(%timeout)
  %split = hal.channel.split<%channel : !hal.channel> color(%color) key(%color) : !hal.channel
  %cmd1 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.collective<%cmd1 : !hal.command_buffer> channel(%split : !hal.channel) op(<all_reduce with sum : f32>) send(%b : !hal.buffer)[%c0, %c16] recv(%a : !hal.buffer)[%c0, %c16] count(%c4)
  hal.command_buffer.finalize<%cmd1 : !hal.command_buffer>
  %f1 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f1) commands(%cmd1)
  hal.fence.await until([%f1]) timeout_millis(%timeout)
  return
}
