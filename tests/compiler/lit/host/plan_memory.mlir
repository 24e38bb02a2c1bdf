// RUN: %kiln-opt %s --split-input-file --kiln-hal-plan-memory | FileCheck %s

// A chain of dispatches, each its own awaited submission (as bufferization
// makes them): in -> %a -> %b -> %c -> %d -> out. Lifetimes (first use to
// the await of the last submission binding it):
//   %a: 1000 bytes (1024 rounded), submissions 1-2
//   %b: 1000 bytes (1024 rounded), submissions 2-3
//   %c: 600 bytes (768 rounded), submissions 3-4
//   %d: 2000 bytes (2048 rounded), submissions 4-5
// Packed largest first at the best-fitting free offset among the buffers
// alive at the same time: %d at 0; %a at 0 too (dead before %d is born);
// %b at 1024 (alive with %a, not %d); %c at 2048 (alive with both %b and
// %d). The arena holds 2816 bytes; the allocations held 4600.

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @copy ordinal(0) layout(#layout)
}
util.global private @__hal_device : !hal.device
util.global private @__hal_executable_ex : !hal.executable

// The arena's global, next to the function, allocated by the initializer
// that sets the device.
// CHECK: util.global private @__hal_arena_chain {kiln.memory_arena} : !hal.buffer
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {kiln.reflection = {arena_size = "2816"}}
func.func @chain(%in: !hal.buffer, %out: !hal.buffer) {
  // CHECK: %[[ARENA:.+]] = util.global.load immutable @__hal_arena_chain : !hal.buffer
  %device = util.global.load immutable @__hal_device : !hal.device
  %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
  %exe = util.global.load immutable @__hal_executable_ex : !hal.executable
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c600 = arith.constant 600 : index
  %c1000 = arith.constant 1000 : index
  %c2000 = arith.constant 2000 : index
  %c0_i32 = arith.constant 0 : i32
  %timeout = arith.constant -1 : i64
  // CHECK-NOT: hal.allocator.allocate
  // CHECK: %[[OFFSET_A:c0_[0-9]+]] = arith.constant 0 : index
  // CHECK-NEXT: %[[A:.+]] = hal.buffer.subspan<%[[ARENA]] : !hal.buffer>[%[[OFFSET_A]], %c1000] : !hal.buffer
  %a = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c1000}
  // CHECK: hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} bindings([
  // CHECK-NEXT: (%{{.+}} : !hal.buffer)[%{{.+}}, %{{.+}}],
  // CHECK-NEXT: (%[[A]] : !hal.buffer)
  %cmd1 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd1 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%in : !hal.buffer)[%c0, %c1000], (%a : !hal.buffer)[%c0, %c1000]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd1 : !hal.command_buffer>
  %f1 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f1) commands(%cmd1)
  hal.fence.await until([%f1]) timeout_millis(%timeout)
  // CHECK: %[[OFFSET_B:.+]] = arith.constant 1024 : index
  // CHECK-NEXT: %[[B:.+]] = hal.buffer.subspan<%[[ARENA]] : !hal.buffer>[%[[OFFSET_B]], %c1000] : !hal.buffer
  %b = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c1000}
  %cmd2 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd2 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%a : !hal.buffer)[%c0, %c1000], (%b : !hal.buffer)[%c0, %c1000]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd2 : !hal.command_buffer>
  %f2 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f2) commands(%cmd2)
  hal.fence.await until([%f2]) timeout_millis(%timeout)
  // CHECK: %[[OFFSET_C:.+]] = arith.constant 2048 : index
  // CHECK-NEXT: %[[C:.+]] = hal.buffer.subspan<%[[ARENA]] : !hal.buffer>[%[[OFFSET_C]], %c600] : !hal.buffer
  %c = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c600}
  %cmd3 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd3 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%b : !hal.buffer)[%c0, %c600], (%c : !hal.buffer)[%c0, %c600]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd3 : !hal.command_buffer>
  %f3 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f3) commands(%cmd3)
  hal.fence.await until([%f3]) timeout_millis(%timeout)
  // CHECK: %[[OFFSET_D:c0_[0-9]+]] = arith.constant 0 : index
  // CHECK-NEXT: %[[D:.+]] = hal.buffer.subspan<%[[ARENA]] : !hal.buffer>[%[[OFFSET_D]], %c2000] : !hal.buffer
  %d = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c2000}
  %cmd4 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd4 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%c : !hal.buffer)[%c0, %c600], (%d : !hal.buffer)[%c0, %c2000]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd4 : !hal.command_buffer>
  %f4 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f4) commands(%cmd4)
  hal.fence.await until([%f4]) timeout_millis(%timeout)
  // CHECK: hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} bindings([
  // CHECK-NEXT: (%[[C]] : !hal.buffer)
  // CHECK-NEXT: (%[[D]] : !hal.buffer)
  // CHECK: hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> {{.*}} bindings([
  // CHECK-NEXT: (%[[D]] : !hal.buffer)
  %cmd5 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd5 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%d : !hal.buffer)[%c0, %c2000], (%out : !hal.buffer)[%c0, %c2000]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd5 : !hal.command_buffer>
  %f5 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f5) commands(%cmd5)
  hal.fence.await until([%f5]) timeout_millis(%timeout)
  return
}
// CHECK: util.initializer {
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: %[[DEVICE:.+]] = hal.devices.get
// CHECK-NEXT: util.global.store %[[DEVICE]], @__hal_device : !hal.device
// CHECK-NEXT: %[[DEVICE:.+]] = util.global.load immutable @__hal_device : !hal.device
// CHECK-NEXT: %[[ALLOCATOR:.+]] = hal.device.allocator<%[[DEVICE]] : !hal.device> : !hal.allocator
// CHECK-NEXT: %[[TYPE:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[USAGE:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[SIZE:.+]] = arith.constant 2816 : index
// CHECK-NEXT: %[[NEW:.+]] = hal.allocator.allocate<%[[ALLOCATOR]] : !hal.allocator> type(%[[TYPE]]) usage(%[[USAGE]]) : !hal.buffer{%[[SIZE]]}
// CHECK-NEXT: util.global.store %[[NEW]], @__hal_arena_chain : !hal.buffer
// CHECK-NEXT: util.return
// CHECK: util.initializer {
// CHECK-NEXT: util.return
util.initializer {
  %c0 = arith.constant 0 : index
  %device = hal.devices.get %c0 : !hal.device
  util.global.store %device, @__hal_device : !hal.device
  util.return
}
// The program's own initializers come after the device's (they may call
// functions that use the arena).
util.initializer {
  util.return
}

