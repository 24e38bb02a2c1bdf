// RUN: %kiln-opt %s --split-input-file --kiln-hal-memoize-command-buffers | FileCheck %s

// A static submission (device and executable from immutable globals, every
// ordinal, count, constant, offset and length a constant) is recorded once
// into a reusable command buffer that binds binding-table slots, and
// replayed with this call's buffers.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @mul ordinal(0) layout(#layout)
}
util.global private @__hal_device : !hal.device
util.global private @__hal_executable_ex : !hal.executable

// CHECK-LABEL: func.func @static
func.func @static(%a: !hal.buffer, %allocator: !hal.allocator) {
  %device = util.global.load immutable @__hal_device : !hal.device
  %exe = util.global.load immutable @__hal_executable_ex : !hal.executable
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c4_i32 = arith.constant 4 : i32
  %c0_i32 = arith.constant 0 : i32
  %timeout = arith.constant -1 : i64
  %t = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %u = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  // CHECK-NOT: hal.command_buffer.create
  // CHECK-NOT: hal.command_buffer.dispatch
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%c4_i32]) bindings([(%a : !hal.buffer)[%c0, %c16], (%t : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@mul}
  hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer>
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%c4_i32]) bindings([(%t : !hal.buffer)[%c0, %c16], (%u : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@mul}
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  // CHECK: %[[FENCE:.+]] = hal.fence.create
  // CHECK: %[[MEMO:.+]] = util.global.load @__hal_command_buffer_0 : !hal.command_buffer
  // CHECK: %[[NULL:.+]] = util.null : !hal.command_buffer
  // CHECK: %[[UNRECORDED:.+]] = util.cmp.eq %[[MEMO]], %[[NULL]] : !hal.command_buffer
  // CHECK: %[[CB:.+]] = scf.if %[[UNRECORDED]] -> (!hal.command_buffer) {
  // CHECK:   %[[NEW:.+]] = func.call @__hal_record_command_buffer_0() : () -> !hal.command_buffer
  // CHECK:   util.global.store %[[NEW]], @__hal_command_buffer_0 : !hal.command_buffer
  // CHECK:   scf.yield %[[NEW]] : !hal.command_buffer
  // CHECK: } else {
  // CHECK:   scf.yield %[[MEMO]] : !hal.command_buffer
  // CHECK: }
  // CHECK: hal.device.queue.execute.indirect<%{{.+}} : !hal.device> signal(%[[FENCE]]) commands(%[[CB]]) bindings([%{{.+}}, %{{.+}}, %{{.+}}])
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  // CHECK-NEXT: hal.fence.await until([%[[FENCE]]])
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  return
}

// CHECK: util.global private mutable @__hal_command_buffer_0 : !hal.command_buffer
// CHECK: func.func private @__hal_record_command_buffer_0() -> !hal.command_buffer {
// CHECK:   %[[DEVICE:.+]] = util.global.load immutable @__hal_device : !hal.device
// CHECK:   %[[CMD:.+]] = hal.command_buffer.create device(%[[DEVICE]] : !hal.device) mode({{ ?}}None) : !hal.command_buffer
// CHECK:   %[[EXE:.+]] = util.global.load immutable @__hal_executable_ex : !hal.executable
// Slot 0 is %a, slot 1 %t (first use order); %t again is slot 1.
// CHECK:   hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> target(%[[EXE]] : !hal.executable)[%{{.+}}] workgroups([%{{.+}}, %{{.+}}, %{{.+}}]) constants([%{{.+}}]) bindings([
// CHECK-NEXT: (%[[S0:.+]] : index)[%{{.+}}, %{{.+}}],
// CHECK-NEXT: (%[[S1:.+]] : index)[%{{.+}}, %{{.+}}]
// CHECK-NEXT: ]) attributes {dispatch = @ex::@mul}
// CHECK:   hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
// CHECK:   hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> {{.*}} bindings([
// CHECK-NEXT: (%[[S1]] : index)[%{{.+}}, %{{.+}}],
// CHECK-NEXT: (%[[S2:.+]] : index)[%{{.+}}, %{{.+}}]
// CHECK-NEXT: ]) attributes {dispatch = @ex::@mul}
// CHECK:   hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
// CHECK:   return %[[CMD]] : !hal.command_buffer

// -----

// Not memoized: a workgroup count that is not a constant (a dynamic
// shape), and an executable from a mutable global.

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @f ordinal(0) layout(#layout)
}
util.global private @__hal_device : !hal.device
util.global private @__hal_executable_ex : !hal.executable
util.global private mutable @other : !hal.executable

// CHECK-NOT: @__hal_record_command_buffer
// CHECK-LABEL: func.func @dynamic
func.func @dynamic(%a: !hal.buffer, %n: index) {
  %device = util.global.load immutable @__hal_device : !hal.device
  %exe = util.global.load immutable @__hal_executable_ex : !hal.executable
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %timeout = arith.constant -1 : i64
  // CHECK: hal.command_buffer.create device(%{{.+}} : !hal.device) mode({{ ?}}OneShot)
  // CHECK: hal.device.queue.execute<
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%n, %c1, %c1]) bindings([(%a : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@f}
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  return
}

// CHECK-LABEL: func.func @mutable_executable
func.func @mutable_executable(%a: !hal.buffer) {
  %device = util.global.load immutable @__hal_device : !hal.device
  %exe = util.global.load @other : !hal.executable
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %timeout = arith.constant -1 : i64
  // CHECK: hal.command_buffer.create device(%{{.+}} : !hal.device) mode({{ ?}}OneShot)
  // CHECK: hal.device.queue.execute<
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%a : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@f}
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  return
}
// CHECK-NOT: @__hal_record_command_buffer

