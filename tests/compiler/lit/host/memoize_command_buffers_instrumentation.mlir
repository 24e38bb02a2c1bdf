// RUN: %kiln-opt %s --split-input-file --kiln-hal-memoize-command-buffers | FileCheck %s

// The instrumentation ring is a load of an immutable global (set by the
// module initializer), so memoization treats it as a fixed buffer: a
// recording binds it directly when the dispatch's other buffers are fixed
// too, else it gets a slot whose table entry is the same ring on every call.
// Either way a replayed command buffer (a CUDA graph) never patches it. The
// dispatch keeps its site id in the recording function.

#timed = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer, Instrumentation>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @mul ordinal(0) layout(#timed)
}
util.global private @__hal_device : !hal.device
util.global private @__hal_executable_ex : !hal.executable
util.global private @__hal_instrumentation_ring : !hal.buffer
util.global private @weights : !hal.buffer
util.global private @state : !hal.buffer

// All fixed: the recording binds the globals themselves; the submission's
// binding table is empty.
// CHECK-LABEL: func.func @all_fixed
func.func @all_fixed() {
  %device = util.global.load immutable @__hal_device : !hal.device
  %exe = util.global.load immutable @__hal_executable_ex : !hal.executable
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %site = arith.constant 3 : i32
  %timeout = arith.constant -1 : i64
  %w = util.global.load immutable @weights : !hal.buffer
  %s = util.global.load immutable @state : !hal.buffer
  %ring = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
  // CHECK-NOT: hal.command_buffer.dispatch
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%site]) bindings([(%w : !hal.buffer)[%c0, %c16], (%s : !hal.buffer)[%c0, %c16], (%ring : !hal.buffer)[%c0, %c1024]]) attributes {dispatch = @ex::@mul, kiln.dispatch_site_id = 3 : i32}
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  // CHECK: func.call @__hal_record_command_buffer_0()
  // CHECK: hal.device.queue.execute.indirect<%{{.+}} : !hal.device> signal(%{{.+}}) commands(%{{.+}}) bindings([])
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  return
}

// CHECK: func.func private @__hal_record_command_buffer_0() -> !hal.command_buffer {
// CHECK-DAG: %[[SITE:.+]] = arith.constant 3 : i32
// CHECK-DAG: %[[RING:.+]] = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
// CHECK: hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} constants([%[[SITE]]]) bindings([
// CHECK-NEXT: (%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}],
// CHECK-NEXT: (%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}],
// CHECK-NEXT: (%[[RING]] : !hal.buffer)[%{{.+}}, %{{.+}}]
// CHECK-NEXT: ]) attributes {dispatch = @ex::@mul, kiln.dispatch_site_id = 3 : i32}

// -----

#timed = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer, Instrumentation>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @mul ordinal(0) layout(#timed)
}
util.global private @__hal_device : !hal.device
util.global private @__hal_executable_ex : !hal.executable
util.global private @__hal_instrumentation_ring : !hal.buffer

// With the call's own buffers: slots for all, the ring's entry of the
// table being the ring global every call (one slot for both dispatches).
// CHECK-LABEL: func.func @with_arguments
func.func @with_arguments(%a: !hal.buffer, %b: !hal.buffer, %c: !hal.buffer) {
  %device = util.global.load immutable @__hal_device : !hal.device
  %exe = util.global.load immutable @__hal_executable_ex : !hal.executable
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %site0 = arith.constant 0 : i32
  %site1 = arith.constant 1 : i32
  %timeout = arith.constant -1 : i64
  // CHECK: %[[RING:.+]] = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
  %ring0 = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
  %ring1 = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%site0]) bindings([(%a : !hal.buffer)[%c0, %c16], (%b : !hal.buffer)[%c0, %c16], (%ring0 : !hal.buffer)[%c0, %c1024]]) attributes {dispatch = @ex::@mul, kiln.dispatch_site_id = 0 : i32}
  hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer>
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%site1]) bindings([(%b : !hal.buffer)[%c0, %c16], (%c : !hal.buffer)[%c0, %c16], (%ring1 : !hal.buffer)[%c0, %c1024]]) attributes {dispatch = @ex::@mul, kiln.dispatch_site_id = 1 : i32}
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  // Slots: %a 0, %b 1, the ring 2, %c 3.
  // CHECK: hal.device.queue.execute.indirect<%{{.+}} : !hal.device> signal(%{{.+}}) commands(%{{.+}}) bindings([%{{[^,]+}}, %{{[^,]+}}, %[[RING]], %{{[^,]+}}])
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  return
}

// CHECK: func.func private @__hal_record_command_buffer_0() -> !hal.command_buffer {
// CHECK-DAG: %[[SLOT2:.+]] = arith.constant 2 : index
// CHECK: hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} bindings([
// CHECK-NEXT: (%{{.+}} : index)[%{{.+}}, %{{.+}}],
// CHECK-NEXT: (%{{.+}} : index)[%{{.+}}, %{{.+}}],
// CHECK-NEXT: (%[[SLOT2]] : index)[%{{.+}}, %{{.+}}]
// CHECK-NEXT: ]) attributes {dispatch = @ex::@mul, kiln.dispatch_site_id = 0 : i32}
// CHECK: hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} bindings([
// CHECK-NEXT: (%{{.+}} : index)[%{{.+}}, %{{.+}}],
// CHECK-NEXT: (%{{.+}} : index)[%{{.+}}, %{{.+}}],
// CHECK-NEXT: (%[[SLOT2]] : index)[%{{.+}}, %{{.+}}]
// CHECK-NEXT: ]) attributes {dispatch = @ex::@mul, kiln.dispatch_site_id = 1 : i32}
