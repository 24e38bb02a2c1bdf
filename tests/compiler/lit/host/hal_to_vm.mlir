// RUN: %kiln-opt %s --split-input-file --kiln-convert-to-vm | FileCheck %s

// The hal ops become calls of the runtime's `hal` module, declared from the
// one import table (hal/module/hal_imports.h): names, argument order and
// types as the table gives them; index operands narrowed to i32 where the
// import takes i32; strings as rodata.

// CHECK-LABEL: vm.module @buffers
module @buffers {
  // CHECK-DAG: vm.import @hal.device.allocator(!vm.ref<!hal.device>) -> !vm.ref<!hal.allocator>
  // CHECK-DAG: vm.import @hal.allocator.allocate(!vm.ref<!hal.allocator>, i32, i32, i64) -> !vm.ref<!hal.buffer>
  // CHECK-DAG: vm.import @hal.buffer_view.assert(!vm.ref<!hal.buffer_view>, !vm.ref<!vm.buffer>, i32, ...)
  // CHECK-DAG: vm.import @hal.buffer_view.create(!vm.ref<!hal.buffer>, i32, ...) -> !vm.ref<!hal.buffer_view>
  // CHECK-DAG: vm.import @hal.buffer_view.dim(!vm.ref<!hal.buffer_view>, i32) -> i64
  // CHECK: vm.func @f
  func.func @f(%device: !hal.device, %view: !hal.buffer_view) -> !hal.buffer_view {
    %c-1 = arith.constant -1 : index
    %f32 = arith.constant 553648160 : i32
    %c0_i32 = arith.constant 0 : i32
    // CHECK: vm.call.import @hal.buffer_view.assert(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!vm.ref<!hal.buffer_view>, !vm.ref<!vm.buffer>, i32, i64) -> ()
    hal.buffer_view.assert<%view : !hal.buffer_view> message("argument 0 of @f") shape([%c-1]) type(%f32)
    // CHECK: %[[DIM:.+]] = vm.call.import @hal.buffer_view.dim(%{{.+}}, %{{.+}}) : (!vm.ref<!hal.buffer_view>, i32) -> i64
    %n = hal.buffer_view.dim<%view : !hal.buffer_view>[0] : index
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    // CHECK: %[[BUF:.+]] = vm.call.import @hal.allocator.allocate(%{{.+}}, %{{.+}}, %{{.+}}, %[[DIM]]) : (!vm.ref<!hal.allocator>, i32, i32, i64) -> !vm.ref<!hal.buffer>
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> type(%c0_i32) usage(%c0_i32) : !hal.buffer{%n}
    // CHECK: vm.call.import @hal.buffer_view.create(%[[BUF]], %{{.+}}, %[[DIM]]) : (!vm.ref<!hal.buffer>, i32, i64) -> !vm.ref<!hal.buffer_view>
    %result = hal.buffer_view.create buffer(%buffer : !hal.buffer) shape([%n]) type(%f32) : !hal.buffer_view
    return %result : !hal.buffer_view
  }
  // CHECK: vm.rodata @__hal_string "argument 0 of @f"
}

// -----

