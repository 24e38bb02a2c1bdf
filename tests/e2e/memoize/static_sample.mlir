// The custom-dispatch sample with static shapes: its three dispatches (a
// barrier before each one that reads the previous result) are recorded once,
// on the first call, into a reusable command buffer kept in a global, and
// each call submits it with its own buffers. Run on both CPU devices, with
// and without memoization (--memoize-command-buffers=false records on every
// call); the results are the same.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir -o %t.kmod
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --output-format=mlir -o - | FileCheck %s --check-prefix=IR
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=mixed_invocation --input="8xf32=1 2 3 4 5 6 7 8" --input=8xf32=4 | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-run-module --device=cpu-sync --module=%t.kmod --function=mixed_invocation --input="8xf32=1 2 3 4 5 6 7 8" --input=8xf32=4 | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP
// The host-level IR after memoization is itself a program: compiled again
// (nothing left to memoize), it computes the same and keeps the dispatches'
// source locations (printed with --mlir-print-debuginfo).
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --mlir-print-ir-after=kiln-hal-memoize-command-buffers --mlir-print-debuginfo -o %t.unused.kmod 2> %t.memoized.mlir
// RUN: %kiln-compile %t.memoized.mlir -o %t.again.kmod
// RUN: %kiln-compile %t.memoized.mlir --output-format=mlir -o - | FileCheck %s --check-prefix=AGAIN
// RUN: %kiln-run-module --device=cpu-sync --module=%t.again.kmod --function=mixed_invocation --input="8xf32=1 2 3 4 5 6 7 8" --input=8xf32=4 | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-dump-module %t.again.kmod | FileCheck %s --check-prefix=DUMP
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --memoize-command-buffers=false -o %t.oneshot.kmod
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --memoize-command-buffers=false --output-format=mlir -o - | FileCheck %s --check-prefix=ONESHOT
// RUN: %kiln-run-module --device=cpu --module=%t.oneshot.kmod --function=mixed_invocation --input="8xf32=1 2 3 4 5 6 7 8" --input=8xf32=4 | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-run-module --device=cpu-sync --module=%t.oneshot.kmod --function=mixed_invocation --input="8xf32=1 2 3 4 5 6 7 8" --input=8xf32=4 | FileCheck %s --check-prefix=RESULT

// (a * b + b) * (a * b) for b = 4: (4a + 4) * 4a.
// RESULT: EXEC @mixed_invocation
// RESULT-NEXT: result[0]: hal.buffer_view
// RESULT-NEXT: 8xf32=32 96 192 320 480 672 896 1152

// The function (the final vm IR): the intermediate a * b is a range of the
// function's memory arena (--kiln-hal-plan-memory), the result keeps its
// allocation; at the submit point the global is loaded, recorded if null,
// and submitted with a, b, the arena and the result as binding-table slots
// 0-3.
// IR-LABEL: vm.func @mixed_invocation(
// IR-NOT:     @hal.command_buffer.
// IR:         %[[T0:.+]] = vm.global.load.ref @__hal_arena_mixed_invocation
// IR:         %[[DEVICE:.+]] = vm.global.load.ref @__hal_device
// IR:         %[[A:.+]] = vm.call.import @hal.buffer_view.buffer(%arg0)
// IR:         %[[B:.+]] = vm.call.import @hal.buffer_view.buffer(%arg1)
// IR:         %[[T1:.+]] = vm.call.import @hal.allocator.allocate(
// IR:         %[[FENCE:.+]] = vm.call.import @hal.fence.create(%[[DEVICE]])
// IR:         %[[CACHED:.+]] = vm.global.load.ref @__hal_command_buffer_0 {{.*}}: !vm.ref<!hal.command_buffer>
// IR-NEXT:    %[[NULL_CB:.+]] = vm.const.ref.null {{.*}}: !vm.ref<!hal.command_buffer>
// IR-NEXT:    %[[EMPTY:.+]] = vm.ref.eq %[[CACHED]], %[[NULL_CB]]
// IR-NEXT:    vm.cond_br %[[EMPTY]], ^[[RECORD:bb[0-9]+]], ^[[REUSE:bb[0-9]+]](%[[CACHED]] : !vm.ref<!hal.command_buffer>)
// IR-NEXT:  ^[[RECORD]]:
// IR-NEXT:    %[[NEW:.+]] = vm.call @__hal_record_command_buffer_0() {{.*}}: () -> !vm.ref<!hal.command_buffer>
// IR-NEXT:    vm.global.store.ref @__hal_command_buffer_0, %[[NEW]] : !vm.ref<!hal.command_buffer>
// IR-NEXT:    vm.br ^[[REUSE]](%[[NEW]] : !vm.ref<!hal.command_buffer>)
// IR-NEXT:  ^[[REUSE]](%[[CB:.+]]: !vm.ref<!hal.command_buffer>):
// IR-NEXT:    %[[NULL:.+]] = vm.const.ref.null {{.*}}: !vm.ref<!hal.fence>
// IR-NEXT:    vm.call.import @hal.device.queue.execute.indirect(%[[DEVICE]], %[[NULL]], %[[FENCE]], %[[CB]], %[[A]], %[[B]], %[[T0]], %[[T1]])
// IR-NEXT:    vm.call.import @hal.fence.await(%[[FENCE]],
// IR-NOT:     @hal.command_buffer.
// IR:         vm.return
// IR:       vm.global.ref mutable @__hal_command_buffer_0 {sym_visibility = "private"} : !vm.ref<!hal.command_buffer>
// The recording: a reusable command buffer (mode 1), the three dispatches
// on slots (lhs, rhs, out), the barriers, end.
// IR-LABEL: vm.func private @__hal_record_command_buffer_0() -> !vm.ref<!hal.command_buffer>
// IR-DAG:     %[[N:.+]] = vm.const.i32 8 {{.*}}: i32
// IR-DAG:     %[[LENGTH:.+]] = vm.const.i64 32 {{.*}}: i64
// IR-DAG:     %[[OFFSET:.+]] = vm.const.i64 0 {{.*}}: i64
// IR-DAG:     %[[ONE:.+]] = vm.const.i32 1 {{.*}}: i32
// IR-DAG:     %[[ZERO:.+]] = vm.const.i32 0 {{.*}}: i32
// IR-DAG:     %[[TWO:.+]] = vm.const.i32 2 {{.*}}: i32
// IR-DAG:     %[[THREE:.+]] = vm.const.i32 3 {{.*}}: i32
// IR:         %[[CB:[0-9]+]] = vm.call.import @hal.command_buffer.create(%{{.+}}, %[[ONE]])
// IR-NEXT:    %[[EXE:.+]] = vm.global.load.ref @__hal_executable_executable {{.*}}: !vm.ref<!hal.executable>
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %[[ZERO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[N]], %[[ZERO]], %[[OFFSET]], %[[LENGTH]], %[[ONE]], %[[OFFSET]], %[[LENGTH]], %[[TWO]], %[[OFFSET]], %[[LENGTH]]) {dispatch = @executable::@simple_mul}
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[N]], %[[TWO]], %[[OFFSET]], %[[LENGTH]], %[[ONE]], %[[OFFSET]], %[[LENGTH]], %[[THREE]], %[[OFFSET]], %[[LENGTH]]) {dispatch = @executable::@simple_add}
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %[[TWO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[N]], %[[TWO]], %[[OFFSET]], %[[LENGTH]], %[[THREE]], %[[OFFSET]], %[[LENGTH]]) {dispatch = @executable::@simple_mul_inplace}
// IR-NEXT:    vm.call.import @hal.command_buffer.end(%[[CB]])
// IR-NEXT:    vm.return %[[CB]] : !vm.ref<!hal.command_buffer>

