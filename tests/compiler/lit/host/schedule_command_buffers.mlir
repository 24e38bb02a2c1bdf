// RUN: %kiln-opt %s --split-input-file --kiln-hal-schedule-command-buffers | FileCheck %s

// Adjacent one-shot submissions of a block share one command buffer. A
// dispatch that reads what an earlier one wrote gets an execution barrier
// first; independent dispatches none.

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @copy ordinal(0) layout(#layout)
}

// CHECK-LABEL: func.func @chain
func.func @chain(%device: !hal.device, %allocator: !hal.allocator, %exe: !hal.executable, %in: !hal.buffer) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c0_i32 = arith.constant 0 : i32
  %timeout = arith.constant -1 : i64
  // CHECK: %[[T:.+]] = hal.allocator.allocate
  %t = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  // CHECK: %[[CMD:.+]] = hal.command_buffer.create device(%{{.+}} : !hal.device) mode({{ ?}}OneShot)
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> {{.*}} bindings([
  // CHECK-NEXT:   (%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}],
  // CHECK-NEXT:   (%[[T]] : !hal.buffer)
  %cmd0 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd0 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%in : !hal.buffer)[%c0, %c16], (%t : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd0 : !hal.command_buffer>
  %f0 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f0) commands(%cmd0)
  hal.fence.await until([%f0]) timeout_millis(%timeout)
  // Host work that touches no buffer contents does not end the recording.
  // CHECK-NOT: hal.command_buffer.finalize
  // CHECK: %[[U:.+]] = hal.allocator.allocate
  %u = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  // Reads %t, which the first dispatch wrote: a barrier.
  // CHECK-NOT: hal.command_buffer.create
  // CHECK: hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> {{.*}} bindings([
  // CHECK-NEXT:   (%[[T]] : !hal.buffer)[%{{.+}}, %{{.+}}],
  // CHECK-NEXT:   (%[[U]] : !hal.buffer)
  %cmd1 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd1 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%t : !hal.buffer)[%c0, %c16], (%u : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd1 : !hal.command_buffer>
  %f1 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f1) commands(%cmd1)
  hal.fence.await until([%f1]) timeout_millis(%timeout)
  // Reads %t again and writes a fresh %v: no conflict with the dispatch
  // after the barrier (which read %t and wrote %u), so no barrier.
  // CHECK: %[[V:.+]] = hal.allocator.allocate
  // CHECK-NOT: hal.command_buffer.execution_barrier
  // CHECK: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> {{.*}} bindings([
  // CHECK-NEXT:   (%[[T]] : !hal.buffer)[%{{.+}}, %{{.+}}],
  // CHECK-NEXT:   (%[[V]] : !hal.buffer)
  %v = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %cmd2 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd2 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%t : !hal.buffer)[%c0, %c16], (%v : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd2 : !hal.command_buffer>
  %f2 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f2) commands(%cmd2)
  hal.fence.await until([%f2]) timeout_millis(%timeout)
  // One submission at the end.
  // CHECK: hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
  // CHECK-NEXT: %[[F:.+]] = hal.fence.create
  // CHECK-NEXT: hal.device.queue.execute<%{{.+}} : !hal.device> signal(%[[F]]) commands(%[[CMD]])
  // CHECK-NEXT: hal.fence.await until([%[[F]]])
  // CHECK-NOT: hal.device.queue.execute
  return
}

// -----

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @copy ordinal(0) layout(#layout)
}

func.func private @use(%b: !hal.buffer)