// Command buffers, dispatches (with the dispatch site), the queue and
// fences; executables become rodata described for the debug table.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK-LABEL: vm.module @dispatches
module @dispatches {
  // CHECK-DAG: vm.import @hal.command_buffer.dispatch(!vm.ref<!hal.command_buffer>, !vm.ref<!hal.executable>, i32, i32, i32, i32, i32, ...)
  // CHECK-DAG: vm.import @hal.command_buffer.dispatch.indirect(!vm.ref<!hal.command_buffer>, !vm.ref<!hal.executable>, i32, i32, i32, i32, i32, ...)
  // CHECK-DAG: vm.import @hal.device.queue.execute(!vm.ref<!hal.device>, !vm.ref<!hal.fence>, !vm.ref<!hal.fence>, !vm.ref<!hal.command_buffer>)
  // CHECK-DAG: vm.import @hal.device.queue.execute.indirect(!vm.ref<!hal.device>, !vm.ref<!hal.fence>, !vm.ref<!hal.fence>, !vm.ref<!hal.command_buffer>, ...)
  // CHECK-DAG: vm.import @hal.executable.load(!vm.ref<!hal.device>, !vm.ref<!vm.buffer>, ...) -> !vm.ref<!hal.executable>
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64", kiln.backend = "llvm-cpu"}
    hal.executable.export public @mul ordinal(0) layout(#layout) attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
  }
  // CHECK: vm.func @load
  func.func @load(%device: !hal.device) -> !hal.executable {
    // CHECK: vm.call.import @hal.executable.load(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!vm.ref<!hal.device>, !vm.ref<!vm.buffer>, !vm.ref<!vm.buffer>, !vm.ref<!vm.buffer>) -> !vm.ref<!hal.executable>
    %exe = hal.executable.create device(%device : !hal.device) target(@ex) : !hal.executable
    return %exe : !hal.executable
  }
  // CHECK: vm.func @run
  func.func @run(%device: !hal.device, %exe: !hal.executable, %a: !hal.buffer, %b: !hal.buffer) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c7 = arith.constant 7 : i32
    %timeout = arith.constant -1 : i64
    // CHECK: %[[CMD:.+]] = vm.call.import @hal.command_buffer.create(%{{.+}}, %{{.+}}) : (!vm.ref<!hal.device>, i32) -> !vm.ref<!hal.command_buffer>
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) : !hal.command_buffer
    // CHECK: vm.call.import @hal.command_buffer.dispatch(%[[CMD]], {{[^)]*}}) {dispatch = @ex::@mul} : (!vm.ref<!hal.command_buffer>, !vm.ref<!hal.executable>, i32, i32, i32, i32, i32, i32, !vm.ref<!hal.buffer>, i64, i64, !vm.ref<!hal.buffer>, i64, i64) -> ()
    hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%c7]) bindings([(%a : !hal.buffer)[%c0, %c16], (%b : !hal.buffer)[%c0, %c16]]) attributes {dispatch = @ex::@mul}
    // CHECK: vm.call.import @hal.command_buffer.execution_barrier(%[[CMD]])
    hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer>
    // Binding-table slots: the indirect import, slots as i32.
    // CHECK: vm.call.import @hal.command_buffer.dispatch.indirect({{[^)]*}}) {dispatch = @ex::@mul} : (!vm.ref<!hal.command_buffer>, !vm.ref<!hal.executable>, i32, i32, i32, i32, i32, i32, i32, i64, i64, i32, i64, i64) -> ()
    hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%c7]) bindings([(%c0 : index)[%c0, %c16], (%c1 : index)[%c0, %c16]]) attributes {dispatch = @ex::@mul}
    // CHECK: vm.call.import @hal.command_buffer.end(%[[CMD]])
    hal.command_buffer.finalize<%cmd : !hal.command_buffer>
    // CHECK: %[[FENCE:.+]] = vm.call.import @hal.fence.create
    %fence = hal.fence.create device(%device : !hal.device) : !hal.fence
    // No wait fence: null.
    // CHECK: %[[NULL:.+]] = vm.const.ref.null
    // CHECK: vm.call.import @hal.device.queue.execute(%{{.+}}, %[[NULL]], %[[FENCE]], %[[CMD]])
    hal.device.queue.execute<%device : !hal.device> signal(%fence) commands(%cmd)
    // CHECK: vm.call.import @hal.device.queue.execute.indirect(%{{.+}}, %{{.+}}, %[[FENCE]], %[[CMD]], %{{.+}}, %{{.+}}) : (!vm.ref<!hal.device>, !vm.ref<!hal.fence>, !vm.ref<!hal.fence>, !vm.ref<!hal.command_buffer>, !vm.ref<!hal.buffer>, !vm.ref<!hal.buffer>) -> ()
    hal.device.queue.execute.indirect<%device : !hal.device> signal(%fence) commands(%cmd) bindings([%a, %b])
    // CHECK: vm.call.import @hal.fence.await(%[[FENCE]], %{{.+}}) : (!vm.ref<!hal.fence>, i64) -> ()
    hal.fence.await until([%fence]) timeout_millis(%timeout)
    return
  }
  // CHECK: vm.rodata @__hal_executable_ex_system_elf_x86_64 dense<[1, 2, 3, 4]> : vector<4xi8> {executable = #vm.executable_variant<name = "ex", target = "llvm-cpu", format = "system-elf-x86_64", {{.*}}exports = [#vm.executable_export<name = "mul", ordinal = 0,
  // CHECK-NEXT: vm.rodata @__hal_string{{.*}} "ex"
  // CHECK-NEXT: vm.rodata @__hal_string{{.*}} "system-elf-x86_64"
  // CHECK-NOT: hal.executable
}

