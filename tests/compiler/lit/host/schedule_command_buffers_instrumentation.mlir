// RUN: %kiln-opt %s --split-input-file --kiln-hal-schedule-command-buffers | FileCheck %s

// The instrumentation ring (the Instrumentation binding, bound by every
// instrumented dispatch) orders nothing: each workgroup claims its own
// record atomically. Instrumented dispatches on disjoint buffers share a
// command buffer without barriers; their other bindings still order them.

#timed = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer, Instrumentation>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @copy ordinal(0) layout(#timed)
}
util.global private @__hal_instrumentation_ring : !hal.buffer

// CHECK-LABEL: func.func @instrumented
func.func @instrumented(%device: !hal.device, %allocator: !hal.allocator, %exe: !hal.executable, %in: !hal.buffer) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %c0_i32 = arith.constant 0 : i32
  %timeout = arith.constant -1 : i64
  %t = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  // CHECK: %[[CMD:.+]] = hal.command_buffer.create
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer>
  // CHECK: ]) attributes {dispatch = @ex::@copy, kiln.dispatch_site_id = 0 : i32}
  %site0 = arith.constant 0 : i32
  %ring0 = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
  %cmd0 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd0 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%site0]) bindings([(%in : !hal.buffer)[%c0, %c16], (%t : !hal.buffer)[%c0, %c16], (%ring0 : !hal.buffer)[%c0, %c1024]]) attributes {dispatch = @ex::@copy, kiln.dispatch_site_id = 0 : i32}
  hal.command_buffer.finalize<%cmd0 : !hal.command_buffer>
  %f0 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f0) commands(%cmd0)
  hal.fence.await until([%f0]) timeout_millis(%timeout)
  // Reads %in and writes a fresh %u: the ring both write is no conflict.
  // CHECK-NOT: hal.command_buffer.execution_barrier
  // CHECK-NOT: hal.command_buffer.finalize
  // CHECK: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer>
  // CHECK: ]) attributes {dispatch = @ex::@copy, kiln.dispatch_site_id = 1 : i32}
  %u = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %site1 = arith.constant 1 : i32
  %ring1 = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
  %cmd1 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd1 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%site1]) bindings([(%in : !hal.buffer)[%c0, %c16], (%u : !hal.buffer)[%c0, %c16], (%ring1 : !hal.buffer)[%c0, %c1024]]) attributes {dispatch = @ex::@copy, kiln.dispatch_site_id = 1 : i32}
  hal.command_buffer.finalize<%cmd1 : !hal.command_buffer>
  %f1 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f1) commands(%cmd1)
  hal.fence.await until([%f1]) timeout_millis(%timeout)
  // Reads %t, which the first dispatch wrote: a barrier all the same.
  // CHECK-NOT: hal.command_buffer.finalize
  // CHECK: hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
  // CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer>
  // CHECK: ]) attributes {dispatch = @ex::@copy, kiln.dispatch_site_id = 2 : i32}
  %v = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %site2 = arith.constant 2 : i32
  %ring2 = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
  %cmd2 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd2 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%site2]) bindings([(%t : !hal.buffer)[%c0, %c16], (%v : !hal.buffer)[%c0, %c16], (%ring2 : !hal.buffer)[%c0, %c1024]]) attributes {dispatch = @ex::@copy, kiln.dispatch_site_id = 2 : i32}
  hal.command_buffer.finalize<%cmd2 : !hal.command_buffer>
  %f2 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f2) commands(%cmd2)
  hal.fence.await until([%f2]) timeout_millis(%timeout)
  // CHECK: hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
  // CHECK-NOT: hal.command_buffer.create
  // CHECK: return
  return
}