// -----

// Left alone: buffers that escape (returned, stored to a mutable global,
// passed to a call, bound in another block, aliased by a subspan, viewed
// for a check), one of dynamic size, one bound by a command buffer
// submitted without an await right after, and every buffer of a recursive
// function. The function gets no arena.

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @fill ordinal(0) layout(#layout)
}
util.global private @__hal_device : !hal.device
util.global private @__hal_executable_ex : !hal.executable
util.global private mutable @kept : !hal.buffer

func.func private @consume(!hal.buffer)

// CHECK-NOT: __hal_arena
// CHECK-LABEL: func.func @escapes
// CHECK-NOT: kiln.reflection
func.func @escapes(%n: index, %flag: i1) -> !hal.buffer {
  %device = util.global.load immutable @__hal_device : !hal.device
  %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
  %exe = util.global.load immutable @__hal_executable_ex : !hal.executable
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c0_i32 = arith.constant 0 : i32
  %type = arith.constant 553648160 : i32
  %timeout = arith.constant -1 : i64
  // CHECK-COUNT-8: hal.allocator.allocate
  // CHECK-NOT: __hal_arena
  %returned = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %stored = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %passed = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %nested = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %aliased = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %dynamic = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%n}
  %unawaited = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %checked = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%returned : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@fill}
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%stored : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@fill}
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%passed : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@fill}
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%aliased : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@fill}
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%dynamic : !hal.buffer)[%c0, %n]]) attributes {dispatch = @ex::@fill}
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%checked : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@fill}
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  util.global.store %stored, @kept : !hal.buffer
  func.call @consume(%passed) : (!hal.buffer) -> ()
  %part = hal.buffer.subspan<%aliased : !hal.buffer>[%c0, %c16] : !hal.buffer
  %view = hal.buffer_view.create buffer(%checked : !hal.buffer) shape([%c16]) type(%type) : !hal.buffer_view
  check.expect_eq(%view, %view) : !hal.buffer_view
  scf.if %flag {
    %cmd2 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
    hal.command_buffer.dispatch<%cmd2 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%nested : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@fill}
    hal.command_buffer.finalize<%cmd2 : !hal.command_buffer>
    %fence2 = hal.fence.create device(%device : !hal.device) : !hal.fence
    hal.device.queue.execute<%device : !hal.device> signal(%fence2) commands(%cmd2)
    hal.fence.await until([%fence2]) timeout_millis(%timeout)
  }
  // Submitted, then something that may fail before the await.
  %cmd3 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd3 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%unawaited : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@fill}
  hal.command_buffer.finalize<%cmd3 : !hal.command_buffer>
  %fence3 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%fence3) commands(%cmd3)
  func.call @consume(%part) : (!hal.buffer) -> ()
  hal.fence.await until([%fence3]) timeout_millis(%timeout)
  return %returned : !hal.buffer
}