// -----

// Constant buffers: the value's bytes become a rodata (shared by equal
// values) that allocator.allocate.initialized copies into a new buffer.

// CHECK-LABEL: vm.module @constants
module @constants {
  // CHECK: vm.import @hal.allocator.allocate.initialized(!vm.ref<!hal.allocator>, !vm.ref<!vm.buffer>) -> !vm.ref<!hal.buffer>
  // CHECK: vm.func @f
  func.func @f(%allocator: !hal.allocator) -> (!hal.buffer, !hal.buffer, !hal.buffer) {
    // CHECK: %[[DATA:.+]] = vm.const.ref.rodata @__constant : !vm.ref<!vm.buffer>
    // CHECK: vm.call.import @hal.allocator.allocate.initialized(%{{.+}}, %[[DATA]]) : (!vm.ref<!hal.allocator>, !vm.ref<!vm.buffer>) -> !vm.ref<!hal.buffer>
    %a = hal.allocator.allocate.initialized<%allocator : !hal.allocator> value(dense<[1, 2, 3]> : tensor<3xi32>) : !hal.buffer
    // CHECK: vm.const.ref.rodata @__constant_1
    %b = hal.allocator.allocate.initialized<%allocator : !hal.allocator> value(dense<[true, false]> : tensor<2xi1>) : !hal.buffer
    // CHECK: vm.const.ref.rodata @__constant :
    %c = hal.allocator.allocate.initialized<%allocator : !hal.allocator> value(dense<[1, 2, 3]> : tensor<3xi32>) : !hal.buffer
    return %a, %b, %c : !hal.buffer, !hal.buffer, !hal.buffer
  }
  // CHECK: vm.rodata @__constant dense<[1, 2, 3]> : tensor<3xi32>
  // CHECK: vm.rodata @__constant_1 dense<[true, false]> : tensor<2xi1>
}

// -----

// hal.buffer.load: the import reads the element's bytes (1, 2, 4 or 8)
// zero-extended into an i64; the element's register is made from it: i64
// and index as they are, f64 bitcast, narrower types truncated to 32 bits,
// f32 bitcast, i8/i16 sign-extended and i1 masked (the canonical forms).