// AGAIN:     vm.global.ref mutable @__hal_command_buffer_0 {sym_visibility = "private"} : !vm.ref<!hal.command_buffer>
// AGAIN-NOT: __hal_command_buffer_1

// Without memoization: one one-shot command buffer per call.
// ONESHOT-LABEL: vm.func @mixed_invocation(
// ONESHOT:         %[[CB:[0-9]+]] = vm.call.import @hal.command_buffer.create(%{{.+}}, %{{.+}})
// ONESHOT-COUNT-3: vm.call.import @hal.command_buffer.dispatch(%[[CB]],
// ONESHOT:         vm.call.import @hal.command_buffer.end(%[[CB]])
// ONESHOT:         vm.call.import @hal.device.queue.execute(%{{.+}}, %{{.+}}, %{{.+}}, %[[CB]])
// ONESHOT-NOT:     indirect
// ONESHOT-NOT:     __hal_command_buffer

// Every dispatch site is listed, in the recording function, with its source
// location (checked next to each dispatch below), and the recording function
// calls the dispatch.indirect import (checked at the end).
// DUMP:      globals: 0 bytes, 4 refs, initializer function {{[0-9]+}} '__initializer'
// DUMP:        @__hal_command_buffer_0 : hal.command_buffer at ref slot {{[0-9]+}}

#x86_64_target = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">

module @example {
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{#x86_64_target = [#hal.executable.object<{path = "kernels.so"}>]}>
  } {
    hal.executable.export public @simple_mul ordinal(0)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
    hal.executable.export public @simple_add ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
    hal.executable.export public @simple_mul_inplace ordinal(2)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
  }

  func.func @mixed_invocation(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {
    %c8 = arith.constant 8 : index
    %n = arith.constant 8 : i32
    // DUMP:      dispatch of @simple_mul in function {{[0-9]+}} '__hal_record_command_buffer_0' at offset {{[0-9]+}} ({{.*}}static_sample.mlir:[[# @LINE + 1]]:10)
    %0 = flow.dispatch @executable::@simple_mul[%c8](%n, %arg0, %arg1) : (i32, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    // DUMP-NEXT: dispatch of @simple_add in function {{[0-9]+}} '__hal_record_command_buffer_0' at offset {{[0-9]+}} ({{.*}}static_sample.mlir:[[# @LINE + 1]]:10)
    %1 = flow.dispatch @executable::@simple_add[%c8](%n, %0, %arg1) : (i32, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    // DUMP-NEXT: dispatch of @simple_mul_inplace in function {{[0-9]+}} '__hal_record_command_buffer_0' at offset {{[0-9]+}} ({{.*}}static_sample.mlir:[[# @LINE + 1]]:10)
    %2 = flow.dispatch @executable::@simple_mul_inplace[%c8](%n, %0, %1) : (i32, tensor<8xf32>, tensor<8xf32>) -> %1
    return %2 : tensor<8xf32>
  }
}

// DUMP:      function {{[0-9]+}} '__hal_record_command_buffer_0'
// DUMP:        call.import @hal.command_buffer.create(
// DUMP-COUNT-3: call.import @hal.command_buffer.dispatch.indirect(