// Buffers from outside the function (here arguments) may be one buffer: a
// write to one conflicts with a read of the other. A call ends the
// recording: the callee may look at the results.
// CHECK-LABEL: func.func @external
func.func @external(%device: !hal.device, %exe: !hal.executable, %a: !hal.buffer, %b: !hal.buffer, %c: !hal.buffer) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %timeout = arith.constant -1 : i64
  // CHECK: %[[CMD:.+]] = hal.command_buffer.create
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]]
  // CHECK-NEXT: (%{{.+}} : !hal.buffer)
  // CHECK-NEXT: (%{{.+}} : !hal.buffer)
  // CHECK-NEXT: ]) attributes
  %cmd0 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd0 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%a : !hal.buffer)[%c0, %c16], (%b : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd0 : !hal.command_buffer>
  %f0 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f0) commands(%cmd0)
  hal.fence.await until([%f0]) timeout_millis(%timeout)
  // CHECK-NEXT: hal.command_buffer.execution_barrier<%[[CMD]]
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]]
  // CHECK-NEXT: (%[[C:.+]] : !hal.buffer)
  // CHECK-NEXT: (%[[C]] : !hal.buffer)
  // CHECK-NEXT: ]) attributes
  %cmd1 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd1 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%c : !hal.buffer)[%c0, %c16], (%c : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd1 : !hal.command_buffer>
  %f1 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f1) commands(%cmd1)
  hal.fence.await until([%f1]) timeout_millis(%timeout)
  // CHECK-NEXT: hal.command_buffer.finalize<%[[CMD]]
  // CHECK: hal.device.queue.execute
  // CHECK: hal.fence.await
  // CHECK-NEXT: call @use
  func.call @use(%c) : (!hal.buffer) -> ()
  // CHECK-NEXT: %[[CMD2:.+]] = hal.command_buffer.create
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD2]]
  // CHECK-NEXT: (%{{.+}} : !hal.buffer)
  // CHECK-NEXT: (%{{.+}} : !hal.buffer)
  // CHECK-NEXT: ]) attributes
  // CHECK-NEXT: hal.command_buffer.finalize<%[[CMD2]]
  %cmd2 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd2 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%a : !hal.buffer)[%c0, %c16], (%b : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd2 : !hal.command_buffer>
  %f2 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f2) commands(%cmd2)
  hal.fence.await until([%f2]) timeout_millis(%timeout)
  return
}

// -----

// Ranges of a memory arena (--kiln-hal-plan-memory) conflict when their
// bytes overlap, and with nothing else: %y reuses %x's bytes, so the
// dispatch writing %y waits for the one that read %x (a write after a
// read); %z's bytes are %x's neighbours' and the argument %in is not in the
// arena, so the dispatch writing %z needs no barrier.

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @copy ordinal(0) layout(#layout)
}
util.global private @__hal_arena_f {kiln.memory_arena} : !hal.buffer

// CHECK-LABEL: func.func @arena
func.func @arena(%device: !hal.device, %exe: !hal.executable, %in: !hal.buffer, %out: !hal.buffer) {
  %arena = util.global.load immutable @__hal_arena_f : !hal.buffer
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %timeout = arith.constant -1 : i64
  %x = hal.buffer.subspan<%arena : !hal.buffer>[%c0, %c16] : !hal.buffer
  %w = hal.buffer.subspan<%arena : !hal.buffer>[%c256, %c16] : !hal.buffer
  // Writes %x.
  // CHECK: %[[CMD:.+]] = hal.command_buffer.create
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]]
  %cmd0 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd0 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%in : !hal.buffer)[%c0, %c16], (%x : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd0 : !hal.command_buffer>
  %f0 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f0) commands(%cmd0)
  hal.fence.await until([%f0]) timeout_millis(%timeout)
  // Reads %x (written before): a barrier.
  // CHECK: hal.command_buffer.execution_barrier<%[[CMD]]
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]]
  %cmd1 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd1 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%x : !hal.buffer)[%c0, %c16], (%w : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd1 : !hal.command_buffer>
  %f1 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f1) commands(%cmd1)
  hal.fence.await until([%f1]) timeout_millis(%timeout)
  // Writes %z (bytes 512-527) reading %in: no conflict, no barrier.
  // CHECK: %[[Z:.+]] = hal.buffer.subspan
  // CHECK-NOT: hal.command_buffer.execution_barrier
  // CHECK: hal.command_buffer.dispatch<%[[CMD]]
  // CHECK-NEXT: (%{{.+}} : !hal.buffer)
  // CHECK-NEXT: (%[[Z]] : !hal.buffer)
  %z = hal.buffer.subspan<%arena : !hal.buffer>[%c512, %c16] : !hal.buffer
  %cmd2 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd2 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%in : !hal.buffer)[%c0, %c16], (%z : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd2 : !hal.command_buffer>
  %f2 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f2) commands(%cmd2)
  hal.fence.await until([%f2]) timeout_millis(%timeout)
  // Writes %y, which reuses %x's bytes that the dispatch after the barrier
  // read: a barrier.
  // CHECK: %[[Y:.+]] = hal.buffer.subspan
  // CHECK-NEXT: hal.command_buffer.execution_barrier<%[[CMD]]
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]]
  // CHECK-NEXT: (%{{.+}} : !hal.buffer)
  // CHECK-NEXT: (%[[Y]] : !hal.buffer)
  %y = hal.buffer.subspan<%arena : !hal.buffer>[%c0, %c16] : !hal.buffer
  %cmd3 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd3 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%in : !hal.buffer)[%c0, %c16], (%y : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd3 : !hal.command_buffer>
  %f3 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f3) commands(%cmd3)
  hal.fence.await until([%f3]) timeout_millis(%timeout)
  // CHECK: hal.command_buffer.finalize<%[[CMD]]
  return
}