// CHECK-LABEL: vm.module @element_loads
module @element_loads {
  // CHECK: vm.import @hal.buffer.load(!vm.ref<!hal.device>, !vm.ref<!hal.buffer>, i64, i32) -> i64
  // CHECK: vm.func @loads(%[[DEVICE:.+]]: !vm.ref<!hal.device>, %[[BUFFER:.+]]: !vm.ref<!hal.buffer>, %[[OFFSET:.+]]: i64)
  func.func @loads(%device: !hal.device, %buffer: !hal.buffer, %offset: index) -> (f32, i8, i16, i1, i64, f64, index, i32) {
    // CHECK-DAG: %[[C4:.+]] = vm.const.i32 4
    // CHECK-DAG: %[[C1:.+]] = vm.const.i32 1
    // CHECK-DAG: %[[C2:.+]] = vm.const.i32 2
    // CHECK-DAG: %[[C8:.+]] = vm.const.i32 8
    // CHECK: %[[F:.+]] = vm.call.import @hal.buffer.load(%[[DEVICE]], %[[BUFFER]], %[[OFFSET]], %[[C4]]) : (!vm.ref<!hal.device>, !vm.ref<!hal.buffer>, i64, i32) -> i64
    // CHECK: %[[F32:.+]] = vm.trunc.i64.i32 %[[F]]
    // CHECK: vm.bitcast.i32.f32 %[[F32]]
    %f = hal.buffer.load<%device : !hal.device> source(%buffer : !hal.buffer)[%offset] : f32
    // CHECK: %[[B:.+]] = vm.call.import @hal.buffer.load(%[[DEVICE]], %[[BUFFER]], %[[OFFSET]], %[[C1]])
    // CHECK: %[[B32:.+]] = vm.trunc.i64.i32 %[[B]]
    // CHECK: vm.ext.i8.i32.s %[[B32]]
    %b = hal.buffer.load<%device : !hal.device> source(%buffer : !hal.buffer)[%offset] : i8
    // CHECK: %[[H:.+]] = vm.call.import @hal.buffer.load(%[[DEVICE]], %[[BUFFER]], %[[OFFSET]], %[[C2]])
    // CHECK: %[[H32:.+]] = vm.trunc.i64.i32 %[[H]]
    // CHECK: vm.ext.i16.i32.s %[[H32]]
    %h = hal.buffer.load<%device : !hal.device> source(%buffer : !hal.buffer)[%offset] : i16
    // CHECK: %[[P:.+]] = vm.call.import @hal.buffer.load(%[[DEVICE]], %[[BUFFER]], %[[OFFSET]], %[[C1]])
    // CHECK: %[[P32:.+]] = vm.trunc.i64.i32 %[[P]]
    // CHECK: vm.and.i32 %[[P32]], %[[C1]]
    %p = hal.buffer.load<%device : !hal.device> source(%buffer : !hal.buffer)[%offset] : i1
    // CHECK: vm.call.import @hal.buffer.load(%[[DEVICE]], %[[BUFFER]], %[[OFFSET]], %[[C8]])
    %l = hal.buffer.load<%device : !hal.device> source(%buffer : !hal.buffer)[%offset] : i64
    // CHECK: %[[D:.+]] = vm.call.import @hal.buffer.load(%[[DEVICE]], %[[BUFFER]], %[[OFFSET]], %[[C8]])
    // CHECK: vm.bitcast.i64.f64 %[[D]]
    %d = hal.buffer.load<%device : !hal.device> source(%buffer : !hal.buffer)[%offset] : f64
    // CHECK: vm.call.import @hal.buffer.load(%[[DEVICE]], %[[BUFFER]], %[[OFFSET]], %[[C8]])
    %x = hal.buffer.load<%device : !hal.device> source(%buffer : !hal.buffer)[%offset] : index
    // CHECK: %[[W:.+]] = vm.call.import @hal.buffer.load(%[[DEVICE]], %[[BUFFER]], %[[OFFSET]], %[[C4]])
    // CHECK: vm.trunc.i64.i32 %[[W]]
    %w = hal.buffer.load<%device : !hal.device> source(%buffer : !hal.buffer)[%offset] : i32
    return %f, %b, %h, %p, %l, %d, %x, %w : f32, i8, i16, i1, i64, f64, index, i32
  }
}

// -----

// hal.allocator.allocate.parameter: the scope and key as rodata strings, then
// what the runtime checks the stored tensor against: the element type's
// encoding, the byte length and the dims (a variadic tail of i64s).

// CHECK-LABEL: vm.module @parameters
module @parameters {
  // CHECK: vm.import @hal.allocator.allocate.parameter(!vm.ref<!hal.allocator>, !vm.ref<!vm.buffer>, !vm.ref<!vm.buffer>, i32, i64, ...) -> !vm.ref<!hal.buffer>
  // CHECK: vm.func @load(%[[ALLOCATOR:.+]]: !vm.ref<!hal.allocator>)
  func.func @load(%allocator: !hal.allocator) -> (!hal.buffer, !hal.buffer) {
    // f32 (0x20000020), 2x3 elements of 4 bytes:
    // CHECK-DAG: %[[F32:.+]] = vm.const.i32 536870944
    // CHECK-DAG: %[[BYTES:.+]] = vm.const.i64 24
    // CHECK-DAG: %[[C2:.+]] = vm.const.i64 2
    // CHECK-DAG: %[[C3:.+]] = vm.const.i64 3
    // i1 (0x13000001), one byte per element; a 0-d tensor has no dims:
    // CHECK-DAG: %[[I1:.+]] = vm.const.i32 318767105
    // CHECK-DAG: %[[C1:.+]] = vm.const.i64 1
    // CHECK: %[[SCOPE:.+]] = vm.const.ref.rodata @[[SCOPE_DATA:.+]] : !vm.ref<!vm.buffer>
    // CHECK: %[[KEY:.+]] = vm.const.ref.rodata @[[KEY_DATA:.+]] : !vm.ref<!vm.buffer>
    // CHECK: vm.call.import @hal.allocator.allocate.parameter(%[[ALLOCATOR]], %[[SCOPE]], %[[KEY]], %[[F32]], %[[BYTES]], %[[C2]], %[[C3]]) : (!vm.ref<!hal.allocator>, !vm.ref<!vm.buffer>, !vm.ref<!vm.buffer>, i32, i64, i64, i64) -> !vm.ref<!hal.buffer>
    %w = hal.allocator.allocate.parameter<%allocator : !hal.allocator> scope("model") key("fc.weight") : tensor<2x3xf32> -> !hal.buffer
    // CHECK: %[[EMPTY:.+]] = vm.const.ref.rodata @[[EMPTY_DATA:.+]] : !vm.ref<!vm.buffer>
    // CHECK: %[[FLAG:.+]] = vm.const.ref.rodata @[[FLAG_DATA:.+]] : !vm.ref<!vm.buffer>
    // CHECK: vm.call.import @hal.allocator.allocate.parameter(%[[ALLOCATOR]], %[[EMPTY]], %[[FLAG]], %[[I1]], %[[C1]]) : (!vm.ref<!hal.allocator>, !vm.ref<!vm.buffer>, !vm.ref<!vm.buffer>, i32, i64) -> !vm.ref<!hal.buffer>
    %m = hal.allocator.allocate.parameter<%allocator : !hal.allocator> scope("") key("flag") : tensor<i1> -> !hal.buffer
    // CHECK-DAG: vm.rodata @[[SCOPE_DATA]] "model"
    // CHECK-DAG: vm.rodata @[[KEY_DATA]] "fc.weight"
    // CHECK-DAG: vm.rodata @[[EMPTY_DATA]] ""
    // CHECK-DAG: vm.rodata @[[FLAG_DATA]] "flag"
    return %w, %m : !hal.buffer, !hal.buffer
  }
}