// CHECK-LABEL: func.func @recursive
// CHECK-NOT: kiln.reflection
// CHECK: hal.allocator.allocate
// CHECK-NOT: hal.buffer.subspan
// CHECK: return
func.func @recursive(%depth: index) {
  %device = util.global.load immutable @__hal_device : !hal.device
  %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
  %exe = util.global.load immutable @__hal_executable_ex : !hal.executable
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c0_i32 = arith.constant 0 : i32
  %timeout = arith.constant -1 : i64
  %t = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%t : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@fill}
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
  hal.fence.await until([%fence]) timeout_millis(%timeout)
  %more = arith.cmpi ne, %depth, %c0 : index
  scf.if %more {
    %next = arith.subi %depth, %c1 : index
    func.call @recursive(%next) : (index) -> ()
  }
  %cmd2 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd2 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%t : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@fill}
  hal.command_buffer.finalize<%cmd2 : !hal.command_buffer>
  %fence2 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%fence2) commands(%cmd2)
  hal.fence.await until([%fence2]) timeout_millis(%timeout)
  return
}

util.initializer {
  %c0 = arith.constant 0 : index
  %device = hal.devices.get %c0 : !hal.device
  util.global.store %device, @__hal_device : !hal.device
  util.return
}

// -----

// In a loop body: a buffer allocated and used within one iteration reuses
// bytes with the next one of the same iteration; the buffer allocated
// before the loop and used after it is alive throughout, and shares with
// neither.

#layout = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>
]>

hal.executable private @ex {
  hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
  hal.executable.export public @copy ordinal(0) layout(#layout)
}
util.global private @__hal_device : !hal.device
util.global private @__hal_executable_ex : !hal.executable

// CHECK-LABEL: func.func @loop
// CHECK-SAME: attributes {kiln.reflection = {arena_size = "512"}}
func.func @loop(%in: !hal.buffer, %n: index) {
  %device = util.global.load immutable @__hal_device : !hal.device
  %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
  %exe = util.global.load immutable @__hal_executable_ex : !hal.executable
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c0_i32 = arith.constant 0 : i32
  %timeout = arith.constant -1 : i64
  // CHECK: %c0_{{[0-9]+}} = arith.constant 0 : index
  // CHECK-NEXT: hal.buffer.subspan<%{{.+}} : !hal.buffer>
  %outer = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
  %cmd0 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd0 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%in : !hal.buffer)[%c0, %c16], (%outer : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd0 : !hal.command_buffer>
  %f0 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f0) commands(%cmd0)
  hal.fence.await until([%f0]) timeout_millis(%timeout)
  // CHECK: scf.for
  scf.for %i = %c0 to %n step %c1 {
    // CHECK: arith.constant 256 : index
    // CHECK-NEXT: hal.buffer.subspan<%{{.+}} : !hal.buffer>
    %x = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
    %cmd1 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
    hal.command_buffer.dispatch<%cmd1 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%in : !hal.buffer)[%c0, %c16], (%x : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
    hal.command_buffer.finalize<%cmd1 : !hal.command_buffer>
    %f1 = hal.fence.create device(%device : !hal.device) : !hal.fence
    hal.device.queue.execute<%device : !hal.device> signal(%f1) commands(%cmd1)
    hal.fence.await until([%f1]) timeout_millis(%timeout)
    // CHECK: arith.constant 256 : index
    // CHECK-NEXT: hal.buffer.subspan<%{{.+}} : !hal.buffer>
    %y = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%c16}
    %cmd2 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
    hal.command_buffer.dispatch<%cmd2 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%in : !hal.buffer)[%c0, %c16], (%y : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
    hal.command_buffer.finalize<%cmd2 : !hal.command_buffer>
    %f2 = hal.fence.create device(%device : !hal.device) : !hal.fence
    hal.device.queue.execute<%device : !hal.device> signal(%f2) commands(%cmd2)
    hal.fence.await until([%f2]) timeout_millis(%timeout)
  }
  %cmd3 = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
  hal.command_buffer.dispatch<%cmd3 : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) bindings([(%outer : !hal.buffer)[%c0, %c16], (%in : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@copy}
  hal.command_buffer.finalize<%cmd3 : !hal.command_buffer>
  %f3 = hal.fence.create device(%device : !hal.device) : !hal.fence
  hal.device.queue.execute<%device : !hal.device> signal(%f3) commands(%cmd3)
  hal.fence.await until([%f3]) timeout_millis(%timeout)
  return
}