// -----

// Fixed buffers are recorded, not slotted: ranges of the memory arena
// (hal.buffer.subspan of an immutable global at constant offsets) and
// immutable buffer globals (weights). A dispatch whose bindings are all
// fixed binds the globals directly, at the subspan's offset plus the
// binding's (-1, "to the end", ends where the subspan does); one that also
// binds a buffer of the call binds slots for all, with one slot for the
// arena whatever its ranges. The table holds the call's buffers and the
// arena once; the subspans go with the one-shot recording.

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @mul ordinal(0) layout(#layout)
}
util.global private @__hal_device : !hal.device
util.global private @__hal_executable_ex : !hal.executable
util.global private @weight : !hal.buffer
util.global private @__hal_arena_planned {kiln.memory_arena} : !hal.buffer

// CHECK-LABEL: func.func @planned
func.func @planned(%a: !hal.buffer, %r: !hal.buffer) {
  // CHECK: %[[ARENA:.+]] = util.global.load immutable @__hal_arena_planned : !hal.buffer
  // CHECK-NOT: hal.buffer.subspan
  %arena = util.global.load immutable @__hal_arena_planned : !hal.buffer
  %device = util.global.load immutable @__hal_device : !hal.device
  %exe = util.global.load immutable @__hal_executable_ex : !hal.executable
  %weight = util.global.load immutable @weight : !hal.buffer
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %c-1 = arith.constant -1 : index
  %timeout = arith.constant -1 : i64
  %t = hal.buffer.subspan<%arena : !hal.buffer>[%c256, %c16] : !hal.buffer
  %u = hal.buffer.subspan<%arena : !hal.buffer>[%c512, %c16] : !hal.buffer
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%a : !hal.buffer)[%c0, %c16], (%weight : !hal.buffer)[%c0, %c16], (%t : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@mul}
  hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer>
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%t : !hal.buffer)[%c0, %c-1], (%weight : !hal.buffer)[%c0, %c16], (%u : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@mul}
  hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer>
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%u : !hal.buffer)[%c0, %c16], (%t : !hal.buffer)[%c0, %c16], (%r : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@mul}
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  // Slots: %a 0, the weight 1, the arena 2, %r 3.
  // CHECK: %[[WEIGHT:.+]] = util.global.load immutable @weight : !hal.buffer
  // CHECK: hal.device.queue.execute.indirect<%{{.+}} : !hal.device> signal(%{{.+}}) commands(%{{.+}}) bindings([%{{.+}}, %[[WEIGHT]], %[[ARENA]], %{{.+}}])
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  return
}

// CHECK: func.func private @__hal_record_command_buffer_0() -> !hal.command_buffer {
// Binds %a (slot 0), the weight (slot 1) and %t (the arena's slot 2, at 256).
// CHECK:   hal.command_buffer.dispatch<%[[CMD:.+]] : !hal.command_buffer> {{.*}} bindings([
// CHECK-NEXT: (%[[S0:.+]] : index)[%{{.+}}, %{{.+}}],
// CHECK-NEXT: (%[[S1:.+]] : index)[%{{.+}}, %{{.+}}],
// CHECK-NEXT: (%[[S2:.+]] : index)[%c256{{(_[0-9]+)?}}, %c16{{(_[0-9]+)?}}]
// CHECK-NEXT: ]) attributes {dispatch = @ex::@mul}
// All fixed: the arena and the weight themselves; %t to its end is 16 bytes.
// CHECK:   hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
// CHECK:   %[[ARENA_COPY:.+]] = util.global.load immutable @__hal_arena_planned : !hal.buffer
// CHECK:   %[[WEIGHT_COPY:.+]] = util.global.load immutable @weight : !hal.buffer
// CHECK:   hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> {{.*}} bindings([
// CHECK-NEXT: (%[[ARENA_COPY]] : !hal.buffer)[%c256{{(_[0-9]+)?}}, %c16{{(_[0-9]+)?}}],
// CHECK-NEXT: (%[[WEIGHT_COPY]] : !hal.buffer)[%c0{{(_[0-9]+)?}}, %c16{{(_[0-9]+)?}}],
// CHECK-NEXT: (%[[ARENA_COPY]] : !hal.buffer)[%c512{{(_[0-9]+)?}}, %c16{{(_[0-9]+)?}}]
// CHECK-NEXT: ]) attributes {dispatch = @ex::@mul}
// %u and %t: both in the arena's slot 2; %r in slot 3.
// CHECK:   hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
// CHECK:   hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> {{.*}} bindings([
// CHECK-NEXT: (%[[S2]] : index)[%c512{{(_[0-9]+)?}}, %c16{{(_[0-9]+)?}}],
// CHECK-NEXT: (%[[S2]] : index)[%c256{{(_[0-9]+)?}}, %c16{{(_[0-9]+)?}}],
// CHECK-NEXT: (%[[S3:.+]] : index)[%c0{{(_[0-9]+)?}}, %c16{{(_[0-9]+)?}}]
// CHECK-NEXT: ]) attributes {dispatch = @ex::@mul}
// CHECK:   hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