// -----

// Dispatch instrumentation: the ring is the hal.device.instrumentation_ring
// import's (byte length as i64); an instrumented dispatch's site id goes
// with its dispatch onto the call, for the module's dispatch-site table.

#timed = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer, Instrumentation>
]>

// CHECK-LABEL: vm.module @instrumentation
module @instrumentation {
  // CHECK-DAG: vm.import @hal.device.instrumentation_ring(!vm.ref<!hal.device>, i64) -> !vm.ref<!hal.buffer>
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @timed ordinal(0) layout(#timed) attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
  }
  // CHECK: vm.func @ring
  func.func @ring(%device: !hal.device) -> !hal.buffer {
    // CHECK: %[[BYTES:.+]] = vm.const.i64 4096
    %bytes = arith.constant 4096 : index
    // CHECK: %[[RING:.+]] = vm.call.import @hal.device.instrumentation_ring(%{{.+}}, %[[BYTES]]) : (!vm.ref<!hal.device>, i64) -> !vm.ref<!hal.buffer>
    %ring = hal.device.instrumentation_ring<%device : !hal.device> bytes(%bytes) : !hal.buffer
    // CHECK: vm.return %[[RING]]
    return %ring : !hal.buffer
  }
  // CHECK: vm.func @run
  func.func @run(%cmd: !hal.command_buffer, %exe: !hal.executable, %a: !hal.buffer, %ring: !hal.buffer) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c4096 = arith.constant 4096 : index
    %site = arith.constant 2 : i32
    // CHECK: vm.call.import @hal.command_buffer.dispatch({{[^)]*}}) {dispatch = @ex::@timed, kiln.dispatch_site_id = 2 : i32} : (!vm.ref<!hal.command_buffer>, !vm.ref<!hal.executable>, i32, i32, i32, i32, i32, i32, !vm.ref<!hal.buffer>, i64, i64, !vm.ref<!hal.buffer>, i64, i64) -> ()
    hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%site]) bindings([(%a : !hal.buffer)[%c0, %c16], (%ring : !hal.buffer)[%c0, %c4096]]) attributes {dispatch = @ex::@timed, kiln.dispatch_site_id = 2 : i32}
    // CHECK: vm.call.import @hal.command_buffer.dispatch.indirect({{[^)]*}}) {dispatch = @ex::@timed, kiln.dispatch_site_id = 3 : i32}
    hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0] workgroups([%c1, %c1, %c1]) constants([%site]) bindings([(%c0 : index)[%c0, %c16], (%c1 : index)[%c0, %c4096]]) attributes {dispatch = @ex::@timed, kiln.dispatch_site_id = 3 : i32}
    return
  }
}
